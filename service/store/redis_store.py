"""The game store: one read round trip, one atomic write round trip (Principle 4).

``load`` reads the version, the document and (when a request id is given) that
request's remembered response in one pipelined round trip. ``write`` runs
``cas.lua``: check the version, write the document, bump the version, append the
log entry to the game's stream and remember the response, all at once.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import redis
from redis.cluster import RedisCluster

from service.store import keys

_CAS = (Path(__file__).with_name("cas.lua")).read_text()


@dataclass(frozen=True)
class Loaded:
    """A game as read: ``version`` 0 means it does not exist."""

    version: int
    doc: bytes | None
    cached_response: bytes | None


def connect(url: str) -> Any:
    """A Redis client for ``redis://``, ``rediss://``, ``unix://`` or ``redis[s]+cluster://`` URLs.

    A cluster URL names any one node (``redis+cluster://user:pass@host:port``); the
    client discovers the rest and follows MOVED/ASK redirects. Every key of a game
    shares one hash tag (``keys.py``), so the CAS script and the read pipeline touch
    a single slot.
    """
    for scheme in ("redis", "rediss"):
        if url.startswith(f"{scheme}+cluster://"):
            return RedisCluster.from_url(f"{scheme}://" + url.removeprefix(f"{scheme}+cluster://"),
                                         socket_timeout=5, socket_connect_timeout=2)
    return redis.Redis.from_url(url, socket_timeout=5, socket_connect_timeout=2,
                                max_connections=2048, health_check_interval=30)


class GameStore:
    """Reads and atomically writes games in Redis. Holds no game state itself."""

    def __init__(self, client: Any,
                 probe: Callable[[str, str | None], AbstractContextManager[Any]] | None = None) -> None:
        self.client = client
        self._cas = client.register_script(_CAS)
        self.probe = probe or _no_probe  # times (and traces) each round trip: probe(op, game_id)

    def load(self, game_id: str, seat: int | None = None, request_id: str = "") -> Loaded:
        """Version, document and remembered response, in one round trip.

        Without a request id this is a single HMGET; with one, HMGET and GET go in one
        pipeline (a pipeline costs the client noticeably more than a single command).
        """
        cached = None
        if request_id and seat is not None:
            pipe = self.client.pipeline(transaction=False)
            pipe.hmget(keys.game(game_id), "v", "doc")
            pipe.get(keys.request(game_id, seat, request_id))
            with self.probe("load", game_id):
                (version, doc), cached = pipe.execute()
        else:
            with self.probe("load", game_id):
                version, doc = self.client.hmget(keys.game(game_id), "v", "doc")
        return Loaded(int(version or 0), doc, cached)

    def write(self, game_id: str, expected: int, doc: bytes, entry: bytes, ttl: int,
              seat: int | None = None, request_id: str = "", response: bytes = b"",
              response_ttl: int = 86400) -> tuple[bool, int]:
        """Compare-and-set; returns ``(written, version)`` (the current version when not written)."""
        req_key = keys.request(game_id, seat if seat is not None else -1, request_id or "-")
        with self.probe("write", game_id):
            ok, version = self._cas(
                keys=[keys.game(game_id), keys.stream(game_id), req_key],
                args=[expected, doc, entry, ttl, response if request_id else b"", response_ttl])
        return bool(ok), int(version)

    def entries(self, game_id: str, after_version: int, count: int | None = None) -> list[tuple[int, bytes]]:
        """Log entries with a version above ``after_version``, oldest first."""
        with self.probe("entries", game_id):
            raw = self.client.xrange(keys.stream(game_id), min=f"{after_version + 1}-0", max="+", count=count)
        return [(_version(entry_id), fields[b"e"]) for entry_id, fields in raw]

    def wait_entries(self, game_id: str, after_version: int, block_ms: int) -> list[tuple[int, bytes]]:
        """Block up to ``block_ms`` for entries after ``after_version``."""
        raw = self.client.xread({keys.stream(game_id): f"{after_version}-0"}, block=block_ms, count=256)
        if not raw:
            return []
        return [(_version(entry_id), fields[b"e"]) for entry_id, fields in raw[0][1]]

    def first_version(self, game_id: str) -> int:
        """The oldest version still in the log (0 when the log is empty)."""
        with self.probe("first_version", game_id):
            raw = self.client.xrange(keys.stream(game_id), count=1)
        return _version(raw[0][0]) if raw else 0

    def ping(self) -> bool:
        """True when Redis answers (on a cluster: when a reachable master reports ``cluster_state:ok``)."""
        with self.probe("ping", None):
            if isinstance(self.client, RedisCluster):
                return _cluster_ok(self.client)
            return bool(self.client.ping())


# Helpers

def _cluster_ok(client: RedisCluster) -> bool:
    """The first reachable master's view of the cluster state.

    PING alone answers from any live node, even after the cluster has gone to
    ``fail`` (a master down without a replica) and refuses every command.
    """
    for node in client.get_primaries():  # type: ignore[no-untyped-call]
        try:
            info = client.cluster_info(target_nodes=node)
        except redis.RedisError:
            continue
        return bool(info.get("cluster_state") == "ok")
    return False


def _no_probe(op: str, game_id: str | None) -> AbstractContextManager[Any]:
    return nullcontext()


def _version(entry_id: bytes | str) -> int:
    text = entry_id.decode() if isinstance(entry_id, bytes) else entry_id
    return int(text.split("-", 1)[0])
