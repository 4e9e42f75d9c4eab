"""A bound on remembered request-id responses, per seat (per player token), in Redis.

Each SubmitAction with a ``request_id`` leaves its response (a few KB: the new view and
events) in Redis for ``TABLETOP_REQUEST_ID_TTL_SECONDS``, so a retry gets the same answer.
Without a bound, a seat could keep as many as it makes moves in a day. Here each seat keeps
an index of its request ids (a sorted set by time, under the game's hash tag, so it sits
in the game's Redis Cluster slot); past ``TABLETOP_MAX_REQUEST_IDS_PER_SEAT`` the oldest
responses are forgotten. A client retries its last request, not one from a hundred moves
ago; one that did would have it applied again only if still legal, and an
``expected_version`` (``If-Match``) makes even that a STALE_VERSION.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from tabletop_server.service.store import keys


def index(game_id: str, seat: int) -> str:
    """The seat's sorted set of remembered request ids (score: ms when remembered)."""
    return f"{keys.game(game_id)}:reqs:{seat}"


class RememberedResponses:
    """Keeps at most ``limit`` remembered responses per seat; the rest are deleted oldest first."""

    def __init__(self, client: Any, limit: int, ttl_seconds: int, on_forgotten: Callable[[int], None],
                 clock: Callable[[], float] = time.time) -> None:
        self.client = client
        self.limit = limit
        self.ttl_ms = ttl_seconds * 1000
        self.on_forgotten = on_forgotten
        self.clock = clock

    async def remembered(self, game_id: str, seat: int, request_id: str) -> None:
        """Note one remembered response (after the write that stored it); trim the seat's oldest."""
        now = int(self.clock() * 1000)
        key = index(game_id, seat)
        replies = await self.client.pipeline(("ZADD", key, now, request_id),
                                             ("ZREMRANGEBYSCORE", key, "-inf", now - self.ttl_ms),
                                             ("PEXPIRE", key, self.ttl_ms), ("ZCARD", key))
        over = int(replies[-1]) - self.limit
        if over <= 0:
            return
        popped = await self.client.execute("ZPOPMIN", key, over)
        ids = [m.decode() if isinstance(m, bytes) else str(m) for m in popped[0::2]]
        if ids:
            await self.client.execute("DEL", *[keys.request(game_id, seat, i) for i in ids])
            self.on_forgotten(len(ids))
