"""The Tumbleweed's question (``effects/tumbleweed.py``, AD-064): its refusals say what to do, and a holder
who concedes while asked lets the draw! stand (survivors of the mutation run after the card's move)."""

from __future__ import annotations

import pytest
from bang_helpers import act, ad_table, equip, orange, pending_kind, refusal, stack_deck

from tabletop_server.service.engine.errors import MalformedAction
from tabletop_server.service.engine.ruleset import State
from tabletop_server.service.games import bang


def _asked() -> tuple[State, str]:
    """Seat 1 is jailed, seat 2 holds a Tumbleweed with 3 cubes; seat 0 ends his turn: seat 2 is asked."""
    st = ad_table(4)
    equip(st, 1, ["jail"])
    weed = orange(st, 2, "tumbleweed", 3)
    stack_deck(st, ["any:5h", "any:2s", "any:3s"])
    act(st, 0, {"type": "end_turn"})
    assert pending_kind(st) == "redraw" and bang.to_act(st) == [2]
    return st, weed


@pytest.mark.rule("AD-064")
def test_another_card_is_refused_with_what_to_answer() -> None:
    st, _ = _asked()
    crate = orange(st, 2, "crate", 3)
    err = refusal(st, 2, {"type": "use", "card": crate})
    assert (err.reason, err.message, err.details) == ("WRONG_ANSWER", "Answer with your Tumbleweed, or pass",
                                                      {"card": crate})


@pytest.mark.rule("AD-064")
@pytest.mark.parametrize("field", ["target", "pick"])
def test_the_tumbleweed_takes_no_target_or_pick(field: str) -> None:
    st, weed = _asked()
    err = refusal(st, 2, {"type": "use", "card": weed, field: 1 if field == "target" else "hand"})
    assert isinstance(err, MalformedAction)
    assert (err.reason, err.message, err.field) == ("UNEXPECTED_TARGET", "Tumbleweed takes no target", "target")


@pytest.mark.rule("AD-064")
def test_the_holder_conceding_while_asked_lets_the_draw_stand() -> None:
    st, _ = _asked()
    bang.concede(st, 2)
    assert not st["p"][2]["alive"] and all(r["kind"] not in ("redraw", "redraw_declined") for r in st["pending"])
    # the flipped heart counts: seat 1 leaves the Jail (discarded) and plays his turn
    assert st["turn"] == 1 and st["phase"] == "play" and st["p"][1]["table"] == []
