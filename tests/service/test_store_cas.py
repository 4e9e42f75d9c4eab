"""The store's compare-and-set contract, called directly on a real Redis: ``write`` answers
``(written, version)`` with the new version when it wrote and the current one when it did not."""

from __future__ import annotations

import asyncio
import uuid

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
