"""Tests for the mutants issue 30's mutation run left open (``docs/mutation_runs/bang_issue30_modifiers.md``):
a Double Barrel's shot at a target who has an ability to activate, the dying window's refusal of a card
that is not a Beer, an eliminated player's cubes and cards, the card a Bell Tower holds, and the draw a
cancelled shot gives Bloody Mary when it is cancelled by a card in play."""

from __future__ import annotations

import pytest
from bang_helpers import (
    act,
    ad_table,
    chars,
    equip,
    give,
    hand_keys,
    orange,
    pending_kind,
    play,
    refusal,
    set_cubes,
    stack_deck,
    table,
)

from tabletop_server.service.games import bang
from tabletop_server.service.games.bang.layout import Action

PASS: Action = {"type": "pass"}
DC = ["dodge_city"]


def use(card: str) -> Action:
    return {"type": "use", "card": card}


@pytest.mark.rule("AD-054", "BANG-099")
def test_a_double_barrel_shot_at_sid_ketchum_waits_for_his_ability_and_refuses_his_missed() -> None:
    """The cube paid in the open makes the shot sure: a target with no ability to activate takes it without
    being asked, but Sid Ketchum (2 cards, below his maximum) is asked, and his Missed! is refused with the
    reason and its message (``BangResponse.auto``'s ``sure`` branch asks his ``activations``)."""
    st = ad_table(4, chars=chars(4, s1="sid_ketchum"))
    barrel = orange(st, 0, "double_barrel")
    bang_card = give(st, 0, ["bang:7d"])[0]
    st["p"][1]["life"] = 2
    missed, beer = give(st, 1, ["missed", "beer"])
    play(st, 0, bang_card, target=1)
    act(st, 0, use(barrel))
    assert pending_kind(st) == "bang" and bang.to_act(st) == [1]
    err = refusal(st, 1, {"type": "respond", "card": missed})
    assert (err.reason, err.message) == ("SHOT_UNCANCELLABLE", "This shot cannot be cancelled: take the hit")
    events = act(st, 1, {"type": "ability", "cards": [missed, beer]})
    # His hand is empty now: nothing is left to ask him, the hit is taken.
    assert [e["kind"] for e in events if e["kind"] in ("heal", "pass", "damage")] == ["heal", "pass", "damage"]
    assert st["p"][1]["life"] == 2 and st["pending"] == []


@pytest.mark.rule("BANG-046")
def test_a_card_that_is_not_a_beer_in_the_dying_window_is_refused_with_its_message() -> None:
    st = table(4)
    st["p"][1]["life"] = 1
    beer, panic = give(st, 1, ["beer", "panic"])
    play(st, 0, give(st, 0, ["bang"])[0], target=1)
    act(st, 1, PASS)
    assert pending_kind(st) == "dying"
    err = refusal(st, 1, {"type": "respond", "card": panic})
    assert (err.reason, err.message, err.details) == ("WRONG_ANSWER", "Only a Beer can save you from a lethal hit",
                                                      {"card": panic})
    act(st, 1, {"type": "respond", "card": beer})
    assert st["p"][1]["life"] == 1 and st["pending"] == []


@pytest.mark.rule("DC-031", "BANG-046")
def test_molly_stark_draws_for_the_beer_that_saves_her_out_of_her_turn() -> None:
    st = table(4, chars=chars(4, s1="molly_stark"), expansions=DC)
    st["p"][1]["life"] = 1
    beer, _ = give(st, 1, ["beer", "panic"])
    play(st, 0, give(st, 0, ["bang"])[0], target=1)
    act(st, 1, PASS)
    assert pending_kind(st) == "dying"
    stack_deck(st, ["stagecoach"])
    events = act(st, 1, {"type": "respond", "card": beer})
    assert [e["reason"] for e in events if e["kind"] == "draw"] == ["molly_stark"]
    assert sorted(hand_keys(st, 1)) == ["panic", "stagecoach"] and st["p"][1]["life"] == 1


@pytest.mark.rule("AD-030", "BANG-024")
def test_an_eliminated_players_cubes_and_cards_go_with_the_reason_eliminated() -> None:
    """His character's cubes go back to the supply and his hand to the discard pile, each with an event
    that says why; the stored player is not alive (``False``, as the layout has it)."""
    st = ad_table(4)
    st["p"][1]["life"] = 1
    set_cubes(st, 1, "character", 2)
    supply = st["supply"]
    panic = give(st, 1, ["panic"])[0]
    play(st, 0, give(st, 0, ["bang"])[0], target=1)
    act(st, 1, PASS)
    assert pending_kind(st) == "dying"
    events = act(st, 1, PASS)
    assert {"kind": "cubes", "seat": 1, "cards": [], "amount": -2, "reason": "eliminated"} in events
    assert {"kind": "discard", "seat": 1, "cards": [panic], "reason": "eliminated"} in events
    assert st["p"][1]["alive"] is False and st["supply"] == supply + 2 and panic in st["discard"]


@pytest.mark.rule("AD-067", "AD-054")
def test_the_bell_tower_holds_its_players_card_until_its_effect() -> None:
    """The card played next is kept with the seat (``[seat, card]``, ``effects/bell_tower.py``) while a stage
    before its effect waits (the Double Barrel's offer, a shot at distance 2 reached at 1), then it ends."""
    st = ad_table(4)
    tower = orange(st, 0, "bell_tower")
    barrel = orange(st, 0, "double_barrel")
    act(st, 0, use(tower))
    assert st["bell"] == 0
    bang_card = give(st, 0, ["bang:7d"])[0]
    missed = give(st, 2, ["missed", "beer"])[0]
    play(st, 0, bang_card, target=2)
    assert bang.legal_actions(st, 0) == [use(barrel), PASS]
    assert st["bell"] == [0, bang_card]
    act(st, 0, PASS)
    assert pending_kind(st) == "bang" and "bell" not in st
    act(st, 2, {"type": "respond", "card": missed})
    assert st["p"][2]["life"] == st["p"][2]["max"] and st["pending"] == []


@pytest.mark.rule("AD-035", "DC-006")
def test_bloody_mary_draws_when_her_bang_card_is_cancelled_by_a_card_in_play() -> None:
    """A Sombrero used from play cancels her shot: ``missed_once`` hands its events to her ability."""
    st = ad_table(4, chars=chars(4, s0="bloody_mary"), expansions=DC)
    sombrero = equip(st, 1, ["sombrero"])[0]
    give(st, 1, ["beer"])
    stack_deck(st, ["stagecoach"])
    play(st, 0, give(st, 0, ["bang"])[0], target=1)
    events = act(st, 1, use(sombrero))
    assert [e["reason"] for e in events if e["kind"] == "draw"] == ["bloody_mary"]
    assert hand_keys(st, 0) == ["stagecoach"] and st["p"][1]["life"] == 4 and st["pending"] == []


@pytest.mark.rule("BANG-099")
def test_sid_ketchum_with_an_empty_hand_takes_a_shot_without_being_asked() -> None:
    """Nothing can answer it (no card, no Barrel, no card in play) and his ability needs 2 cards: the shot's
    ``auto`` asks his ``activations`` and takes the hit for him."""
    st = table(4, chars=chars(4, s1="sid_ketchum"))
    st["p"][1]["life"] = 2
    events = act(st, 0, {"type": "play", "card": give(st, 0, ["bang"])[0], "target": 1})
    assert [e["kind"] for e in events if e["kind"] in ("pass", "damage")] == ["pass", "damage"]
    assert st["p"][1]["life"] == 1 and st["pending"] == []
