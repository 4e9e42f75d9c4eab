"""The core: a response window accepts every source of a Missed! effect.

A ready green card in play with the Missed! symbol (``use``), a card whose row adds a
``response`` effect (Dodge), a character for whom any card is a Missed! (Elena's shape),
and an ability that triggers on answering (Molly Stark's shape). Test rows and
characters from ``bang_core_helpers``.
"""

from __future__ import annotations

import copy

import pytest
from bang_core_helpers import extra_cards, extra_characters
from bang_helpers import act, equip, give, kinds, pending_kind, play, table

from tabletop_server.service.engine.errors import RuleError
from tabletop_server.service.engine.ruleset import State
from tabletop_server.service.games import bang


def shot_at_1(st: State) -> None:
    play(st, 0, give(st, 0, ["bang"])[0], target=1)
    assert pending_kind(st) == "bang" and bang.to_act(st) == [1]


def test_a_ready_green_missed_card_in_play_answers_a_shot_and_then_does_its_use() -> None:
    with extra_cards("t_bible") as ids:
        st = table(4)
        bible = equip(st, 1, [ids["t_bible"][0]])[0]
        shot_at_1(st)  # seat 1 has no hand: still asked, he has a card to use
        assert {"type": "use", "card": bible} in bang.legal_actions(st, 1)
        events = act(st, 1, {"type": "use", "card": bible})
        assert events[0] == {"kind": "use", "seat": 1, "cards": [bible], "reason": "missed"}
        assert kinds(events)[1] == "draw" and events[1]["count"] == 1
        assert st["pending"] == [] and st["p"][1]["life"] == st["p"][1]["max"]
        assert bible in st["discard"] and st["p"][1]["table"] == []


def test_a_green_missed_card_is_not_ready_in_the_turn_it_was_played() -> None:
    with extra_cards("t_hat") as ids:
        st = table(4)
        hat = equip(st, 1, [ids["t_hat"][0]])[0]
        st["marks"] = {hat: {"ready": st["turn_no"] + 1}}
        give(st, 1, ["beer"])
        shot_at_1(st)
        assert {"type": "use", "card": hat} not in bang.legal_actions(st, 1)
        before = copy.deepcopy(st)
        with pytest.raises(RuleError) as err:
            bang.apply(st, 1, {"type": "use", "card": hat})
        assert err.value.reason == "CARD_NOT_READY" and st == before


def test_a_hat_only_cancels_and_an_empty_table_is_not_asked() -> None:
    with extra_cards("t_hat") as ids:
        st = table(4)
        hat = equip(st, 1, [ids["t_hat"][0]])[0]
        shot_at_1(st)
        events = act(st, 1, {"type": "use", "card": hat})
        assert kinds(events) == ["use"] and st["pending"] == []
        events = play(st, 0, give(st, 0, ["gatling"])[0])  # nobody holds anything: every hit at once
        assert st["pending"] == [] and kinds(events).count("damage") == 3


def test_a_response_effect_runs_when_the_card_answers() -> None:
    with extra_cards("t_dodge") as ids:
        st = table(4)
        dodge = give(st, 1, [ids["t_dodge"][0]])[0]
        shot_at_1(st)
        events = act(st, 1, {"type": "respond", "card": dodge})
        assert kinds(events) == ["respond", "draw"] and st["pending"] == []


def test_any_card_answers_as_a_missed_for_a_character_who_says_so() -> None:
    with extra_characters("t_elena"):
        st = table(4, chars=["black_jack", "t_elena", "black_jack", "black_jack"])
        beer = give(st, 1, ["beer"])[0]
        shot_at_1(st)
        assert {"type": "respond", "card": beer} in bang.legal_actions(st, 1)
        act(st, 1, {"type": "respond", "card": beer})
        assert st["pending"] == [] and st["p"][1]["life"] == st["p"][1]["max"]
        st2 = table(4)
        beer2 = give(st2, 1, ["beer"])[0]
        shot_at_1(st2)
        assert {"type": "respond", "card": beer2} not in bang.legal_actions(st2, 1)


def test_an_ability_triggers_on_answering_from_the_hand() -> None:
    with extra_characters("t_molly"):
        st = table(4, chars=["black_jack", "t_molly", "black_jack", "black_jack"])
        missed = give(st, 1, ["missed"])[0]
        shot_at_1(st)
        events = act(st, 1, {"type": "respond", "card": missed})
        assert [e.get("reason") for e in events] == ["missed", "test_molly"]
        bang_card = give(st, 1, ["bang"])[0]
        play(st, 0, give(st, 0, ["indians"])[0])
        events = act(st, 1, {"type": "respond", "card": bang_card})
        assert [e.get("reason") for e in events][:2] == ["indians", "test_molly"]
