"""Ratings through the running service (docs/ratings.md): a finished game between players is rated by the
server's own drain, once, and a game with a chosen deal never is."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from tabletop.v1 import game_pb2, game_service_pb2_grpc
from tabletop.v1 import game_service_pb2 as svc

from tabletop_server.service.store.ratings import RatingStore
from tabletop_server.service.store.redis_store import connect
from tests.conftest import start_grpc
from tests.helpers import bearer
from tests.jwks import session_key_pem
from tests.service.test_my_games import eventually, guest, my_games, two_player_game

Stub = game_service_pb2_grpc.GameServiceStub


@pytest.fixture(scope="module")
def stub(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stub]:
    key = tmp_path_factory.mktemp("session") / "session.pem"
    key.write_bytes(session_key_pem())
    server = start_grpc(redis_url, session_key_file=str(key), guest_sessions=True)
    channel = grpc.insecure_channel(server.target)
    yield game_service_pb2_grpc.GameServiceStub(channel)
    channel.close()
    server.running.stop(0)


def _standings(redis_url: str, players: list[str], ruleset: str) -> list[Any]:
    async def go() -> list[Any]:
        client = connect(redis_url)
        try:
            return [await RatingStore(client).standing(p, ruleset) for p in players]
        finally:
            await client.close()
    return asyncio.run(go())


def test_a_conceded_game_between_players_is_rated_once_by_the_drain(stub: Stub, redis_url: str) -> None:
    name, ann, bob = two_player_game(stub)
    stub.ConcedeGame(svc.ConcedeGameRequest(name=name), metadata=bearer(bob.access_token), timeout=10)

    def rated() -> list[Any]:
        got = _standings(redis_url, [ann.player_id, bob.player_id], "ttr-europe")
        assert all(s is not None for s in got)
        return got

    ann_rating, bob_rating = eventually(rated)
    assert (ann_rating.games, ann_rating.wins, bob_rating.games, bob_rating.wins) == (1, 1, 1, 0)
    assert ann_rating.rating.mu > 25 > bob_rating.rating.mu  # a concession is a loss
    # A later write to the finished game (a rematch asked) drains it again: nothing changes.
    stub.RematchGame(svc.RematchGameRequest(name=name), metadata=bearer(ann.access_token), timeout=10)
    for _ in range(20):
        again = _standings(redis_url, [ann.player_id, bob.player_id], "ttr-europe")
        assert [s.games for s in again] == [1, 1] and again[0].rating == ann_rating.rating


def test_a_game_whose_deal_was_chosen_is_never_rated(stub: Stub, redis_url: str) -> None:
    ann, bob = guest(stub, "ann"), guest(stub, "bob")
    game = stub.CreateGame(svc.CreateGameRequest(ruleset="ttr-europe", seat_count=2, seed=7,
                                                 invited_player_ids=[bob.player_id]),
                           metadata=bearer(ann.access_token), timeout=10).game
    assert game.seed_chosen
    stub.JoinGame(svc.JoinGameRequest(name=game.name, display_name="bob"), metadata=bearer(bob.access_token),
                  timeout=10)
    stub.ConcedeGame(svc.ConcedeGameRequest(name=game.name), metadata=bearer(bob.access_token), timeout=10)
    eventually(lambda: _finished_everywhere(stub, game.name, ann))
    assert _standings(redis_url, [ann.player_id, bob.player_id], "ttr-europe") == [None, None]


def _finished_everywhere(stub: Stub, name: str, who: Any) -> None:
    games = [g for g in my_games(stub, who) if g.game.name == name]
    assert games and games[0].game.status == game_pb2.GAME_STATUS_FINISHED
