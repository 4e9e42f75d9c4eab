"""The compare-and-set on a real Redis Cluster (issue 29): a stale copy is answered with the current
document, and the seat's request-id index, kept to its bound inside the script, deletes the oldest
remembered response under the game's hash tag; every key it touches is in the game's one slot."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator

import pytest

from tabletop_server.service.store import keys
from tabletop_server.service.store.redis_store import GameStore, connect
from tests.ops.cluster import RedisCluster3


@pytest.fixture(scope="module")
def cluster() -> Iterator[RedisCluster3]:
    nodes = RedisCluster3()
    nodes.start()
    yield nodes
    nodes.stop()


def test_stale_copies_and_the_request_id_bound_on_a_cluster(cluster: RedisCluster3) -> None:
    async def run() -> tuple[object, ...]:
        forgotten: list[int] = []
        mine = GameStore(connect(cluster.url), cache_games=10, on_forgotten=forgotten.append)
        theirs = GameStore(connect(cluster.url), cache_games=10)
        game_id, fingerprint = uuid.uuid4().hex[:16], b"f" * 32
        try:
            await mine.write(game_id, 0, b"v1", b"{}", 60)
            for version, request_id in ((1, "first"), (2, "second")):
                await mine.write(game_id, version, f"v{version + 1}".encode(), b"{}", 60, 0, request_id, b"answer",
                                 60, fingerprint, remember=(1, 1000 * version, 60_000))
            left = [await mine.client.execute("EXISTS", keys.request(game_id, 0, r)) for r in ("first", "second")]
            await theirs.write(game_id, 3, b"v4", b"{}", 60, stamp=(await theirs.load(game_id)).stamp)
            copy = mine.cached(game_id)
            assert copy is not None
            stale = await mine.write(game_id, 3, b"lost", b"{}", 60, stamp=copy.stamp)
            fresh = mine.cached(game_id)
            assert fresh is not None
            return left, forgotten, stale, (fresh.version, fresh.doc)
        finally:
            await mine.close()
            await theirs.close()
    left, forgotten, stale, fresh = asyncio.run(run())
    assert left == [0, 1] and forgotten == [1]
    assert stale == (False, 4) and fresh == (4, b"v4")
