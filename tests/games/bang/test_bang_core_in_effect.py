"""The core: one accessor for what is in effect on the table, and "does not affect me".

Belle Star's shape (trait ``silence_others``): in her turn the others' cards in play have
no effect, for distance, reach, Barrels and Missed! cards in play alike. Apache Kid's
shape (``unaffected_by`` diamonds of others): refused as a single target, passed over by
a card for every other player. Test characters from ``bang_core_helpers``.
"""

from __future__ import annotations

import copy

import pytest
from bang_core_helpers import extra_cards, extra_characters
from bang_helpers import act, equip, give, kinds, pending_kind, play, table

from tabletop_server.service.engine.errors import RuleError
from tabletop_server.service.engine.ruleset import Action, State
from tabletop_server.service.games import bang

BELLE = ["t_belle", "black_jack", "black_jack", "black_jack", "black_jack"]


def refused(state: State, seat: int, action: Action) -> str:
    before = copy.deepcopy(state)
    with pytest.raises(RuleError) as err:
        bang.apply(state, seat, action)
    assert state == before
    return str(err.value.reason)


def test_in_her_turn_the_others_cards_in_play_do_not_count_for_distance() -> None:
    with extra_characters("t_belle"):
        st = table(5, chars=BELLE)
        equip(st, 1, ["mustang"])
        equip(st, 2, ["scope"])
        bang_card = give(st, 0, ["bang"])[0]
        assert {"type": "play", "card": bang_card, "target": 1} in bang.legal_actions(st, 0)
        st2 = table(5, chars=["black_jack", *BELLE[1:]])
        equip(st2, 1, ["mustang"])
        bang2 = give(st2, 0, ["bang"])[0]
        assert refused(st2, 0, {"type": "play", "card": bang2, "target": 1}) == "OUT_OF_RANGE"


def test_in_her_turn_the_others_barrels_and_missed_cards_in_play_do_not_answer() -> None:
    with extra_characters("t_belle"), extra_cards("t_hat") as ids:
        st = table(4, chars=BELLE[:4])
        barrel = equip(st, 1, ["barrel"])[0]
        hat = equip(st, 1, [ids["t_hat"][0]])[0]
        give(st, 1, ["beer"])
        play(st, 0, give(st, 0, ["bang"])[0], target=1)
        assert pending_kind(st) == "bang"
        assert bang.legal_actions(st, 1) == [{"type": "pass"}]
        assert refused(st, 1, {"type": "barrel", "card": barrel}) == "NO_BARREL"
        assert refused(st, 1, {"type": "use", "card": hat}) == "CARD_SILENCED"
        # With an empty hand and only silenced cards in play, nothing is asked.
        st3 = table(4, chars=BELLE[:4])
        equip(st3, 1, ["barrel"])
        events = play(st3, 0, give(st3, 0, ["bang"])[0], target=1)
        assert "damage" in kinds(events) and st3["pending"] == []


def test_a_player_unaffected_by_a_card_is_not_its_target_and_is_passed_over() -> None:
    with extra_characters("t_apache"):
        st = table(4, chars=["black_jack", "t_apache", "black_jack", "black_jack"])
        diamond, club = give(st, 0, ["bang:Ad", "bang:2c"])
        legal = bang.legal_actions(st, 0)
        assert {"type": "play", "card": diamond, "target": 1} not in legal
        assert {"type": "play", "card": club, "target": 1} in legal
        assert refused(st, 0, {"type": "play", "card": diamond, "target": 1}) == "TARGET_UNAFFECTED"
        give(st, 2, ["beer"])
        events = play(st, 0, give(st, 0, ["indians:Kd"])[0])
        assert events[1] == {"kind": "unaffected", "seat": 1, "other": 0, "cards": [events[0]["cards"][0]]}
        assert all(r["seat"] != 1 for r in st["pending"]) and bang.to_act(st) == [2]
        act(st, 2, {"type": "pass"})
        assert st["p"][1]["life"] == st["p"][1]["max"]
