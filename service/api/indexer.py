"""Every replica's drain of the player index's marks (``store/player_index.py``, DESIGN 19).

One task per mark stream reads new marks in the consumer group (``XREADGROUP``, blocking) and,
every ``lease / 2``, takes over the marks another replica held for longer than ``lease`` (it died
or hung: ``XAUTOCLAIM``). A mark is handled by reading its game and applying every player's entry
(version-stamped, so handling a mark twice, late, or after a newer one changes nothing), then
acknowledged. A mark whose write is not in the game yet is looked at again every ``retry``
seconds; after ``fence`` seconds the write is fenced (it can no longer happen) and the mark done.

The staleness bound of ``ListMyGames`` follows: normally one blocked read's wake-up plus a read of
the game and one pipelined round trip of scripts (milliseconds); after a replica died holding a
mark, ``lease`` plus that; after a writer stalled between its mark and its write, ``fence``.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any

import orjson

from tabletop_server.service.api import my_games, ratings, webhook_forward
from tabletop_server.service.config import Config
from tabletop_server.service.engine import registry
from tabletop_server.service.store import keys
from tabletop_server.service.store.player_index import Mark, PlayerIndex
from tabletop_server.service.store.ratings import RatingStore

log = logging.getLogger("tabletop.indexer")


class Indexer:
    """The drain of one replica (``consumer`` names it in the group: unique per process)."""

    def __init__(self, index: PlayerIndex, config: Config, consumer: str, clock: Callable[[], float] = time.time,
                 on_error: Callable[[], None] | None = None, on_indexed: Callable[[float], None] | None = None) -> None:
        self.index, self.config, self.consumer, self.clock = index, config, consumer, clock
        self.on_error = on_error  # metrics: a failed drain step
        self.on_indexed = on_indexed  # metrics: seconds from a write to its index entries
        self.ratings = RatingStore(index.client)
        self.first_seen: dict[str, float] = {}  # mark id -> when this replica first found its write missing

    async def run(self) -> None:
        """Drain every stream until cancelled."""
        while True:
            try:
                await self.index.ensure_groups()
                break
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 - Redis away at start: try again
                self._failed("player index: creating the consumer groups failed; retrying")
                await asyncio.sleep(1.0)
        await asyncio.gather(*(self._drain(shard) for shard in range(self.index.shards)))

    async def _drain(self, shard: int) -> None:
        lease_ms = int(self.config.index_lease_seconds * 1000)
        next_claim = 0.0
        waiting: list[Mark] = []  # marks whose write is not in the game yet
        while True:
            try:
                marks = list(waiting)
                if time.monotonic() >= next_claim:
                    marks += await self.index.reclaim(shard, self.consumer, lease_ms, self.config.index_batch)
                    next_claim = time.monotonic() + self.config.index_lease_seconds / 2
                block = int((self.config.index_retry_seconds if waiting else self.config.index_block_seconds) * 1000)
                marks += await self.index.read(shard, self.consumer, self.config.index_batch, block)
                waiting = await self.handle(shard, _unique(marks))
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 - logged; unacknowledged marks are read again (reclaim)
                self._failed("player index: a drain step failed; its marks are taken again")
                await asyncio.sleep(self.config.index_retry_seconds)

    async def handle(self, shard: int, marks: list[Mark]) -> list[Mark]:
        """Index the games of ``marks`` and acknowledge them; the marks still waiting for their write."""
        if not marks:
            return []
        by_game: dict[str, list[Mark]] = {}
        for mark in marks:
            by_game.setdefault(mark.game_id, []).append(mark)
        loaded = await self.index.client.pipeline(*(("HMGET", keys.game(g), "v", "doc") for g in by_game))
        now = self.clock()
        done, waiting, updates, finished = [], [], [], []
        for (game_id, game_marks), reply in zip(by_game.items(), loaded, strict=True):
            if isinstance(reply, Exception):
                raise reply
            version, raw = int(reply[0] or 0), reply[1]
            for mark in game_marks:
                if mark.version <= version or await self._given_up(mark):
                    done.append(mark)
                    self.first_seen.pop(mark.id, None)
                else:
                    waiting.append(mark)
            if raw is not None and any(m in done for m in game_marks):
                doc = orjson.loads(raw)
                updates += self._updates(doc, version)
                if doc["status"] == "FINISHED":
                    finished.append(doc)
        await self.index.schedule_near(updates)  # before the entries: a crash between them re-drains both
        await self.index.apply(updates, int(now * 1000))
        # Webhooks of the notifications just made (or made by a drain that died before this): before the
        # marks are acknowledged, so a crash here leaves them to be drained, and forwarded, again.
        await webhook_forward.forward(self.index, self.config, (u.player_id for u in updates))
        await self._rate(finished, now)  # also before the acknowledgement: a rating is never lost
        if done:
            await self.index.done(shard, [m.id for m in done])
            if self.on_indexed is not None:
                for mark in done:
                    self.on_indexed(max(0.0, now - int(mark.id.split("-")[0]) / 1000))
        return waiting

    def _updates(self, doc: dict[str, Any], version: int) -> list[Any]:
        ruleset = registry.get(doc["ruleset"])
        if ruleset is None:
            return []
        ttl = self.config.finished_game_ttl_seconds if doc["status"] == "FINISHED" else self.config.game_ttl_seconds
        return my_games.updates(doc, version, ruleset, ttl, self.config.deadline_near_share)

    async def _rate(self, docs: list[dict[str, Any]], now: float) -> None:
        """Rate the finished games (each update happens once however often its game is drained)."""
        ttl = self.config.finished_game_ttl_seconds + 86400
        for doc in docs:
            ruleset = registry.get(doc["ruleset"])
            if ruleset is not None:
                await ratings.rate_game(self.ratings, doc, ruleset, ttl, int(now * 1000))

    async def _given_up(self, mark: Mark) -> bool:
        """True once the mark's write is fenced (after ``fence`` seconds of waiting for it here), or
        reached the game meanwhile (then the game is read again at the next pass: False)."""
        first = self.first_seen.setdefault(mark.id, time.monotonic())
        if time.monotonic() - first < self.config.index_fence_seconds:
            return False
        return await self.index.fence(mark.game_id, mark.version, mark.nonce)

    def _failed(self, message: str) -> None:
        log.exception(message)
        if self.on_error is not None:
            self.on_error()


async def tell_near(index: PlayerIndex, member: str, config: Config | None = None) -> None:
    """The near-deadline sweeper's work for one entry (``<player>\n<game>\n<turn>``): a DEADLINE_NEAR,
    once per turn and only while that turn is the indexed one (``player_index.NEAR``); then its webhook
    (also when this is a repeat after a replica died between the two: the cursor finds it); nothing follows."""
    player_id, game_id, turn = member.split("\n")
    await index.near(player_id, game_id, turn)
    if config is not None:
        await webhook_forward.forward(index, config, (player_id,))


def _unique(marks: list[Mark]) -> list[Mark]:
    seen: set[str] = set()
    out = []
    for mark in marks:
        if mark.id not in seen:
            seen.add(mark.id)
            out.append(mark)
    return out
