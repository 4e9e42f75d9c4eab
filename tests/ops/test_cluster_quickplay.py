"""Quick play and ratings on a real three-master Redis Cluster (issue 28): every script stays within one hash
tag (a queue's, a game's, a player's, a leaderboard's), so two players' tickets are seated together, the game
they play is rated once, and the leaderboard and the profiles read it, as on one Redis."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from tabletop.v1 import game_service_pb2 as svc
from tabletop.v1 import game_service_pb2_grpc, matchmaking_pb2, player_pb2, rating_pb2

from tests.conftest import start_grpc
from tests.helpers import bearer
from tests.jwks import session_key_pem
from tests.ops.cluster import RedisCluster3

Stub = game_service_pb2_grpc.GameServiceStub


@pytest.fixture(scope="module")
def stub(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stub]:
    nodes = RedisCluster3()
    nodes.start()
    key: Path = tmp_path_factory.mktemp("session") / "session.pem"
    key.write_bytes(session_key_pem())
    server = start_grpc(nodes.url, session_key_file=str(key), guest_sessions=True)
    channel = grpc.insecure_channel(server.target)
    yield game_service_pb2_grpc.GameServiceStub(channel)
    channel.close()
    server.running.stop(0)
    nodes.stop()


def _until(check: Any, bound: float = 15.0) -> Any:
    end = time.monotonic() + bound
    while True:
        got = check()
        if got or time.monotonic() > end:
            return got
        time.sleep(0.05)


def test_two_tickets_meet_and_their_game_is_rated_on_a_cluster(stub: Stub) -> None:
    ann, bob = (stub.CreateGuestSession(player_pb2.CreateGuestSessionRequest(display_name=n), timeout=10).session
                for n in ("ann", "bob"))
    request = matchmaking_pb2.FindGameRequest(ruleset="ttr-europe", min_seats=2, max_seats=2)
    tickets = [(stub.FindGame(request, metadata=bearer(p.access_token), timeout=10).ticket, p) for p in (ann, bob)]

    def seated() -> Any:
        got = [stub.GetTicket(matchmaking_pb2.GetTicketRequest(name=t.name), metadata=bearer(p.access_token),
                              timeout=10).ticket for t, p in tickets]
        return got if all(t.state == matchmaking_pb2.TICKET_STATE_SEATED for t in got) else None

    got = _until(seated)
    assert got and got[0].game == got[1].game
    stub.ConcedeGame(svc.ConcedeGameRequest(name=got[1].game), metadata=bearer(bob.access_token), timeout=10)

    def rated() -> Any:
        profile = stub.GetPlayerProfile(rating_pb2.GetPlayerProfileRequest(name="players/me"),
                                        metadata=bearer(ann.access_token), timeout=10).profile
        return profile if profile.games_played else None

    profile = _until(rated)
    assert profile and (profile.games_played, profile.games_won) == (1, 1)
    board = stub.ListLeaderboard(rating_pb2.ListLeaderboardRequest(parent="rulesets/ttr-europe"), timeout=10)
    assert [e.player_id for e in board.entries] == [ann.player_id, bob.player_id]
    notes = stub.ListNotifications(player_pb2.ListNotificationsRequest(), metadata=bearer(bob.access_token),
                                   timeout=10).notifications
    assert [n.game for n in notes if n.kind == player_pb2.NOTIFICATION_KIND_TICKET_SEATED] == [got[1].game]
