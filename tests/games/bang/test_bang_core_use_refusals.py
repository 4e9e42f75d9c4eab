"""Using a card in play (``use``): each refusal with its reason, message and details, state unchanged.

Found by mutating ``play.check_use`` (stop 18): the core's tests checked the reasons of some refusals
only. The green cards are the Dodge City-shaped test rows of ``bang_core_helpers``.
"""

from __future__ import annotations

import copy

import pytest
from bang_core_helpers import extra_cards
from bang_helpers import equip, give, play, table

from tabletop_server.service.engine.errors import RuleError
from tabletop_server.service.engine.ruleset import State
from tabletop_server.service.games import bang


def refusal(state: State, seat: int, action: dict[str, object]) -> tuple[str, str, dict[str, str]]:
    before = copy.deepcopy(state)
    with pytest.raises(RuleError) as err:
        bang.apply(state, seat, action)
    assert state == before
    return err.value.reason, err.value.message, err.value.details


def test_only_a_card_in_front_of_the_player_is_used() -> None:
    with extra_cards("t_pony") as ids:
        st = table(4)
        pony = equip(st, 1, [ids["t_pony"][0]])[0]  # in front of another seat
        assert refusal(st, 0, {"type": "use", "card": pony}) == (
            "CARD_NOT_IN_PLAY", "That card is not in play in front of you", {"card": pony})


def test_a_blue_card_in_play_is_not_used_from_play() -> None:
    st = table(4)
    mustang = equip(st, 0, ["mustang"])[0]
    assert refusal(st, 0, {"type": "use", "card": mustang}) == (
        "CARD_NOT_PLAYABLE_NOW", "Mustang is not used from play", {"card": mustang})


def test_a_green_card_waits_for_the_next_turn_and_says_so() -> None:
    with extra_cards("t_pony") as ids:
        st = table(4)
        pony = give(st, 0, [ids["t_pony"][0]])[0]
        play(st, 0, pony)
        assert refusal(st, 0, {"type": "use", "card": pony}) == (
            "CARD_NOT_READY", "Test Pony can be used from the turn after it was played", {"card": pony})


def test_a_missed_symbol_card_is_used_only_to_cancel_a_shot() -> None:
    with extra_cards("t_hat") as ids:
        st = table(4)
        hat = equip(st, 0, [ids["t_hat"][0]])[0]
        assert refusal(st, 0, {"type": "use", "card": hat}) == (
            "CARD_NOT_PLAYABLE_NOW", "Test Hat is used only to cancel a shot at you", {"card": hat})
