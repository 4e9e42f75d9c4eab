"""Game creation limits (rate and open games, per address and per API key), shared by replicas
through Redis; and the REST facade's proxy secret, the only way a forwarded address is believed.

Each test's clients come from addresses of their own (forwarded by a facade holding the secret),
so counters in the shared test Redis never carry over between tests or runs.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Iterator
from http import client as http_client

import grpc
import pytest
import redis
from redis.crc import key_slot
from tabletop.v1 import game_service_pb2 as svc
from tabletop.v1 import game_service_pb2_grpc

from tabletop_server.rest.app import create_app, serve
from tabletop_server.service.api.creation import Creator
from tests.conftest import GrpcServer, start_grpc
from tests.helpers import bearer, deciding_seat, error_info

SECRET = "test-facade-secret"
OFF = {"create_per_minute_per_address": 0, "max_open_games_per_address": 0,
       "create_per_minute_per_api_key": 0, "max_open_games_per_api_key": 0}


def _address() -> str:
    return f"198.51.{secrets.randbelow(250)}.{secrets.randbelow(250)}-{secrets.token_hex(3)}"


def _via_facade(address: str, secret: str = SECRET) -> list[tuple[str, str]]:
    return [("x-forwarded-for", f"10.0.0.1, {address}"), ("x-tabletop-proxy", secret)]


def _create(stub, metadata, ruleset: str = "ttr-europe"):  # type: ignore[no-untyped-def]
    request = svc.CreateGameRequest(ruleset=ruleset, seat_count=2, display_names=["a"])
    return stub.CreateGame(request, metadata=metadata, timeout=5)


def _refusal(stub, metadata) -> grpc.RpcError:  # type: ignore[no-untyped-def]
    with pytest.raises(grpc.RpcError) as err:
        _create(stub, metadata)
    assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    return err.value


@pytest.fixture()
def servers(redis_url: str, request: pytest.FixtureRequest) -> Iterator[list[tuple[GrpcServer, game_service_pb2_grpc.GameServiceStub]]]:
    """Two replicas sharing the test Redis, with the limits of the test's parameter."""
    settings = {**OFF, "proxy_secret": SECRET, **request.param}
    started = [start_grpc(redis_url, **settings) for _ in range(2)]
    channels = [grpc.insecure_channel(s.target) for s in started]
    yield [(s, game_service_pb2_grpc.GameServiceStub(c)) for s, c in zip(started, channels, strict=True)]
    for server, channel in zip(started, channels, strict=True):
        channel.close()
        server.running.stop(0)


@pytest.mark.parametrize("servers", [{"create_per_minute_per_address": 3}], indirect=True)
def test_creation_rate_per_address_is_shared_by_replicas(servers) -> None:  # type: ignore[no-untyped-def]
    (first, a), (_, b) = servers
    client = _via_facade(_address())
    _create(a, client), _create(b, client), _create(a, client)
    for stub in (a, b):  # the third creation emptied the one bucket both replicas read
        err = _refusal(stub, client)
        info = error_info(err)
        assert info.reason == "CREATE_RATE_LIMITED" and info.metadata["scope"] == "address"
        assert info.metadata["limit_per_minute"] == "3"
    _create(a, _via_facade(_address()))  # another address has its own bucket
    sample = first.running.metrics.rate_limited.labels("rate_address")._value.get()
    assert sample >= 1


@pytest.mark.parametrize("servers", [{"max_open_games_per_address": 2}], indirect=True)
def test_open_games_per_address_free_up_when_a_game_is_gone(servers, redis_url: str) -> None:  # type: ignore[no-untyped-def]
    (_, a), (_, b) = servers
    client = _via_facade(_address())
    games = [_create(a, client).game.name]
    with pytest.raises(grpc.RpcError) as failed:  # a creation that fails holds no slot
        _create(a, client, ruleset="no-such-ruleset")
    assert failed.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    games.append(_create(b, client).game.name)
    info = error_info(_refusal(a, client))
    assert info.reason == "TOO_MANY_OPEN_GAMES" and info.metadata["limit"] == "2"
    direct = redis.Redis.from_url(redis_url)
    direct.pexpire("{g:" + games[0].split("/")[1] + "}", 1)  # the game expires
    time.sleep(0.05)
    assert _create(b, client).game.name  # its slot is free again, on either replica
    assert error_info(_refusal(a, client)).reason == "TOO_MANY_OPEN_GAMES"
    direct.close()


# The keys' rate counts live a minute in the shared test Redis: names of this run's own, so a rerun
# within the minute (or another checkout's run beside it) starts from nothing.
KEY_A, KEY_B = (f"key-{k}-{secrets.token_hex(4)}" for k in "ab")


@pytest.mark.parametrize("servers", [{"api_keys": f"{KEY_A},{KEY_B}", "create_per_minute_per_api_key": 2,
                                      "create_per_minute_per_address": 1}], indirect=True)
def test_with_api_keys_the_key_is_the_creator(servers) -> None:  # type: ignore[no-untyped-def]
    (_, a), _ = servers
    address = _address()
    key_a = [("x-api-key", KEY_A), *_via_facade(address)]
    _create(a, key_a), _create(a, key_a)  # two from one address: the key's rate, not the address's
    info = error_info(_refusal(a, key_a))
    assert info.reason == "CREATE_RATE_LIMITED" and info.metadata["scope"] == "api_key"
    assert _create(a, [("x-api-key", KEY_B), *_via_facade(address)]).game.name


@pytest.mark.parametrize("servers", [{"create_per_minute_per_address": 1}], indirect=True)
def test_a_client_cannot_choose_its_address_or_key(servers) -> None:  # type: ignore[no-untyped-def]
    (_, a), _ = servers
    real = _address()
    _create(a, _via_facade(real))
    refused = 0
    for forged in range(3):
        # a direct client at 127.0.0.1 sending x-forwarded-for without the secret, or a wrong one,
        # counts as its peer (one bucket); an x-api-key counts for nothing when keys are off
        metadata = [("x-forwarded-for", f"203.0.113.{forged}"), ("x-api-key", f"made-up-{forged}"),
                    ("x-tabletop-proxy", "guessed" if forged else "")]
        try:
            _create(a, metadata)
        except grpc.RpcError as err:
            refused += err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert refused >= 2


@pytest.mark.parametrize("servers", [{"create_per_minute_per_address": 1}], indirect=True)
def test_rest_refusal_is_429_with_retry_after_and_counts_the_real_client(servers) -> None:  # type: ignore[no-untyped-def]
    (server, _), _ = servers
    http = serve(create_app(server.target, proxy_secret=SECRET), "127.0.0.1", 0)
    body = json.dumps({"ruleset": "ttr-europe", "seatCount": 2})
    client = f"127.{secrets.randbelow(250)}.{secrets.randbelow(250)}.{secrets.randbelow(250) + 2}"

    def post(source: str, forged: str) -> tuple[int, dict[str, str], bytes]:
        conn = http_client.HTTPConnection("127.0.0.1", http.port, timeout=5, source_address=(source, 0))
        conn.request("POST", "/v1/games", body, {"Content-Type": "application/json", "X-Forwarded-For": forged})
        reply = conn.getresponse()
        result = reply.status, {k.lower(): v for k, v in reply.getheaders()}, reply.read()  # names: any case
        conn.close()
        return result
    try:
        first = post(client, "203.0.113.7")
        second = post(client, "203.0.113.8")  # a forged header does not make it another client
    finally:
        http.close()
    assert first[0] == 200, first
    assert second[0] == 429 and json.loads(second[2])["error"]["reason"] == "CREATE_RATE_LIMITED"
    assert 1 <= int(second[1]["retry-after"]) <= 60


def test_trusted_proxies_without_a_secret_refuse_to_start() -> None:
    from tabletop_server.service.config import from_env
    with pytest.raises(SystemExit, match="TABLETOP_PROXY_SECRET"):
        from_env({"TABLETOP_TRUSTED_PROXIES": "127.0.0.1/32"})


def test_a_creators_keys_share_one_cluster_slot() -> None:
    for creator in (Creator("address", "ipv4:10.1.2.3", 20, 50), Creator("api_key", "k", 600, 5000)):
        rate, open_games = creator.keys()
        assert key_slot(rate.encode()) == key_slot(open_games.encode())
    assert Creator("address", "a", 1, 1).keys() != Creator("api_key", "a", 1, 1).keys()


@pytest.mark.parametrize("servers", [{"max_request_ids_per_seat": 3}], indirect=True)
def test_remembered_request_ids_per_seat_are_bounded_oldest_first(servers, redis_url: str) -> None:  # type: ignore[no-untyped-def]
    (_, a), (_, b) = servers
    game = _create(a, _via_facade(_address()))
    joined = a.JoinGame(svc.JoinGameRequest(name=game.game.name, display_name="b"))
    tokens = {0: game.credentials[0].player_token, 1: joined.credential.player_token}
    game_id = game.game.name.split("/")[1]
    sent: dict[int, list[str]] = {0: [], 1: []}
    for i in range(16):  # any legal action of whichever seat decides, through either replica
        seat, actions = deciding_seat(a, game.game.name, tokens)
        assert seat is not None
        (a if i % 2 else b).SubmitAction(svc.SubmitActionRequest(name=game.game.name, action=actions[0],
                                                                 request_id=f"move-{i}"), metadata=bearer(tokens[seat]))
        sent[seat].append(f"move-{i}")
    direct = redis.Redis.from_url(redis_url)
    stored = {k.decode().rsplit(":", 1)[1] for k in direct.scan_iter("{g:" + game_id + "}:req:0:*")}
    index = [m.decode().split(":", 1)[1] for m in direct.lrange("{g:" + game_id + "}:reqids:0", 0, -1)]  # <ms>:<id>
    direct.close()
    assert len(sent[0]) > 3
    assert stored == set(sent[0][-3:]) and index == sent[0][-3:]  # the newest three, whichever replica wrote
    forgotten = sum(s.running.metrics.rate_limited.labels("request_ids_forgotten")._value.get() for s, _ in servers)
    assert forgotten == len(sent[0]) - 3 + max(0, len(sent[1]) - 3)
