"""Ticket to Ride: Europe through the real servers: full random games over gRPC and REST."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
import requests
from tabletop.v1 import game_pb2
from tabletop.v1 import game_service_pb2 as svc
from tabletop.v1 import ttr_europe_pb2 as pb

from tabletop_server.rest.app import create_app, serve
from tests.helpers import bearer, create_game, error_info


def _claim_first(actions: list[Any], is_claim: Any, rng: random.Random) -> Any:
    claims = [a for a in actions if is_claim(a)]
    return rng.choice(claims) if claims and rng.random() < 0.7 else rng.choice(actions)


def _grpc_game(stub: Any, seats: int, seed: int) -> svc.GetGameResponse:
    game, tokens = create_game(stub, seats=seats, seed=seed)
    rng = random.Random(seed)
    for _ in range(3000):
        view = stub.GetGame(svc.GetGameRequest(name=game.name)).view.ttr_europe
        if view.phase == 4:  # TTR_PHASE_FINISHED
            break
        seat = rng.choice(list(view.awaiting_seats))
        actions = list(stub.ListLegalActions(svc.ListLegalActionsRequest(name=game.name),
                                             metadata=bearer(tokens[seat])).actions)
        action = _claim_first(actions, lambda a: a.ttr_europe.WhichOneof("kind") in (
            "claim_route", "pay_tunnel"), rng)
        stub.SubmitAction(svc.SubmitActionRequest(name=game.name, action=action), metadata=bearer(tokens[seat]))
    final = stub.GetGame(svc.GetGameRequest(name=game.name), metadata=bearer(tokens[0]))
    for token in tokens.values():
        assert not stub.ListLegalActions(svc.ListLegalActionsRequest(name=game.name),
                                         metadata=bearer(token)).actions
    return final  # type: ignore[no-any-return]


def _check_scores(view: Any, seats: int) -> None:
    assert view.phase == 4 and len(view.final_scores) == seats and list(view.winners)
    for score in view.final_scores:
        assert score.total == score.route_points + score.ticket_points + score.station_points + \
            score.express_bonus
        assert score.ticket_points == sum(t.ticket.points * (1 if t.completed else -1) for t in score.tickets)
        assert score.tickets, "every ticket is revealed at the end"
    assert max(s.total for s in view.final_scores) == view.final_scores[view.winners[0]].total


@pytest.mark.parametrize("seats, seed", [(2, 101), (3, 202), (5, 303)])
def test_full_random_game_over_grpc(stub: Any, seats: int, seed: int) -> None:
    final = _grpc_game(stub, seats, seed)
    assert final.game.status == game_pb2.GAME_STATUS_FINISHED
    _check_scores(final.view.ttr_europe, seats)


def test_rule_errors_over_grpc(stub: Any) -> None:
    game, tokens = create_game(stub, seats=2, seed=9)
    keep = svc.SubmitActionRequest(name=game.name, action=game_pb2.Action(
        ttr_europe=pb.TtrEuropeAction(keep_tickets=pb.TtrKeepTickets(ticket_ids=[999]))))
    with pytest.raises(grpc.RpcError) as err:
        stub.SubmitAction(keep, metadata=bearer(tokens[0]))
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert error_info(err.value).reason == "UNKNOWN_TICKET"
    draw = svc.SubmitActionRequest(name=game.name, action=game_pb2.Action(
        ttr_europe=pb.TtrEuropeAction(draw_train_card=pb.TtrDrawTrainCard())))
    with pytest.raises(grpc.RpcError) as err:
        stub.SubmitAction(draw, metadata=bearer(tokens[1]))
    assert err.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert error_info(err.value).reason == "MUST_CHOOSE_TICKETS"
    route = svc.SubmitActionRequest(name=game.name, action=game_pb2.Action(
        ttr_europe=pb.TtrEuropeAction(claim_route=pb.TtrClaimRoute(route_id=500))))
    with pytest.raises(grpc.RpcError) as err:
        stub.SubmitAction(route, metadata=bearer(tokens[1]))
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert error_info(err.value).reason == "UNKNOWN_ROUTE"


@pytest.fixture(scope="module")
def rest_url(grpc_server: Any) -> Iterator[str]:
    server = serve(create_app(grpc_server.target), "127.0.0.1", 0)
    yield server.url
    server.close()


def test_full_random_game_over_rest(rest_url: str) -> None:
    session = requests.Session()
    created = session.post(f"{rest_url}/v1/games", json={
        "ruleset": "ttr-europe", "seatCount": 2, "displayNames": ["a", "b"], "seed": "404"}, timeout=10)
    assert created.status_code == 200, created.text
    name = created.json()["game"]["name"]
    tokens = {c.get("seat", 0): c["playerToken"] for c in created.json()["credentials"]}
    rng = random.Random(404)
    for _ in range(3000):
        view = session.get(f"{rest_url}/v1/{name}", timeout=10).json()["view"]["ttrEurope"]
        if view["phase"] == "TTR_PHASE_FINISHED":
            break
        seat = rng.choice(view["awaitingSeats"])
        auth = {"Authorization": f"Bearer {tokens[seat]}"}
        actions = session.get(f"{rest_url}/v1/{name}:legalActions", headers=auth, timeout=10).json()["actions"]
        action = _claim_first(actions, lambda a: "claimRoute" in a["ttrEurope"] or "payTunnel" in a["ttrEurope"],
                              rng)
        acted = session.post(f"{rest_url}/v1/{name}:act", headers=auth, json={"action": action}, timeout=10)
        assert acted.status_code == 200, acted.text
    final = session.get(f"{rest_url}/v1/{name}", headers={"Authorization": f"Bearer {tokens[0]}"},
                        timeout=10).json()["view"]["ttrEurope"]
    assert final["phase"] == "TTR_PHASE_FINISHED"
    scores = final["finalScores"]
    assert len(scores) == 2 and final["winners"]
    for score in scores:
        parts = sum(int(score.get(k, 0)) for k in ("routePoints", "ticketPoints", "stationPoints", "expressBonus"))
        assert int(score.get("total", 0)) == parts
    session.close()
