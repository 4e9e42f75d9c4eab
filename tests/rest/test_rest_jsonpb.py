"""The compiled JSON printers print exactly what ``json_format.MessageToDict`` prints."""

from __future__ import annotations

import random
from typing import Any

from google.protobuf import json_format, timestamp_pb2
from tabletop.v1 import game_pb2
from tabletop.v1 import game_service_pb2 as svc

from tabletop_server.rest import jsonpb
from tests.helpers import bearer, create_game


def _played_responses(stub: Any, actions: int) -> list[Any]:
    game, tokens = create_game(stub, seats=3, seed=11)
    responses: list[Any] = []
    rng = random.Random(3)
    for _ in range(actions):
        for token in tokens.values():
            legal = stub.ListLegalActions(svc.ListLegalActionsRequest(name=game.name), metadata=bearer(token))
            if legal.actions:
                responses.append(legal)
                request = svc.SubmitActionRequest(name=game.name, action=rng.choice(legal.actions))
                responses.append(stub.SubmitAction(request, metadata=bearer(token)))
                break
    responses.append(stub.GetGame(svc.GetGameRequest(name=game.name), metadata=bearer(tokens[0])))
    responses.append(stub.GetGameLog(svc.GetGameLogRequest(name=game.name), metadata=bearer(tokens[1])))
    return responses


def test_printers_match_message_to_dict_on_real_responses(stub: Any) -> None:
    responses = _played_responses(stub, 60)
    assert len(responses) > 100
    for response in responses:
        assert jsonpb.to_dict(response) == json_format.MessageToDict(response)


def test_printers_cover_presence_enums_int64_and_timestamps() -> None:
    seat_zero = game_pb2.Snapshot(viewer_seat=0)  # a proto3 optional set to its default is printed
    assert jsonpb.to_dict(seat_zero) == json_format.MessageToDict(seat_zero) == {"viewerSeat": 0}
    game = game_pb2.Game(name="games/x", version=2**40, status=game_pb2.GAME_STATUS_ACTIVE)
    game.create_time.CopyFrom(timestamp_pb2.Timestamp(seconds=1, nanos=5000))
    game.seats.add(index=0, display_name="ann", occupied=True)
    expected = json_format.MessageToDict(game)
    assert jsonpb.to_dict(game) == expected
    assert expected["version"] == str(2**40) and expected["status"] == "GAME_STATUS_ACTIVE"
    unknown_enum = game_pb2.Game(status=99)  # type: ignore[arg-type]
    assert jsonpb.to_dict(unknown_enum) == json_format.MessageToDict(unknown_enum)
