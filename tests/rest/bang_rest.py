"""A BANG! game over REST as a client plays it, for the expansion playthroughs (Dodge City, Armed &
Dangerous): create it with the expansions in its options, then read the view for who acts, GET that
seat's legal actions and POST one of them to ``:act``, until the game is over."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from tests.rest.rest_api import Api

MAX_ACTIONS = 3000  # above BANG!'s action limit (2,000): a game that does not end fails in play_to_the_end


def create(api: Api, seats: int, seed: int, expansions: list[str]) -> tuple[str, dict[int, str]]:
    """A started game with these expansions: its name and every seat's token."""
    options = {"bang": {"expansions": expansions}}
    body = {"ruleset": "bang", "seatCount": seats, "seed": str(seed), "options": options,
            "displayNames": [f"p{i}" for i in range(seats)]}
    reply = api.post("/v1/games", json=body)
    assert reply.status_code == 200, reply.text
    data = reply.json()
    assert data["game"]["options"] == options and data["game"]["status"] == "GAME_STATUS_ACTIVE"
    return data["game"]["name"], {c.get("seat", 0): c["playerToken"] for c in data["credentials"]}


def play_to_the_end(api: Api, name: str, tokens: dict[int, str], seed: int,
                    each_view: Callable[[dict[str, Any]], None] = lambda _: None) -> dict[str, Any]:
    """Random legal actions until nobody is to act; ``each_view`` sees seat 0's BANG! view before each
    action. Returns the final view (public), checked to be a finished game with winners."""
    rng = random.Random(seed)
    for _ in range(MAX_ACTIONS):
        view = api.get(f"/v1/{name}", tokens[0])
        assert view.status_code == 200, view.text
        bang = view.json()["view"]["bang"]
        each_view(bang)
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
    bang: dict[str, Any] = final["view"]["bang"]
    assert bang["phase"] == "BANG_PHASE_OVER" and bang["winners"]
    return bang


def cards_in(bang: dict[str, Any]) -> int:
    """Deck + discard pile + every hand and every card in play, as a client counts them."""
    return int(bang.get("deckCount", 0)) + int(bang.get("discardCount", 0)) + sum(
        p.get("handCount", 0) + len(p.get("inPlay", [])) for p in bang["players"])
