"""ListGames: the lobby of public games (issue 15), over real gRPC and Redis."""

from __future__ import annotations

import uuid
from typing import Any

import grpc
import pytest
from tabletop.v1 import game_pb2
from tabletop.v1 import game_service_pb2 as svc

from tabletop_server.service.api import lobby
from tests.helpers import error_info


def _create(stub: Any, ruleset: str = "ttr-europe", seats: int = 2, names: int = 1, public: bool = True) -> str:
    request = svc.CreateGameRequest(ruleset=ruleset, seat_count=seats, public=public,
                                    display_names=[f"p{i}" for i in range(names)])
    return str(stub.CreateGame(request).game.name)


def _all(stub: Any, filter_: str = "", page_size: int = 0) -> list[Any]:
    games, token = [], ""
    while True:
        page = stub.ListGames(svc.ListGamesRequest(filter=filter_, page_size=page_size, page_token=token))
        games.extend(page.games)
        token = page.next_page_token
        if not token:
            return games


def test_public_games_are_listed_newest_first_private_ones_never(stub: Any) -> None:
    private = _create(stub, public=False)
    first, second = _create(stub), _create(stub)
    listed = [g.name for g in stub.ListGames(svc.ListGamesRequest(page_size=100)).games]
    assert private not in listed
    assert listed.index(second) < listed.index(first)
    game = next(g for g in stub.ListGames(svc.ListGamesRequest(page_size=100)).games if g.name == first)
    assert game.public and game.status == game_pb2.GAME_STATUS_WAITING


def test_a_page_of_one_game(stub: Any) -> None:
    """A page holding a single game (page_size 1, or a lobby with one public game) is one pipelined read."""
    newest = _create(stub)
    page = stub.ListGames(svc.ListGamesRequest(page_size=1))
    assert [g.name for g in page.games] == [newest] and page.next_page_token


def test_the_filters_ruleset_and_open_seat(stub: Any) -> None:
    waiting_ttr = _create(stub)
    full_ttr = _create(stub, names=2)  # every seat named: in play at once
    waiting_bang = _create(stub, "bang", seats=4, names=1)
    open_ttr = {g.name for g in _all(stub, 'ruleset = "ttr-europe" AND open_seat = true', 100)}
    assert waiting_ttr in open_ttr and full_ttr not in open_ttr and waiting_bang not in open_ttr
    every_ttr = {g.name for g in _all(stub, 'ruleset = "ttr-europe"', 100)}
    assert {waiting_ttr, full_ttr} <= every_ttr and waiting_bang not in every_ttr
    open_any = {g.name for g in _all(stub, "open_seat = true", 100)}
    assert {waiting_ttr, waiting_bang} <= open_any and full_ttr not in open_any
    assert all(g.status == game_pb2.GAME_STATUS_WAITING for g in _all(stub, "open_seat=true", 100))


def test_a_game_that_fills_leaves_the_open_list_and_a_finished_one_every_list(stub: Any) -> None:
    name = _create(stub)
    assert name in {g.name for g in _all(stub, "open_seat = true", 100)}
    stub.JoinGame(svc.JoinGameRequest(name=name, display_name="late"))
    assert name not in {g.name for g in _all(stub, "open_seat = true", 100)}
    assert name in {g.name for g in _all(stub, "", 100)}  # still listed: in play, spectators welcome


def test_pages_follow_each_other_without_repeats(stub: Any) -> None:
    ruleset_games = [_create(stub) for _ in range(7)]
    games = _all(stub, 'ruleset = "ttr-europe"', page_size=3)
    names = [g.name for g in games]
    assert len(names) == len(set(names)) and set(ruleset_games) <= set(names)
    first = stub.ListGames(svc.ListGamesRequest(page_size=3))
    assert len(first.games) <= 3 and first.next_page_token


@pytest.mark.parametrize("filter_", ['ruleset = bang', 'status = "WAITING"', 'open_seat = yes',
                                     'ruleset = "bang" OR open_seat = true', 'ruleset = "a" AND ruleset = "b"'])
def test_an_unsupported_filter_is_invalid_argument(stub: Any, filter_: str) -> None:
    with pytest.raises(grpc.RpcError) as err:
        stub.ListGames(svc.ListGamesRequest(filter=filter_))
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT and error_info(err.value).reason == "INVALID_FILTER"


@pytest.mark.parametrize("token", ["Zm9v", "QUJD", "A"])
def test_a_token_not_issued_is_invalid_argument(stub: Any, token: str) -> None:
    with pytest.raises(grpc.RpcError) as err:
        stub.ListGames(svc.ListGamesRequest(page_token=token))
    assert error_info(err.value).reason == "INVALID_PAGE_TOKEN"


def test_an_index_entry_of_a_game_that_is_gone_is_skipped_and_removed(stub: Any, redis_url: str) -> None:
    import redis

    client = redis.Redis.from_url(redis_url)
    ghost = uuid.uuid4().hex[:16]
    client.zadd(lobby.key("all", "ttr-europe"), {ghost: 2**52})  # newest of all, no such game
    try:
        page = stub.ListGames(svc.ListGamesRequest(filter='ruleset = "ttr-europe"', page_size=5))
        assert f"games/{ghost}" not in [g.name for g in page.games]
        assert client.zscore(lobby.key("all", "ttr-europe"), ghost) is None
    finally:
        client.zrem(lobby.key("all", "ttr-europe"), ghost)
        client.close()


def test_page_sizes_default_and_cap() -> None:
    assert lobby.page_size(0) == 50 and lobby.page_size(7) == 7 and lobby.page_size(1000) == 100
    assert lobby.decode_token(lobby.encode_token(123)) == 123 and lobby.decode_token("") is None


def test_a_seat_is_left_before_the_start_reopened_and_its_token_void(stub: Any) -> None:
    from tests.helpers import bearer

    created = stub.CreateGame(svc.CreateGameRequest(ruleset="ttr-europe", seat_count=3, display_names=["ann", "bob"]))
    name, tokens = created.game.name, {c.seat: c.player_token for c in created.credentials}
    left = stub.LeaveGame(svc.LeaveGameRequest(name=name), metadata=bearer(tokens[1]))
    assert [s.occupied for s in left.game.seats] == [True, False, False]
    with pytest.raises(grpc.RpcError) as err:
        stub.GetGame(svc.GetGameRequest(name=name), metadata=bearer(tokens[1]))
    assert error_info(err.value).reason == "INVALID_TOKEN"
    joined = stub.JoinGame(svc.JoinGameRequest(name=name, display_name="bob"))  # the name is free again
    assert joined.credential.seat == 1
    stub.JoinGame(svc.JoinGameRequest(name=name, display_name="cid"))
    with pytest.raises(grpc.RpcError) as err:  # started: conceding, not leaving
        stub.LeaveGame(svc.LeaveGameRequest(name=name), metadata=bearer(tokens[0]))
    assert err.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert error_info(err.value).reason == "GAME_ALREADY_STARTED"
    kinds = [e.lifecycle.kind for e in stub.GetGameLog(svc.GetGameLogRequest(name=name)).entries[1].events]
    assert kinds == [game_pb2.LifecycleEvent.KIND_SEAT_LEFT]


@pytest.mark.parametrize("names", [["ann", "ann"], ["Ann", "ann"], ["bob", "ann", "ANN"]])
def test_display_names_are_unique_within_a_game_at_creation(stub: Any, names: list[str]) -> None:
    with pytest.raises(grpc.RpcError) as err:
        stub.CreateGame(svc.CreateGameRequest(ruleset="ttr-europe", seat_count=3, display_names=names))
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert error_info(err.value).reason == "DISPLAY_NAME_TAKEN"


def test_a_joiner_cannot_take_a_display_name_already_at_the_table(stub: Any) -> None:
    name = _create(stub, names=1, public=False)  # seat 0 is "p0"
    with pytest.raises(grpc.RpcError) as err:
        stub.JoinGame(svc.JoinGameRequest(name=name, display_name=" P0 "))
    assert err.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert error_info(err.value).reason == "DISPLAY_NAME_TAKEN"
    assert stub.JoinGame(svc.JoinGameRequest(name=name, display_name="p1")).credential.seat == 1
