"""What ``legal_actions`` lists in phase 2 and how ``apply`` refuses a malformed draw
(issue 9: the actions half of the flow mutation run).

The list is compared whole: every card of the hand contributes its plays (each target
tried in turn, an illegal one skipped, not ending the search), and a card that takes a
card of a player is listed once per choice (``hand`` or each card in play).
"""

from __future__ import annotations

import pytest
from bang_helpers import equip, give, table

from tabletop_server.service.engine.errors import MalformedAction
from tabletop_server.service.games import bang


@pytest.mark.rule("BANG-017", "BANG-039", "BANG-051")
def test_phase_two_lists_every_card_target_and_pick() -> None:
    st = table(4)
    st["p"][0]["life"] = 4
    b, beer, panic = give(st, 0, ["bang", "beer", "panic"])
    give(st, 1, ["duel"])
    equip(st, 1, ["mustang"])  # seat 1 is out of reach (distance 2): tried first, skipped
    give(st, 3, ["missed"])
    barrel = equip(st, 3, ["barrel"])[0]
    assert bang.legal_actions(st, 0) == [
        {"type": "play", "card": b, "target": 3},
        {"type": "play", "card": beer},
        {"type": "play", "card": panic, "target": 3, "pick": "hand"},
        {"type": "play", "card": panic, "target": 3, "pick": barrel},
        {"type": "end_turn"}]
    for seat in (1, 2, 3):
        assert bang.legal_actions(st, seat) == []


@pytest.mark.parametrize(("action", "reason"), [
    ({"type": "draw", "source": "player"}, "MISSING_TARGET"),
    ({"type": "draw", "source": "player", "target": "2"}, "BAD_TARGET"),
    ({"type": "draw", "source": "player", "target": 4}, "BAD_TARGET"),
    ({"type": "draw", "source": "player", "target": -1}, "BAD_TARGET"),
    ({"type": "draw", "source": "hand"}, "UNKNOWN_ACTION"),
])
def test_a_malformed_draw_is_refused_before_the_rules(action: dict[str, object], reason: str) -> None:
    st = table(4)
    with pytest.raises(MalformedAction) as err:
        bang.apply(st, 0, action)
    assert (err.value.reason, err.value.field) == (reason, "target" if "TARGET" in reason else "source")


def test_marks_of_other_cards_stay_when_a_card_without_marks_leaves_play() -> None:
    """``leave_play``/``clear_table`` drop only the leaving cards' marks (expansions keep marks per card)."""
    from tabletop_server.service.games.bang.state import clear_table, leave_play
    st = table(4)
    a, b = equip(st, 0, ["barrel", "mustang"])
    c = equip(st, 1, ["scope"])[0]
    st["marks"] = {c: {"cubes": 2}}
    leave_play(st, 0, a)
    assert st["p"][0]["table"] == [b] and st["marks"] == {c: {"cubes": 2}}
    assert clear_table(st, 0) == [b] and st["marks"] == {c: {"cubes": 2}}
