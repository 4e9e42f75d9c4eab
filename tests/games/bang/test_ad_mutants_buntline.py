"""The Buntline Special's own module (``effects/buntline_special.py``, issue 30): what mutmut found untested
once its cancelled shot and ``discard_one`` request moved there (AD-053): the request's source, the refusal of
a card not in the hand (reason, text, detail), and the discard made for a target left with one card."""

from __future__ import annotations

import pytest
from bang_helpers import act, ad_table, equip, give, orange, pending_kind, play, refusal, stack_deck

from tabletop_server.service.engine.ruleset import Action, State


def use(card: str) -> Action:
    return {"type": "use", "card": card}


def cancelled_buntline_shot(hand: list[str]) -> tuple[State, list[str]]:
    """Seat 0 (in its turn) shoots seat 1 with a Buntline-paid BANG!, cancelled by his Barrel."""
    st = ad_table(4)
    buntline = orange(st, 0, "buntline_special")
    bang_card = give(st, 0, ["bang:4d"])[0]
    equip(st, 1, ["barrel"])
    cards = give(st, 1, hand)
    stack_deck(st, ["any:Qh"])
    play(st, 0, bang_card, target=1)
    act(st, 0, use(buntline))
    act(st, 1, {"type": "barrel", "card": st["p"][1]["table"][0]})
    return st, cards


@pytest.mark.rule("AD-053")
def test_the_discard_is_asked_by_the_shooter() -> None:
    st, _ = cancelled_buntline_shot(["beer", "panic"])
    assert pending_kind(st) == "discard_one"
    req = st["pending"][-1]
    assert (req["seat"], req["source"], req["args"]) == (1, 0, {"reason": "buntline_special"})


@pytest.mark.rule("AD-053")
def test_a_card_not_in_the_hand_is_refused_with_its_reason_text_and_card() -> None:
    st, _ = cancelled_buntline_shot(["beer", "panic"])
    other = give(st, 2, ["stagecoach"])[0]
    err = refusal(st, 1, {"type": "discard", "card": other})
    assert (err.reason, err.message, err.details) == ("CARD_NOT_IN_HAND", "Discard a card from your hand",
                                                      {"card": other})


@pytest.mark.rule("AD-053")
def test_a_target_left_with_one_card_discards_it_without_being_asked() -> None:
    st = ad_table(4)
    buntline = orange(st, 0, "buntline_special")
    bang_card = give(st, 0, ["bang:4d"])[0]
    equip(st, 1, ["barrel"])
    beer = give(st, 1, ["beer"])[0]
    stack_deck(st, ["any:Qh"])
    play(st, 0, bang_card, target=1)
    act(st, 0, use(buntline))
    events = act(st, 1, {"type": "barrel", "card": st["p"][1]["table"][0]})
    assert {"kind": "discard", "seat": 1, "cards": [beer], "reason": "buntline_special"} in events
    assert st["pending"] == [] and st["p"][1]["hand"] == [] and st["discard"][-1] == beer
