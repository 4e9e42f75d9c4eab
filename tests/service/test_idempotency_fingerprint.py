"""A request id answers only the request that made it (issue 12).

Reused with another request (another action, another expected version), it is
INVALID_ARGUMENT ``IDEMPOTENCY_KEY_REUSED`` and nothing is applied; the same request still
gets the remembered response, byte for byte. The fingerprint is stored with the response
in one value written by the compare-and-set script, so neither exists without the other.
"""

from __future__ import annotations

import grpc
import pytest
import redis
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from tabletop.v1 import game_service_pb2 as svc

from tabletop_server.service.store import keys
from tabletop_server.service.store.redis_store import FINGERPRINT_BYTES, MARK
from tests.helpers import bearer, create_game, deciding_seat, error_info


def _two_actions(stub):  # type: ignore[no-untyped-def]
    game, tokens = create_game(stub, seats=2)
    seat, actions = deciding_seat(stub, game.name, tokens)
    assert seat is not None and len(actions) >= 2
    return game, tokens[seat], seat, actions


def _reused(stub, request: svc.SubmitActionRequest, token: str) -> grpc.RpcError:  # type: ignore[no-untyped-def]
    with pytest.raises(grpc.RpcError) as err:
        stub.SubmitAction(request, metadata=bearer(token))
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert error_info(err.value).reason == "IDEMPOTENCY_KEY_REUSED"
    return err.value


def test_another_action_under_the_same_request_id_is_refused(stub) -> None:
    game, token, _, actions = _two_actions(stub)
    first = stub.SubmitAction(svc.SubmitActionRequest(name=game.name, action=actions[0], request_id="k"),
                              metadata=bearer(token))
    error = _reused(stub, svc.SubmitActionRequest(name=game.name, action=actions[1], request_id="k"), token)
    status = rpc_status.from_call(error)  # type: ignore[arg-type]
    assert status is not None
    violations = [d for d in status.details if d.Is(error_details_pb2.BadRequest.DESCRIPTOR)]
    assert len(violations) == 1
    assert stub.GetGame(svc.GetGameRequest(name=game.name)).game.version == first.game.version  # nothing applied
    again = stub.SubmitAction(svc.SubmitActionRequest(name=game.name, action=actions[0], request_id="k"),
                              metadata=bearer(token))
    assert again.SerializeToString() == first.SerializeToString()


def test_another_expected_version_under_the_same_request_id_is_refused(stub) -> None:
    game, token, _, actions = _two_actions(stub)
    request = svc.SubmitActionRequest(name=game.name, action=actions[0], request_id="v", expected_version=1)
    stub.SubmitAction(request, metadata=bearer(token))
    request.ClearField("expected_version")
    _reused(stub, request, token)


def test_the_fingerprint_is_stored_with_the_response(stub, redis_url: str) -> None:
    game, token, seat, actions = _two_actions(stub)
    response = stub.SubmitAction(svc.SubmitActionRequest(name=game.name, action=actions[0], request_id="f"),
                                 metadata=bearer(token))
    client = redis.Redis.from_url(redis_url)
    stored = client.get(keys.request(game.name.removeprefix("games/"), seat, "f"))
    client.close()
    assert stored is not None and stored.startswith(MARK)
    assert stored[1 + FINGERPRINT_BYTES:] == response.SerializeToString()


def test_a_response_remembered_before_fingerprints_still_replays(stub, redis_url: str) -> None:
    """A bare response (stored by the previous release) has no fingerprint: replayed as before."""
    game, token, seat, actions = _two_actions(stub)
    first = stub.SubmitAction(svc.SubmitActionRequest(name=game.name, action=actions[0], request_id="old"),
                              metadata=bearer(token))
    client = redis.Redis.from_url(redis_url)
    key = keys.request(game.name.removeprefix("games/"), seat, "old")
    client.set(key, first.SerializeToString(), ex=60)
    client.close()
    again = stub.SubmitAction(svc.SubmitActionRequest(name=game.name, action=actions[1], request_id="old"),
                              metadata=bearer(token))
    assert again.SerializeToString() == first.SerializeToString()
