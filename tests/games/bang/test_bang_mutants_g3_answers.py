"""Answering a BANG! from play and with Missed!, pinned with reason, message and details (issue 9).

Survivors of the stop-19 mutation run (``docs/mutation_runs/bang_stop19_g3.md``): the refusals of
a ``use`` answer (a card in play with the Missed! symbol) kept their reason in some tests only, a
``use`` with a target or a pick was never refused, and no test used a green card in another
player's turn right after its own. The green cards are the Dodge City-shaped test rows of
``bang_core_helpers``, so the tests run on the code before Dodge City too.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from bang_core_helpers import extra_cards, extra_characters
from bang_helpers import act, equip, give, pending_kind, play, table

from tabletop_server.service.engine.errors import MalformedAction, RuleError
from tabletop_server.service.engine.ruleset import State
from tabletop_server.service.games import bang


def refusal(state: State, seat: int, action: dict[str, Any]) -> tuple[str, str, dict[str, str]]:
    before = copy.deepcopy(state)
    with pytest.raises(RuleError) as err:
        bang.apply(state, seat, action)
    assert state == before
    return err.value.reason, err.value.message, err.value.details


def shot_at_1(chars: list[str] | None = None) -> State:
    """Seat 0 shoots seat 1, who holds a Beer (so he is asked): the ``bang`` request is open."""
    st = table(4, chars=chars)
    give(st, 1, ["beer"])
    play(st, 0, give(st, 0, ["bang"])[0], target=1)
    assert pending_kind(st) == "bang" and bang.to_act(st) == [1]
    return st


@pytest.mark.rule("DC-009")
def test_a_card_in_play_answers_only_from_in_front_of_the_player_himself() -> None:
    with extra_cards("t_hat") as ids:
        st = shot_at_1()
        hat = equip(st, 2, [ids["t_hat"][0]])[0]  # another seat's hat
        assert refusal(st, 1, {"type": "use", "card": hat}) == (
            "CARD_NOT_IN_PLAY", "That card is not in play in front of you", {"card": hat})


def test_a_silenced_card_in_play_does_not_answer_and_says_so() -> None:
    belle = ["t_belle", "black_jack", "black_jack", "black_jack"]
    with extra_characters("t_belle"), extra_cards("t_hat") as ids:
        st = table(4, chars=belle)
        hat = equip(st, 1, [ids["t_hat"][0]])[0]
        give(st, 1, ["beer"])
        play(st, 0, give(st, 0, ["bang"])[0], target=1)
        assert refusal(st, 1, {"type": "use", "card": hat}) == (
            "CARD_SILENCED", "Your cards in play have no effect in this turn", {"card": hat})


@pytest.mark.parametrize("row", ["barrel", "t_pony"])
def test_only_a_card_with_the_missed_symbol_answers_a_shot_from_play(row: str) -> None:
    """A Barrel (no use at all) and a green card whose use is not a Missed! (Pony Express)."""
    with extra_cards("t_pony") as ids:
        st = shot_at_1()
        card = equip(st, 1, [ids["t_pony"][0] if row == "t_pony" else "barrel"])[0]
        assert refusal(st, 1, {"type": "use", "card": card}) == (
            "WRONG_ANSWER", "Only a Missed! effect cancels a BANG!", {"card": card})


@pytest.mark.rule("DC-009")
def test_a_card_in_play_not_yet_ready_does_not_answer_and_says_when() -> None:
    with extra_cards("t_hat") as ids:
        st = shot_at_1()
        hat = equip(st, 1, [ids["t_hat"][0]])[0]
        st["marks"] = {hat: {"ready": st["turn_no"] + 1}}  # put in play in this very turn
        assert refusal(st, 1, {"type": "use", "card": hat}) == (
            "CARD_NOT_READY", "Test Hat can be used from the turn after it was played", {"card": hat})
        assert {"type": "use", "card": hat} not in bang.legal_actions(st, 1)


@pytest.mark.parametrize("field", ["target", "pick"])
def test_a_use_answer_takes_no_target_and_no_pick(field: str) -> None:
    with extra_cards("t_hat") as ids:
        st = shot_at_1()
        hat = equip(st, 1, [ids["t_hat"][0]])[0]
        action: dict[str, Any] = {"type": "use", "card": hat, field: 0 if field == "target" else "hand"}
        before = copy.deepcopy(st)
        with pytest.raises(MalformedAction) as err:
            bang.apply(st, 1, action)
        assert st == before
        assert (err.value.reason, err.value.message, err.value.field) == (
            "UNEXPECTED_TARGET", "Test Hat takes no target here", field)
        act(st, 1, {"type": "use", "card": hat})  # the same answer without it cancels the shot
        assert pending_kind(st) is None and st["p"][1]["life"] == st["p"][1]["max"]


def test_missed_is_not_played_in_phase_two_except_by_calamity_janet() -> None:
    st = table(4)
    missed = give(st, 0, ["missed"])[0]
    assert refusal(st, 0, {"type": "play", "card": missed}) == (
        "CARD_NOT_PLAYABLE_NOW", "Missed! is played only to cancel a shot at you", {})


@pytest.mark.rule("BANG-088")
def test_calamity_janets_missed_as_a_bang_shows_as_the_source_of_the_shot() -> None:
    st = table(4, chars=["calamity_janet", "black_jack", "black_jack", "black_jack"])
    missed = give(st, 0, ["missed"])[0]
    give(st, 1, ["beer"])
    play(st, 0, missed, target=1)
    assert pending_kind(st) == "bang" and st["pending"][-1]["args"]["card"] == missed
    assert [r.source_card.id for r in bang.view(st, 1).pending] == [missed]


@pytest.mark.rule("DC-009")
def test_a_green_card_answers_in_the_very_next_turn_even_another_players() -> None:
    """Played in seat 0's turn, the Hat is ready in seat 1's turn right after (turn number + 1)."""
    with extra_cards("t_hat") as ids:
        st = table(4)
        hat = give(st, 0, [ids["t_hat"][0]])[0]
        play(st, 0, hat)
        act(st, 0, {"type": "end_turn"})
        assert st["turn"] == 1 and st["phase"] == "play"
        give(st, 0, ["beer"])
        play(st, 1, give(st, 1, ["bang"])[0], target=0)
        assert {"type": "use", "card": hat} in bang.legal_actions(st, 0)
        act(st, 0, {"type": "use", "card": hat})
        assert pending_kind(st) is None and st["p"][0]["life"] == st["p"][0]["max"]
