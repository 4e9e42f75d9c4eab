"""An invitation is told even when the drain first reads the game after the invitee joined (issue 27).

The drain reads a game as it is when it gets to the mark, not as the mark's write left it: a replica
that died holding the CreateGame's mark is taken over only after the lease, and a drain step that
failed (a NOSCRIPT on a fresh Redis did) leaves its marks to that same take-over. By then the invitee
may have joined, and a joined seat no longer says it was kept for him. The game keeps its invitees
(``my_games.track``), so the entry's invited flag, and its one INVITED, survive the join.

Here the first server's drain is stopped before the game is made and joined; a second server on the
same Redis (a Redis of the test's own: no other test's drain in the group) drains the marks later.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from tabletop.v1 import game_service_pb2 as svc
from tabletop.v1 import game_service_pb2_grpc, player_pb2

from tests.conftest import GrpcServer, start_grpc
from tests.helpers import bearer
from tests.jwks import session_key_pem
from tests.service.test_my_games import eventually
from tests.service.webhook_kit import private_redis

KIND = player_pb2.NotificationKind


@pytest.fixture
def servers(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    key = tmp_path / "session.pem"
    key.write_bytes(session_key_pem())
    with private_redis(tmp_path) as own:
        yield own, key


def _start(redis_url: str, key: Path) -> GrpcServer:
    return start_grpc(redis_url, session_key_file=str(key), guest_sessions=True, index_shards=1)


def test_an_invitation_joined_before_the_drain_saw_it_is_told_once(servers: tuple[str, Path]) -> None:
    redis_url, key = servers
    first = _start(redis_url, key)
    later: GrpcServer | None = None
    try:
        indexer = first.running.indexer
        assert indexer is not None
        first.running.loop.call_soon_threadsafe(indexer.cancel)  # this replica drains nothing from now on
        with grpc.insecure_channel(first.target) as channel:
            stub = game_service_pb2_grpc.GameServiceStub(channel)
            ann, bob = (stub.CreateGuestSession(player_pb2.CreateGuestSessionRequest(display_name=n), timeout=10)
                        .session for n in ("ann", "bob"))
            game = stub.CreateGame(svc.CreateGameRequest(ruleset="ttr-europe", seat_count=2,
                                                         invited_player_ids=[bob.player_id]),
                                   metadata=bearer(ann.access_token), timeout=10).game
            stub.JoinGame(svc.JoinGameRequest(name=game.name, display_name="bob"), metadata=bearer(bob.access_token),
                          timeout=10)
            later = _start(redis_url, key)  # its drain reads both marks now, the game already joined

            def told() -> list[player_pb2.PlayerNotification]:
                games = stub.ListMyGames(player_pb2.ListMyGamesRequest(), metadata=bearer(bob.access_token),
                                         timeout=10).games
                assert [g.game.name for g in games] == [game.name]
                assert not games[0].invited, "bob holds his seat: the entry is no longer an invitation"
                return list(stub.ListNotifications(player_pb2.ListNotificationsRequest(),
                                                   metadata=bearer(bob.access_token), timeout=10).notifications)

            inbox = eventually(told)
            invited = [n for n in inbox if n.kind == KIND.NOTIFICATION_KIND_INVITED]
            assert len(invited) == 1 and invited[0].game == game.name, "the invitation was lost or told twice"
            mover = next(p for p in (ann, bob) if stub.ListLegalActions(svc.ListLegalActionsRequest(name=game.name),
                                                                        metadata=bearer(p.access_token), timeout=10).actions)
            action = stub.ListLegalActions(svc.ListLegalActionsRequest(name=game.name),
                                           metadata=bearer(mover.access_token), timeout=10).actions[0]
            version = stub.SubmitAction(svc.SubmitActionRequest(name=game.name, action=action),
                                        metadata=bearer(mover.access_token), timeout=10).game.version

            def moved() -> None:
                games = stub.ListMyGames(player_pb2.ListMyGamesRequest(), metadata=bearer(bob.access_token),
                                         timeout=10).games
                assert games[0].game.version == version
            eventually(moved)
            again = stub.ListNotifications(player_pb2.ListNotificationsRequest(), metadata=bearer(bob.access_token),
                                           timeout=10).notifications
            assert [n.kind for n in again].count(KIND.NOTIFICATION_KIND_INVITED) == 1, "a later entry told it again"
    finally:
        for server in (first, later):
            if server is not None:
                server.running.stop(0)
