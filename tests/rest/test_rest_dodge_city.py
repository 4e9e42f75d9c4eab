"""BANG! with Dodge City over REST (real HTTP, the real gRPC server and Redis): a client creates a 3-,
5- and 8-seat game with the expansion in its options and plays it to the end with legal actions only,
as a client does: read the view for who acts, GET that seat's legal actions, POST one of them to ``:act``."""

from __future__ import annotations

import random
from typing import Any

import pytest

from tests.rest.rest_api import Api

MAX_ACTIONS = 3000  # above BANG!'s action limit (2,000): a game that does not end fails below
DODGE_CITY = {"bang": {"expansions": ["BANG_EXPANSION_DODGE_CITY"]}}


def create(api: Api, seats: int, seed: int) -> tuple[str, dict[int, str]]:
    body = {"ruleset": "bang", "seatCount": seats, "seed": str(seed), "options": DODGE_CITY,
            "displayNames": [f"p{i}" for i in range(seats)]}
    reply = api.post("/v1/games", json=body)
    assert reply.status_code == 200, reply.text
    data = reply.json()
    assert data["game"]["options"] == DODGE_CITY and data["game"]["status"] == "GAME_STATUS_ACTIVE"
    return data["game"]["name"], {c.get("seat", 0): c["playerToken"] for c in data["credentials"]}


@pytest.mark.rule("DC-041", "DC-044")
@pytest.mark.parametrize(("seats", "seed"), [(3, 41), (5, 42), (8, 43)])
def test_dodge_city_games_over_rest_play_to_the_end_with_legal_actions(api: Api, seats: int, seed: int) -> None:
    name, tokens = create(api, seats, seed)
    rng = random.Random(seed)
    for _ in range(MAX_ACTIONS):
        view = api.get(f"/v1/{name}", tokens[0])
        assert view.status_code == 200, view.text
        to_act = view.json()["view"]["bang"].get("toAct", [])
        if not to_act:
            break
        seat = to_act[0]
        listed = api.get(f"/v1/{name}:legalActions", tokens[seat])
        assert listed.status_code == 200, listed.text
        actions: list[dict[str, Any]] = listed.json()["actions"]
        assert actions, f"seat {seat} must act but has no legal action"
        acted = api.post(f"/v1/{name}:act", tokens[seat], json={"action": rng.choice(actions)})
        assert acted.status_code == 200, acted.text
    final = api.get(f"/v1/{name}").json()
    assert final["game"]["status"] == "GAME_STATUS_FINISHED", final["game"]
    bang = final["view"]["bang"]
    assert bang["phase"] == "BANG_PHASE_OVER" and bang["winners"]
    assert len(bang["players"]) == seats
    cards = bang.get("deckCount", 0) + bang.get("discardCount", 0) + sum(
        p.get("handCount", 0) + len(p.get("inPlay", [])) for p in bang["players"])
    assert cards == 120  # the base deck and Dodge City's 40 cards
