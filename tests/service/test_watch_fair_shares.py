"""One client cannot take every WatchGame slot of a replica (issue 26, item 2).

An anonymous client opened 200 WatchGame streams: 192 were served, and then an SSE watch of another
game (each SSE-watched game holds one of those slots in ``serve``) was refused. A client address now
holds at most a quarter of the slots (at least 8) and a player token ``TABLETOP_MAX_WATCHES_PER_TOKEN``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from tabletop.v1 import game_service_pb2 as svc
from tabletop.v1 import game_service_pb2_grpc

from tabletop_server.service.api.limits import watch_share_per_address
from tabletop_server.service.config import Config
from tests.conftest import start_grpc
from tests.helpers import bearer, create_game, error_info

SECRET = "facade-secret"


@pytest.fixture()
def server(redis_url: str) -> Iterator[Any]:
    running = start_grpc(redis_url, max_watch_streams=32, proxy_secret=SECRET)  # 8 per address, 8 per token
    yield running
    running.running.stop(0)


def _open(stub: Any, name: str, metadata: list[tuple[str, str]]) -> Any:
    call = stub.WatchGame(svc.WatchGameRequest(name=name), metadata=metadata, timeout=20)
    call.initial_metadata()  # open (or refused)
    return call


def _refusal(call: Any) -> str:
    with pytest.raises(grpc.RpcError) as err:
        next(call)
    assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    return error_info(err.value).reason


def test_one_address_gets_its_share_and_others_still_watch(server: Any) -> None:
    with grpc.insecure_channel(server.target) as channel:
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        game, _ = create_game(stub, seats=2)
        greedy = [_open(stub, game.name, []) for _ in range(8)]  # an anonymous client at 127.0.0.1
        try:
            assert _refusal(_open(stub, game.name, [])) == "TOO_MANY_WATCHES_PER_ADDRESS"
            # another client (its address forwarded by the REST facade) still gets a slot
            other = _open(stub, game.name, [("x-forwarded-for", "203.0.113.9"), ("x-tabletop-proxy", SECRET)])
            other.cancel()
        finally:
            for call in greedy:
                call.cancel()


def test_one_token_gets_its_share(server: Any) -> None:
    with grpc.insecure_channel(server.target) as channel:
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        game, tokens = create_game(stub, seats=2)
        via = [(f"203.0.113.{i}", [("x-forwarded-for", f"203.0.113.{i}"), ("x-tabletop-proxy", SECRET),
                                   *bearer(tokens[0])]) for i in range(9)]
        calls = [_open(stub, game.name, metadata) for _, metadata in via[:8]]  # 8 addresses, one token
        try:
            assert _refusal(_open(stub, game.name, via[8][1])) == "TOO_MANY_WATCHES_PER_TOKEN"
        finally:
            for call in calls:
                call.cancel()


def test_the_share_per_address() -> None:
    assert watch_share_per_address(Config()) == 48  # a quarter of 192
    assert watch_share_per_address(Config(max_watch_streams=4)) == 4  # never under 8 (nor over the total)
    assert watch_share_per_address(Config(max_watches_per_address=0)) == 0  # off
    assert watch_share_per_address(Config(max_watch_streams=0)) == 256  # no total: the setting alone
