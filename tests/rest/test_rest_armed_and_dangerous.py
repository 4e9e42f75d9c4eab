"""BANG! with Armed & Dangerous over REST (real HTTP, the real gRPC server and Redis), alone and with Dodge
City: a client creates the game with the expansion in its options and plays it to the end with legal
actions only (read the view for who acts, GET that seat's legal actions, POST one of them to ``:act``),
answering every cube question (PAY_CUBES, PLACE_CUBES, UPGRADE, WEAPON, ...) from the listing alone.
At the end every card is somewhere and the 32 cubes are all accounted for in the view."""

from __future__ import annotations

from typing import Any

import pytest

from tests.rest.bang_rest import cards_in, create, play_to_the_end
from tests.rest.rest_api import Api

ARMED = ["BANG_EXPANSION_ARMED_AND_DANGEROUS"]
BOTH = ["BANG_EXPANSION_DODGE_CITY", "BANG_EXPANSION_ARMED_AND_DANGEROUS"]


def cubes_in(view: dict[str, Any]) -> int:
    """Supply + every character's cubes + every orange card's cubes, as a client reads them."""
    return int(view.get("cubeSupply", 0)) + sum(
        p.get("cubes", 0) + sum(c.get("cubes", 0) for c in p.get("cardCubes", [])) for p in view["players"])


@pytest.mark.rule("AD-001", "AD-002")
@pytest.mark.parametrize(("expansions", "seats", "seed", "cards"),
                         [(ARMED, 4, 51, 108), (ARMED, 7, 52, 108), (BOTH, 3, 53, 148), (BOTH, 8, 54, 148),
                          (BOTH, 4, 57, 148), (BOTH, 7, 56, 148)],
                         ids=["ad-4", "ad-7", "dc+ad-3", "dc+ad-8", "dc+ad-4", "dc+ad-7"])
def test_armed_and_dangerous_games_over_rest_play_to_the_end(api: Api, expansions: list[str], seats: int,
                                                             seed: int, cards: int) -> None:
    name, tokens = create(api, seats, seed, expansions)
    kinds: set[str] = set()

    def check(bang: dict[str, Any]) -> None:
        assert cubes_in(bang) == 32, bang
        kinds.update(r.get("kind", "") for r in bang.get("pending", []))

    bang = play_to_the_end(api, name, tokens, seed, check)
    assert len(bang["players"]) == seats
    assert cards_in(bang) == cards and cubes_in(bang) == 32
    # The cube questions were really asked and answered over REST (each seed's game reaches these two;
    # the six together also reach PAY_CUBES, WEAPON, REDRAW and PASS_BOMB).
    assert {"BANG_REQUEST_KIND_UPGRADE", "BANG_REQUEST_KIND_PLACE_CUBES"} <= kinds, sorted(kinds)
