"""Who may choose a game's seed (issue 33, docs/fair-play.md): a chosen seed only where nobody can be
cheated (every seat held by the creator, or a caller with the deterministic-games scope), and every such
game marked (``Game.seed_source``) wherever it is shown; the rest refused over gRPC and REST.

These servers run without the scope the rest of the suite's servers are granted (tests/conftest.py).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from http import client as http_client

import grpc
import pytest
from tabletop.v1 import game_pb2, game_service_pb2_grpc
from tabletop.v1 import game_service_pb2 as svc

from tabletop_server.rest.app import create_app, serve
from tabletop_server.service.config import Config
from tests.conftest import GrpcServer, start_grpc
from tests.helpers import error_info

Stub = game_service_pb2_grpc.GameServiceStub


@pytest.fixture(scope="module")
def guarded(redis_url: str) -> Iterator[tuple[GrpcServer, Stub]]:
    """A server as deployed: no caller holds the scope but the API key ``tournament``."""
    server = start_grpc(redis_url, seed_choice_keys="tournament")
    with grpc.insecure_channel(server.target) as channel:
        yield server, Stub(channel)
    server.running.stop(0)


def _request(seed: int | None = 42, names: int = 1, bots: int = 0, seats: int = 3,
             public: bool = False) -> svc.CreateGameRequest:
    request = svc.CreateGameRequest(ruleset="ttr-europe", seat_count=seats, public=public,
                                    display_names=[f"p{i}" for i in range(names)],
                                    bots=[game_pb2.SeatBot(seat=names + i, bot="basic") for i in range(bots)])
    if seed is not None:
        request.seed = seed
    return request


def _game_count(stub: Stub) -> int:
    return len(stub.ListGames(svc.ListGamesRequest(page_size=100)).games)


def test_a_chosen_seed_with_an_open_seat_is_refused_and_creates_nothing(guarded) -> None:  # type: ignore[no-untyped-def]
    _, stub = guarded
    before = _game_count(stub)
    for request in (_request(names=2), _request(names=0, bots=2), _request(names=2, public=True)):
        with pytest.raises(grpc.RpcError) as err:
            stub.CreateGame(request, timeout=5)
        assert err.value.code() == grpc.StatusCode.PERMISSION_DENIED
        info = error_info(err.value)
        assert info.reason == "SEED_CHOICE_NOT_ALLOWED" and info.metadata["field"] == "seed"
        assert info.metadata["open_seats"] == "1"
    assert _game_count(stub) == before  # the public one was not listed either


def test_a_named_bot_seat_counts_once_among_the_held_seats(guarded) -> None:  # type: ignore[no-untyped-def]
    """Seats 0 and 1 named, seat 1 also a bot (a bot carrying a display name), seat 2 open: one open seat
    (it was counted as none: the named bot seat was subtracted twice)."""
    _, stub = guarded
    request = _request(names=2)
    request.bots.append(game_pb2.SeatBot(seat=1, bot="basic"))
    with pytest.raises(grpc.RpcError) as err:
        stub.CreateGame(request, timeout=5)
    info = error_info(err.value)
    assert info.reason == "SEED_CHOICE_NOT_ALLOWED" and info.metadata["open_seats"] == "1"
    request.bots.append(game_pb2.SeatBot(seat=2, bot="basic"))  # now every seat is held
    assert stub.CreateGame(request, timeout=5).game.seed_source == game_pb2.SEED_SOURCE_CREATOR


def test_an_unscoped_api_key_does_not_help(guarded) -> None:  # type: ignore[no-untyped-def]
    _, stub = guarded
    with pytest.raises(grpc.RpcError) as err:
        stub.CreateGame(_request(), metadata=[("x-api-key", "someone-else")], timeout=5)
    assert error_info(err.value).reason == "SEED_CHOICE_NOT_ALLOWED"


def test_a_table_the_creator_holds_may_have_a_chosen_seed_and_is_marked(guarded) -> None:  # type: ignore[no-untyped-def]
    _, stub = guarded
    held = stub.CreateGame(_request(names=1, bots=2), timeout=5).game
    assert held.seed_source == game_pb2.SEED_SOURCE_CREATOR and held.seed_chosen
    assert held.status == game_pb2.GAME_STATUS_ACTIVE
    named = stub.CreateGame(_request(names=3, public=True), timeout=5).game
    assert named.seed_source == game_pb2.SEED_SOURCE_CREATOR
    assert stub.GetGame(svc.GetGameRequest(name=named.name)).game.seed_source == game_pb2.SEED_SOURCE_CREATOR
    listed = {g.name: g for g in stub.ListGames(svc.ListGamesRequest(page_size=100)).games}
    assert listed[named.name].seed_source == game_pb2.SEED_SOURCE_CREATOR  # the lobby shows it


def test_the_scoped_key_may_choose_a_seed_for_open_seats(guarded) -> None:  # type: ignore[no-untyped-def]
    _, stub = guarded
    game = stub.CreateGame(_request(names=1, public=True), metadata=[("x-api-key", "tournament")], timeout=5).game
    assert game.seed_source == game_pb2.SEED_SOURCE_OPERATOR_SCOPE and game.seed_chosen
    listed = {g.name: g for g in stub.ListGames(svc.ListGamesRequest(page_size=100)).games}
    assert listed[game.name].seed_source == game_pb2.SEED_SOURCE_OPERATOR_SCOPE
    joined = stub.JoinGame(svc.JoinGameRequest(name=game.name, display_name="guest"), timeout=5)
    assert joined.game.seed_source == game_pb2.SEED_SOURCE_OPERATOR_SCOPE


def test_a_server_seed_is_marked_as_such(guarded) -> None:  # type: ignore[no-untyped-def]
    _, stub = guarded
    game = stub.CreateGame(_request(seed=None, names=1, public=True), timeout=5).game
    assert game.seed_source == game_pb2.SEED_SOURCE_SERVER and not game.seed_chosen


def test_rest_refuses_with_403_and_the_reason(guarded) -> None:  # type: ignore[no-untyped-def]
    server, _ = guarded
    http = serve(create_app(server.target), "127.0.0.1", 0)

    def post(body: dict[str, object], headers: dict[str, str]) -> tuple[int, dict[str, object]]:
        conn = http_client.HTTPConnection("127.0.0.1", http.port, timeout=5)
        conn.request("POST", "/v1/games", json.dumps(body), {"Content-Type": "application/json", **headers})
        reply = conn.getresponse()
        result = reply.status, json.loads(reply.read())
        conn.close()
        return result
    try:
        open_seat = {"ruleset": "ttr-europe", "seatCount": 2, "displayNames": ["ann"], "seed": "42"}
        status, refused = post(open_seat, {})
        held = post({**open_seat, "displayNames": ["ann", "bob"]}, {})
        scoped = post(open_seat, {"x-api-key": "tournament"})
    finally:
        http.close()
    assert status == 403 and refused["error"]["reason"] == "SEED_CHOICE_NOT_ALLOWED", refused  # type: ignore[index]
    assert held[0] == 200 and held[1]["game"]["seedSource"] == "SEED_SOURCE_CREATOR"  # type: ignore[index]
    assert scoped[0] == 200 and scoped[1]["game"]["seedSource"] == "SEED_SOURCE_OPERATOR_SCOPE"  # type: ignore[index]


def test_the_scope_setting_is_parsed() -> None:
    assert Config(seed_choice_keys="*").may_choose_seed("")
    scoped = Config(seed_choice_keys="a, b")
    assert scoped.may_choose_seed("b") and not scoped.may_choose_seed("") and not scoped.may_choose_seed("c")
    assert not Config().may_choose_seed("anything")
    with pytest.raises(ValueError, match="TABLETOP_SEED_CHOICE_KEYS"):
        Config(seed_choice_keys="a,,b")


def test_a_256_bit_seed_deals_again_what_it_dealt(guarded) -> None:  # type: ignore[no-untyped-def]
    """seed_hex (a seed GetGameLog revealed) deals the same game again, under the same rules as seed."""
    _, stub = guarded
    key = [("x-api-key", "tournament")]
    hexed = "c0ffee" + "5" * 58
    first, again = (stub.CreateGame(svc.CreateGameRequest(ruleset="bang", seat_count=4, display_names=["a"],
                                                          seed_hex=hexed), metadata=key, timeout=5) for _ in range(2))
    assert first.game.seed_source == game_pb2.SEED_SOURCE_OPERATOR_SCOPE and first.game.seed_chosen
    views = [stub.GetGame(svc.GetGameRequest(name=g.game.name)).view for g in (first, again)]
    assert views[0] == views[1]  # the same Sheriff, characters and lives: the same deal
    as_hex = _request(seed=None, names=3)
    as_hex.seed_hex = format(5, "064x")  # a 64-bit seed is the low bits of the 256-bit one
    small = [stub.CreateGame(r, timeout=5).game for r in (_request(seed=5, names=3), as_hex)]
    shown = [stub.GetGame(svc.GetGameRequest(name=g.name)).view for g in small]
    assert shown[0] == shown[1] and all(g.seed_source == game_pb2.SEED_SOURCE_CREATOR for g in small)
    with pytest.raises(grpc.RpcError) as err:
        stub.CreateGame(svc.CreateGameRequest(ruleset="bang", seat_count=4, display_names=["a"], seed_hex=hexed),
                        timeout=5)
    assert error_info(err.value).reason == "SEED_CHOICE_NOT_ALLOWED"
    both = _request(names=3)
    both.seed_hex = hexed
    with pytest.raises(grpc.RpcError) as err:
        stub.CreateGame(both, timeout=5)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT and error_info(err.value).reason == "INVALID_SEED"
