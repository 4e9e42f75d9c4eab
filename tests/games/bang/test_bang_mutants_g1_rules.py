"""Mutation survivors of the state helpers and setup (issue 9, stop 19 run, group g1): rules.

Each test drives the public ruleset functions (``bang.setup`` / ``legal_actions`` /
``apply``) at a boundary no earlier test reached: a draw that finds fewer cards than it
asks for, a green card on exactly the turn it becomes ready, Belle Star's own cards in
her turn and a copied Belle Star (the ``as`` key), and the stored state setup builds.
"""

from __future__ import annotations

import pytest
from bang_core_helpers import extra_cards, extra_characters
from bang_helpers import act, equip, give, kinds, pending_kind, play, table

from tabletop_server.service.games import bang

PLAIN = ["willy_the_kid"] * 4  # no phase-1 ability, no distance change


@pytest.mark.rule("BANG-016")
def test_a_phase_one_draw_with_one_card_left_and_no_discard_pile_keeps_that_card() -> None:
    st = table(4, chars=PLAIN, turn=3)
    last = st["deck"][-1]
    st["p"][2]["hand"], st["deck"] = st["deck"][:-1], [last]  # the other cards out of the way
    events = act(st, 3, {"type": "end_turn"})
    assert st["turn"] == 0 and st["deck"] == [] and st["discard"] == []
    assert st["p"][0]["hand"] == [last]
    draw = [e for e in events if e["kind"] == "draw"]
    assert [(e["seat"], e["count"]) for e in draw] == [(0, 1)]


@pytest.mark.rule("DC-009")
def test_a_green_missed_card_answers_in_the_very_next_turn_after_it_was_played() -> None:
    """Played in seat 1's turn; ready from the next turn on, which is seat 2's, not seat 1's own next one."""
    with extra_cards("t_bible") as ids:
        st = table(4, chars=PLAIN, turn=1)
        bible = give(st, 1, [ids["t_bible"][0]])[0]
        assert kinds(play(st, 1, bible)) == ["equip"]
        act(st, 1, {"type": "end_turn"})
        assert st["turn"] == 2 and st["phase"] == "play"
        play(st, 2, give(st, 2, ["bang"])[0], target=1)
        assert pending_kind(st) == "bang" and bang.to_act(st) == [1]
        assert {"type": "use", "card": bible} in bang.legal_actions(st, 1)
        events = act(st, 1, {"type": "use", "card": bible})
        assert events[0] == {"kind": "use", "seat": 1, "cards": [bible], "reason": "missed"}
        assert st["p"][1]["life"] == st["p"][1]["max"]


@pytest.mark.rule("DC-021")
def test_in_belle_stars_turn_her_own_cards_in_play_still_act() -> None:
    """Her Schofield reaches 2; the silence is for the other players' cards only."""
    with extra_characters("t_belle"):
        st = table(5, chars=["t_belle"] + ["black_jack"] * 4)
        equip(st, 0, ["schofield"])
        bang_card = give(st, 0, ["bang"])[0]
        assert {"type": "play", "card": bang_card, "target": 2} in bang.legal_actions(st, 0)
        play(st, 0, bang_card, target=2)  # seat 2 holds nothing to answer with: hit at once
        assert st["p"][2]["life"] == st["p"][2]["max"] - 1


@pytest.mark.rule("DC-038")
def test_a_character_copying_belle_star_silences_the_others_cards_in_her_turn() -> None:
    """The copied character (the player's ``as``) is the one whose trait counts, not the printed one."""
    with extra_characters("t_belle"):
        st = table(4)
        equip(st, 1, ["mustang"])  # seat 1 at distance 2 from seat 0
        bang_card = give(st, 0, ["bang"])[0]
        shot = {"type": "play", "card": bang_card, "target": 1}
        assert shot not in bang.legal_actions(st, 0)
        st["p"][0]["as"] = "t_belle"
        assert shot in bang.legal_actions(st, 0)


@pytest.mark.rule("BANG-005")
def test_the_stored_state_of_a_new_game_has_exactly_its_fields() -> None:
    st = bang.setup({}, 4, 7)
    assert set(st) - {"opening"} == {"v", "opts", "rng", "deck", "discard", "p", "turn", "phase", "turn_no",
                                     "bangs", "pending", "winners"}
    assert st["p"][st["turn"]]["role"] == "sheriff" and st["turn_no"] == 1 and st["bangs"] == 0
