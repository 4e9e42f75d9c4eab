"""The store's compare-and-set contract, called directly on a real Redis: ``write`` answers
``(written, version)`` with the new version when it wrote and the current one when it did not."""

from __future__ import annotations

import asyncio
import uuid

from tabletop_server.service.store import keys
from tabletop_server.service.store.redis_store import GameStore, connect


def test_write_answers_the_new_version_or_the_current_one(redis_url: str) -> None:
    async def run() -> list[tuple[bool, int]]:
        client = connect(redis_url)
        store, game_id = GameStore(client), f"cas-{uuid.uuid4().hex}"
        try:
            return [await store.write(game_id, expected, b"{}", b"{}", 60) for expected in (0, 1, 1, 0, 2)]
        finally:
            await client.close()
    assert asyncio.run(run()) == [(True, 1), (True, 2), (False, 2), (False, 2), (True, 3)]


def test_the_seats_request_id_index_forgets_the_oldest_remembered_past_its_bound(redis_url: str) -> None:
    """Kept to 2 ids: a third write forgets the oldest one's response (counted); an entry older than the
    window (its response expired with it) leaves the index without counting or deleting anything, even
    when its id was used again after the window and that newer response is remembered."""
    async def run() -> tuple[list[int], list[int], list[str]]:
        forgotten: list[int] = []
        client = connect(redis_url)
        store, game_id, fingerprint = GameStore(client, on_forgotten=forgotten.append), f"cas-{uuid.uuid4().hex}", b"f" * 32
        window, version = 60_000, 1

        async def act(request_id: str, now: int) -> None:
            nonlocal version
            await store.write(game_id, version, b"{}", b"{}", 60, 0, request_id, b"answer", 60, fingerprint,
                              remember=(2, now, window))
            version += 1
        try:
            await store.write(game_id, 0, b"{}", b"{}", 60)
            for request_id, now in (("a", 1_000), ("b", 2_000), ("c", 3_000)):  # "a" forgotten past the bound
                await act(request_id, now)
            await client.execute("DEL", keys.request(game_id, 0, "b"))  # expired (the test's window is fake)
            await act("b", 2_000 + window)  # "b" used again: its old entry is stale, the new response stays
            await act("d", 2_000 + window)  # "c" still within the window: forgotten
            live = [await client.execute("EXISTS", keys.request(game_id, 0, r)) for r in ("a", "b", "c", "d")]
            index = [e.decode() for e in await client.execute("LRANGE", keys.remembered(game_id, 0), 0, -1)]
            return forgotten, live, index
        finally:
            await client.close()
    forgotten, live, index = asyncio.run(run())
    assert forgotten == [1, 1]
    assert live == [0, 1, 0, 1]
    assert index == ["62000:b", "62000:d"]  # <ms>:<id>, oldest first
