"""A repeated request id gives one effect and the same response; stale versions are refused."""

from __future__ import annotations

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from tabletop.v1 import game_service_pb2 as svc

from tests.helpers import bearer, create_game, error_info


def _first_action(stub, name, token):  # type: ignore[no-untyped-def]
    return stub.ListLegalActions(svc.ListLegalActionsRequest(name=name), metadata=bearer(token)).actions[0]


def test_same_request_id_applies_once_and_answers_the_same(stub) -> None:
    game, tokens = create_game(stub, seats=2)
    action = _first_action(stub, game.name, tokens[0])
    request = svc.SubmitActionRequest(name=game.name, action=action, request_id="r-1")
    first = stub.SubmitAction(request, metadata=bearer(tokens[0]))
    second = stub.SubmitAction(request, metadata=bearer(tokens[0]))
    assert first.SerializeToString() == second.SerializeToString()
    assert stub.GetGame(svc.GetGameRequest(name=game.name)).game.version == 2


def test_request_ids_are_per_seat(stub) -> None:
    game, tokens = create_game(stub, seats=2)
    for seat in (0, 1):
        action = _first_action(stub, game.name, tokens[seat])
        stub.SubmitAction(svc.SubmitActionRequest(name=game.name, action=action, request_id="same"),
                          metadata=bearer(tokens[seat]))
    assert stub.GetGame(svc.GetGameRequest(name=game.name)).game.version == 3


def test_stale_expected_version_is_failed_precondition_with_current_version(stub) -> None:
    game, tokens = create_game(stub, seats=2)
    action = _first_action(stub, game.name, tokens[0])
    with pytest.raises(grpc.RpcError) as err:
        stub.SubmitAction(svc.SubmitActionRequest(name=game.name, action=action, expected_version=7),
                          metadata=bearer(tokens[0]))
    assert err.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    info = error_info(err.value)
    assert info.reason == "STALE_VERSION" and info.metadata["current_version"] == "1"
    status = rpc_status.from_call(err.value)
    failures = [d for d in status.details if d.Is(error_details_pb2.PreconditionFailure.DESCRIPTOR)]
    assert len(failures) == 1
    ok = stub.SubmitAction(svc.SubmitActionRequest(name=game.name, action=action, expected_version=1),
                           metadata=bearer(tokens[0]))
    assert ok.game.version == 2
