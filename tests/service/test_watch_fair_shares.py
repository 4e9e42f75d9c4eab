"""One client cannot take every WatchGame slot of a replica (issue 26, item 2).

An anonymous client opened 200 WatchGame streams: 192 were served, and then an SSE watch of another
game (each SSE-watched game holds one of those slots in ``serve``) was refused. A client address now
holds at most a quarter of the slots (at least 8, at most ``TABLETOP_MAX_WATCHES_PER_ADDRESS``) and a
player token ``TABLETOP_MAX_WATCHES_PER_TOKEN``; a stream the REST facade opens (proven by the proxy
secret) was admitted under the facade's own caps and is never refused here.
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
    running = start_grpc(redis_url, max_watch_streams=64, proxy_secret=SECRET)  # 16 per address, 8 per token
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


def test_one_address_gets_its_share_and_the_facade_still_watches(server: Any) -> None:
    with grpc.insecure_channel(server.target) as channel:
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        game, _ = create_game(stub, seats=2)
        greedy = [_open(stub, game.name, []) for _ in range(16)]  # an anonymous client at 127.0.0.1
        try:
            assert _refusal(_open(stub, game.name, [])) == "TOO_MANY_WATCHES_PER_ADDRESS"
            # the REST facade's streams (SSE, Connect) were admitted under its own caps: never refused here,
            # even for a browser at the greedy client's own address
            facade = [_open(stub, game.name, [("x-forwarded-for", "127.0.0.1"), ("x-tabletop-proxy", SECRET)])
                      for _ in range(20)]
            assert all(next(call).version == 1 for call in facade)
            for call in facade:
                call.cancel()
            # a wrong secret proves nothing: that call is the greedy address's
            forged = _open(stub, game.name, [("x-forwarded-for", "203.0.113.9"), ("x-tabletop-proxy", "guess")])
            assert _refusal(forged) == "TOO_MANY_WATCHES_PER_ADDRESS"
        finally:
            for call in greedy:
                call.cancel()


def test_one_token_gets_its_share(server: Any) -> None:
    with grpc.insecure_channel(server.target) as channel:
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        game, tokens = create_game(stub, seats=2)
        calls = [_open(stub, game.name, bearer(tokens[0])) for _ in range(8)]  # one address, one token
        try:
            assert _refusal(_open(stub, game.name, bearer(tokens[0]))) == "TOO_MANY_WATCHES_PER_TOKEN"
            other = _open(stub, game.name, bearer(tokens[1]))
            assert next(other).version == 1  # another token still watches
            other.cancel()
        finally:
            for call in calls:
                call.cancel()


def test_the_share_per_address() -> None:
    assert watch_share_per_address(Config()) == 256  # the setting (a quarter of 20,000 is more)
    assert watch_share_per_address(Config(max_watch_streams=64)) == 16  # a quarter
    assert watch_share_per_address(Config(max_watch_streams=4)) == 4  # never under 8 (nor over the total)
    assert watch_share_per_address(Config(max_watches_per_address=0)) == 0  # off
    assert watch_share_per_address(Config(max_watch_streams=0)) == 256  # no total: the setting alone
