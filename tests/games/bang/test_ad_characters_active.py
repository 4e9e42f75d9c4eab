"""Armed & Dangerous characters who pay or gain cubes in their own turn: Mexicali Kid and Bass
Greeves (AD-028, 034, 038), and Vera Custer (Dodge City) copying them."""

from __future__ import annotations

import pytest
from bang_helpers import (
    act,
    ad_table,
    chars,
    cubes_on,
    give,
    orange,
    pass_all,
    pending_kind,
    play,
    refused,
    set_cubes,
)

from tabletop_server.service.engine.errors import RuleError
from tabletop_server.service.engine.ruleset import Action, Event, State
from tabletop_server.service.games import bang

pytestmark = pytest.mark.usefixtures("armed")


def abilities(st: State, seat: int) -> list[Action]:
    return [a for a in bang.legal_actions(st, seat) if a["type"] == "ability"]


def cube_events(events: list[Event]) -> list[tuple[int, list[str], int, str]]:
    return [(e["seat"], e["cards"], e["amount"], e["reason"]) for e in events if e["kind"] == "cubes"]


def shot(target: int) -> Action:
    return {"type": "ability", "cards": [], "target": target}


PAY_CHARACTER: Action = {"type": "choose", "pick": "character"}


# Mexicali Kid (AD-028, AD-038)

def mexicali(**at: str) -> State:
    """Mexicali Kid at seat 0 (the Sheriff, his turn, Colt .45), four players."""
    return ad_table(4, chars=chars(4, s0="mexicali_kid", **at))


@pytest.mark.rule("AD-028", "AD-038")
def test_mexicali_kid_pays_his_two_cubes_from_character_and_whip_and_hits_in_reach() -> None:
    st = mexicali()
    set_cubes(st, 0, "character", 1)
    whip = orange(st, 0, "whip", 3)
    give(st, 1, ["beer"])  # asked, not hit at once
    assert abilities(st, 0) == [shot(1), shot(3)]  # the Colt's reach: distance 1 only
    refused(st, 0, shot(2), "OUT_OF_RANGE")
    act(st, 0, shot(1))
    assert pending_kind(st) == "pay_cubes" and st["pending"][-1]["args"]["cubes"] == 2
    assert bang.legal_actions(st, 0) == [PAY_CHARACTER, {"type": "choose", "pick": whip}]
    events = act(st, 0, PAY_CHARACTER)  # the second cube: only the Whip still holds any, paid at once
    assert cube_events(events) == [(0, [], -1, "mexicali_kid"), (0, [whip], -1, "mexicali_kid")]
    assert (cubes_on(st, 0), cubes_on(st, 0, whip), st["supply"]) == (0, 2, 30)
    assert pending_kind(st) == "bang" and st["pending"][-1]["seat"] == 1 and st["pending"][-1]["args"]["need"] == 1
    assert "bang_card" not in st["pending"][-1]["args"] and st["pending"][-1]["args"]["card"] is None
    pass_all(st)
    assert st["p"][1]["life"] == 3 and st["bangs"] == 0


@pytest.mark.rule("AD-028", "AD-038")
def test_mexicali_kid_needs_two_cubes() -> None:
    st = mexicali()
    set_cubes(st, 0, "character", 1)
    assert abilities(st, 0) == []
    refused(st, 0, shot(1), "NOT_ENOUGH_CUBES")
    whip = orange(st, 0, "whip", 1)  # 1 + 1: enough, from any holders
    give(st, 3, ["beer"])
    assert abilities(st, 0) == [shot(1), shot(3)]
    act(st, 0, shot(3))  # every cube must go: paid without asking
    assert (cubes_on(st, 0), whip in st["discard"], pending_kind(st)) == (0, True, "bang")
    assert st["supply"] == 32


@pytest.mark.rule("AD-038")
def test_mexicali_kids_shot_is_not_his_bang_card_and_is_once_per_turn() -> None:
    st = mexicali()
    set_cubes(st, 0, "character", 4)
    first, second = give(st, 0, ["bang", "bang"])
    play(st, 0, first, target=1)
    pass_all(st)
    act(st, 0, shot(1))  # after his BANG! card; one holder: paid without asking
    pass_all(st)
    assert st["p"][1]["life"] == 2 and st["bangs"] == 1 and cubes_on(st, 0) == 2
    assert abilities(st, 0) == []
    refused(st, 0, shot(3), "USED_UP_THIS_TURN")
    refused(st, 0, {"type": "play", "card": second, "target": 1}, "BANG_ALREADY_PLAYED")


@pytest.mark.rule("AD-038")
def test_mexicali_kid_may_still_play_his_bang_card_after_his_ability() -> None:
    st = mexicali()
    set_cubes(st, 0, "character", 2)
    card = give(st, 0, ["bang"])[0]
    act(st, 0, shot(1))
    pass_all(st)
    play(st, 0, card, target=3)
    pass_all(st)
    assert (st["p"][1]["life"], st["p"][3]["life"], st["bangs"]) == (3, 3, 1)


@pytest.mark.rule("AD-038")
def test_mexicali_kid_reaches_as_far_as_his_weapon_and_gets_no_weapon_option() -> None:
    st = mexicali()
    set_cubes(st, 0, "character", 2)
    thunderer = orange(st, 0, "thunderer", 3)  # range 3
    give(st, 2, ["beer"])
    assert abilities(st, 0) == [shot(1), shot(2), shot(3)]
    act(st, 0, shot(2))
    act(st, 0, PAY_CHARACTER)  # character or Thunderer
    act(st, 0, PAY_CHARACTER)
    assert pending_kind(st) == "bang" and st["pending"][-1]["seat"] == 2  # no "weapon" question
    assert cubes_on(st, 0, thunderer) == 3
    pass_all(st)
    card = give(st, 0, ["bang"])[0]  # a real BANG! card does get the option
    play(st, 0, card, target=1)
    assert pending_kind(st) == "weapon"


@pytest.mark.rule("AD-038")
def test_mexicali_kids_reach_is_not_stretched_by_a_bell_tower() -> None:
    """The Bell Tower works for the next *card* played (AD-067); his shot is no card: his weapon's reach."""
    st = mexicali()
    set_cubes(st, 0, "character", 2)
    bell = orange(st, 0, "bell_tower", 3)
    act(st, 0, {"type": "use", "card": bell})
    assert st["bell"] == 0
    assert abilities(st, 0) == [shot(1), shot(3)]
    refused(st, 0, shot(2), "OUT_OF_RANGE")
    act(st, 0, shot(1))
    act(st, 0, PAY_CHARACTER)
    act(st, 0, PAY_CHARACTER)
    pass_all(st)
    assert st["bell"] == 0 and st["p"][1]["life"] == 3  # still there for his next card
    loot = give(st, 2, ["beer"])[0]
    play(st, 0, give(st, 0, ["panic"])[0], target=2, pick="hand")  # distance 2: the Bell's
    assert st["p"][0]["hand"] == [loot] and "bell" not in st


@pytest.mark.rule("AD-038")
def test_mexicali_kids_shot_is_cancelled_by_a_missed() -> None:
    st = mexicali()
    set_cubes(st, 0, "character", 2)
    missed = give(st, 1, ["missed"])[0]
    act(st, 0, shot(1))
    act(st, 1, {"type": "respond", "card": missed})
    assert st["p"][1]["life"] == 4 and st["pending"] == [] and missed in st["discard"]


@pytest.mark.rule("AD-028", "AD-038")
def test_mexicali_kid_never_out_of_his_turn() -> None:
    st = ad_table(4, chars=chars(4, s1="mexicali_kid"))
    set_cubes(st, 1, "character", 4)
    refused(st, 1, shot(0), "NOT_YOUR_TURN")
    give(st, 1, ["beer"])
    play(st, 0, give(st, 0, ["indians"])[0])  # asked in seat 0's turn: still not his
    assert pending_kind(st) == "indians" and st["pending"][-1]["seat"] == 1
    assert abilities(st, 1) == []
    with pytest.raises(RuleError) as err:
        bang.apply(st, 1, shot(0))
    assert err.value.reason == "ABILITY_NOT_NOW"
    pass_all(st)
    play(st, 0, give(st, 0, ["duel"])[0], target=1)  # nor in a Duel
    assert pending_kind(st) == "duel" and abilities(st, 1) == []
    with pytest.raises(RuleError) as err:
        bang.apply(st, 1, shot(0))
    assert err.value.reason == "ABILITY_NOT_NOW" and cubes_on(st, 1) == 4


# Bass Greeves (AD-034)

def bass() -> State:
    """Bass Greeves at seat 0, in his turn."""
    return ad_table(4, chars=chars(4, s0="bass_greeves"))


@pytest.mark.rule("AD-034")
def test_bass_greeves_discards_a_card_for_two_cubes_on_his_character() -> None:
    st = bass()
    beer, stage = give(st, 0, ["beer", "stagecoach"])
    assert abilities(st, 0) == [{"type": "ability", "cards": [beer]}, {"type": "ability", "cards": [stage]}]
    events = act(st, 0, {"type": "ability", "cards": [beer]})  # one holder: placed without asking
    assert events[0] == {"kind": "discard", "seat": 0, "cards": [beer], "reason": "bass_greeves"}
    assert cube_events(events) == [(0, [], 2, "bass_greeves")]
    assert (cubes_on(st, 0), st["supply"], st["p"][0]["hand"], st["pending"]) == (2, 30, [stage], [])
    assert abilities(st, 0) == []
    refused(st, 0, {"type": "ability", "cards": [stage]}, "USED_UP_THIS_TURN")


@pytest.mark.rule("AD-034")
def test_bass_greeves_puts_both_cubes_on_one_holder_never_split() -> None:
    st = bass()
    crate = orange(st, 0, "crate", 2)
    beer = give(st, 0, ["beer"])[0]
    act(st, 0, {"type": "ability", "cards": [beer]})
    assert pending_kind(st) == "place_cubes" and st["pending"][-1]["args"]["count"] == 2
    assert bang.legal_actions(st, 0) == [PAY_CHARACTER, {"type": "choose", "pick": crate}]
    events = act(st, 0, {"type": "choose", "pick": crate})  # both, and nothing left to place elsewhere
    assert cube_events(events) == [(0, [crate], 2, "bass_greeves")]
    assert (cubes_on(st, 0, crate), cubes_on(st, 0), st["pending"], st["supply"]) == (4, 0, [], 28)


@pytest.mark.rule("AD-034")
def test_bass_greeves_cubes_beyond_four_stay_in_the_supply() -> None:
    st = bass()
    crate = orange(st, 0, "crate", 3)
    act(st, 0, {"type": "ability", "cards": give(st, 0, ["beer"])})
    events = act(st, 0, {"type": "choose", "pick": crate})  # room for 1 of the 2: the other stays put
    assert cube_events(events) == [(0, [crate], 1, "bass_greeves")]
    assert (cubes_on(st, 0, crate), cubes_on(st, 0), st["supply"], st["pending"]) == (4, 0, 28, [])
    st = bass()
    crate = orange(st, 0, "crate", 3)
    set_cubes(st, 0, "character", 4)
    beer = give(st, 0, ["beer"])[0]
    events = act(st, 0, {"type": "ability", "cards": [beer]})  # only the Crate has room: 1 of the 2 fits
    assert cube_events(events) == [(0, [crate], 1, "bass_greeves")]
    assert (cubes_on(st, 0, crate), st["supply"], st["pending"]) == (4, 24, [])
    st2 = bass()
    set_cubes(st2, 0, "character", 4)
    card = give(st2, 0, ["beer"])[0]
    assert abilities(st2, 0) == []  # every holder full: nothing to gain
    refused(st2, 0, {"type": "ability", "cards": [card]}, "NO_ROOM_FOR_CUBES")


@pytest.mark.rule("AD-034")
def test_bass_greeves_gets_what_is_left_in_the_supply() -> None:
    st = bass()
    set_cubes(st, 1, "character", 4)
    st["supply"] = 1  # 31 elsewhere, as if in play
    card = give(st, 0, ["beer"])[0]
    act(st, 0, {"type": "ability", "cards": [card]})
    assert (cubes_on(st, 0), st["supply"]) == (1, 0)
    st = bass()
    set_cubes(st, 1, "character", 4)
    st["supply"] = 0
    card = give(st, 0, ["beer"])[0]
    assert abilities(st, 0) == []  # nothing to gain
    refused(st, 0, {"type": "ability", "cards": [card]}, "NO_ROOM_FOR_CUBES")


@pytest.mark.rule("AD-028", "AD-034")
def test_bass_greeves_only_in_his_turn_and_discards_from_his_hand() -> None:
    st = ad_table(4, chars=chars(4, s1="bass_greeves"))
    card = give(st, 1, ["beer"])[0]
    refused(st, 1, {"type": "ability", "cards": [card]}, "NOT_YOUR_TURN")
    st["turn"] = 1
    other = give(st, 0, ["stagecoach"])[0]
    refused(st, 1, {"type": "ability", "cards": [other]}, "CARD_NOT_IN_HAND")
    refused(st, 1, {"type": "ability", "cards": []}, "NEED_ONE_CARD")


# Vera Custer (Dodge City) copying an Armed & Dangerous character (AD-028)

def vera_as(copied: str) -> State:
    """Vera Custer at seat 1 has just chosen ``copied`` (seat 2, 4 cubes on his character) for her turn."""
    st = ad_table(4, chars=chars(4, s1="vera_custer", s2=copied), expansions=["dodge_city"])
    set_cubes(st, 2, "character", 4)
    act(st, 0, {"type": "end_turn"})
    assert pending_kind(st) == "vera_custer"
    act(st, 1, {"type": "choose", "pick": copied})
    assert (st["turn"], st["phase"], st["p"][1]["as"]) == (1, "play", copied)
    return st


@pytest.mark.rule("AD-028", "AD-038")
def test_vera_custer_as_mexicali_kid_pays_with_her_own_cubes_once_per_turn() -> None:
    st = vera_as("mexicali_kid")
    assert abilities(st, 1) == []  # Mexicali Kid's 4 cubes are not hers
    refused(st, 1, shot(0), "NOT_ENOUGH_CUBES")
    set_cubes(st, 1, "character", 3)
    give(st, 0, ["beer"])
    assert abilities(st, 1) == [shot(2), shot(0)]
    act(st, 1, shot(0))
    assert (cubes_on(st, 1), cubes_on(st, 2), pending_kind(st)) == (1, 4, "bang")
    pass_all(st)
    assert st["p"][0]["life"] == 4
    set_cubes(st, 1, "character", 2)
    assert abilities(st, 1) == []
    refused(st, 1, shot(2), "USED_UP_THIS_TURN")


@pytest.mark.rule("AD-028", "AD-034")
def test_vera_custer_as_bass_greeves_puts_the_cubes_on_her_own_character_once_per_turn() -> None:
    st = vera_as("bass_greeves")
    first, second = st["p"][1]["hand"][:2]
    act(st, 1, {"type": "ability", "cards": [first]})
    assert (cubes_on(st, 1), cubes_on(st, 2), st["supply"]) == (2, 4, 26)
    refused(st, 1, {"type": "ability", "cards": [second]}, "USED_UP_THIS_TURN")


@pytest.mark.rule("AD-034")
def test_bass_greeves_may_use_his_ability_again_in_his_next_turn() -> None:
    st = bass()
    act(st, 0, {"type": "ability", "cards": give(st, 0, ["beer"])})
    for seat in range(4):
        act(st, seat, {"type": "end_turn"})
    assert (st["turn"], st["phase"], st["pending"]) == (0, "play", [])
    card = st["p"][0]["hand"][0]
    assert {"type": "ability", "cards": [card]} in abilities(st, 0)
    act(st, 0, {"type": "ability", "cards": [card]})
    assert cubes_on(st, 0) == 4
