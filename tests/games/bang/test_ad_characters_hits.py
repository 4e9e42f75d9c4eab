"""Armed & Dangerous characters who answer a card aimed at them: Julie Cutter (draws! when hit)
and Ms. Abigail (ignores a face card aimed at her alone) (AD-037, 039)."""

from __future__ import annotations

import pytest
from bang_helpers import (
    act,
    ad_table,
    chars,
    dead,
    equip,
    give,
    orange,
    pass_all,
    pending_kind,
    play,
    recharge,
    stack_deck,
)
from tabletop.v1 import bang_pb2

from tabletop_server.service.engine.ruleset import Action, Event, State
from tabletop_server.service.games import bang

pytestmark = pytest.mark.usefixtures("armed")


ABILITY: Action = {"type": "ability", "cards": []}
PASS: Action = {"type": "pass"}


# Julie Cutter (AD-037)

def julie() -> State:
    """Julie Cutter at seat 2 (distance 2 from seat 0, beyond her Colt .45); seat 0 holds a Missed!."""
    st = ad_table(4, chars=chars(4, s2="julie_cutter"))
    give(st, 0, ["missed"])
    return st


def checks(events: list[Event]) -> list[tuple[int, str]]:
    return [(e["seat"], e["reason"]) for e in events if e["kind"] == "check"]


@pytest.mark.rule("AD-037")
def test_julie_cutter_on_red_shoots_back_once_at_any_distance_and_a_missed_cancels_it() -> None:
    st = julie()
    stack_deck(st, ["any:6d"])
    gatling = give(st, 0, ["gatling"])[0]
    events = play(st, 0, gatling)
    assert checks(events) == [(2, "julie_cutter")] and st["p"][2]["life"] == 3
    bangs = [r for r in st["pending"] if r["kind"] == "bang"]  # her shot on top of the Gatling's last one
    assert [(r["seat"], r["source"], r["args"]["need"], r["args"]["card"]) for r in bangs] == [
        (3, 0, 1, gatling), (0, 2, 1, None)]
    assert pending_kind(st) == "bang"
    missed = st["p"][0]["hand"][0]
    act(st, 0, {"type": "respond", "card": missed})
    pass_all(st)
    assert (st["p"][0]["life"], st["p"][1]["life"], st["p"][2]["life"], st["p"][3]["life"]) == (5, 3, 3, 3)


@pytest.mark.rule("AD-037")
def test_julie_cutters_shot_hits_an_attacker_who_cannot_answer() -> None:
    st = ad_table(4, chars=chars(4, s2="julie_cutter"))
    stack_deck(st, ["any:Qh"])
    play(st, 0, give(st, 0, ["gatling"])[0])
    assert st["p"][0]["life"] == 4 and st["pending"] == []


@pytest.mark.rule("AD-037")
@pytest.mark.parametrize("flip", ["any:6s", "any:Kc"])
def test_julie_cutter_on_black_does_nothing(flip: str) -> None:
    st = julie()
    stack_deck(st, [flip])
    events = play(st, 0, give(st, 0, ["gatling"])[0])
    assert checks(events) == [(2, "julie_cutter")]
    assert st["pending"] == [] and st["p"][0]["life"] == 5 and len(st["p"][0]["hand"]) == 1


@pytest.mark.rule("AD-037")
def test_julie_cutter_eliminated_draws_nothing() -> None:
    st = julie()
    st["p"][2]["life"] = 1
    stack_deck(st, ["any:6d"])
    events = play(st, 0, give(st, 0, ["gatling"])[0])
    assert not st["p"][2]["alive"] and checks(events) == [] and st["p"][0]["life"] == 5


@pytest.mark.rule("AD-037")
def test_julie_cutter_draws_nothing_for_dynamite() -> None:
    st = ad_table(4, chars=chars(4, s1="julie_cutter"))
    equip(st, 1, ["dynamite"])
    stack_deck(st, ["any:2s", "any:6d", "any:7d", "any:8d"])  # the Dynamite's draw!, then her 2 cards
    events = act(st, 0, {"type": "end_turn"})
    assert checks(events) == [(1, "dynamite")] and st["p"][1]["life"] == 1
    assert st["pending"] == [] and (st["turn"], st["phase"]) == (1, "play")


@pytest.mark.rule("AD-036", "AD-037")
def test_julie_cutter_draws_nothing_when_her_bomb_explodes() -> None:
    """Frankie Canton takes the Bomb's last cube: it explodes, caused by no player (NOTES c)."""
    st = ad_table(4, chars=chars(4, s0="frankie_canton", s1="julie_cutter"))
    bomb = orange(st, 1, "bomb", 1)
    stack_deck(st, ["any:6d"])
    events = act(st, 0, {"type": "ability", "cards": [bomb]})
    assert checks(events) == [] and st["p"][1]["life"] == 2 and st["p"][0]["life"] == 5 and st["pending"] == []


@pytest.mark.rule("AD-037")
def test_julie_cutter_shoots_once_even_after_several_lives() -> None:
    """No card of these sets takes 2 lives at once from a player: the on-hit handler is asked directly."""
    from tabletop_server.service.games.bang.abilities import ability_of
    st = julie()
    stack_deck(st, ["any:6d"])
    events: list[Event] = []
    st["p"][2]["life"] = 2
    ability_of(st, 2).on_hit(st, 2, 2, 0, events)
    assert checks(events) == [(2, "julie_cutter")]
    assert [(r["kind"], r["seat"], r["source"]) for r in st["pending"]] == [("bang", 0, 2)]


@pytest.mark.rule("AD-037")
def test_julie_cutters_draw_may_be_redrawn_with_a_tumbleweed() -> None:
    st = julie()
    weed = orange(st, 3, "tumbleweed", 2)
    stack_deck(st, ["any:6s", "any:6d"])
    play(st, 0, give(st, 0, ["gatling"])[0])
    assert (pending_kind(st), st["pending"][-1]["seat"]) == ("redraw", 3)
    act(st, 3, {"type": "use", "card": weed})
    act(st, 3, PASS)  # the red card counts
    assert [(r["kind"], r["seat"], r["source"]) for r in st["pending"]][-1] == ("bang", 0, 2)


@pytest.mark.rule("AD-037")
def test_julie_cutter_shoots_back_at_the_challenger_of_a_duel_she_lost() -> None:
    st = julie()
    stack_deck(st, ["any:6h"])
    play(st, 0, give(st, 0, ["duel"])[0], target=2)  # she has no BANG!: she loses at once
    assert st["p"][2]["life"] == 3 and pending_kind(st) == "bang"
    assert (st["pending"][-1]["seat"], st["pending"][-1]["source"]) == (0, 2)


@pytest.mark.rule("AD-037")
def test_julie_cutter_losing_her_own_duel_draws_nothing() -> None:
    """The challenger is responsible for the loser's damage (NOTES b #7, as for El Gringo): nobody else
    made her lose it."""
    st = ad_table(4, chars=chars(4, s0="julie_cutter"))
    give(st, 2, ["bang"])
    stack_deck(st, ["any:6h"])
    play(st, 0, give(st, 0, ["duel"])[0], target=2)
    act(st, 2, {"type": "respond", "card": st["p"][2]["hand"][0]})
    events = pass_all(st)  # she has no BANG! left: asked of the engine
    assert st["p"][0]["life"] == 4 and checks(events) == [] and st["pending"] == []


@pytest.mark.rule("AD-037")
def test_julie_cutter_saved_by_a_beer_still_draws() -> None:
    st = julie()
    st["p"][2]["life"] = 1
    beer = give(st, 2, ["beer"])[0]
    stack_deck(st, ["any:6d"])
    st["turn"] = 3
    shot, _ = give(st, 3, ["bang", "missed"])  # seat 3 (distance 1) keeps a Missed!: asked
    play(st, 3, shot, target=2)
    act(st, 2, PASS)
    assert pending_kind(st) == "dying"
    events = act(st, 2, {"type": "respond", "card": beer})
    assert checks(events) == [(2, "julie_cutter")] and st["p"][2]["life"] == 1
    assert (pending_kind(st), st["pending"][-1]["seat"], st["pending"][-1]["source"]) == ("bang", 3, 2)


# Ms. Abigail (AD-039)

def abigail() -> State:
    """Ms. Abigail at seat 1 (distance 1 from seat 0) with a Beer in hand, so she is asked."""
    st = ad_table(4, chars=chars(4, s1="ms_abigail"))
    give(st, 1, ["beer"])
    return st


@pytest.mark.rule("AD-039")
def test_ms_abigail_ignores_a_face_bang_aimed_at_her_alone() -> None:
    st = abigail()
    card = give(st, 0, ["bang:Kd"])[0]
    play(st, 0, card, target=1)
    assert pending_kind(st) == "ignore" and st["pending"][-1]["seat"] == 1
    assert bang.legal_actions(st, 1) == [ABILITY, PASS]
    for viewer in (0, 1, 2, 3, None):
        shown = bang.view(st, viewer).pending[-1]
        assert (shown.kind, shown.seat, shown.source_seat, shown.source_card.id) == (
            bang_pb2.BANG_REQUEST_KIND_IGNORE, 1, 0, card)
    events = act(st, 1, ABILITY)
    assert {"kind": "unaffected", "seat": 1, "other": 0, "cards": [card], "reason": "ms_abigail"} in events
    assert (st["p"][1]["life"], st["pending"], st["bangs"], card in st["discard"]) == (4, [], 1, True)


@pytest.mark.rule("AD-039")
def test_ms_abigail_may_let_the_card_act() -> None:
    st = abigail()
    play(st, 0, give(st, 0, ["bang:Ad"])[0], target=1)
    act(st, 1, PASS)
    assert pending_kind(st) == "bang" and st["pending"][-1]["seat"] == 1
    act(st, 1, PASS)
    assert st["p"][1]["life"] == 3


@pytest.mark.rule("AD-039")
def test_ms_abigail_cannot_ignore_a_ten() -> None:
    st = abigail()
    play(st, 0, give(st, 0, ["bang:10d"])[0], target=1)
    assert pending_kind(st) == "bang" and ABILITY not in bang.legal_actions(st, 1)


@pytest.mark.rule("AD-039")
def test_ms_abigail_ignores_a_face_panic_and_duel() -> None:
    st = abigail()
    beer = st["p"][1]["hand"][0]
    play(st, 0, give(st, 0, ["panic:Jh"])[0], target=1, pick="hand")
    assert pending_kind(st) == "ignore"
    act(st, 1, ABILITY)
    assert st["p"][1]["hand"] == [beer] and st["p"][0]["hand"] == []
    play(st, 0, give(st, 0, ["duel:Qd"])[0], target=1)
    assert pending_kind(st) == "ignore"
    act(st, 1, ABILITY)
    assert st["p"][1]["life"] == 4 and st["pending"] == []


@pytest.mark.rule("AD-039")
def test_ms_abigail_cannot_ignore_a_blue_face_card() -> None:
    st = abigail()
    jail = give(st, 0, ["jail:Js"])[0]
    play(st, 0, jail, target=1)
    recharge(st, 0)
    assert st["pending"] == [] and jail in st["p"][1]["table"]


@pytest.mark.rule("AD-039")
def test_ms_abigail_never_ignores_indians() -> None:
    st = abigail()
    play(st, 0, give(st, 0, ["indians:Ad"])[0])
    assert pending_kind(st) == "indians" and st["pending"][-1]["seat"] == 1
    assert ABILITY not in bang.legal_actions(st, 1)


@pytest.mark.rule("AD-039")
def test_ms_abigail_never_ignores_indians_even_as_the_last_target() -> None:
    """RULINGS AD-039: a card that hits every player is never hers to ignore, even with two left."""
    st = abigail()
    dead(st, 2, 3)
    play(st, 0, give(st, 0, ["indians:Kd"])[0])
    assert pending_kind(st) == "indians" and st["pending"][-1]["seat"] == 1
    assert ABILITY not in bang.legal_actions(st, 1)
    act(st, 1, PASS)
    assert st["p"][1]["life"] == 3
