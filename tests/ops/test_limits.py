"""Limits: request size, per-token and per-address rate limits, the watch-stream cap, API keys."""

from __future__ import annotations

import time
from collections.abc import Iterator

import grpc
import pytest
import requests
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from tabletop.v1 import game_service_pb2 as svc
from tabletop.v1 import game_service_pb2_grpc

from tabletop_server.rest.app import create_app, serve
from tabletop_server.service.api.limits import RateLimiter
from tabletop_server.service.api.server import create_server
from tabletop_server.service.config import Config
from tests.conftest import GrpcServer, start_grpc
from tests.helpers import bearer, create_game, error_info


@pytest.fixture()
def limited(redis_url: str, request: pytest.FixtureRequest) -> Iterator[tuple[GrpcServer, game_service_pb2_grpc.GameServiceStub]]:
    server = start_grpc(redis_url, **request.param)
    with grpc.insecure_channel(server.target) as channel:
        yield server, game_service_pb2_grpc.GameServiceStub(channel)
    server.running.stop(0)


def _retry_delay(err: grpc.RpcError) -> float:
    status = rpc_status.from_call(err)  # type: ignore[arg-type]
    assert status is not None
    for detail in status.details:
        if detail.Is(error_details_pb2.RetryInfo.DESCRIPTOR):
            info = error_details_pb2.RetryInfo()
            detail.Unpack(info)
            return info.retry_delay.seconds + info.retry_delay.nanos / 1e9
    raise AssertionError(f"no RetryInfo in {status}")


def _burst(call, n: int) -> list[grpc.RpcError | None]:  # type: ignore[no-untyped-def]
    results: list[grpc.RpcError | None] = []
    for _ in range(n):
        try:
            call()
            results.append(None)
        except grpc.RpcError as err:
            results.append(err)
    return results


def test_token_bucket_refills_at_the_rate() -> None:
    now = [0.0]
    limiter = RateLimiter(2.0, clock=lambda: now[0])
    assert [limiter.take("a") for _ in range(2)] == [0, 0]  # burst of max(1, rate)
    assert limiter.take("a") == pytest.approx(0.5)
    assert limiter.take("b") == 0  # keys are independent
    now[0] += 0.5
    assert limiter.take("a") == 0
    assert limiter.take("a") == pytest.approx(0.5)


def test_bucket_memory_is_bounded() -> None:
    limiter = RateLimiter(1.0, capacity=100)
    for i in range(1000):
        limiter.take(f"k{i}")
    assert len(limiter._buckets) == 100


@pytest.mark.parametrize("limited", [{"rate_limit_per_token": 3.0}], indirect=True)
def test_per_token_rate_limit_is_resource_exhausted_with_retry_info(limited) -> None:  # type: ignore[no-untyped-def]
    _, stub = limited
    game, tokens = create_game(stub, seats=2)
    get = svc.GetGameRequest(name=game.name)
    results = _burst(lambda: stub.GetGame(get, metadata=bearer(tokens[0])), 10)
    refused = [r for r in results if r is not None]
    assert len(refused) >= 4 and results[:3] == [None, None, None]  # burst 3, then ~1 per 333 ms
    assert refused[0].code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    info = error_info(refused[0])
    assert info.reason == "RATE_LIMITED" and info.metadata["scope"] == "token"
    assert 0 < _retry_delay(refused[0]) <= 1 / 3 + 0.01
    # another token and tokenless calls are not limited by this token's bucket
    assert all(r is None for r in _burst(lambda: stub.GetGame(get, metadata=bearer(tokens[1])), 3))
    assert all(r is None for r in _burst(lambda: stub.GetGame(get), 5))


@pytest.mark.parametrize("limited", [{"rate_limit_per_address": 4.0}], indirect=True)
def test_per_address_rate_limit(limited) -> None:  # type: ignore[no-untyped-def]
    _, stub = limited
    results = _burst(lambda: stub.ListRulesets(svc.ListRulesetsRequest()), 12)
    refused = [r for r in results if r is not None]
    assert len(refused) >= 4  # burst 4, then ~1 per 250 ms
    assert {error_info(r).metadata["scope"] for r in refused} == {"address"}


@pytest.mark.parametrize("limited", [{"rate_limit_per_token": 1.0}], indirect=True)
def test_rest_turns_rate_limited_into_429_with_retry_after(limited) -> None:  # type: ignore[no-untyped-def]
    server, stub = limited
    game, tokens = create_game(stub, seats=2)
    http = serve(create_app(server.target), "127.0.0.1", 0)
    try:
        headers = {"Authorization": f"Bearer {tokens[0]}"}
        replies = [requests.get(f"{http.url}/v1/{game.name}", headers=headers, timeout=5) for _ in range(4)]
    finally:
        http.close()
    assert replies[0].status_code == 200
    limited_reply = next(r for r in replies if r.status_code == 429)
    assert int(limited_reply.headers["Retry-After"]) >= 1
    assert "RATE_LIMITED" in limited_reply.text


@pytest.mark.parametrize("limited", [{"max_watch_streams": 2}], indirect=True)
def test_watch_stream_cap(limited) -> None:  # type: ignore[no-untyped-def]
    _, stub = limited
    game, tokens = create_game(stub, seats=2)
    request = svc.WatchGameRequest(name=game.name)
    open_calls = [stub.WatchGame(request, metadata=bearer(tokens[0])) for _ in range(2)]
    for call in open_calls:
        next(call)
    third = stub.WatchGame(request, metadata=bearer(tokens[1]))
    with pytest.raises(grpc.RpcError) as err:
        next(third)
    assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert error_info(err.value).reason == "TOO_MANY_WATCH_STREAMS"
    open_calls[0].cancel()
    for _ in range(50):  # the slot is freed once the server notices the cancellation
        try:
            assert next(stub.WatchGame(request, metadata=bearer(tokens[1]))).version >= 1
            break
        except grpc.RpcError:

            time.sleep(0.05)
    else:
        pytest.fail("a slot did not free up after a stream closed")
    open_calls[1].cancel()


@pytest.mark.parametrize("limited", [{"api_keys": "op-key-1, op-key-2"}], indirect=True)
def test_game_creation_needs_an_operator_api_key(limited) -> None:  # type: ignore[no-untyped-def]
    _, stub = limited
    create = svc.CreateGameRequest(ruleset="ttr-europe", seat_count=2, display_names=["a"])
    with pytest.raises(grpc.RpcError) as err:
        stub.CreateGame(create)
    assert err.value.code() == grpc.StatusCode.UNAUTHENTICATED
    assert error_info(err.value).reason == "API_KEY_REQUIRED"
    with pytest.raises(grpc.RpcError) as err:
        stub.CreateGame(create, metadata=[("x-api-key", "op-key-3")])
    assert err.value.code() == grpc.StatusCode.PERMISSION_DENIED
    assert error_info(err.value).reason == "API_KEY_INVALID"
    created = stub.CreateGame(create, metadata=[("x-api-key", "op-key-2")])
    # joining and playing need no API key, only the player's token
    joined = stub.JoinGame(svc.JoinGameRequest(name=created.game.name, display_name="b"))
    assert joined.credential.seat == 1


def test_api_keys_are_off_by_default(stub) -> None:  # type: ignore[no-untyped-def]
    assert create_game(stub, seats=2)[0].name


@pytest.mark.parametrize("limited", [{"max_request_bytes": 1024}], indirect=True)
def test_oversized_request_is_resource_exhausted(limited) -> None:  # type: ignore[no-untyped-def]
    _, stub = limited
    with pytest.raises(grpc.RpcError) as err:
        stub.CreateGame(svc.CreateGameRequest(ruleset="ttr-europe", seat_count=2, display_names=["x" * 2000]))
    assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert error_info(err.value).reason == "REQUEST_TOO_LARGE"


def test_watch_streams_are_capped_and_idle_watchers_never_stall_unary_calls(redis_url: str) -> None:
    running = create_server(Config(redis_url=redis_url, max_watch_streams=64, max_watches_per_token=0,
                                   max_watches_per_address=0), "127.0.0.1", 0)  # the total cap alone
    with grpc.insecure_channel(f"127.0.0.1:{running.port}") as channel:
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        game, tokens = create_game(stub, seats=2)
        request = svc.WatchGameRequest(name=game.name)
        calls = []
        for _ in range(64):  # more idle watchers than the old thread pool had threads
            calls.append(stub.WatchGame(request, metadata=bearer(tokens[0])))
            next(calls[-1])
        with pytest.raises(grpc.RpcError) as err:
            next(stub.WatchGame(request, metadata=bearer(tokens[0])))
        assert error_info(err.value).reason == "TOO_MANY_WATCH_STREAMS"
        assert error_info(err.value).metadata["limit"] == "64"
        for _ in range(10):  # unary calls are still served while every stream slot is taken
            # (a stalled call would wait for ever; 10 s is room for a loaded 2-core machine, not a stall)
            assert stub.GetGame(svc.GetGameRequest(name=game.name), timeout=10).game.version == 1
        for call in calls:
            call.cancel()
    running.stop(0)


@pytest.mark.parametrize("limited", [{"api_keys": "op-key-1"}], indirect=True)
def test_rest_forwards_the_api_key(limited) -> None:  # type: ignore[no-untyped-def]
    server, _ = limited
    http = serve(create_app(server.target), "127.0.0.1", 0)
    body = {"ruleset": "ttr-europe", "seatCount": 2}
    try:
        missing = requests.post(f"{http.url}/v1/games", json=body, timeout=5)
        wrong = requests.post(f"{http.url}/v1/games", json=body, headers={"X-Api-Key": "nope"}, timeout=5)
        right = requests.post(f"{http.url}/v1/games", json=body, headers={"X-Api-Key": "op-key-1"}, timeout=5)
    finally:
        http.close()
    assert missing.status_code == 401 and "API_KEY_REQUIRED" in missing.text
    assert wrong.status_code == 403 and "API_KEY_INVALID" in wrong.text
    assert right.status_code == 200, right.text


@pytest.mark.parametrize("limited", [{"rate_limit_per_address": 2.0, "trusted_proxies": "127.0.0.0/8",
                                      "proxy_secret": "facade-secret"}], indirect=True)
def test_per_address_limit_counts_the_client_behind_a_trusted_proxy(limited) -> None:  # type: ignore[no-untyped-def]
    _, stub = limited

    def from_client(address: str):  # type: ignore[no-untyped-def]
        return lambda: stub.ListRulesets(svc.ListRulesetsRequest(), metadata=[
            ("x-forwarded-for", f"10.9.9.9, {address}"), ("x-tabletop-proxy", "facade-secret")])
    # Two clients behind one proxy: each gets its own bucket (burst 2), not one shared bucket.
    assert _burst(from_client("203.0.113.1"), 2) == [None, None]
    assert _burst(from_client("203.0.113.2"), 2) == [None, None]
    assert any(r is not None for r in _burst(from_client("203.0.113.1"), 3))


@pytest.mark.parametrize("limited", [{"rate_limit_per_address": 2.0}], indirect=True)
def test_untrusted_peers_cannot_choose_their_address(limited) -> None:  # type: ignore[no-untyped-def]
    _, stub = limited
    calls = [lambda i=i: stub.ListRulesets(svc.ListRulesetsRequest(), metadata=[("x-forwarded-for", f"198.51.100.{i}")])
             for i in range(6)]
    results = []
    for call in calls:
        results.extend(_burst(call, 1))
    assert any(r is not None for r in results)  # one bucket for the real peer, whatever the header says
