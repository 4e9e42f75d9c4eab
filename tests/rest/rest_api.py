"""A small HTTP client for the REST tests (plain module: importable without a tests package)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import requests


@dataclass
class Api:
    """A requests session bound to the REST server's base URL."""

    base: str
    session: requests.Session = field(default_factory=requests.Session)

    def call(self, method: str, path: str, token: str | None = None, **kwargs: Any) -> requests.Response:
        headers = dict(kwargs.pop("headers", {}))
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        kwargs.setdefault("timeout", 10)
        return self.session.request(method, self.base + path, headers=headers, **kwargs)

    def get(self, path: str, token: str | None = None, **kwargs: Any) -> requests.Response:
        return self.call("GET", path, token, **kwargs)

    def post(self, path: str, token: str | None = None, **kwargs: Any) -> requests.Response:
        return self.call("POST", path, token, **kwargs)

    def create_game(self, seats: int = 3, seed: int | None = 7) -> tuple[str, dict[int, str]]:
        """A TTR Europe game with every seat named: (name, {seat: token})."""
        body: dict[str, Any] = {
            "ruleset": "ttr-europe",
            "seatCount": seats,
            "displayNames": [f"p{i}" for i in range(seats)],
        }
        if seed is not None:
            body["seed"] = str(seed)
        reply = self.post("/v1/games", json=body)
        assert reply.status_code == 200, reply.text
        data = reply.json()
        return data["game"]["name"], {c.get("seat", 0): c["playerToken"] for c in data["credentials"]}

    def version(self, name: str) -> int:
        reply = self.get(f"/v1/{name}")
        assert reply.status_code == 200, reply.text
        return int(reply.json()["game"].get("version", "0"))


@dataclass
class SseEvent:
    """One Server-Sent Event (or a comment, with ``comment`` set)."""

    id: str | None = None
    event: str | None = None
    data: str = ""
    comment: str | None = None

    def json(self) -> Any:
        return json.loads(self.data)


class SseReader:
    """Reads SSE events and comments from one streaming response, across several reads."""

    def __init__(self, response: requests.Response) -> None:
        self.response = response
        self._lines = response.iter_lines(chunk_size=4096)

    def read(self, stop: Callable[[SseEvent], bool]) -> list[SseEvent]:
        """Items until ``stop`` is True for one (or the stream ends)."""
        seen: list[SseEvent] = []
        current = SseEvent()
        for raw in self._lines:
            line = raw.decode()
            item = None
            if line.startswith(":"):
                item = SseEvent(comment=line[1:].strip())
            elif line.startswith(("id: ", "event: ", "data: ")):
                key, value = line.split(": ", 1)
                if key == "data":
                    current.data += value
                else:
                    setattr(current, key, value)
            elif line == "" and (current.id or current.event or current.data):
                item, current = current, SseEvent()
            if item is not None:
                seen.append(item)
                if stop(item):
                    return seen
        return seen
