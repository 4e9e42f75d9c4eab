"""Every key a game writes expires: the game hash and its log after the game TTL, a remembered
request-id response after the request-id TTL (a key left without expiry would grow Redis for good)."""

from __future__ import annotations

from collections.abc import Iterator

import grpc
import pytest
import redis
from tabletop.v1 import game_service_pb2 as svc
from tabletop.v1 import game_service_pb2_grpc

from tabletop_server.service.store import keys
from tests.conftest import start_grpc
from tests.helpers import bearer, create_game

GAME_TTL, REQUEST_TTL = 5000, 700  # distinct from each other and from the defaults


@pytest.fixture(scope="module")
def short_ttl_stub(redis_url: str) -> Iterator[game_service_pb2_grpc.GameServiceStub]:
    server = start_grpc(redis_url, game_ttl_seconds=GAME_TTL, request_id_ttl_seconds=REQUEST_TTL)
    with grpc.insecure_channel(server.target) as channel:
        yield game_service_pb2_grpc.GameServiceStub(channel)
    server.running.stop(0)


def test_a_remembered_response_expires_after_the_request_id_ttl(short_ttl_stub, redis_url: str) -> None:
    stub = short_ttl_stub
    game, tokens = create_game(stub, seats=2)
    action = stub.ListLegalActions(svc.ListLegalActionsRequest(name=game.name), metadata=bearer(tokens[0])).actions[0]
    stub.SubmitAction(svc.SubmitActionRequest(name=game.name, action=action, request_id="exp-1"),
                      metadata=bearer(tokens[0]))
    game_id = game.name.split("/")[1]
    client = redis.Redis.from_url(redis_url)
    request_ttl = client.ttl(keys.request(game_id, 0, "exp-1"))
    assert REQUEST_TTL - 30 < request_ttl <= REQUEST_TTL
    for key in (keys.game(game_id), keys.stream(game_id)):
        assert GAME_TTL - 30 < client.ttl(key) <= GAME_TTL
    without_id = stub.ListLegalActions(svc.ListLegalActionsRequest(name=game.name), metadata=bearer(tokens[1]))
    stub.SubmitAction(svc.SubmitActionRequest(name=game.name, action=without_id.actions[0]),
                      metadata=bearer(tokens[1]))
    assert not client.keys(keys.request(game_id, 1, "*"))  # no request id: nothing remembered
    assert not [k for k in client.scan_iter(f"{{g:{game_id}}}*") if client.ttl(k) < 0]
