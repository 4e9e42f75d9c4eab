"""Game creation limits, shared by every replica through Redis (issue 12).

One client created 10,000 games in 14 s, each about 7 KB kept for 7 days. Each creation
now counts against its *creator*: the API key when the call carries a valid one (an
integrator's backend creates for many users from one address), else the client address
(the peer, or the address the REST facade forwarded, see ``limits.py``). Per creator:

- a rate, games per minute, as a token bucket (bursts up to the per-minute figure);
- a cap on open games: created and not yet over (waiting or active), counted in a sorted
  set of game ids scored by when they stop counting (creation + the game TTL). When a
  creator is at the cap, the set is checked against the games themselves and finished
  or expired games are dropped, so play that ends frees its slot without any hook in
  the game path.

Both live under one hash tag per creator (``{c:<creator>}``), so the admission script
runs on one slot of a Redis Cluster. Admission reserves a slot in the same script (no
two concurrent creations pass one last slot); the reservation becomes the game id once
created, or is released when creation fails. Refusals are RESOURCE_EXHAUSTED with a
stable reason, the limit in the ErrorInfo, and a RetryInfo (REST: 429 with Retry-After).
"""

from __future__ import annotations

import hashlib
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from tabletop_server.service.api.errors import RateLimited, ServiceReason
from tabletop_server.service.config import Config
from tabletop_server.service.store import keys as game_keys
from tabletop_server.service.store import resp

ADMIT = resp.Script((Path(__file__).parents[1] / "store" / "creation.lua").read_text())
RESERVATION_MS = 60_000  # a creation in flight holds its slot at most this long
OVER = ("FINISHED", "ABANDONED")


class CreationRefused(RateLimited):
    """A creation over a creator's rate or open-games cap (a RESOURCE_EXHAUSTED with RetryInfo)."""

    def __init__(self, reason: str, message: str, retry_after: float, **details: object) -> None:
        super().__init__("creator", retry_after, 0)
        self.reason, self.message = reason, message
        self.details = {k: str(v) for k, v in details.items()}


@dataclass(frozen=True)
class Creator:
    """Who a creation counts against, and that creator's limits."""

    kind: str  # "address", "api_key", "player", or "guest" (an address's guest sessions: a rate only)
    id: str
    per_minute: float
    max_open: int

    def keys(self) -> list[str]:
        tag = "{c:" + hashlib.sha256(f"{self.kind}:{self.id}".encode()).hexdigest()[:32] + "}"
        return [f"{tag}:rate", f"{tag}:open"]


class CreationLimits:
    """Admit, record and release creations against the creator's shared counters."""

    def __init__(self, client: Any, config: Config, on_refused: Callable[[str], None],
                 clock: Callable[[], float] = time.time) -> None:
        self.client = client
        self.config = config
        self.on_refused = on_refused
        self.clock = clock

    def creator(self, api_key: str | None, address: str, player: str = "") -> Creator | None:
        """The creator of a call (its API key, else its signed-in player, else its address), or None when
        its limits are all off. A player counts as an address does: one person."""
        c = self.config
        if player and not api_key:
            found = Creator("player", player, c.create_per_minute_per_address, c.max_open_games_per_address)
        elif api_key:
            found = Creator("api_key", api_key, c.create_per_minute_per_api_key, c.max_open_games_per_api_key)
        else:
            found = Creator("address", address, c.create_per_minute_per_address, c.max_open_games_per_address)
        return found if found.per_minute > 0 or found.max_open > 0 else None

    def guest_creator(self, address: str) -> Creator | None:
        """Who a guest session counts against: its address, at the per-address creation rate (a bucket of
        its own), so guest sign-ups cannot fill Redis with sessions; None when that rate is off."""
        per_minute = self.config.create_per_minute_per_address
        return Creator("guest", address, per_minute, 0) if per_minute > 0 else None

    async def admit(self, creator: Creator) -> str:
        """A reservation held for this creation; raises ``CreationRefused``."""
        reservation = "r:" + secrets.token_hex(8)
        for attempt in range(2):
            verdict, value = await self._run(creator, reservation)
            if verdict != 2 or attempt or not await self._drop_finished(creator):
                break
        if verdict == 0:
            return reservation
        self.on_refused(f"{'rate' if verdict == 1 else 'open_games'}_{creator.kind}")
        if verdict == 1:
            raise CreationRefused(ServiceReason.CREATE_RATE_LIMITED,
                                  f"This {_label(creator)} may create {creator.per_minute:g} "
                                  f"{'guest sessions' if creator.kind == 'guest' else 'games'} a minute; "
                                  f"retry after {value / 1000:.1f}s.", value / 1000,
                                  scope=creator.kind, limit_per_minute=f"{creator.per_minute:g}")
        raise CreationRefused(ServiceReason.TOO_MANY_OPEN_GAMES,
                              f"This {_label(creator)} has {value} open games (the limit is {creator.max_open}); "
                              "finish or abandon one first.", 60.0, scope=creator.kind, limit=creator.max_open)

    async def record(self, creator: Creator, reservation: str, game_name: str) -> None:
        """The reservation becomes the created game, counted until it would expire."""
        if creator.max_open <= 0:
            return
        open_key = creator.keys()[1]
        until = int(self.clock() * 1000) + self.config.game_ttl_seconds * 1000
        await self.client.pipeline(("ZADD", open_key, until, game_name.removeprefix("games/")),
                                   ("ZREM", open_key, reservation),
                                   ("PEXPIRE", open_key, self.config.game_ttl_seconds * 1000))  # >= every score

    async def release(self, creator: Creator, reservation: str) -> None:
        """Give back the slot of a creation that failed."""
        if creator.max_open > 0:
            await self.client.execute("ZREM", creator.keys()[1], reservation)

    async def _run(self, creator: Creator, reservation: str) -> tuple[int, int]:
        reply = await self.client.evalsha(ADMIT, creator.keys(), [
            int(self.clock() * 1000), f"{creator.per_minute:g}", creator.max_open, reservation, RESERVATION_MS])
        return int(reply[0]), int(reply[1])

    async def _drop_finished(self, creator: Creator) -> bool:
        """Drop the creator's games that are over or gone; True when any was dropped."""
        open_key = creator.keys()[1]
        members = [m.decode() if isinstance(m, bytes) else str(m)
                   for m in await self.client.execute("ZRANGE", open_key, 0, creator.max_open - 1)]
        games = [m for m in members if not m.startswith("r:")]
        if not games:
            return False
        docs = await self.client.pipeline(*[("HGET", game_keys.game(g), "doc") for g in games])
        over = [g for g, doc in zip(games, docs, strict=True)
                if doc is None or (isinstance(doc, bytes) and orjson.loads(doc).get("status") in OVER)]
        if over:
            await self.client.execute("ZREM", open_key, *over)
        return bool(over)


def _label(creator: Creator) -> str:
    return {"api_key": "API key", "player": "player"}.get(creator.kind, "address")  # a guest's is its address
