"""BANG! with Dodge City over REST (real HTTP, the real gRPC server and Redis): a client creates a 3-,
5- and 8-seat game with the expansion in its options and plays it to the end with legal actions only,
as a client does: read the view for who acts, GET that seat's legal actions, POST one of them to ``:act``."""

from __future__ import annotations

import pytest

from tests.rest.bang_rest import cards_in, create, play_to_the_end
from tests.rest.rest_api import Api

DODGE_CITY = ["BANG_EXPANSION_DODGE_CITY"]


@pytest.mark.rule("DC-041", "DC-044")
@pytest.mark.parametrize(("seats", "seed"), [(3, 41), (5, 42), (8, 43)])
def test_dodge_city_games_over_rest_play_to_the_end_with_legal_actions(api: Api, seats: int, seed: int) -> None:
    name, tokens = create(api, seats, seed, DODGE_CITY)
    bang = play_to_the_end(api, name, tokens, seed)
    assert len(bang["players"]) == seats
    assert cards_in(bang) == 120  # the base deck and Dodge City's 40 cards
