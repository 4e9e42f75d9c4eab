"""Dodge City character abilities pinned where mutation testing found them loose (stop 20).

Pat Brennan's phase-1 choice (DC-034): the ``draw`` request's refusals, each checked for its reason,
message and details and for changing nothing, and his own card in play, which alone is enough for
him to be asked (the request as every seat sees it) and which he may take. The refusals are the
base game's ``draw`` request (``characters/base.py`` ``DrawChoice.check``), shared with Jesse Jones
and Pedro Ramirez. Verdicts: ``docs/mutation_runs/bang_stop20_dc_chars.md``.
"""

from __future__ import annotations

import pytest
from bang_helpers import act, chars, equip, give, pending_kind, refusal, table
from tabletop.v1 import bang_pb2

from tabletop_server.service.engine.errors import MalformedAction
from tabletop_server.service.engine.ruleset import Action, Event, State
from tabletop_server.service.games import bang

pytestmark = pytest.mark.usefixtures("dodge_city")
DC = ["dodge_city"]
DECK: Action = {"type": "draw", "source": "deck"}


def rule_error(st: State, seat: int, action: Action) -> tuple[str, str, dict[str, str]]:
    """Reason, message and details of a refusal that is a rule error, not a malformed action."""
    err = refusal(st, seat, action)
    assert not isinstance(err, MalformedAction)
    return err.reason, err.message, err.details


def pat(**at: str) -> State:
    """Pat Brennan at seat 1; seat 0 is in his phase 2."""
    return table(4, chars=chars(4, s1="pat_brennan", **at), expansions=DC)


def takes(events: list[Event]) -> list[Event]:
    return [e for e in events if e["kind"] == "take"]


# Pat Brennan (DC-034)


@pytest.mark.rule("DC-034")
def test_pat_brennan_refused_a_card_not_in_play_is_told_what_to_choose() -> None:
    st = pat()
    equip(st, 3, ["winchester"])
    act(st, 0, {"type": "end_turn"})
    assert pending_kind(st) == "draw" and bang.to_act(st) == [1]
    in_deck, in_hand = st["deck"][-1], give(st, 3, ["beer"])[0]
    for card in (in_deck, in_hand):
        assert rule_error(st, 1, {"type": "choose", "pick": card}) == (
            "NOT_A_CHOICE", "Choose a card in play, or draw from the deck", {"pick": card})


@pytest.mark.rule("DC-034")
def test_pat_brennan_draws_from_the_deck_only() -> None:
    """His only draw is from the deck: the discard pile (not empty) and another player's hand are
    refused with their own reasons (a target beside the deck: ``test_bang_mutants_messages``)."""
    st = pat()
    rifle = equip(st, 3, ["winchester"])[0]
    give(st, 3, ["beer"])
    st["discard"].append(st["deck"].pop(0))
    act(st, 0, {"type": "end_turn"})
    assert bang.legal_actions(st, 1) == [DECK, {"type": "choose", "pick": rifle}]
    assert rule_error(st, 1, {"type": "draw", "source": "discard"}) == (
        "EMPTY_DISCARD_PILE", "The discard pile is empty or not yours to draw from", {})
    assert rule_error(st, 1, {"type": "draw", "source": "player", "target": 3}) == (
        "EMPTY_HAND", "Choose another living player who has cards in hand", {})
    events = act(st, 1, DECK)
    assert [e["count"] for e in events if e["kind"] == "draw" and e["seat"] == 1] == [2]
    assert st["p"][3]["table"] == [rifle] and st["phase"] == "play"


@pytest.mark.rule("DC-034")
def test_pat_brennan_takes_his_own_card_when_only_he_has_cards_in_play() -> None:
    """NOTES b #15: "any one player" includes himself; his own table alone is enough to be asked."""
    st = pat()
    barrel = equip(st, 1, ["barrel"])[0]
    deck = len(st["deck"])
    events = act(st, 0, {"type": "end_turn"})
    assert pending_kind(st) == "draw" and not [e for e in events if e["kind"] == "draw"]
    assert bang.legal_actions(st, 1) == [DECK, {"type": "choose", "pick": barrel}]
    shown = bang.view(st, 2).pending[-1]  # his own choice, asked by himself
    assert (shown.kind, shown.seat, shown.HasField("source_seat"), shown.source_seat) == (
        bang_pb2.BANG_REQUEST_KIND_DRAW, 1, True, 1)
    events = act(st, 1, {"type": "choose", "pick": barrel})
    assert takes(events) == [{"kind": "take", "seat": 1, "other": 1, "cards": [barrel], "reason": "table"}]
    assert st["p"][1]["hand"] == [barrel] and st["p"][1]["table"] == [] and len(st["deck"]) == deck
    assert st["phase"] == "play" and st["pending"] == []
