"""The players' index's crash points below the service, on a real Redis (issue 27, store/player_index.py):

- a mark whose write never comes (the writer died between its mark and its compare-and-set) is fenced
  after ``index_fence_seconds``, and that write, if it comes later after all, is refused by ``cas.lua``;
- a mark drained before its write lands (the writer is slow) waits for it, so the write is indexed;
- an entry applied again, or an older one applied after a newer, changes nothing, and makes no second
  notification.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from pathlib import Path
from typing import Any

import orjson

from tabletop_server.service.api.indexer import Indexer
from tabletop_server.service.config import Config
from tabletop_server.service.store import keys, player_index
from tabletop_server.service.store.player_index import PlayerIndex, Update
from tabletop_server.service.store.redis_store import GameStore, connect
from tests.service.webhook_kit import private_redis


def _config(redis_url: str) -> Config:
    return Config(redis_url=redis_url, index_fence_seconds=0.3, index_retry_seconds=0.02, index_shards=1)


def _doc(game_id: str, player: str) -> bytes:
    """A minimal stored game of one seat bound to ``player`` (enough for the drain to index)."""
    return orjson.dumps({"id": game_id, "ruleset": "no-such-ruleset", "seats": [{"player": player}],
                         "players": [player], "status": "WAITING", "updated": time.time()})


async def _scenario(redis_url: str) -> dict[str, Any]:
    client = connect(redis_url)
    store = GameStore(client)
    config = _config(redis_url)
    index = PlayerIndex(client, 1, 10, 3600, 3600)
    await index.ensure_groups()
    consumer = f"test-{secrets.token_hex(4)}"
    drain = Indexer(index, config, consumer)
    out: dict[str, Any] = {}
    try:
        # 1. A mark whose write never came: fenced, and the late write is refused.
        game = secrets.token_hex(8)
        await client.execute(*player_index.mark_command(game, 1, "n1", 1))
        marks = await index.read(0, consumer, 100, 100)
        mine = [m for m in marks if m.game_id == game]
        waiting = await drain.handle(0, mine)
        out["waits_first"] = [m.id for m in waiting] == [m.id for m in mine]
        await asyncio.sleep(config.index_fence_seconds + 0.1)
        out["done_after_fence"] = await drain.handle(0, waiting) == []
        out["late_write"] = await store.write(game, 0, _doc(game, "p1"), b"{}", 60, nonce="n1")
        out["fresh_write"] = await store.write(game, 0, _doc(game, "p1"), b"{}", 60, nonce="n2")
        # 2. A mark drained before its write: it waits, then the write lands and is acknowledged.
        other = secrets.token_hex(8)
        await client.execute(*player_index.mark_command(other, 1, "m1", 1))
        early = [m for m in await index.read(0, consumer, 100, 100) if m.game_id == other]
        still = await drain.handle(0, early)
        written = await store.write(other, 0, _doc(other, "p2"), b"{}", 60, nonce="m1")
        out["slow_write"] = (len(still), written, await drain.handle(0, still))
        pending = await client.execute("XPENDING", keys.index_stream(0), player_index.GROUP, "-", "+", 1000, consumer)
        held = {(p[0].decode() if isinstance(p[0], bytes) else p[0]) for p in pending}
        out["pending"] = len(held & {m.id for m in [*mine, *early]})
        # 3. Version-stamped entries: a repeat or an older one changes nothing and tells nothing twice.
        pid = f"fence-{secrets.token_hex(4)}"
        newer = Update(pid, "g1", 5, 1.0, "5,A,0,0", b"v5", int(time.time() * 1000) + 60_000)
        older = Update(pid, "g1", 4, 2.0, "4,A,0,0", b"v4", int(time.time() * 1000) + 60_000)
        now = int(time.time() * 1000)
        for update in (newer, newer, older):
            await index.apply([update], now)
        out["entry"] = await client.execute("HGET", keys.player(pid, "entry"), "g1")
        out["told"] = int(await client.execute("XLEN", keys.player(pid, "inbox")))
    finally:
        await client.close()
    return out


def test_fences_waits_and_version_stamps_lose_nothing_and_double_nothing(tmp_path: Path) -> None:
    # A Redis of its own: another test's server draining the shared index stream in the same consumer group
    # took this test's mark (a parallel CI run), so nobody fenced it within the test's 0.4 s.
    with private_redis(tmp_path) as own:
        out = asyncio.run(_scenario(own))
    assert out["waits_first"], "a mark whose write is missing is not acknowledged at once"
    assert out["done_after_fence"], "after the fence time the mark is given up (fenced) and acknowledged"
    assert out["late_write"] == (False, 0), "the write of a fenced mark is refused"
    assert out["fresh_write"] == (True, 1), "a write with a new mark goes through"
    assert out["slow_write"] == (1, (True, 1), []), "a mark waits for its slow write, then is done"
    assert out["pending"] == 0, "both marks acknowledged"
    assert out["entry"] == b"v5", "neither a repeat nor an older version replaced the newest entry"
    assert out["told"] == 1, "one TURN_STARTED for the turn, however often it was applied"
