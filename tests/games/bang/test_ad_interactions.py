"""Armed & Dangerous with Dodge City: green and orange cards side by side, Belle Star silencing orange
cards, a card that removes "a card in play" on both, Doc Holyday's reach and a paid Bell Tower, and the
combined deck and pool (issue 14: both expansions together)."""

from __future__ import annotations

from collections import Counter

import pytest
from bang_helpers import act, ad_table, chars, cubes_on, equip, give, orange, play, refused, set_cubes

from tabletop_server.service.games import bang
from tabletop_server.service.games.bang.state import all_cards
from tabletop_server.service.games.bang.tables import CARDS, CHARACTERS, TYPE_OF, deck_and_characters

pytestmark = pytest.mark.usefixtures("armed")
DC = ["dodge_city"]


@pytest.mark.rule("AD-001")
def test_the_combined_deck_and_pool() -> None:
    deck, pool = deck_and_characters(["dodge_city", "armed_and_dangerous"])
    assert len(deck) == 148 and len(pool) == 39
    colors = Counter(TYPE_OF[c].color for c in deck)
    assert colors == {"brown": 63 + 19 + 15, "blue": 17 + 7, "green": 14, "orange": 13}
    alone = deck_and_characters(["armed_and_dangerous"])
    assert len(alone[0]) == 108 and len(alone[1]) == 24
    assert {CHARACTERS[k].expansion for k in pool} == {"base", "dodge_city", "armed_and_dangerous"}


@pytest.mark.parametrize("seats", [3, 8])
def test_dodge_citys_three_and_eight_player_games_deal_armed_and_dangerous(seats: int) -> None:
    st = bang.setup({"expansions": ["dodge_city", "armed_and_dangerous"]}, seats, 7)
    assert len(all_cards(st)) == 148 and st["supply"] + sum(p.get("cubes", 0) for p in st["p"]) == 32


def test_belle_star_silences_orange_cards_in_her_turn() -> None:
    st = ad_table(4, chars=chars(4, s0="belle_star"), expansions=DC)
    crate = orange(st, 1, "crate")
    give(st, 1, ["beer"])
    play(st, 0, give(st, 0, ["bang"])[0], target=1)
    assert {"type": "use", "card": crate} not in bang.legal_actions(st, 1)  # silenced in Belle Star's turn
    refused(st, 1, {"type": "use", "card": crate}, "CARD_SILENCED")


def test_a_card_that_removes_a_card_in_play_takes_green_and_orange_alike() -> None:
    st = ad_table(4, expansions=DC)
    bible = equip(st, 1, ["bible"])[0]
    whip = orange(st, 1, "whip", 2)
    cat = give(st, 0, ["cat_balou"])[0]
    listed = bang.legal_actions(st, 0)
    assert {"type": "play", "card": cat, "target": 1, "pick": bible} in listed
    assert {"type": "play", "card": cat, "target": 1, "pick": whip} in listed
    play(st, 0, cat, target=1, pick=whip)
    assert whip in st["discard"] and st["supply"] == 32 and bible in st["p"][1]["table"]


def test_doc_holydays_shot_is_not_stretched_by_a_bell_tower() -> None:
    """Doc Holyday's ability is no card: a Bell Tower paid for his next card leaves its reach alone."""
    st = ad_table(4, chars=chars(4, s0="doc_holyday"), expansions=DC)
    tower = orange(st, 0, "bell_tower")
    give(st, 0, ["beer", "missed", "panic"])
    act(st, 0, {"type": "use", "card": tower})
    assert st["bell"] == 0 and cubes_on(st, 0, tower) == 2
    shots = [a for a in bang.legal_actions(st, 0) if a["type"] == "ability"]
    assert [a["target"] for a in shots] == [1, 3]  # the Colt's reach, not seat 2 at distance 2
    refused(st, 0, {"type": "ability", "cards": [], "target": 2}, "OUT_OF_RANGE")
    panic = next(c for c in st["p"][0]["hand"] if CARDS[c].key == "panic")
    give(st, 2, ["beer"])
    play(st, 0, panic, target=2, pick="hand")  # but his next card reaches seat 2
    assert len(st["p"][0]["hand"]) == 3 and "bell" not in st


def test_vera_custer_copying_red_ringo_gets_no_starting_cubes_but_his_move() -> None:
    st = ad_table(4, chars=chars(4, s0="vera_custer", s1="red_ringo"), expansions=DC)
    st["p"][0]["as"] = "red_ringo"
    crate = orange(st, 0, "crate", 2)
    assert cubes_on(st, 0) == 0 and not [a for a in bang.legal_actions(st, 0) if a["type"] == "ability"]
    set_cubes(st, 0, "character", 2)
    act(st, 0, {"type": "ability", "cards": [crate, crate]})
    assert (cubes_on(st, 0), cubes_on(st, 0, crate)) == (0, 4)
    refused(st, 0, {"type": "ability", "cards": [crate]}, "USED_UP_THIS_TURN")


def test_frankie_cantons_refusals_say_why() -> None:
    """What a client shows its player (mutants that blanked these texts survived the scenario tests)."""
    from bang_helpers import refusal
    st = ad_table(4, chars=chars(4, s0="frankie_canton"))
    whip = orange(st, 1, "whip", 2)
    give(st, 1, ["beer"])
    err = refusal(st, 0, {"type": "ability", "cards": [], "target": 1})
    assert (err.reason, err.message) == ("NOT_A_CUBE_HOLDER", ("Take a cube from an orange card in play or another "
                                                               "player's character that holds one"))
    set_cubes(st, 0, "character", 4)
    err = refusal(st, 0, {"type": "ability", "cards": [whip]})
    assert (err.reason, err.message) == ("NO_ROOM_FOR_CUBES", "Your character holds 4 cubes already")
    set_cubes(st, 0, "character", 0)
    st["turn"] = 1  # seat 1 shoots Frankie, who holds a card: he is asked
    give(st, 0, ["beer"])
    play(st, 1, give(st, 1, ["bang"])[0], target=0)
    err = refusal(st, 0, {"type": "ability", "cards": [whip]})
    assert (err.reason, err.message) == ("ABILITY_NOT_NOW", ("Frankie Canton's ability is used in his own turn, "
                                                             "with nothing pending"))


@pytest.mark.rule("AD-065")
def test_an_arrow_hit_is_caused_by_its_player() -> None:
    """The Arrow's player is the source of the lost life: El Gringo takes a card from him (and a kill would
    be his). A mutant that left the request without its source survived the card's scenarios."""
    st = ad_table(4, chars=chars(4, s2="el_gringo"))
    arrow, spare = give(st, 0, ["arrow", "beer"])
    give(st, 2, ["missed"])
    play(st, 0, arrow, target=2)
    assert st["pending"][-1]["source"] == 0
    events = act(st, 2, {"type": "pass"})
    damage = next(e for e in events if e["kind"] == "damage")
    assert (damage["seat"], damage["other"]) == (2, 0)
    assert spare in st["p"][2]["hand"]  # El Gringo's card from the Arrow's player


@pytest.mark.rule("AD-060", "AD-063")
def test_the_events_of_rust_and_squaw_say_who_lost_what() -> None:
    """What a client shows: Rust's cube moves (reason ``rust``), Squaw's discard (seat, card, reason)."""
    st = ad_table(4)
    whip = orange(st, 1, "whip", 2)
    set_cubes(st, 2, "character", 1)
    events = play(st, 0, give(st, 0, ["rust"])[0])
    moves = [(e["seat"], e["cards"], e["amount"], e["reason"]) for e in events if e["kind"] == "cubes"]
    assert moves == [(1, [whip], -1, "rust"), (2, [], -1, "rust"), (0, [], 2, "rust")]
    mustang = equip(st, 3, ["mustang"])[0]
    play(st, 0, give(st, 0, ["squaw"])[0], target=3, pick=mustang)
    events = act(st, 0, {"type": "pass"})  # the 2 Rust cubes could buy its upgrade: not this time
    assert {"kind": "discard", "seat": 3, "cards": [mustang], "reason": "squaw"} in events
