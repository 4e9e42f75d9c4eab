"""Bad input gets a clear error with the right code and never changes state."""

from __future__ import annotations

import grpc
import pytest
from tabletop.v1 import game_pb2
from tabletop.v1 import game_service_pb2 as svc

from tests.helpers import bearer, create_game, error_info

METHOD = "/tabletop.v1.GameService/SubmitAction"


def _version(stub, name: str) -> int:  # type: ignore[no-untyped-def]
    return stub.GetGame(svc.GetGameRequest(name=name)).game.version


def _raw_call(channel, payload: bytes, token: str):  # type: ignore[no-untyped-def]
    call = channel.unary_unary(METHOD, request_serializer=None, response_deserializer=None)
    with pytest.raises(grpc.RpcError) as err:
        call(payload, metadata=bearer(token))
    return err.value


@pytest.fixture()
def game(stub):  # type: ignore[no-untyped-def]
    return create_game(stub, seats=2)


def test_garbage_protobuf_bytes(stub, channel, game) -> None:
    g, tokens = game
    err = _raw_call(channel, b"\xff\xff\xff\xff\x0f", tokens[0])
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert error_info(err).reason == "MALFORMED_REQUEST"
    assert _version(stub, g.name) == 1


def test_unknown_protobuf_field(stub, channel, game) -> None:
    g, tokens = game
    payload = svc.SubmitActionRequest(name=g.name).SerializeToString() + b"\xf8\x06\x01"  # field 111, varint
    err = _raw_call(channel, payload, tokens[0])
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert error_info(err).reason == "UNKNOWN_FIELD"
    assert _version(stub, g.name) == 1


def test_oversized_request(stub, game) -> None:
    g, tokens = game
    huge = svc.SubmitActionRequest(name=g.name, request_id="x" * 70000)
    with pytest.raises(grpc.RpcError) as err:
        stub.SubmitAction(huge, metadata=bearer(tokens[0]))
    assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert error_info(err.value).reason == "REQUEST_TOO_LARGE"
    assert _version(stub, g.name) == 1


@pytest.mark.parametrize("metadata, code, reason", [
    ([], grpc.StatusCode.UNAUTHENTICATED, "MISSING_TOKEN"),
    ([("authorization", "Basic abc")], grpc.StatusCode.UNAUTHENTICATED, "INVALID_TOKEN"),
    ([("authorization", "Bearer nonsense")], grpc.StatusCode.UNAUTHENTICATED, "INVALID_TOKEN"),
])
def test_missing_or_malformed_token(stub, game, metadata, code, reason) -> None:
    g, _tokens = game
    action = game_pb2.Action(ttr_europe={"draw_tickets": {}})
    with pytest.raises(grpc.RpcError) as err:
        stub.SubmitAction(svc.SubmitActionRequest(name=g.name, action=action), metadata=metadata)
    assert (err.value.code(), error_info(err.value).reason) == (code, reason)
    assert _version(stub, g.name) == 1


def test_forged_token_and_other_games_token(stub, game) -> None:
    g, tokens = game
    _other, other_tokens = create_game(stub, seats=2)
    game_id = g.name.split("/")[1]
    action = stub.ListLegalActions(svc.ListLegalActionsRequest(name=g.name), metadata=bearer(tokens[0])).actions[0]
    for token, code in ((f"{game_id}.0.forged", grpc.StatusCode.UNAUTHENTICATED),
                        (f"{game_id}.9.forged", grpc.StatusCode.UNAUTHENTICATED),
                        (other_tokens[0], grpc.StatusCode.PERMISSION_DENIED)):
        with pytest.raises(grpc.RpcError) as err:
            stub.SubmitAction(svc.SubmitActionRequest(name=g.name, action=action), metadata=bearer(token))
        assert err.value.code() == code
        assert "seat" not in error_info(err.value).metadata
    assert _version(stub, g.name) == 1


def test_wrong_ruleset_action_and_empty_action(stub, game) -> None:
    g, tokens = game
    for action in (game_pb2.Action(bang={}), game_pb2.Action()):
        with pytest.raises(grpc.RpcError) as err:
            stub.SubmitAction(svc.SubmitActionRequest(name=g.name, action=action), metadata=bearer(tokens[0]))
        assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert error_info(err.value).reason == "WRONG_RULESET"
    assert _version(stub, g.name) == 1


def test_bad_names_and_create_arguments(stub) -> None:
    cases = [
        (lambda: stub.GetGame(svc.GetGameRequest(name="nope")), grpc.StatusCode.INVALID_ARGUMENT, "INVALID_NAME"),
        (lambda: stub.CreateGame(svc.CreateGameRequest(ruleset="chess", seat_count=2)),
         grpc.StatusCode.INVALID_ARGUMENT, "UNKNOWN_RULESET"),
        (lambda: stub.CreateGame(svc.CreateGameRequest(ruleset="ttr-europe", seat_count=6)),
         grpc.StatusCode.INVALID_ARGUMENT, "INVALID_SEAT_COUNT"),
        (lambda: stub.CreateGame(svc.CreateGameRequest(ruleset="ttr-europe", seat_count=1)),
         grpc.StatusCode.INVALID_ARGUMENT, "INVALID_SEAT_COUNT"),
        (lambda: stub.CreateGame(svc.CreateGameRequest(ruleset="ttr-europe", seat_count=2,
                                                        display_names=["a", "b", "c"])),
         grpc.StatusCode.INVALID_ARGUMENT, "TOO_MANY_NAMES"),
        (lambda: stub.CreateGame(svc.CreateGameRequest(ruleset="ttr-europe", seat_count=2, display_names=[""])),
         grpc.StatusCode.INVALID_ARGUMENT, "INVALID_DISPLAY_NAME"),
        (lambda: stub.CreateGame(svc.CreateGameRequest(ruleset="ttr-europe", seat_count=2,
                                                        options=game_pb2.GameOptions(bang={}))),
         grpc.StatusCode.INVALID_ARGUMENT, "WRONG_RULESET"),
    ]
    for call, code, reason in cases:
        with pytest.raises(grpc.RpcError) as err:
            call()
        assert (err.value.code(), error_info(err.value).reason) == (code, reason)


def test_acting_out_of_turn_changes_nothing(stub, game) -> None:
    g, tokens = game
    for token in tokens.values():  # finish the simultaneous ticket choice
        action = stub.ListLegalActions(svc.ListLegalActionsRequest(name=g.name), metadata=bearer(token)).actions[0]
        stub.SubmitAction(svc.SubmitActionRequest(name=g.name, action=action), metadata=bearer(token))
    view = stub.GetGame(svc.GetGameRequest(name=g.name)).view.ttr_europe
    idle = 1 - view.current_seat
    assert not stub.ListLegalActions(svc.ListLegalActionsRequest(name=g.name), metadata=bearer(tokens[idle])).actions
    before = _version(stub, g.name)
    with pytest.raises(grpc.RpcError) as err:
        stub.SubmitAction(svc.SubmitActionRequest(name=g.name, action=game_pb2.Action(
            ttr_europe={"draw_train_card": {}})), metadata=bearer(tokens[idle]))
    assert err.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert error_info(err.value).reason == "NOT_YOUR_TURN"
    assert _version(stub, g.name) == before
