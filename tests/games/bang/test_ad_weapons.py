"""Armed & Dangerous: the Dangerous weapons (Big Fifty, Buntline Special, Double Barrel, Thunderer), BANG!
cards vs other BANG! effects, and the rule notes on base characters (AD-018..021, 025..027, 041, 042, 047,
053..055, 066)."""

from __future__ import annotations

import pytest
from bang_helpers import (
    PASS,
    act,
    ad_table,
    chars,
    cubes_on,
    equip,
    give,
    hand_keys,
    kinds,
    orange,
    pending_kind,
    play,
    recharge,
    refused,
    set_cubes,
    shoot,
    stack_deck,
    table_keys,
    with_weapon,
)
from tabletop.v1 import bang_pb2

from tabletop_server.service.engine.ruleset import Action, State
from tabletop_server.service.games import bang
from tabletop_server.service.games.bang.state import weapon

pytestmark = pytest.mark.usefixtures("armed")


def targets(st: State, seat: int, card: str) -> list[int]:
    """The targets ``seat`` may play ``card`` at, as listed."""
    return sorted(a["target"] for a in bang.legal_actions(st, seat) if a["type"] == "play" and a["card"] == card)


def use(card: str) -> Action:
    return {"type": "use", "card": card}


# AD-018: Dangerous weapons are weapons

@pytest.mark.rule("AD-018")
def test_an_orange_weapon_replaces_a_weapon_and_is_replaced_with_its_cubes_going_back() -> None:
    st = ad_table(8, expansions=["dodge_city"])
    equip(st, 0, ["schofield"])
    thunderer, bang_card = give(st, 0, ["thunderer", "bang:4d"])
    assert targets(st, 0, bang_card) == [1, 2, 6, 7]  # Schofield: 2
    play(st, 0, thunderer)
    assert table_keys(st, 0) == ["thunderer"] and st["discard"][-1].startswith("base.schofield")
    assert cubes_on(st, 0, thunderer) == 3 and st["supply"] == 29
    assert weapon(st, 0) == thunderer
    assert targets(st, 0, bang_card) == [1, 2, 3, 5, 6, 7]  # Thunderer: 3 (seat 4 is at 4)
    winchester = give(st, 0, ["winchester"])[0]
    play(st, 0, winchester)
    recharge(st, 0)
    assert table_keys(st, 0) == ["winchester"] and thunderer in st["discard"]
    # The Thunderer's 3 cubes are back; the Winchester (blue) earned 1 on the character (AD-009).
    assert st["supply"] == 31 and cubes_on(st, 0, thunderer) == 0 and cubes_on(st, 0) == 1
    assert targets(st, 0, bang_card) == [1, 2, 3, 4, 5, 6, 7]


@pytest.mark.rule("AD-018")
def test_an_orange_weapon_replaces_another_orange_weapon() -> None:
    st = ad_table(4)
    fifty = orange(st, 0, "big_fifty", 2)
    buntline = give(st, 0, ["buntline_special"])[0]
    play(st, 0, buntline)
    assert table_keys(st, 0) == ["buntline_special"] and fifty in st["discard"]
    assert st["supply"] == 29 and cubes_on(st, 0, buntline) == 3


# AD-019: paid as the BANG! card is played, before the target reacts

@pytest.mark.rule("AD-019", "AD-053")
def test_the_weapon_option_is_asked_before_the_target_and_is_too_late_after() -> None:
    st = ad_table(4)
    buntline, bang_card = with_weapon(st, "buntline_special")
    missed, _ = give(st, 1, ["missed", "beer"])
    play(st, 0, bang_card, target=1)
    assert pending_kind(st) == "weapon" and bang.to_act(st) == [0]
    assert bang.legal_actions(st, 0) == [use(buntline), PASS]
    assert bang.legal_actions(st, 1) == []
    act(st, 0, PASS)
    assert pending_kind(st) == "bang" and cubes_on(st, 0, buntline) == 3
    act(st, 1, {"type": "respond", "card": missed})
    assert st["pending"] == [] and len(st["p"][1]["hand"]) == 1  # no Buntline discard: not paid
    refused(st, 0, use(buntline), "CARD_NOT_PLAYABLE_NOW")
    assert cubes_on(st, 0, buntline) == 3


@pytest.mark.rule("AD-019")
def test_the_weapon_cannot_be_used_on_its_own_in_phase_2() -> None:
    st = ad_table(4)
    fifty = orange(st, 0, "big_fifty")
    refused(st, 0, use(fifty), "CARD_NOT_PLAYABLE_NOW")


# AD-020, 055, 061: only real BANG! cards trigger a Dangerous weapon

@pytest.mark.rule("AD-020", "AD-061")
def test_double_barrel_is_not_offered_for_a_quick_shot_but_is_for_a_diamond_bang_card() -> None:
    st = ad_table(4)
    barrel = orange(st, 0, "double_barrel")
    quick, bang_card = give(st, 0, ["quick_shot", "bang:4d"])
    give(st, 1, ["beer"])
    play(st, 0, quick, target=1)
    assert pending_kind(st) == "upgrade"  # Quick Shot's own upgrade, not the weapon
    act(st, 0, PASS)
    assert pending_kind(st) == "bang" and bang.to_act(st) == [1]
    act(st, 1, PASS)
    assert st["p"][1]["life"] == 3 and cubes_on(st, 0, barrel) == 3
    play(st, 0, bang_card, target=1)  # Quick Shot used no BANG! (AD-061)
    assert pending_kind(st) == "weapon" and bang.legal_actions(st, 0) == [use(barrel), PASS]


@pytest.mark.rule("AD-020", "AD-055")
def test_thunderer_is_not_offered_for_a_flintlock_or_a_gatling() -> None:
    st = ad_table(4)
    thunderer = orange(st, 0, "thunderer")
    set_cubes(st, 0, "character", 0)
    flint, gatling = give(st, 0, ["flintlock", "gatling"])
    give(st, 1, ["beer"])
    play(st, 0, flint, target=1)
    assert pending_kind(st) == "bang" and bang.to_act(st) == [1]
    act(st, 1, PASS)
    assert flint in st["discard"] and hand_keys(st, 0) == ["gatling"]
    play(st, 0, gatling)
    assert pending_kind(st) == "bang" and bang.to_act(st) == [1]  # seats 2 and 3: empty hands, hit at once
    act(st, 1, PASS)
    assert gatling in st["discard"] and cubes_on(st, 0, thunderer) == 3
    assert [p["life"] for p in st["p"]] == [5, 2, 3, 3]


@pytest.mark.rule("AD-020")
def test_a_missed_played_as_bang_by_calamity_janet_is_a_bang_card_for_the_weapon() -> None:
    """The weapon asks about the BANG! *card* the player plays; Calamity's Missed! plays as one (BANG-088)."""
    st = ad_table(4, chars=chars(4, s0="calamity_janet"))
    thunderer = orange(st, 0, "thunderer")
    missed = give(st, 0, ["missed"])[0]
    give(st, 1, ["beer"])
    play(st, 0, missed, target=1)
    assert pending_kind(st) == "weapon" and bang.legal_actions(st, 0) == [use(thunderer), PASS]


# AD-021: a weapon emptied is discarded; back to the Colt .45

@pytest.mark.rule("AD-021")
def test_big_fifty_paying_its_last_cube_is_discarded_and_the_range_falls_back_to_1() -> None:
    st = ad_table(4)
    fifty = orange(st, 0, "big_fifty", 1)
    bandolier = orange(st, 0, "bandolier")
    first, second = give(st, 0, ["bang:4d", "bang:5d"])
    assert targets(st, 0, first) == [1, 2, 3]
    events = shoot(st, first, 2, fifty)
    assert {"kind": "use", "seat": 0, "cards": [fifty], "reason": "weapon", "other": 2} in events
    assert fifty in st["discard"] and table_keys(st, 0) == ["bandolier"] and weapon(st, 0) is None
    assert st["p"][2]["life"] == 3  # hand empty: the hit is taken at once
    assert targets(st, 0, second) == [1, 3]  # Colt .45: range 1, with the Bandolier's extra BANG!
    play(st, 0, second, target=1)
    assert cubes_on(st, 0, bandolier) == 2 and st["p"][1]["life"] == 3


# AD-025: any Missed! effect cancels any BANG! effect

@pytest.mark.rule("AD-025")
def test_a_crate_cancels_a_quick_shot() -> None:
    st = ad_table(4)
    crate = orange(st, 1, "crate")
    quick = give(st, 0, ["quick_shot"])[0]
    play(st, 0, quick, target=1)
    assert pending_kind(st) == "bang"  # no cubes: no upgrade asked
    assert bang.legal_actions(st, 1) == [PASS, use(crate)]
    act(st, 1, use(crate))
    assert st["pending"] == [] and st["p"][1]["life"] == 4 and cubes_on(st, 1, crate) == 1
    assert st["supply"] == 31


@pytest.mark.rule("AD-025", "AD-055")
def test_duck_cancels_a_flintlock() -> None:
    st = ad_table(4)
    flint = give(st, 0, ["flintlock"])[0]
    duck = give(st, 1, ["duck"])[0]
    play(st, 0, flint, target=1)
    assert bang.legal_actions(st, 1) == [PASS, {"type": "respond", "card": duck}]
    act(st, 1, {"type": "respond", "card": duck})
    assert st["pending"] == [] and st["p"][1]["life"] == 4 and duck in st["discard"]


# AD-026: only Beer saves from the last life

@pytest.mark.rule("AD-026", "AD-057")
def test_beer_keg_a_little_nip_and_saloon_are_not_offered_in_the_dying_window() -> None:
    st = ad_table(4, roles=["sheriff", "outlaw", "outlaw", "renegade"])
    keg = orange(st, 1, "beer_keg")
    nip, saloon = give(st, 1, ["a_little_nip", "saloon"])
    st["p"][1]["life"] = 1
    play(st, 0, give(st, 0, ["bang:4d"])[0], target=1)
    act(st, 1, PASS)
    assert pending_kind(st) == "dying"
    assert bang.legal_actions(st, 1) == [PASS]
    refused(st, 1, use(keg), "WRONG_ANSWER")
    refused(st, 1, {"type": "respond", "card": nip}, "WRONG_ANSWER")
    refused(st, 1, {"type": "respond", "card": saloon}, "WRONG_ANSWER")
    act(st, 1, PASS)
    assert not st["p"][1]["alive"]


@pytest.mark.rule("AD-026")
def test_a_beer_is_the_only_card_offered_in_the_dying_window() -> None:
    st = ad_table(4, roles=["sheriff", "outlaw", "outlaw", "renegade"])
    orange(st, 1, "beer_keg")
    _, _, beer = give(st, 1, ["a_little_nip", "saloon", "beer"])
    st["p"][1]["life"] = 1
    play(st, 0, give(st, 0, ["bang:4d"])[0], target=1)
    act(st, 1, PASS)
    assert bang.legal_actions(st, 1) == [PASS, {"type": "respond", "card": beer}]
    act(st, 1, {"type": "respond", "card": beer})
    assert st["p"][1]["alive"] and st["p"][1]["life"] == 1 and hand_keys(st, 1) == ["a_little_nip", "saloon"]


# AD-027: one BANG! card; other BANG! effects are extra

@pytest.mark.rule("AD-027", "AD-055", "AD-061")
def test_a_bang_a_quick_shot_and_a_flintlock_in_one_turn_but_not_a_second_bang() -> None:
    st = ad_table(4)
    first, quick, flint, second = give(st, 0, ["bang:4d", "quick_shot", "flintlock", "bang:5d"])
    play(st, 0, first, target=1)
    play(st, 0, quick, target=1)
    play(st, 0, flint, target=3)
    assert st["pending"] == [] and st["bangs"] == 1
    assert [p["life"] for p in st["p"]] == [5, 2, 4, 3]
    refused(st, 0, {"type": "play", "card": second, "target": 3}, "BANG_ALREADY_PLAYED")


@pytest.mark.rule("AD-027", "AD-055", "AD-061")
def test_quick_shot_and_flintlock_can_still_be_played_after_the_bang_card() -> None:
    st = ad_table(4)
    first, quick, flint = give(st, 0, ["bang:4d", "quick_shot", "flintlock"])
    play(st, 0, first, target=1)
    assert targets(st, 0, quick) == [1, 3] and targets(st, 0, flint) == [1, 3]


# AD-041: Jourdonnais' Barrel vs Flintlock and Mexicali Kid

@pytest.mark.rule("AD-041")
def test_jourdonnais_draws_against_a_flintlock() -> None:
    st = ad_table(4, chars=chars(4, s1="jourdonnais"))
    flint = give(st, 0, ["flintlock"])[0]
    stack_deck(st, ["any:Qh"])
    play(st, 0, flint, target=1)
    assert bang.legal_actions(st, 1) == [PASS, {"type": "barrel"}]
    events = act(st, 1, {"type": "barrel"})
    assert "check" in kinds(events) and st["pending"] == [] and st["p"][1]["life"] == 4


@pytest.mark.rule("AD-041", "AD-038")
def test_jourdonnais_draws_against_mexicali_kids_shot() -> None:
    st = ad_table(4, chars=chars(4, s0="mexicali_kid", s1="jourdonnais"))
    set_cubes(st, 0, "character", 2)
    stack_deck(st, ["any:Qh"])
    act(st, 0, {"type": "ability", "cards": [], "target": 1})
    assert cubes_on(st, 0) == 0 and st["supply"] == 32
    assert pending_kind(st) == "bang" and bang.legal_actions(st, 1) == [PASS, {"type": "barrel"}]
    act(st, 1, {"type": "barrel"})
    assert st["pending"] == [] and st["p"][1]["life"] == 4


@pytest.mark.rule("AD-041")
def test_jourdonnais_failing_the_draw_against_a_flintlock_takes_the_hit() -> None:
    st = ad_table(4, chars=chars(4, s1="jourdonnais"))
    flint = give(st, 0, ["flintlock"])[0]
    stack_deck(st, ["any:Qs"])
    play(st, 0, flint, target=1)
    act(st, 1, {"type": "barrel"})
    assert st["pending"] == [] and st["p"][1]["life"] == 3


# AD-042, 053: Buntline Special

@pytest.mark.rule("AD-042", "AD-053")
def test_jourdonnais_dodging_a_buntline_shot_discards_a_card_of_his_choice() -> None:
    st = ad_table(4, chars=chars(4, s1="jourdonnais"))
    buntline, bang_card = with_weapon(st, "buntline_special")
    hand = give(st, 1, ["beer", "stagecoach", "panic"])
    stack_deck(st, ["any:2h"])
    shoot(st, bang_card, 1, buntline)
    act(st, 1, {"type": "barrel"})
    assert pending_kind(st) == "discard_one" and bang.to_act(st) == [1]
    assert bang.legal_actions(st, 1) == [{"type": "discard", "card": c} for c in hand]
    for seat in (0, 1, 2, None):
        (req,) = bang.view(st, seat).pending
        assert req.kind == bang_pb2.BANG_REQUEST_KIND_DISCARD_ONE and req.seat == 1 and req.source_seat == 0
    events = act(st, 1, {"type": "discard", "card": hand[1]})
    assert events == [{"kind": "discard", "seat": 1, "cards": [hand[1]], "reason": "buntline_special"}]
    assert st["pending"] == [] and st["p"][1]["life"] == 4 and hand_keys(st, 1) == ["beer", "panic"]
    assert cubes_on(st, 0, buntline) == 2


@pytest.mark.rule("AD-053")
def test_buntline_shot_cancelled_by_a_barrel_card_or_a_missed_costs_a_card() -> None:
    st = ad_table(4)
    buntline = orange(st, 0, "buntline_special")
    first, second = give(st, 0, ["bang:4d", "bang:5d"])
    orange(st, 0, "bandolier")
    equip(st, 1, ["barrel"])
    missed, beer = give(st, 1, ["missed", "beer"])
    stack_deck(st, ["any:Qh"])
    shoot(st, first, 1, buntline)
    act(st, 1, {"type": "barrel", "card": st["p"][1]["table"][0]})
    assert pending_kind(st) == "discard_one"
    act(st, 1, {"type": "discard", "card": beer})
    shoot(st, second, 1, buntline)
    act(st, 1, {"type": "respond", "card": missed})
    # The Missed! was his last card: nothing left to discard, and nothing more happens.
    assert st["pending"] == [] and st["p"][1]["hand"] == [] and st["p"][1]["life"] == 4
    assert cubes_on(st, 0, buntline) == 1


@pytest.mark.rule("AD-053")
def test_buntline_shot_that_hits_costs_no_card() -> None:
    st = ad_table(4)
    buntline, bang_card = with_weapon(st, "buntline_special")
    give(st, 1, ["beer"])
    shoot(st, bang_card, 1, buntline)
    act(st, 1, PASS)
    assert st["pending"] == [] and st["p"][1]["life"] == 3 and hand_keys(st, 1) == ["beer"]


@pytest.mark.rule("AD-053")
def test_buntline_not_paid_costs_no_card_when_cancelled() -> None:
    st = ad_table(4)
    _, bang_card = with_weapon(st, "buntline_special")
    missed, _ = give(st, 1, ["missed", "beer"])
    play(st, 0, bang_card, target=1)
    act(st, 0, PASS)
    act(st, 1, {"type": "respond", "card": missed})
    assert st["pending"] == [] and hand_keys(st, 1) == ["beer"]


# AD-047: Big Fifty ignores the target's cards in play and ability

@pytest.mark.rule("AD-047")
def test_big_fifty_leaves_jourdonnais_only_his_missed_cards() -> None:
    st = ad_table(4, chars=chars(4, s1="jourdonnais"))
    fifty, bang_card = with_weapon(st, "big_fifty")
    equip(st, 1, ["barrel"])
    crate = orange(st, 1, "crate")
    missed, _ = give(st, 1, ["missed", "beer"])
    shoot(st, bang_card, 1, fifty)
    assert bang.legal_actions(st, 1) == [PASS, {"type": "respond", "card": missed}]
    refused(st, 1, {"type": "barrel"}, "NO_BARREL")
    refused(st, 1, use(crate), "CARD_SILENCED")
    act(st, 1, {"type": "respond", "card": missed})
    assert st["pending"] == [] and st["p"][1]["life"] == 4 and cubes_on(st, 1, crate) == 3


@pytest.mark.rule("AD-047")
def test_without_big_fifty_jourdonnais_has_his_barrels_and_crate() -> None:
    st = ad_table(4, chars=chars(4, s1="jourdonnais"))
    _, bang_card = with_weapon(st, "big_fifty")
    barrel = equip(st, 1, ["barrel"])[0]
    crate = orange(st, 1, "crate")
    missed, _ = give(st, 1, ["missed", "beer"])
    play(st, 0, bang_card, target=1)
    act(st, 0, PASS)
    assert bang.legal_actions(st, 1) == [PASS, {"type": "respond", "card": missed}, use(crate),
                                          {"type": "barrel", "card": barrel}, {"type": "barrel"}]


@pytest.mark.rule("AD-047")
def test_big_fifty_ignores_calamity_janets_bang_as_missed_and_elenas_any_card() -> None:
    st = ad_table(4, chars=chars(4, s1="calamity_janet", s3="elena_fuente"), expansions=["dodge_city"])
    fifty = orange(st, 0, "big_fifty", 4)
    first, second = give(st, 0, ["bang:4d", "bang:5d"])
    orange(st, 0, "bandolier")
    janet_bang = give(st, 1, ["bang:6d"])[0]
    elena_beer = give(st, 3, ["beer"])[0]
    shoot(st, first, 1, fifty)
    assert bang.legal_actions(st, 1) == [PASS]
    refused(st, 1, {"type": "respond", "card": janet_bang}, "WRONG_ANSWER")
    act(st, 1, PASS)
    assert st["p"][1]["life"] == 3
    shoot(st, second, 3, fifty)
    assert bang.legal_actions(st, 3) == [PASS]
    refused(st, 3, {"type": "respond", "card": elena_beer}, "WRONG_ANSWER")


@pytest.mark.rule("AD-047")
def test_without_big_fifty_calamity_janet_answers_with_a_bang() -> None:
    st = ad_table(4, chars=chars(4, s1="calamity_janet"))
    _, bang_card = with_weapon(st, "big_fifty")
    janet_bang = give(st, 1, ["bang:6d"])[0]
    play(st, 0, bang_card, target=1)
    act(st, 0, PASS)
    assert bang.legal_actions(st, 1) == [PASS, {"type": "respond", "card": janet_bang}]


@pytest.mark.rule("AD-047")
def test_big_fifty_hit_gives_bart_cassidy_no_card_and_el_gringo_no_steal() -> None:
    st = ad_table(4, chars=chars(4, s1="bart_cassidy", s3="el_gringo"))
    fifty = orange(st, 0, "big_fifty")
    first, second, keep = give(st, 0, ["bang:4d", "bang:5d", "beer"])
    orange(st, 0, "bandolier")
    shoot(st, first, 1, fifty)
    assert st["pending"] == [] and st["p"][1]["life"] == 3 and st["p"][1]["hand"] == []
    shoot(st, second, 3, fifty)
    assert st["pending"] == [] and st["p"][3]["life"] == 2 and st["p"][3]["hand"] == []  # El Gringo: 3 life
    assert st["p"][0]["hand"] == [keep]


@pytest.mark.rule("AD-047")
def test_without_big_fifty_bart_cassidy_draws_when_hit() -> None:
    st = ad_table(4, chars=chars(4, s1="bart_cassidy"))
    _, bang_card = with_weapon(st, "big_fifty")
    play(st, 0, bang_card, target=1)
    act(st, 0, PASS)
    assert st["p"][1]["life"] == 3 and len(st["p"][1]["hand"]) == 1


# AD-054: Double Barrel

@pytest.mark.rule("AD-054")
def test_double_barrel_diamond_bang_cannot_be_cancelled_at_all() -> None:
    st = ad_table(4)
    barrel, bang_card = with_weapon(st, "double_barrel", card="bang:7d")
    equip(st, 1, ["barrel"])
    crate = orange(st, 1, "crate")
    missed, _ = give(st, 1, ["missed", "beer"])
    stack_deck(st, ["any:Qh"])
    deck = list(st["deck"])
    play(st, 0, bang_card, target=1)
    assert bang.legal_actions(st, 0) == [use(barrel), PASS]
    events = act(st, 0, use(barrel))
    # Nothing can answer it, and the cube was paid in the open: the hit is taken without asking.
    assert kinds(events) == ["use", "cubes", "pass", "damage"] and st["pending"] == []
    assert st["p"][1]["life"] == 3 and st["deck"] == deck
    assert missed in st["p"][1]["hand"] and cubes_on(st, 1, crate) == 3 and cubes_on(st, 0, barrel) == 2


@pytest.mark.rule("AD-054")
def test_double_barrel_is_not_offered_for_a_club_bang() -> None:
    st = ad_table(4)
    barrel, bang_card = with_weapon(st, "double_barrel", card="bang:7c")
    missed, _ = give(st, 1, ["missed", "beer"])
    play(st, 0, bang_card, target=1)
    assert pending_kind(st) == "bang" and bang.to_act(st) == [1]
    assert {"type": "respond", "card": missed} in bang.legal_actions(st, 1)
    act(st, 1, {"type": "respond", "card": missed})
    assert st["p"][1]["life"] == 4 and cubes_on(st, 0, barrel) == 3


@pytest.mark.rule("AD-054")
def test_double_barrel_diamond_bang_not_paid_can_be_cancelled() -> None:
    st = ad_table(4)
    _, bang_card = with_weapon(st, "double_barrel", card="bang:7d")
    missed, _ = give(st, 1, ["missed", "beer"])
    play(st, 0, bang_card, target=1)
    act(st, 0, PASS)
    act(st, 1, {"type": "respond", "card": missed})
    assert st["pending"] == [] and st["p"][1]["life"] == 4


# AD-066: Thunderer

@pytest.mark.rule("AD-066")
def test_thunderer_takes_the_bang_back_before_the_target_answers_and_it_still_counts() -> None:
    st = ad_table(4)
    thunderer, bang_card = with_weapon(st, "thunderer")
    missed, _ = give(st, 1, ["missed", "beer"])
    events = shoot(st, bang_card, 1, thunderer)
    assert {"kind": "take", "seat": 0, "cards": [bang_card], "reason": "thunderer"} in events
    assert pending_kind(st) == "bang" and st["p"][0]["hand"] == [bang_card]  # before the answer
    assert bang_card not in st["discard"] and cubes_on(st, 0, thunderer) == 2
    act(st, 1, {"type": "respond", "card": missed})
    assert st["p"][0]["hand"] == [bang_card] and st["bangs"] == 1
    refused(st, 0, {"type": "play", "card": bang_card, "target": 1}, "BANG_ALREADY_PLAYED")


@pytest.mark.rule("AD-066")
def test_thunderer_takes_the_bang_back_when_the_shot_hits() -> None:
    st = ad_table(4)
    thunderer, bang_card = with_weapon(st, "thunderer")
    shoot(st, bang_card, 1, thunderer)
    assert st["p"][1]["life"] == 3 and st["p"][0]["hand"] == [bang_card]


@pytest.mark.rule("AD-066")
def test_thunderer_not_paid_leaves_the_bang_in_the_discard_pile() -> None:
    st = ad_table(4)
    _, bang_card = with_weapon(st, "thunderer")
    play(st, 0, bang_card, target=1)
    act(st, 0, PASS)
    assert st["p"][0]["hand"] == [] and st["discard"][-1] == bang_card


# The weapon request in every seat's view

@pytest.mark.rule("AD-019")
def test_the_weapon_request_is_in_every_seats_view() -> None:
    st = ad_table(4)
    thunderer, bang_card = with_weapon(st, "thunderer")
    play(st, 0, bang_card, target=1)
    for seat in (0, 1, 2, None):
        reqs = list(bang.view(st, seat).pending)
        assert len(reqs) == 1
        req = reqs[0]
        assert req.kind == bang_pb2.BANG_REQUEST_KIND_WEAPON
        assert req.seat == 0 and req.source_seat == 0 and req.source_card.id == thunderer


@pytest.mark.rule("AD-047")
def test_big_fifty_reaches_a_target_whose_mustang_hideout_and_paul_regret_put_him_beyond_six() -> None:
    """NOTES (b) #17 (the official reading): the target's distance modifiers do not count for a Big
    Fifty shot. Seat 4 of 8 is at 4, +1 Mustang, +1 Hideout, +1 Paul Regret = 7 > 6: only the Big
    Fifty reaches him, so its cube is paid without asking."""
    st = ad_table(8, chars=chars(8, s4="paul_regret"), expansions=["dodge_city"])
    fifty = orange(st, 0, "big_fifty")
    bang_card, quick = give(st, 0, ["bang:4d", "quick_shot"])
    equip(st, 4, ["mustang", "hideout"])
    give(st, 4, ["missed"])
    assert targets(st, 0, bang_card) == [1, 2, 3, 4, 5, 6, 7]
    assert targets(st, 0, quick) == [1, 2, 3, 5, 6, 7]  # not a BANG! card: no Big Fifty
    events = play(st, 0, bang_card, target=4)
    assert {"kind": "use", "seat": 0, "cards": [fifty], "reason": "weapon", "other": 4} in events
    assert cubes_on(st, 0, fifty) == 2 and pending_kind(st) == "bang" and bang.to_act(st) == [4]


@pytest.mark.rule("AD-047")
def test_big_fifty_is_still_optional_for_a_target_in_plain_reach() -> None:
    st = ad_table(8, chars=chars(8, s4="paul_regret"), expansions=["dodge_city"])
    fifty, bang_card = with_weapon(st, "big_fifty")
    equip(st, 4, ["mustang"])  # 4 + 1 + 1 = 6: in reach
    play(st, 0, bang_card, target=4)
    assert bang.legal_actions(st, 0) == [use(fifty), PASS]


@pytest.mark.rule("AD-047")
def test_big_fifty_shot_hits_apache_kid_with_a_diamond_bang() -> None:
    """NOTES (c) Big Fifty: Apache Kid's ability is ignored too, so a BANG! of diamonds affects him."""
    st = ad_table(4, chars=chars(4, s1="apache_kid"), expansions=["dodge_city"])
    fifty, bang_card = with_weapon(st, "big_fifty")
    play(st, 0, bang_card, target=1)  # his hand is empty: hit at once
    assert cubes_on(st, 0, fifty) == 2 and st["p"][1]["life"] == 2  # Apache Kid: 3 life


@pytest.mark.rule("AD-047")
def test_without_big_fifty_a_diamond_bang_at_apache_kid_is_refused() -> None:
    st = ad_table(4, chars=chars(4, s1="apache_kid"), expansions=["dodge_city"])
    _, bang_card = with_weapon(st, "thunderer")
    refused(st, 0, {"type": "play", "card": bang_card, "target": 1}, "TARGET_UNAFFECTED")


@pytest.mark.rule("AD-047")
def test_big_fifty_hit_on_julie_cutter_draws_nothing() -> None:
    st = ad_table(4, chars=chars(4, s1="julie_cutter"))
    fifty = orange(st, 0, "big_fifty")
    first, second = give(st, 0, ["bang:4d", "bang:5d"])
    orange(st, 0, "bandolier")
    stack_deck(st, ["any:6h"])
    deck = list(st["deck"])
    events = shoot(st, first, 1, fifty)
    assert "check" not in kinds(events) and st["deck"] == deck and st["pending"] == []
    assert st["p"][1]["life"] == 3
    # Without the Big Fifty, her draw! follows the hit (6♥: a BANG! effect back at the shooter).
    play(st, 0, second, target=1)
    events = act(st, 0, PASS)
    assert "check" in kinds(events) and st["p"][1]["life"] == 2


@pytest.mark.rule("AD-047", "AD-039")
def test_big_fifty_overrides_ms_abigail() -> None:
    st = ad_table(4, chars=chars(4, s1="ms_abigail"))
    fifty = orange(st, 0, "big_fifty")
    first, second = give(st, 0, ["bang:Kd", "bang:Ad"])
    orange(st, 0, "bandolier")
    shoot(st, first, 1, fifty)
    assert st["pending"] == [] and st["p"][1]["life"] == 3
    play(st, 0, second, target=1)
    act(st, 0, PASS)
    assert pending_kind(st) == "ignore" and bang.to_act(st) == [1]


@pytest.mark.rule("AD-047")
def test_big_fifty_ignores_a_green_missed_card_in_play() -> None:
    st = ad_table(4, expansions=["dodge_city"])
    fifty, bang_card = with_weapon(st, "big_fifty")
    sombrero = equip(st, 1, ["sombrero"])[0]
    give(st, 1, ["beer"])
    shoot(st, bang_card, 1, fifty)
    assert bang.legal_actions(st, 1) == [PASS]
    refused(st, 1, use(sombrero), "CARD_SILENCED")


@pytest.mark.rule("AD-021", "AD-047")
def test_big_fifty_emptied_by_its_shot_still_ignores_the_targets_barrel() -> None:
    st = ad_table(4)
    fifty, bang_card = with_weapon(st, "big_fifty", 1)
    equip(st, 1, ["barrel"])
    give(st, 1, ["beer"])
    shoot(st, bang_card, 1, fifty)
    assert fifty in st["discard"] and bang.legal_actions(st, 1) == [PASS]


@pytest.mark.rule("AD-053", "AD-025")
def test_buntline_shot_cancelled_by_a_crate_costs_a_card() -> None:
    st = ad_table(4)
    buntline, bang_card = with_weapon(st, "buntline_special")
    crate = orange(st, 1, "crate")
    beer = give(st, 1, ["beer"])[0]
    shoot(st, bang_card, 1, buntline)
    act(st, 1, use(crate))
    # One card in hand: it is discarded without asking.
    assert st["pending"] == [] and st["p"][1]["hand"] == [] and st["discard"][-1] == beer
    assert st["p"][1]["life"] == 4 and cubes_on(st, 1, crate) == 1


@pytest.mark.rule("AD-026", "AD-057")
def test_a_little_nip_is_not_offered_when_dying_in_ones_own_turn() -> None:
    st = ad_table(4)
    st["p"][0]["life"] = 1
    orange(st, 0, "beer_keg")
    duel = give(st, 0, ["duel"])[0]
    give(st, 0, ["a_little_nip"])
    give(st, 1, ["bang:4d"])
    play(st, 0, duel, target=1)
    act(st, 1, {"type": "respond", "card": st["p"][1]["hand"][0]})
    act(st, 0, PASS)
    assert pending_kind(st) == "dying" and bang.to_act(st) == [0]
    assert bang.legal_actions(st, 0) == [PASS]


@pytest.mark.rule("AD-054")
def test_double_barrel_shot_refuses_every_answer_when_the_target_is_asked() -> None:
    """Sid Ketchum (hurt, two cards) may use his ability in any window, so the sure shot waits for him:
    every cancelling answer is refused, only the hit (or his ability) remains."""
    st = ad_table(4, chars=chars(4, s1="sid_ketchum"))
    barrel, bang_card = with_weapon(st, "double_barrel", card="bang:7d")
    equip(st, 1, ["barrel"])
    crate = orange(st, 1, "crate")
    missed, beer = give(st, 1, ["missed", "beer"])
    st["p"][1]["life"] = 3
    shoot(st, bang_card, 1, barrel)
    assert pending_kind(st) == "bang" and bang.to_act(st) == [1]
    assert bang.legal_actions(st, 1) == [PASS, {"type": "ability", "cards": [missed, beer]}]
    refused(st, 1, {"type": "respond", "card": missed}, "SHOT_UNCANCELLABLE")
    refused(st, 1, {"type": "barrel", "card": st["p"][1]["table"][0]}, "SHOT_UNCANCELLABLE")
    refused(st, 1, use(crate), "SHOT_UNCANCELLABLE")
    act(st, 1, PASS)
    assert st["pending"] == [] and st["p"][1]["life"] == 2


@pytest.mark.rule("AD-019")
def test_the_weapon_option_takes_no_target_and_only_the_weapon_in_play() -> None:
    st = ad_table(4)
    thunderer = orange(st, 0, "thunderer")
    crate = orange(st, 0, "crate")
    play(st, 0, give(st, 0, ["bang:4d"])[0], target=1)
    refused(st, 0, {"type": "use", "card": thunderer, "target": 2}, "UNEXPECTED_TARGET")
    refused(st, 0, use(crate), "WRONG_ANSWER")
    assert cubes_on(st, 0, thunderer) == 3


@pytest.mark.rule("AD-053", "AD-042")
def test_buntline_shot_dodged_by_jourdonnais_with_an_empty_hand_costs_nothing() -> None:
    st = ad_table(4, chars=chars(4, s1="jourdonnais"))
    buntline = orange(st, 0, "buntline_special")
    play(st, 0, give(st, 0, ["bang:4d"])[0], target=1)
    stack_deck(st, ["any:2h"])
    act(st, 0, use(buntline))
    assert bang.legal_actions(st, 1) == [PASS, {"type": "barrel"}]
    events = act(st, 1, {"type": "barrel"})
    assert kinds(events) == ["check", "barrel"] and st["pending"] == [] and st["p"][1]["life"] == 4


@pytest.mark.rule("AD-047")
def test_big_fifty_shot_answered_by_molly_stark_draws_her_nothing() -> None:
    st = ad_table(4, chars=chars(4, s1="molly_stark"), expansions=["dodge_city"])
    fifty = orange(st, 0, "big_fifty")
    first, second = give(st, 0, ["bang:4d", "bang:5d"])
    orange(st, 0, "bandolier")
    missed, other, beer = give(st, 1, ["missed", "missed", "beer"])
    shoot(st, first, 1, fifty)
    events = act(st, 1, {"type": "respond", "card": missed})
    assert kinds(events) == ["respond"] and st["p"][1]["hand"] == [other, beer]
    # Without the Big Fifty, her ability draws her a card for the Missed! (DC).
    play(st, 0, second, target=1)
    act(st, 0, PASS)
    events = act(st, 1, {"type": "respond", "card": other})
    assert kinds(events) == ["respond", "draw"] and len(st["p"][1]["hand"]) == 2
