"""Armed & Dangerous: the upgradable brown cards (Caravan, A Little Nip, Quick Shot, Flintlock, Arrow, Duck!,
Squaw), paid with cubes from any holder, and their requests in every seat's view (AD-022..024, 056, 057,
061..063, 065, 068, 069)."""

from __future__ import annotations

import pytest
from bang_helpers import (
    PASS,
    act,
    ad_table,
    cubes_on,
    equip,
    give,
    hand_keys,
    kinds,
    orange,
    pending_kind,
    play,
    refused,
    set_cubes,
    stack_deck,
    table_keys,
)
from tabletop.v1 import bang_pb2

from tabletop_server.service.engine.ruleset import Action, State
from tabletop_server.service.games import bang

pytestmark = pytest.mark.usefixtures("armed")

UPGRADE: Action = {"type": "upgrade"}


def pay(st: State, seat: int, *holders: str) -> None:
    """Answer the ``pay_cubes`` request one cube at a time from ``holders``."""
    for h in holders:
        assert pending_kind(st) == "pay_cubes"
        act(st, seat, {"type": "choose", "pick": h})


def extra(target: int) -> Action:
    return {"type": "upgrade", "target": target}


# AD-022, 068: Caravan, paid from any holders in any combination

@pytest.mark.rule("AD-022", "AD-068")
def test_caravan_upgrade_paid_one_cube_from_the_character_and_one_from_the_whip_draws_three() -> None:
    st = ad_table(4)
    whip = orange(st, 0, "whip")
    other = orange(st, 1, "crate")
    set_cubes(st, 0, "character", 1)
    caravan = give(st, 0, ["caravan"])[0]
    play(st, 0, caravan)
    assert pending_kind(st) == "upgrade" and bang.legal_actions(st, 0) == [PASS, UPGRADE]
    act(st, 0, UPGRADE)
    assert pending_kind(st) == "pay_cubes"
    assert bang.legal_actions(st, 0) == [{"type": "choose", "pick": "character"}, {"type": "choose", "pick": whip}]
    refused(st, 0, {"type": "choose", "pick": other}, "NOT_A_CUBE_HOLDER")  # never another player's cubes
    pay(st, 0, "character")
    # The last cube: only the Whip holds one now, so it is paid without asking; then the upgrade again.
    assert cubes_on(st, 0) == 0 and cubes_on(st, 0, whip) == 2 and st["supply"] == 27
    assert pending_kind(st) == "upgrade" and bang.legal_actions(st, 0) == [PASS, UPGRADE]
    events = act(st, 0, PASS)
    assert kinds(events) == ["draw"] and events[0]["count"] == 3 and len(st["p"][0]["hand"]) == 3


@pytest.mark.rule("AD-068", "AD-024")
def test_caravan_draws_two_without_paying_and_four_paying_four() -> None:
    st = ad_table(4)
    set_cubes(st, 0, "character", 4)
    first = give(st, 0, ["caravan"])[0]
    play(st, 0, first)
    act(st, 0, PASS)
    assert len(st["p"][0]["hand"]) == 2 and cubes_on(st, 0) == 4
    st["p"][0]["hand"] = []
    st["discard"].remove(first)
    st["p"][0]["hand"].append(first)
    play(st, 0, first)
    act(st, 0, UPGRADE)  # one holder: the cubes are taken without asking
    assert cubes_on(st, 0) == 2 and pending_kind(st) == "upgrade"
    assert bang.legal_actions(st, 0) == [PASS, UPGRADE]  # repeatable
    act(st, 0, UPGRADE)
    assert cubes_on(st, 0) == 0 and st["supply"] == 32
    assert len(st["p"][0]["hand"]) == 4 and st["pending"] == []  # nothing left to pay: played at once


@pytest.mark.rule("AD-068", "AD-022")
def test_caravan_upgrade_is_not_offered_with_one_cube() -> None:
    st = ad_table(4)
    set_cubes(st, 0, "character", 1)
    caravan = give(st, 0, ["caravan"])[0]
    play(st, 0, caravan)
    assert st["pending"] == [] and len(st["p"][0]["hand"]) == 2 and cubes_on(st, 0) == 1


@pytest.mark.rule("AD-068")
def test_caravan_upgrade_takes_no_target() -> None:
    st = ad_table(4)
    set_cubes(st, 0, "character", 2)
    play(st, 0, give(st, 0, ["caravan"])[0])
    refused(st, 0, extra(1), "UNEXPECTED_TARGET")


# AD-023, 057: A Little Nip

@pytest.mark.rule("AD-023", "AD-057")
def test_a_little_nip_paid_with_all_three_cubes_of_the_bell_tower_discards_it() -> None:
    st = ad_table(4)
    bell = orange(st, 0, "bell_tower")
    st["p"][0]["life"] = 1
    nip = give(st, 0, ["a_little_nip"])[0]
    play(st, 0, nip)
    act(st, 0, UPGRADE)
    # One holder: the three cubes are taken without asking; the emptied Bell Tower is discarded.
    assert bell in st["discard"] and st["p"][0]["table"] == [] and st["supply"] == 32
    assert st["p"][0]["life"] == 3 and st["pending"] == []


@pytest.mark.rule("AD-057", "AD-024")
def test_a_little_nip_heals_one_for_nothing_and_three_for_six_cubes() -> None:
    st = ad_table(4)
    st["p"][0]["life"] = 1
    whip = orange(st, 0, "whip", 2)
    set_cubes(st, 0, "character", 4)
    nip = give(st, 0, ["a_little_nip"])[0]
    play(st, 0, nip)
    act(st, 0, UPGRADE)
    pay(st, 0, "character", "character", "character")
    assert pending_kind(st) == "upgrade" and bang.legal_actions(st, 0) == [PASS, UPGRADE]
    act(st, 0, UPGRADE)  # 3 cubes left for 3 to pay: every one goes, without asking
    assert whip in st["discard"] and cubes_on(st, 0) == 0
    assert st["p"][0]["life"] == 4 and st["pending"] == []  # 1 + 1 + 1 more, max 5
    # Paying nothing: +1 only.
    st["p"][0]["life"] = 1
    st["discard"].remove(nip)
    st["p"][0]["hand"].append(nip)
    play(st, 0, nip)
    assert st["pending"] == [] and st["p"][0]["life"] == 2


@pytest.mark.rule("AD-057")
def test_a_little_nip_second_upgrade_is_not_offered_with_five_cubes() -> None:
    st = ad_table(4)
    st["p"][0]["life"] = 1
    set_cubes(st, 0, "character", 4)
    orange(st, 0, "whip", 1)
    play(st, 0, give(st, 0, ["a_little_nip"])[0])
    act(st, 0, UPGRADE)
    pay(st, 0, "character", "character", "character")
    assert st["pending"] == [] and st["p"][0]["life"] == 3 and cubes_on(st, 0) == 1


@pytest.mark.rule("AD-057")
def test_a_little_nip_is_refused_out_of_turn() -> None:
    st = ad_table(4)
    nip = give(st, 1, ["a_little_nip"])[0]
    st["p"][1]["life"] = 2
    refused(st, 1, {"type": "play", "card": nip}, "NOT_YOUR_TURN")


# AD-024, 061, 062: Quick Shot

@pytest.mark.rule("AD-024", "AD-062")
def test_quick_shot_bought_twice_hits_three_different_targets() -> None:
    st = ad_table(4)
    equip(st, 0, ["schofield"])
    set_cubes(st, 0, "character", 2)
    quick = give(st, 0, ["quick_shot"])[0]
    play(st, 0, quick, target=1)
    assert bang.legal_actions(st, 0) == [PASS, extra(2), extra(3)]
    act(st, 0, extra(3))
    assert cubes_on(st, 0) == 1 and pending_kind(st) == "upgrade"  # one holder: paid without asking
    assert st["pending"][-1]["args"]["bought"] == 1 and st["pending"][-1]["args"]["extra"] == [3]
    assert bang.legal_actions(st, 0) == [PASS, extra(2)]
    events = act(st, 0, extra(2))
    assert cubes_on(st, 0) == 0 and st["supply"] == 32
    # Every hand is empty: the three shots hit, in the order chosen.
    assert [e["seat"] for e in events if e["kind"] == "damage"] == [1, 3, 2]
    assert st["pending"] == [] and [p["life"] for p in st["p"]] == [5, 3, 3, 3]
    refused(st, 0, UPGRADE, "WRONG_ANSWER")  # too late: the card has resolved


@pytest.mark.rule("AD-024")
def test_quick_shot_upgrade_is_decided_before_any_target_reacts() -> None:
    st = ad_table(4)
    set_cubes(st, 0, "character", 1)
    quick = give(st, 0, ["quick_shot"])[0]
    give(st, 1, ["missed"])
    give(st, 3, ["missed"])
    play(st, 0, quick, target=1)
    assert bang.to_act(st) == [0] and bang.legal_actions(st, 1) == []
    act(st, 0, extra(3))
    assert pending_kind(st) == "bang" and bang.to_act(st) == [1]
    act(st, 1, PASS)
    assert pending_kind(st) == "bang" and bang.to_act(st) == [3]
    act(st, 3, PASS)
    assert [p["life"] for p in st["p"]] == [5, 3, 4, 3]


@pytest.mark.rule("AD-062")
def test_quick_shot_extra_target_must_differ_and_be_in_reach() -> None:
    st = ad_table(6)
    equip(st, 0, ["schofield"])
    set_cubes(st, 0, "character", 2)
    quick = give(st, 0, ["quick_shot"])[0]
    play(st, 0, quick, target=1)
    assert bang.legal_actions(st, 0) == [PASS, extra(2), extra(4), extra(5)]
    refused(st, 0, extra(1), "TARGET_ALREADY_CHOSEN")
    refused(st, 0, extra(3), "OUT_OF_RANGE")  # distance 3, Schofield 2
    refused(st, 0, extra(0), "TARGET_SELF")
    refused(st, 0, UPGRADE, "MISSING_TARGET")
    act(st, 0, extra(2))
    refused(st, 0, extra(2), "TARGET_ALREADY_CHOSEN")
    assert bang.legal_actions(st, 0) == [PASS, extra(4), extra(5)]


@pytest.mark.rule("AD-062")
def test_quick_shot_upgrade_is_not_offered_with_no_other_target_in_reach() -> None:
    st = ad_table(6)
    set_cubes(st, 0, "character", 2)
    equip(st, 5, ["mustang"])
    quick = give(st, 0, ["quick_shot"])[0]
    play(st, 0, quick, target=1)  # Colt: seat 1 only (seat 5 is at 2 with its Mustang)
    assert st["pending"] == [] and st["p"][1]["life"] == 3 and cubes_on(st, 0) == 2


# AD-056: Flintlock's upgrade after the cancel (RULINGS)

@pytest.mark.rule("AD-056")
def test_flintlock_cancelled_paid_two_back_in_hand_and_played_again() -> None:
    st = ad_table(4)
    set_cubes(st, 0, "character", 2)
    flint = give(st, 0, ["flintlock"])[0]
    missed, _ = give(st, 1, ["missed", "beer"])
    play(st, 0, flint, target=1)
    assert pending_kind(st) == "bang"  # nothing to decide as it is played
    act(st, 1, {"type": "respond", "card": missed})
    assert pending_kind(st) == "upgrade" and bang.to_act(st) == [0]
    assert bang.legal_actions(st, 0) == [PASS, UPGRADE]
    events = act(st, 0, UPGRADE)
    assert {"kind": "take", "seat": 0, "cards": [flint], "reason": "upgrade"} in events
    assert st["p"][0]["hand"] == [flint] and flint not in st["discard"] and cubes_on(st, 0) == 0
    assert st["pending"] == []
    play(st, 0, flint, target=3)
    assert st["p"][3]["life"] == 3 and st["discard"][-1] == flint


@pytest.mark.rule("AD-056")
def test_flintlock_upgrade_passed_leaves_it_in_the_discard_pile() -> None:
    st = ad_table(4)
    set_cubes(st, 0, "character", 2)
    flint = give(st, 0, ["flintlock"])[0]
    missed, _ = give(st, 1, ["missed", "beer"])
    play(st, 0, flint, target=1)
    act(st, 1, {"type": "respond", "card": missed})
    act(st, 0, PASS)
    assert st["pending"] == [] and flint in st["discard"] and cubes_on(st, 0) == 2
    assert st["p"][0]["hand"] == []
    refused(st, 0, UPGRADE, "WRONG_ANSWER")


@pytest.mark.rule("AD-056")
def test_flintlock_upgrade_is_not_offered_when_it_hits_or_with_one_cube() -> None:
    st = ad_table(4)
    set_cubes(st, 0, "character", 2)
    flint = give(st, 0, ["flintlock"])[0]
    give(st, 1, ["beer"])
    play(st, 0, flint, target=1)
    act(st, 1, PASS)
    assert st["pending"] == [] and st["p"][1]["life"] == 3 and cubes_on(st, 0) == 2
    set_cubes(st, 0, "character", 1)
    st["discard"].remove(flint)
    st["p"][0]["hand"].append(flint)
    missed = give(st, 1, ["missed"])[0]
    play(st, 0, flint, target=1)
    act(st, 1, {"type": "respond", "card": missed})
    assert st["pending"] == [] and flint in st["discard"]


@pytest.mark.rule("AD-056")
def test_flintlock_cancelled_by_a_barrel_is_offered_the_upgrade_too() -> None:
    st = ad_table(4)
    set_cubes(st, 0, "character", 2)
    flint = give(st, 0, ["flintlock"])[0]
    barrel = equip(st, 1, ["barrel"])[0]
    give(st, 1, ["beer"])
    stack_deck(st, ["any:Qh"])
    play(st, 0, flint, target=1)
    act(st, 1, {"type": "barrel", "card": barrel})
    assert pending_kind(st) == "upgrade" and bang.to_act(st) == [0]


# AD-063: Squaw

@pytest.mark.rule("AD-063")
def test_squaw_discards_a_card_in_play_at_any_distance() -> None:
    st = ad_table(6)
    mustang = equip(st, 3, ["mustang"])[0]
    squaw = give(st, 0, ["squaw"])[0]
    assert {"type": "play", "card": squaw, "target": 3, "pick": mustang} in bang.legal_actions(st, 0)
    play(st, 0, squaw, target=3, pick=mustang)
    assert st["pending"] == [] and st["p"][3]["table"] == [] and mustang in st["discard"]


@pytest.mark.rule("AD-063")
def test_squaw_upgrade_takes_the_card_into_the_hand() -> None:
    st = ad_table(6)
    mustang = equip(st, 3, ["mustang"])[0]
    set_cubes(st, 0, "character", 2)
    squaw = give(st, 0, ["squaw"])[0]
    play(st, 0, squaw, target=3, pick=mustang)
    assert bang.legal_actions(st, 0) == [PASS, UPGRADE]
    events = act(st, 0, UPGRADE)
    assert {"kind": "take", "seat": 0, "other": 3, "cards": [mustang], "reason": "table"} in events
    assert st["p"][0]["hand"] == [mustang] and st["p"][3]["table"] == [] and cubes_on(st, 0) == 0
    assert st["pending"] == []


@pytest.mark.rule("AD-063")
def test_squaw_upgrade_is_bought_once_and_not_offered_with_one_cube() -> None:
    st = ad_table(6)
    mustang = equip(st, 3, ["mustang"])[0]
    set_cubes(st, 0, "character", 4)
    squaw = give(st, 0, ["squaw"])[0]
    play(st, 0, squaw, target=3, pick=mustang)
    act(st, 0, UPGRADE)
    assert st["pending"] == [] and cubes_on(st, 0) == 2  # no second purchase asked
    st2 = ad_table(6)
    mustang = equip(st2, 3, ["mustang"])[0]
    set_cubes(st2, 0, "character", 1)
    play(st2, 0, give(st2, 0, ["squaw"])[0], target=3, pick=mustang)
    assert st2["pending"] == [] and mustang in st2["discard"]


@pytest.mark.rule("AD-063")
def test_squaw_upgrade_on_an_orange_card_takes_it_without_its_cubes() -> None:
    st = ad_table(4)
    set_cubes(st, 0, "character", 2)
    crate = orange(st, 2, "crate")
    squaw = give(st, 0, ["squaw"])[0]
    play(st, 0, squaw, target=2, pick=crate)
    act(st, 0, UPGRADE)
    assert st["p"][0]["hand"] == [crate] and st["p"][2]["table"] == []
    assert cubes_on(st, 2, crate) == 0 and st["supply"] == 32


@pytest.mark.rule("AD-063")
def test_squaw_cannot_pick_a_card_in_hand() -> None:
    st = ad_table(6)
    give(st, 3, ["beer"])
    equip(st, 3, ["mustang"])
    squaw = give(st, 0, ["squaw"])[0]
    refused(st, 0, {"type": "play", "card": squaw, "target": 3, "pick": "hand"}, "CARD_NOT_IN_PLAY")


# AD-065: Arrow

@pytest.mark.rule("AD-065")
def test_arrow_at_any_distance_answered_only_by_a_bang_card() -> None:
    st = ad_table(6)
    arrow = give(st, 0, ["arrow"])[0]
    gatling, flint = give(st, 3, ["gatling", "flintlock"])
    assert {"type": "play", "card": arrow, "target": 3} in bang.legal_actions(st, 0)
    play(st, 0, arrow, target=3)
    assert pending_kind(st) == "indians" and bang.legal_actions(st, 3) == [PASS]
    refused(st, 3, {"type": "respond", "card": gatling}, "WRONG_ANSWER")
    refused(st, 3, {"type": "respond", "card": flint}, "WRONG_ANSWER")
    act(st, 3, PASS)
    assert st["p"][3]["life"] == 3 and hand_keys(st, 3) == ["flintlock", "gatling"]


@pytest.mark.rule("AD-065")
def test_arrow_answered_with_a_bang_card() -> None:
    st = ad_table(6)
    arrow = give(st, 0, ["arrow"])[0]
    bang_card = give(st, 3, ["bang:4d"])[0]
    play(st, 0, arrow, target=3)
    assert bang.legal_actions(st, 3) == [PASS, {"type": "respond", "card": bang_card}]
    act(st, 3, {"type": "respond", "card": bang_card})
    assert st["pending"] == [] and st["p"][3]["life"] == 4 and bang_card in st["discard"]


@pytest.mark.rule("AD-065")
def test_arrow_upgrade_adds_different_targets_at_any_distance() -> None:
    st = ad_table(6)
    set_cubes(st, 0, "character", 2)
    arrow = give(st, 0, ["arrow"])[0]
    play(st, 0, arrow, target=3)
    assert bang.legal_actions(st, 0) == [PASS, extra(1), extra(2), extra(4), extra(5)]
    refused(st, 0, extra(3), "TARGET_ALREADY_CHOSEN")
    act(st, 0, extra(2))
    refused(st, 0, extra(2), "TARGET_ALREADY_CHOSEN")
    act(st, 0, PASS)
    assert st["pending"] == [] and [p["life"] for p in st["p"]] == [5, 4, 3, 3, 4, 4]
    assert cubes_on(st, 0) == 1


# AD-069: Duck!

@pytest.mark.rule("AD-069")
def test_duck_upgrade_takes_it_back_into_the_hand() -> None:
    st = ad_table(4)
    set_cubes(st, 1, "character", 2)
    duck, _ = give(st, 1, ["duck", "beer"])
    play(st, 0, give(st, 0, ["bang:4d"])[0], target=1)
    act(st, 1, {"type": "respond", "card": duck})
    assert pending_kind(st) == "upgrade" and bang.to_act(st) == [1]
    assert bang.legal_actions(st, 1) == [PASS, UPGRADE]
    events = act(st, 1, UPGRADE)
    assert {"kind": "take", "seat": 1, "cards": [duck], "reason": "upgrade"} in events
    assert st["pending"] == [] and duck in st["p"][1]["hand"] and st["p"][1]["life"] == 4
    assert cubes_on(st, 1) == 0 and st["supply"] == 32


@pytest.mark.rule("AD-069")
def test_duck_upgrade_passed_or_with_one_cube_leaves_it_discarded() -> None:
    st = ad_table(4)
    set_cubes(st, 1, "character", 2)
    duck, _ = give(st, 1, ["duck", "beer"])
    play(st, 0, give(st, 0, ["bang:4d"])[0], target=1)
    act(st, 1, {"type": "respond", "card": duck})
    act(st, 1, PASS)
    assert st["pending"] == [] and duck in st["discard"] and cubes_on(st, 1) == 2
    st2 = ad_table(4)
    set_cubes(st2, 1, "character", 1)
    duck, _ = give(st2, 1, ["duck", "beer"])
    play(st2, 0, give(st2, 0, ["bang:4d"])[0], target=1)
    act(st2, 1, {"type": "respond", "card": duck})
    assert st2["pending"] == [] and duck in st2["discard"] and st2["p"][1]["life"] == 4


@pytest.mark.rule("AD-069")
def test_duck_cannot_be_played_in_ones_own_turn() -> None:
    st = ad_table(4)
    duck = give(st, 0, ["duck"])[0]
    refused(st, 0, {"type": "play", "card": duck}, "CARD_NOT_PLAYABLE_NOW")


# The requests in every seat's view

@pytest.mark.rule("AD-024", "AD-062")
def test_the_upgrade_and_pay_cubes_requests_are_in_every_seats_view() -> None:
    st = ad_table(4)
    whip = orange(st, 0, "whip")
    equip(st, 0, ["schofield"])
    set_cubes(st, 0, "character", 1)
    quick = give(st, 0, ["quick_shot"])[0]
    play(st, 0, quick, target=1)
    act(st, 0, extra(3))
    for seat in (0, 1, 3, None):
        below, req = bang.view(st, seat).pending  # the upgrade waits below its payment
        assert below.kind == bang_pb2.BANG_REQUEST_KIND_UPGRADE and below.upgrades_bought == 1
        assert req.kind == bang_pb2.BANG_REQUEST_KIND_PAY_CUBES and req.seat == 0 and req.cubes_to_pay == 1
    act(st, 0, {"type": "choose", "pick": whip})
    for seat in (0, 1, 2, None):
        (req,) = bang.view(st, seat).pending
        assert req.kind == bang_pb2.BANG_REQUEST_KIND_UPGRADE and req.seat == 0 and req.source_seat == 0
        assert req.upgrades_bought == 1 and list(req.extra_targets) == [3] and req.source_card.id == quick
    assert table_keys(st, 0) == ["schofield", "whip"] and cubes_on(st, 0, whip) == 2


@pytest.mark.rule("AD-069", "AD-056")
def test_the_late_upgrade_request_is_in_every_seats_view() -> None:
    st = ad_table(4)
    set_cubes(st, 1, "character", 2)
    duck, _ = give(st, 1, ["duck", "beer"])
    play(st, 0, give(st, 0, ["bang:4d"])[0], target=1)
    act(st, 1, {"type": "respond", "card": duck})
    for seat in (0, 1, 2, None):
        (req,) = bang.view(st, seat).pending
        assert req.kind == bang_pb2.BANG_REQUEST_KIND_UPGRADE and req.seat == 1 and req.source_card.id == duck
        assert req.upgrades_bought == 0 and list(req.extra_targets) == []


@pytest.mark.rule("AD-062", "AD-067")
def test_quick_shot_extra_targets_are_in_reach_through_a_bell_tower_paid_for_it() -> None:
    st = ad_table(6)
    bell = orange(st, 0, "bell_tower")
    set_cubes(st, 0, "character", 1)
    quick = give(st, 0, ["quick_shot"])[0]
    act(st, 0, {"type": "use", "card": bell})
    play(st, 0, quick, target=3)  # distance 3, Colt: only the Bell Tower's distance 1
    assert bang.legal_actions(st, 0) == [PASS, extra(1), extra(2), extra(4), extra(5)]
    act(st, 0, extra(2))
    pay(st, 0, "character")
    act(st, 0, PASS)  # the Bell Tower's 2 cubes could buy a third target
    assert st["pending"] == [] and [p["life"] for p in st["p"]] == [5, 4, 3, 3, 4, 4]
    assert cubes_on(st, 0, bell) == 2 and "bell" not in st
