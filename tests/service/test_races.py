"""Lost races: the host re-evaluates on fresh state a few times, then answers ABORTED.

A store whose every write is preceded by a competing write from "another replica" (a real
Redis write that bumps the version) makes every compare-and-set lose, deterministically.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import redis
from tabletop.v1 import game_service_pb2 as svc

from tabletop_server.service.api.errors import Aborted
from tabletop_server.service.api.host import GameHost
from tabletop_server.service.config import Config
from tabletop_server.service.store import keys
from tabletop_server.service.store.redis_store import GameStore, connect


class RacingStore(GameStore):
    """Another replica wins every race: it writes between our read and our write."""

    def __init__(self, client: Any, races: int) -> None:
        super().__init__(client)
        self.races = races
        self.attempts = 0

    async def write(self, game_id: str, expected: int, *args: Any, **kwargs: Any) -> tuple[bool, int]:
        if expected > 0:
            self.attempts += 1
            if self.races > 0:
                self.races -= 1
                await self.client.execute("HINCRBY", keys.game(game_id), "v", 1)
        return await super().write(game_id, expected, *args, **kwargs)


def _submit_first(host: GameHost, name: str, token: str) -> bytes:
    async def submit() -> bytes:
        action = (await host.legal_actions(name, token)).actions[0]
        return await host.submit(svc.SubmitActionRequest(name=name, action=action), token)
    return asyncio.run(submit())


def _game(host: GameHost) -> tuple[str, str]:
    created = asyncio.run(host.create(svc.CreateGameRequest(ruleset="ttr-europe", seat_count=2, seed=5,
                                                            display_names=["a", "b"])))
    return created.game.name, created.credentials[0].player_token


def test_lost_races_are_retried_on_fresh_state(redis_url: str) -> None:
    store = RacingStore(connect(redis_url), races=2)
    host = GameHost(store, Config(cas_retries=5))
    name, token = _game(host)
    reply = svc.SubmitActionResponse.FromString(_submit_first(host, name, token))
    assert store.attempts == 3
    assert reply.game.version == 4  # version 1, two competing bumps, then ours


def test_too_many_lost_races_is_aborted_and_changes_nothing(redis_url: str) -> None:
    store = RacingStore(connect(redis_url), races=100)
    host = GameHost(store, Config(cas_retries=3))
    name, token = _game(host)
    plain = redis.Redis.from_url(redis_url)
    doc_before = plain.hget(keys.game(name.split("/")[1]), "doc")
    with pytest.raises(Aborted) as err:
        _submit_first(host, name, token)
    assert err.value.reason == "CONFLICT"
    assert store.attempts == 3
    assert plain.hget(keys.game(name.split("/")[1]), "doc") == doc_before
