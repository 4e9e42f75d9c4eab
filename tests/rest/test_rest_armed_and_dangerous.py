"""BANG! with Armed & Dangerous over REST (real HTTP, the real gRPC server and Redis), alone and with Dodge
City: a client creates the game with the expansion in its options and plays it to the end with legal
actions only (read the view for who acts, GET that seat's legal actions, POST one of them to ``:act``),
answering every cube question (PAY_CUBES, PLACE_CUBES, UPGRADE, WEAPON, ...) from the listing alone.
At the end every card is somewhere and the 32 cubes are all accounted for in the view."""

from __future__ import annotations

import random
from typing import Any

import pytest

from tests.rest.rest_api import Api

MAX_ACTIONS = 3000  # above BANG!'s action limit (2,000): a game that does not end fails below
ARMED = ["BANG_EXPANSION_ARMED_AND_DANGEROUS"]
BOTH = ["BANG_EXPANSION_DODGE_CITY", "BANG_EXPANSION_ARMED_AND_DANGEROUS"]


def create(api: Api, seats: int, seed: int, expansions: list[str]) -> tuple[str, dict[int, str]]:
    options = {"bang": {"expansions": expansions}}
    body = {"ruleset": "bang", "seatCount": seats, "seed": str(seed), "options": options,
            "displayNames": [f"p{i}" for i in range(seats)]}
    reply = api.post("/v1/games", json=body)
    assert reply.status_code == 200, reply.text
    data = reply.json()
    assert data["game"]["options"] == options and data["game"]["status"] == "GAME_STATUS_ACTIVE"
    return data["game"]["name"], {c.get("seat", 0): c["playerToken"] for c in data["credentials"]}


def cubes_in(view: dict[str, Any]) -> int:
    """Supply + every character's cubes + every orange card's cubes, as a client reads them."""
    return int(view.get("cubeSupply", 0)) + sum(
        p.get("cubes", 0) + sum(c.get("cubes", 0) for c in p.get("cardCubes", [])) for p in view["players"])


@pytest.mark.rule("AD-001", "AD-002")
@pytest.mark.parametrize(("expansions", "seats", "seed", "cards"),
                         [(ARMED, 4, 51, 108), (ARMED, 7, 52, 108), (BOTH, 3, 53, 148), (BOTH, 8, 54, 148),
                          (BOTH, 4, 55, 148), (BOTH, 7, 56, 148)],
                         ids=["ad-4", "ad-7", "dc+ad-3", "dc+ad-8", "dc+ad-4", "dc+ad-7"])
def test_armed_and_dangerous_games_over_rest_play_to_the_end(api: Api, expansions: list[str], seats: int,
                                                             seed: int, cards: int) -> None:
    name, tokens = create(api, seats, seed, expansions)
    rng = random.Random(seed)
    kinds: set[str] = set()
    for _ in range(MAX_ACTIONS):
        view = api.get(f"/v1/{name}", tokens[0])
        assert view.status_code == 200, view.text
        bang = view.json()["view"]["bang"]
        assert cubes_in(bang) == 32, bang
        kinds |= {r.get("kind", "") for r in bang.get("pending", [])}
        to_act = bang.get("toAct", [])
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
    assert bang["phase"] == "BANG_PHASE_OVER" and bang["winners"] and len(bang["players"]) == seats
    total = bang.get("deckCount", 0) + bang.get("discardCount", 0) + sum(
        p.get("handCount", 0) + len(p.get("inPlay", [])) for p in bang["players"])
    assert total == cards and cubes_in(bang) == 32
