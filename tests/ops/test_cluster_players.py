"""Players on a real three-master Redis Cluster (issue 27): sessions, refresh rotation with reuse
detection and seats bound to players. Refresh tokens (``{rt:<hash>}``) and their sign-ins
(``{rf:<family>}``) live in other slots than the games; every script touches one key."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from tabletop.v1 import game_service_pb2 as svc
from tabletop.v1 import game_service_pb2_grpc, player_pb2

from tests.conftest import GrpcServer, start_grpc
from tests.helpers import bearer, deciding_seat, error_info
from tests.jwks import session_key_pem
from tests.ops.cluster import RedisCluster3

API_KEY = "cluster-key"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[GrpcServer]:
    nodes = RedisCluster3()
    nodes.start()
    key: Path = tmp_path_factory.mktemp("session") / "session.pem"
    key.write_bytes(session_key_pem())
    started = start_grpc(nodes.url, session_key_file=str(key), api_keys=API_KEY)
    yield started
    started.running.stop(0)
    nodes.stop()


def test_sessions_rotate_and_bound_seats_play_on_a_cluster(server: GrpcServer) -> None:
    with grpc.insecure_channel(server.target) as channel:
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        sessions = [stub.CreatePlayerSession(player_pb2.CreatePlayerSessionRequest(player_id=p),
                                             metadata=[("x-api-key", API_KEY)], timeout=10).session
                    for p in ("c-ann", "c-bob")]
        renewed = stub.RefreshPlayerSession(player_pb2.RefreshPlayerSessionRequest(
            refresh_token=sessions[0].refresh_token), timeout=10).session
        with pytest.raises(grpc.RpcError) as err:
            stub.RefreshPlayerSession(player_pb2.RefreshPlayerSessionRequest(
                refresh_token=sessions[0].refresh_token), timeout=10)
        assert error_info(err.value).reason == "REFRESH_TOKEN_REUSED"
        tokens = {0: renewed.access_token, 1: sessions[1].access_token}
        name = stub.CreateGame(svc.CreateGameRequest(ruleset="ttr-europe", seat_count=2),
                               metadata=bearer(tokens[0]), timeout=10).game.name
        stub.JoinGame(svc.JoinGameRequest(name=name, display_name="bob"), metadata=bearer(tokens[1]), timeout=10)
        seat, actions = deciding_seat(stub, name, tokens)
        request = svc.SubmitActionRequest(name=name, action=actions[0], request_id="cluster-1")
        first = stub.SubmitAction(request, metadata=bearer(tokens[seat]), timeout=10)
        assert stub.SubmitAction(request, metadata=bearer(tokens[seat]), timeout=10) == first
