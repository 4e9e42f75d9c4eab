"""Who a card acts on, and which card of a victim it takes, pinned through the ruleset (issue 9).

Survivors of the stop-19 mutation run (``docs/mutation_runs/bang_stop19_g3.md``): Gatling and a
Brawl-shaped card were never played with an unaffected player at the table (Apache Kid's shape),
no test looked at the Brawl player's own cards or at who the victim's request names as its
source, the refusals of a victim-card choice and of a malformed Panic! pick kept no message,
and no test asked whether the "hand" pick is offered against an empty hand.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from bang_core_helpers import extra_cards, extra_characters
from bang_helpers import act, equip, give, kinds, pending_kind, play, table

from tabletop_server.service.engine.errors import MalformedAction, RuleError
from tabletop_server.service.engine.ruleset import State
from tabletop_server.service.games import bang
from tabletop_server.service.games.bang import tables
from tabletop_server.service.games.bang.abilities import ABILITIES, Ability
from tabletop_server.service.games.bang.catalog import Character


class _UnaffectedByOthers(Ability):
    """A character no card of another player acts on (the far end of Apache Kid's shape)."""

    def unaffected_by(self, card: str) -> bool:
        return True


if "t_g3_immune" not in ABILITIES:
    ABILITIES.add("t_g3_immune", _UnaffectedByOthers())


@contextmanager
def immune_character() -> Iterator[str]:
    """The character ``t_g3_immune`` in the character table for one test."""
    tables.CHARACTERS["t_g3_immune"] = Character("t_g3_immune", "Test Immune", 4, "t_g3_immune", "")
    try:
        yield "t_g3_immune"
    finally:
        tables.CHARACTERS.pop("t_g3_immune", None)


def refusal(state: State, seat: int, action: dict[str, Any]) -> tuple[str, str, dict[str, str]]:
    before = copy.deepcopy(state)
    with pytest.raises(RuleError) as err:
        bang.apply(state, seat, action)
    assert state == before
    return err.value.reason, err.value.message, err.value.details


@pytest.mark.rule("DC-019")
def test_gatling_and_a_brawl_act_on_a_player_whose_immunity_does_not_cover_them() -> None:
    """Apache Kid's shape is unaffected by diamonds only: the Gatling (10 of hearts) and the
    Brawl (clubs) reach him like anyone else."""
    apache = ["black_jack", "t_apache", "black_jack", "black_jack"]
    with extra_characters("t_apache"), extra_cards("t_brawl") as ids:
        st = table(4, chars=apache)
        for seat in (1, 2, 3):
            give(st, seat, ["beer"])
        events = play(st, 0, give(st, 0, ["gatling"])[0])
        assert "unaffected" not in kinds(events)
        assert [r["seat"] for r in reversed(st["pending"])] == [1, 2, 3]
        st = table(4, chars=apache)
        brawl = give(st, 0, [ids["t_brawl"][0]])[0]
        give(st, 0, ["bang"])
        for seat in (1, 2, 3):
            give(st, seat, ["beer"])  # one card each: taken without asking
        events = play(st, 0, brawl)
        assert [e["seat"] for e in events if e.get("reason") == "t_brawl"] == [1, 2, 3]


def test_gatling_and_a_brawl_pass_over_an_unaffected_player_and_say_so() -> None:
    with immune_character() as immune, extra_cards("t_brawl") as ids:
        chars = ["black_jack", immune, "black_jack", "black_jack"]
        st = table(4, chars=chars)
        for seat in (1, 2, 3):
            give(st, seat, ["beer"])
        gatling = give(st, 0, ["gatling"])[0]
        events = play(st, 0, gatling)
        assert {"kind": "unaffected", "seat": 1, "other": 0, "cards": [gatling]} in events
        assert [r["seat"] for r in reversed(st["pending"])] == [2, 3]
        st = table(4, chars=chars)
        brawl = give(st, 0, [ids["t_brawl"][0]])[0]
        give(st, 0, ["bang"])
        for seat in (1, 2, 3):
            give(st, seat, ["beer"])
        events = play(st, 0, brawl)
        assert {"kind": "unaffected", "seat": 1, "other": 0, "cards": [brawl]} in events
        assert [e["seat"] for e in events if e.get("reason") == "t_brawl"] == [2, 3]
        assert len(st["p"][1]["hand"]) == 1


@pytest.mark.rule("DC-012")
def test_a_brawl_asks_for_every_other_player_and_names_its_player_as_the_source() -> None:
    """Seat 1's Brawl: one choice per other player, clockwise (2, 3, 0); his own cards in play stay.

    Seat 2 has a card in hand and one in play, so seat 1 is asked; 3 and 0 hold one card each."""
    with extra_cards("t_brawl") as ids:
        st = table(4, turn=1)
        brawl = give(st, 1, [ids["t_brawl"][0]])[0]
        give(st, 1, ["bang"])  # the cost, paid without asking
        mine = equip(st, 1, ["mustang", "barrel"])
        for seat in (0, 2, 3):
            give(st, seat, ["beer"])
        scope = equip(st, 2, ["scope"])[0]
        play(st, 1, brawl)
        assert pending_kind(st) == "victim_card" and bang.to_act(st) == [1]
        assert [r["args"]["victim"] for r in reversed(st["pending"])] == [2, 3, 0]
        assert [(r.source_seat, r.opponent_seat) for r in reversed(bang.view(st, 2).pending)] == [
            (1, 2), (1, 3), (1, 0)]
        events = act(st, 1, {"type": "choose", "pick": "hand"})
        assert [e["seat"] for e in events if e.get("reason") == "t_brawl"] == [2, 3, 0]
        assert st["pending"] == [] and st["p"][1]["table"] == mine and st["p"][2]["table"] == [scope]


@pytest.mark.rule("DC-012")
def test_a_victim_card_choice_names_a_card_the_victim_has_and_it_goes_to_the_discard_pile() -> None:
    with extra_cards("t_brawl") as ids:
        st = table(4)
        brawl = give(st, 0, [ids["t_brawl"][0]])[0]
        give(st, 0, ["bang"])
        mustang, barrel = equip(st, 1, ["mustang", "barrel"])  # seat 1: nothing in hand
        beer = give(st, 2, ["beer"])[0]
        scope = equip(st, 2, ["scope"])[0]
        play(st, 0, brawl)
        assert bang.legal_actions(st, 0) == [{"type": "choose", "pick": mustang}, {"type": "choose", "pick": barrel}]
        assert refusal(st, 0, {"type": "choose", "pick": "hand"}) == (
            "NOTHING_TO_TAKE", "Seat 1 has no cards in hand", {"target": "1"})
        assert refusal(st, 0, {"type": "choose", "pick": scope}) == (
            "CARD_NOT_IN_PLAY", "Seat 1 has no such card in play", {"card": scope})
        events = act(st, 0, {"type": "choose", "pick": barrel})
        assert events[0] == {"kind": "discard", "seat": 1, "cards": [barrel], "reason": "t_brawl"}
        assert st["discard"][-1] == barrel and st["p"][1]["table"] == [mustang]
        # Seat 2 has a card in hand and one in play: both picks are legal, the hand's too.
        assert bang.legal_actions(st, 0) == [{"type": "choose", "pick": "hand"}, {"type": "choose", "pick": scope}]
        events = act(st, 0, {"type": "choose", "pick": "hand"})
        assert events[0] == {"kind": "discard", "seat": 2, "cards": [beer], "reason": "t_brawl"}
        assert st["discard"][-1] == beer and st["p"][2]["table"] == [scope]


@pytest.mark.rule("DC-019")
def test_a_player_unaffected_by_others_cards_is_still_affected_by_his_own() -> None:
    """Apache Kid's shape: another seat's Cat Balou of diamonds is refused on him, with its message;
    his own Cat Balou of diamonds on himself works (one's own cards always act, RULINGS BANG-066)."""
    with extra_characters("t_apache"):
        st = table(4, chars=["black_jack", "t_apache", "black_jack", "black_jack"])
        mustang = equip(st, 1, ["mustang"])[0]
        cat = give(st, 0, ["cat_balou:9d"])[0]
        assert refusal(st, 0, {"type": "play", "card": cat, "target": 1, "pick": mustang}) == (
            "TARGET_UNAFFECTED", "Seat 1 is not affected by that card", {"target": "1"})
        st = table(4, chars=["t_apache", "black_jack", "black_jack", "black_jack"])
        mustang = equip(st, 0, ["mustang"])[0]
        cat = give(st, 0, ["cat_balou:9d"])[0]
        assert {"type": "play", "card": cat, "target": 0, "pick": mustang} in bang.legal_actions(st, 0)
        events = play(st, 0, cat, target=0, pick=mustang)
        assert {"kind": "discard", "seat": 0, "cards": [mustang], "reason": "cat_balou"} in events
        assert st["p"][0]["table"] == []


@pytest.mark.rule("BANG-065")
def test_a_panic_pick_that_is_no_card_is_malformed_and_names_the_field() -> None:
    st = table(4)
    equip(st, 1, ["barrel"])
    give(st, 1, ["beer"])
    panic = give(st, 0, ["panic"])[0]
    before = copy.deepcopy(st)
    with pytest.raises(MalformedAction) as err:
        bang.apply(st, 0, {"type": "play", "card": panic, "target": 1, "pick": "saddle"})
    assert st == before
    assert (err.value.reason, err.value.message, err.value.field) == (
        "BAD_TARGET", "pick must be 'hand' or a card id in play", "pick")


@pytest.mark.rule("BANG-066")
def test_the_hand_pick_is_offered_only_against_another_players_cards_in_hand() -> None:
    """Panic!: "hand" against seat 1 who holds a card; not against seat 3 whose hand is empty, and not
    on yourself (a card from your own hand into your hand would do nothing); Cat Balou on yourself may."""
    st = table(4)
    give(st, 0, ["beer"])
    own = equip(st, 0, ["barrel"])[0]
    give(st, 1, ["beer"])
    mustang = equip(st, 3, ["volcanic"])[0]
    equip(st, 1, ["scope"])
    st["p"][2]["alive"] = False  # seat 3 sits at distance 1
    panic = give(st, 0, ["panic"])[0]
    picks = {(a.get("target"), a.get("pick")) for a in bang.legal_actions(st, 0) if a.get("card") == panic}
    assert (1, "hand") in picks and (3, mustang) in picks and (0, own) in picks
    assert (3, "hand") not in picks and (0, "hand") not in picks
    cat = give(st, 0, ["cat_balou"])[0]
    picks = {(a.get("target"), a.get("pick")) for a in bang.legal_actions(st, 0) if a.get("card") == cat}
    assert (0, "hand") in picks and (3, "hand") not in picks and (3, mustang) in picks
