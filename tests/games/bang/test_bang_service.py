"""BANG! served for real: whole games through the gRPC server and the REST facade (real Redis)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
import requests
from tabletop.v1 import bang_pb2, game_pb2
from tabletop.v1 import game_service_pb2 as svc

from tabletop_server.rest.app import HttpServer, create_app, serve
from tests.helpers import bearer, create_game, error_info

MAX_ACTIONS = 3000


def play_out_grpc(stub: Any, seats: int, seed: int) -> game_pb2.Game:
    """Play a whole random game through gRPC; returns the final game."""
    game, tokens = create_game(stub, ruleset="bang", seats=seats, seed=seed)
    rng = random.Random(seed)
    for _ in range(MAX_ACTIONS):
        view = stub.GetGame(svc.GetGameRequest(name=game.name), metadata=bearer(tokens[0])).view.bang
        if not view.to_act:
            break
        seat = view.to_act[0]
        actions = stub.ListLegalActions(svc.ListLegalActionsRequest(name=game.name), metadata=bearer(tokens[seat]))
        stub.SubmitAction(svc.SubmitActionRequest(name=game.name, action=rng.choice(actions.actions)),
                          metadata=bearer(tokens[seat]))
    final = stub.GetGame(svc.GetGameRequest(name=game.name))
    assert final.game.status == game_pb2.GAME_STATUS_FINISHED
    assert final.view.bang.winners and final.view.bang.phase == bang_pb2.BANG_PHASE_OVER
    return final.game


def test_whole_games_through_grpc(stub: Any) -> None:
    for seats, seed in ((4, 11), (5, 12), (7, 13)):
        play_out_grpc(stub, seats, seed)


@pytest.mark.usefixtures("not_offered")
def test_expansion_not_built_is_invalid_argument(stub: Any) -> None:
    """An expansion not offered (Armed & Dangerous taken back out for the test) is INVALID_ARGUMENT."""
    options = game_pb2.GameOptions(bang=bang_pb2.BangOptions(
        expansions=[bang_pb2.BANG_EXPANSION_ARMED_AND_DANGEROUS]))
    with pytest.raises(grpc.RpcError) as err:
        create_game(stub, ruleset="bang", seats=4, options=options)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert error_info(err.value).reason == "EXPANSION_NOT_AVAILABLE"


def test_views_hide_hands_and_roles_and_refusals_carry_reasons(stub: Any) -> None:
    game, tokens = create_game(stub, ruleset="bang", seats=5, seed=5)
    mine = stub.GetGame(svc.GetGameRequest(name=game.name), metadata=bearer(tokens[1])).view.bang
    assert mine.viewer_seat == 1 and len(mine.hand) == mine.players[1].hand_count
    for p in mine.players:
        if p.seat != 1 and p.role != bang_pb2.BANG_ROLE_SHERIFF:
            assert p.role == bang_pb2.BANG_ROLE_UNSPECIFIED
    spectator = stub.GetGame(svc.GetGameRequest(name=game.name)).view.bang
    assert not spectator.hand and not spectator.HasField("viewer_seat")
    idle = next(s for s in range(5) if s not in mine.to_act)
    end = game_pb2.Action(bang=bang_pb2.BangAction(end_turn=bang_pb2.BangEndTurn()))
    with pytest.raises(grpc.RpcError) as err:
        stub.SubmitAction(svc.SubmitActionRequest(name=game.name, action=end), metadata=bearer(tokens[idle]))
    assert err.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert error_info(err.value).reason in ("NOT_YOUR_TURN", "NOT_YOUR_DECISION")


@pytest.fixture(scope="module")
def rest(grpc_server: Any) -> Iterator[HttpServer]:
    server = serve(create_app(grpc_server.target), "127.0.0.1", 0)
    yield server
    server.close()


def test_whole_games_through_rest(rest: HttpServer) -> None:
    http = requests.Session()
    for seats, seed in ((4, 21), (6, 22)):
        body = {"ruleset": "bang", "seatCount": seats, "displayNames": [f"p{i}" for i in range(seats)],
                "seed": str(seed)}
        created = http.post(rest.url + "/v1/games", json=body, timeout=10)
        assert created.status_code == 200, created.text
        name = created.json()["game"]["name"]
        tokens = {c.get("seat", 0): c["playerToken"] for c in created.json()["credentials"]}
        rng = random.Random(seed)
        for _ in range(MAX_ACTIONS):
            view = http.get(f"{rest.url}/v1/{name}", timeout=10).json()["view"]["bang"]
            if not view.get("toAct"):
                break
            seat = view["toAct"][0]
            auth = {"Authorization": f"Bearer {tokens[seat]}"}
            actions = http.get(f"{rest.url}/v1/{name}:legalActions", headers=auth, timeout=10).json()["actions"]
            acted = http.post(f"{rest.url}/v1/{name}:act", headers=auth, json={"action": rng.choice(actions)},
                              timeout=10)
            assert acted.status_code == 200, acted.text
        final = http.get(f"{rest.url}/v1/{name}", timeout=10).json()
        assert final["game"]["status"] == "GAME_STATUS_FINISHED" and final["view"]["bang"]["winners"]
