"""ListLeaderboard and GetPlayerProfile over real gRPC (issue 28, docs/ratings.md), on a Redis of the
test's own (the leaderboard of a ruleset is every rated player of the Redis: other tests rate games too)."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from tabletop.v1 import game_service_pb2_grpc, player_pb2, rating_pb2

from tabletop_server.service.api import ratings
from tabletop_server.service.engine import registry
from tabletop_server.service.engine.ruleset import State
from tabletop_server.service.store.ratings import RatingStore
from tabletop_server.service.store.redis_store import connect
from tests.conftest import start_grpc
from tests.engine.ratings_kit import played
from tests.helpers import bearer, error_info
from tests.jwks import session_key_pem
from tests.service.webhook_kit import private_redis

Stub = game_service_pb2_grpc.GameServiceStub
PLAYERS = 12


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Stub, list[player_pb2.PlayerSession], str]]:
    key = tmp_path_factory.mktemp("session") / "session.pem"
    key.write_bytes(session_key_pem())
    with private_redis(tmp_path_factory.mktemp("redis")) as own:
        server = start_grpc(own, session_key_file=str(key), guest_sessions=True)
        channel = grpc.insecure_channel(server.target)
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        guests = [stub.CreateGuestSession(player_pb2.CreateGuestSessionRequest(display_name=f"p{i}"), timeout=10).session
                  for i in range(PLAYERS)]
        asyncio.run(_league(own, [g.player_id for g in guests]))
        yield stub, guests, own
        channel.close()
        server.running.stop(0)


@functools.cache
def _game(seed: int) -> State:
    return played("ttr-europe", 2, seed)[1]


async def _league(url: str, players: list[str]) -> None:
    """Each player meets the next two; the lower index wins more often (whoever the dealt game made win)."""
    client = connect(url)
    store, ruleset = RatingStore(client), registry.get("ttr-europe")
    assert ruleset is not None
    try:
        for round_ in range(2):
            for i, ann in enumerate(players):
                bob = players[(i + 1 + round_) % len(players)]
                state = _game(round_ * 3 + i % 3)
                winner = state["result"]["winners"][0]
                seats = [ann, bob] if winner == 0 else [bob, ann]  # the lower index at the winning seat
                if players.index(seats[0]) > players.index(seats[1]) and i % 4 == 0:
                    seats.reverse()
                doc = {"id": f"lb{round_}-{i}", "ruleset": "ttr-europe", "status": "FINISHED", "end": "COMPLETED",
                       "state": state, "seats": [{"player": p, "name": f"n-{p[-4:]}"} for p in seats]}
                assert await ratings.rate_game(store, doc, ruleset, 3600, 1000 * (round_ * 100 + i + 1))
    finally:
        await client.close()


def _board(stub: Stub, size: int, token: str = "", **kw: Any) -> rating_pb2.ListLeaderboardResponse:
    return stub.ListLeaderboard(rating_pb2.ListLeaderboardRequest(parent="rulesets/ttr-europe", page_size=size,
                                                                  page_token=token), timeout=10, **kw)


def test_pages_list_every_rated_player_once_best_first(served: Any) -> None:
    stub, guests, _ = served
    entries, token = [], ""
    while True:
        reply = _board(stub, 5, token)
        assert reply.total_size == PLAYERS and len(reply.entries) <= 5
        entries += reply.entries
        token = reply.next_page_token
        if not token:
            break
    assert [e.rank for e in entries] == list(range(1, PLAYERS + 1))
    assert sorted(e.player_id for e in entries) == sorted(g.player_id for g in guests)
    assert [e.rating for e in entries] == sorted((e.rating for e in entries), reverse=True)
    assert all(e.games_played == 4 and e.display_name.startswith("n-") for e in entries)
    assert sum(e.games_won for e in entries) == PLAYERS * 2  # every game has one winner (no tie in these deals)


def test_around_me_centres_the_page_on_the_caller(served: Any) -> None:
    stub, guests, _ = served
    everyone = _board(stub, 100).entries
    for who in (everyone[0], everyone[6], everyone[-1]):
        session = next(g for g in guests if g.player_id == who.player_id)
        page = stub.ListLeaderboard(rating_pb2.ListLeaderboardRequest(parent="rulesets/ttr-europe", page_size=4,
                                                                      around_me=True),
                                    metadata=bearer(session.access_token), timeout=10).entries
        assert who.player_id in [e.player_id for e in page]
        assert page[0].rank == max(1, who.rank - 2)


def test_a_profile_has_the_rating_its_place_and_its_history(served: Any) -> None:
    stub, guests, _ = served
    everyone = {e.player_id: e for e in _board(stub, 100).entries}
    me = stub.GetPlayerProfile(rating_pb2.GetPlayerProfileRequest(name="players/me", history_size=3),
                               metadata=bearer(guests[3].access_token), timeout=10).profile
    entry = everyone[guests[3].player_id]
    assert (me.player_id, me.games_played, me.games_won) == (guests[3].player_id, 4, entry.games_won)
    (ttr,) = me.ratings
    assert (ttr.ruleset, ttr.rank, ttr.rating) == ("ttr-europe", entry.rank, entry.rating)
    assert ttr.rating == pytest.approx(ttr.mu - 3 * ttr.sigma)
    assert len(ttr.history) == 3 and ttr.history[0].rating == ttr.rating  # the newest first, bounded
    assert all(h.game.startswith("games/lb") and h.place in (1, 2) and h.won == (h.place == 1) for h in ttr.history)
    other = stub.GetPlayerProfile(rating_pb2.GetPlayerProfileRequest(name=f"players/{guests[3].player_id}"),
                                  timeout=10).profile
    assert other.ratings[0].rating == ttr.rating and len(other.ratings[0].history) == 4
    nobody = stub.GetPlayerProfile(rating_pb2.GetPlayerProfileRequest(name="players/never-rated"), timeout=10).profile
    assert (nobody.player_id, nobody.games_played, list(nobody.ratings)) == ("never-rated", 0, [])


def test_refusals_name_what_is_wrong(served: Any) -> None:
    stub, _, _ = served
    cases = [
        (lambda: stub.ListLeaderboard(rating_pb2.ListLeaderboardRequest(parent="rulesets/ttr-europe", around_me=True)),
         grpc.StatusCode.UNAUTHENTICATED, "PLAYER_REQUIRED"),
        (lambda: stub.GetPlayerProfile(rating_pb2.GetPlayerProfileRequest(name="players/me")),
         grpc.StatusCode.UNAUTHENTICATED, "PLAYER_REQUIRED"),
        (lambda: stub.ListLeaderboard(rating_pb2.ListLeaderboardRequest(parent="rulesets/chess")),
         grpc.StatusCode.NOT_FOUND, "RULESET_NOT_FOUND"),
        (lambda: stub.ListLeaderboard(rating_pb2.ListLeaderboardRequest(parent="rulesets/bang", page_token="abc")),
         grpc.StatusCode.INVALID_ARGUMENT, "INVALID_PAGE_TOKEN"),
        (lambda: stub.ListLeaderboard(rating_pb2.ListLeaderboardRequest(parent="bang")),
         grpc.StatusCode.INVALID_ARGUMENT, "INVALID_NAME"),
        (lambda: stub.GetPlayerProfile(rating_pb2.GetPlayerProfileRequest(name="players/a b")),
         grpc.StatusCode.INVALID_ARGUMENT, "INVALID_PLAYER_ID"),
    ]
    for call, code, reason in cases:
        with pytest.raises(grpc.RpcError) as caught:
            call()
        assert (caught.value.code(), error_info(caught.value).reason) == (code, reason)
    empty = stub.ListLeaderboard(rating_pb2.ListLeaderboardRequest(parent="rulesets/bang"), timeout=10)
    assert (list(empty.entries), empty.total_size, empty.next_page_token) == ([], 0, "")
