"""Armed & Dangerous characters triggered by another player's card: Al Preacher (out of his
turn) and Bloody Mary (AD-031..033, 035), and the general character rules: life points (AD-029) and
an eliminated player's cubes (AD-030)."""

from __future__ import annotations

import pytest
from bang_helpers import (
    act,
    ad_table,
    chars,
    cubes_on,
    duel_kill,
    equip,
    give,
    hand_keys,
    kinds,
    orange,
    pass_all,
    pending_kind,
    play,
    recharge,
    refused,
    set_cubes,
    stack_deck,
)
from tabletop.v1 import bang_pb2

from tabletop_server.service.engine.ruleset import Action, Event, State
from tabletop_server.service.games import bang
from tabletop_server.service.games.bang import cubes
from tabletop_server.service.games.bang.tables import CHARACTERS

pytestmark = pytest.mark.usefixtures("armed")


ABILITY: Action = {"type": "ability", "cards": []}
PASS: Action = {"type": "pass"}


def drawn(events: list[Event], seat: int) -> int:
    return sum(e["count"] for e in events if e["kind"] == "draw" and e["seat"] == seat)


# Al Preacher (AD-031..033)

def preacher(cubes_on_al: int = 2) -> State:
    """Al Preacher at seat 1 with ``cubes_on_al`` cubes on his character; seat 0's turn."""
    st = ad_table(4, chars=chars(4, s1="al_preacher"))
    set_cubes(st, 1, "character", cubes_on_al)
    return st


@pytest.mark.rule("AD-031")
def test_al_preacher_pays_two_cubes_for_a_card_when_another_player_plays_a_blue_card() -> None:
    st = preacher()
    mustang = give(st, 0, ["mustang"])[0]
    stack_deck(st, ["beer"])
    play(st, 0, mustang)
    assert pending_kind(st) == "preacher" and st["pending"][-1]["seat"] == 1
    assert st["pending"][-1]["source"] == 0
    assert bang.legal_actions(st, 1) == [ABILITY, PASS] and bang.legal_actions(st, 0) == []
    events = act(st, 1, ABILITY)  # one holder: both cubes paid without asking
    assert [(e["seat"], e["amount"], e["reason"]) for e in events if e["kind"] == "cubes"] == [
        (1, -1, "al_preacher"), (1, -1, "al_preacher")]
    assert drawn(events, 1) == 1 and hand_keys(st, 1) == ["beer"]
    assert [e.get("reason") for e in events if e["kind"] == "draw"] == ["al_preacher"]  # his card, named so
    events = recharge(st, 0)  # then the player's own recharge cube, his to place (AD-009)
    assert [(e["seat"], e["amount"], e["reason"]) for e in events if e["kind"] == "cubes"] == [(0, 1, "recharge")]
    assert (cubes_on(st, 1), cubes_on(st, 0), st["supply"], st["pending"]) == (0, 1, 31, [])
    assert (st["turn"], st["phase"]) == (0, "play")


@pytest.mark.rule("AD-028", "AD-031")
def test_al_preacher_pays_from_his_orange_cards_too() -> None:
    st = preacher(1)
    whip = orange(st, 1, "whip", 1)
    crate = give(st, 0, ["crate"])[0]
    play(st, 0, crate)  # an orange card: he is asked too
    assert pending_kind(st) == "preacher"
    events = act(st, 1, ABILITY)
    assert drawn(events, 1) == 1 and cubes_on(st, 1) == 0 and whip in st["discard"]
    assert (st["supply"], cubes_on(st, 0, crate), cubes_on(st, 0), st["pending"]) == (29, 3, 0, [])


@pytest.mark.rule("AD-031")
def test_al_preacher_asked_only_with_two_cubes() -> None:
    st = preacher(1)
    play(st, 0, give(st, 0, ["mustang"])[0])
    recharge(st, 0)
    assert st["pending"] == [] and cubes_on(st, 1) == 1 and st["p"][1]["hand"] == []
    refused(st, 1, ABILITY, "NOT_YOUR_TURN")


@pytest.mark.rule("AD-031")
def test_al_preacher_not_for_brown_cards_nor_his_own() -> None:
    st = preacher()
    play(st, 0, give(st, 0, ["stagecoach"])[0])
    assert st["pending"] == []
    st = preacher()
    st["turn"] = 1
    play(st, 1, give(st, 1, ["mustang"])[0])
    recharge(st, 1)
    assert st["pending"] == [] and cubes_on(st, 1) == 3  # his own blue card: only its recharge cube


@pytest.mark.rule("AD-031")
def test_al_preacher_not_for_a_green_card() -> None:
    st = ad_table(4, chars=chars(4, s1="al_preacher"), expansions=["dodge_city"])
    set_cubes(st, 1, "character", 2)
    play(st, 0, give(st, 0, ["canteen"])[0])
    assert st["pending"] == [] and st["p"][1]["hand"] == []


@pytest.mark.rule("AD-031")
def test_al_preacher_passes_and_keeps_his_cubes() -> None:
    st = preacher()
    play(st, 0, give(st, 0, ["barrel"])[0])
    events = act(st, 1, PASS)
    recharge(st, 0, None)
    assert drawn(events, 1) == 0 and cubes_on(st, 1) == 2 and st["pending"] == []
    play(st, 0, give(st, 0, ["jail"])[0], target=2)  # a blue card in front of someone else: asked again
    assert (pending_kind(st), st["pending"][-1]["seat"]) == ("preacher", 1)


@pytest.mark.rule("AD-032")
def test_al_preacher_draws_one_card_per_card_played_whatever_he_holds() -> None:
    st = preacher(4)
    whip = orange(st, 1, "whip", 3)
    play(st, 0, give(st, 0, ["barrel"])[0])
    act(st, 1, ABILITY)
    assert pending_kind(st) == "pay_cubes" and st["pending"][-1]["args"]["cubes"] == 2
    act(st, 1, {"type": "choose", "pick": "character"})
    events = act(st, 1, {"type": "choose", "pick": whip})
    assert drawn(events, 1) == 1 and len(st["p"][1]["hand"]) == 1
    recharge(st, 0)
    assert (cubes_on(st, 1), cubes_on(st, 1, whip), st["pending"]) == (3, 2, [])
    refused(st, 1, ABILITY, "NOT_YOUR_TURN")  # no second card for the same Barrel
    assert len(st["p"][1]["hand"]) == 1


@pytest.mark.rule("AD-033")
def test_al_preacher_window_closes_before_the_next_card() -> None:
    st = preacher()
    mustang, stage = give(st, 0, ["mustang", "stagecoach"])
    play(st, 0, mustang)
    assert bang.legal_actions(st, 0) == []  # nothing else is played while he may answer
    refused(st, 0, {"type": "play", "card": stage}, "NOT_YOUR_DECISION")
    act(st, 1, PASS)
    recharge(st, 0)
    play(st, 0, stage)
    refused(st, 1, ABILITY, "NOT_YOUR_TURN")
    assert cubes_on(st, 1) == 2 and st["p"][1]["hand"] == []


@pytest.mark.rule("AD-031")
def test_the_al_preacher_request_is_shown_to_every_seat() -> None:
    st = preacher()
    mustang = give(st, 0, ["mustang"])[0]
    play(st, 0, mustang)
    for viewer in (0, 1, 2, 3, None):
        shown = bang.view(st, viewer).pending[-1]
        assert (shown.kind, shown.seat, shown.source_seat, shown.source_card.id) == (
            bang_pb2.BANG_REQUEST_KIND_DRAW_FOR_CUBES, 1, 0, mustang)


# Bloody Mary (AD-035)

def mary() -> State:
    """Bloody Mary at seat 0, in her turn; seat 1 (distance 1) holds a Beer, so he is asked."""
    st = ad_table(4, chars=chars(4, s0="bloody_mary"))
    give(st, 1, ["beer"])
    return st


@pytest.mark.rule("AD-035")
def test_bloody_mary_draws_when_her_bang_card_is_missed() -> None:
    st = mary()
    missed = give(st, 1, ["missed"])[0]
    stack_deck(st, ["stagecoach"])
    play(st, 0, give(st, 0, ["bang"])[0], target=1)
    events = act(st, 1, {"type": "respond", "card": missed})
    assert drawn(events, 0) == 1 and hand_keys(st, 0) == ["stagecoach"]
    assert [e["reason"] for e in events if e["kind"] == "draw"] == ["bloody_mary"]
    assert st["p"][1]["life"] == 4 and st["pending"] == []


@pytest.mark.rule("AD-035")
def test_bloody_mary_draws_when_her_bang_card_meets_a_barrel() -> None:
    st = mary()
    barrel = equip(st, 1, ["barrel"])[0]
    stack_deck(st, ["any:4h", "stagecoach"])  # the Barrel's draw!, then her card
    play(st, 0, give(st, 0, ["bang"])[0], target=1)
    events = act(st, 1, {"type": "barrel", "card": barrel})
    assert drawn(events, 0) == 1 and hand_keys(st, 0) == ["stagecoach"] and st["p"][1]["life"] == 4


@pytest.mark.rule("AD-035")
def test_bloody_mary_draws_nothing_for_a_hit() -> None:
    st = mary()
    play(st, 0, give(st, 0, ["bang"])[0], target=1)
    events = act(st, 1, PASS)
    assert drawn(events, 0) == 0 and st["p"][0]["hand"] == [] and st["p"][1]["life"] == 3


@pytest.mark.rule("AD-035")
def test_bloody_mary_draws_nothing_when_a_card_that_is_not_a_bang_is_cancelled() -> None:
    st = mary()
    missed = give(st, 1, ["missed", "missed"])
    play(st, 0, give(st, 0, ["quick_shot"])[0], target=1)  # a BANG! effect, not a BANG! card
    assert pending_kind(st) == "bang"
    events = act(st, 1, {"type": "respond", "card": missed[0]})
    assert drawn(events, 0) == 0 and st["p"][0]["hand"] == []
    play(st, 0, give(st, 0, ["gatling"])[0])
    events = act(st, 1, {"type": "respond", "card": missed[1]})
    events += pass_all(st)
    assert drawn(events, 0) == 0 and st["p"][0]["hand"] == [] and st["p"][1]["life"] == 4


@pytest.mark.rule("AD-035", "AD-039")
def test_bloody_mary_draws_nothing_when_ms_abigail_ignores_her_bang() -> None:
    """Ignoring the card is not cancelling its BANG! effect (no Missed! effect, no Barrel)."""
    st = ad_table(4, chars=chars(4, s0="bloody_mary", s1="ms_abigail"))
    give(st, 1, ["beer"])
    play(st, 0, give(st, 0, ["bang:Kd"])[0], target=1)
    events = act(st, 1, ABILITY)
    assert kinds(events) == ["unaffected"] and st["p"][0]["hand"] == []


@pytest.mark.rule("AD-035")
def test_bloody_mary_draws_when_a_crate_cancels_her_bang_card() -> None:
    st = mary()
    crate = orange(st, 1, "crate", 2)
    stack_deck(st, ["stagecoach"])
    play(st, 0, give(st, 0, ["bang"])[0], target=1)
    events = act(st, 1, {"type": "use", "card": crate})
    assert drawn(events, 0) == 1 and hand_keys(st, 0) == ["stagecoach"] and st["p"][1]["life"] == 4


# Life points (AD-029) and cubes of the eliminated (AD-030)

AD_CHARACTERS = ("al_preacher", "bass_greeves", "bloody_mary", "frankie_canton", "julie_cutter",
                 "mexicali_kid", "ms_abigail", "red_ringo")


@pytest.mark.rule("AD-029")
def test_armed_and_dangerous_life_points_through_the_real_setup() -> None:
    """The first seeds that deal each character, as the Sheriff and not: 4 life (Red Ringo 5), +1 for the Sheriff."""
    assert {k: CHARACTERS[k].life for k in AD_CHARACTERS} == {**{k: 4 for k in AD_CHARACTERS}, "red_ringo": 5}
    seen: set[tuple[str, bool]] = set()
    for seed in range(1, 400):
        st = bang.setup({"expansions": ["armed_and_dangerous"]}, 4, seed)
        for p in st["p"]:
            if p["char"] in AD_CHARACTERS:
                sheriff = p["role"] == "sheriff"
                seen.add((p["char"], sheriff))
                life = (5 if p["char"] == "red_ringo" else 4) + sheriff
                assert (p["life"], p["max"]) == (life, life), (seed, p["char"])
        if len(seen) == 2 * len(AD_CHARACTERS):
            break
    assert len(seen) == 2 * len(AD_CHARACTERS)


@pytest.mark.rule("AD-030")
def test_an_eliminated_players_character_cubes_go_back_to_the_supply() -> None:
    st = ad_table(4, chars=chars(4, s2="bass_greeves"))
    set_cubes(st, 2, "character", 2)
    crate = orange(st, 2, "crate", 3)
    assert st["supply"] == 27
    events = duel_kill(st, 0, 2)
    assert not st["p"][2]["alive"] and "cubes" not in st["p"][2] and crate in st["discard"]
    assert {"kind": "cubes", "seat": 2, "cards": [], "amount": -2, "reason": "eliminated"} in events
    assert st["supply"] == 32 and cubes.total(st) == 32


@pytest.mark.rule("AD-030")
def test_vulture_sam_takes_the_cards_but_not_the_cubes() -> None:
    st = ad_table(4, chars=chars(4, s2="ms_abigail", s3="vulture_sam"))
    set_cubes(st, 2, "character", 3)
    set_cubes(st, 3, "character", 1)
    crate = orange(st, 2, "crate", 2)
    duel_kill(st, 0, 2)
    assert crate in st["p"][3]["hand"] and crate not in st.get("marks", {})
    assert (cubes_on(st, 3), "cubes" not in st["p"][2], st["supply"]) == (1, True, 31)


@pytest.mark.rule("AD-030")
def test_the_sheriff_who_kills_his_deputy_loses_his_character_cubes() -> None:
    st = ad_table(4, chars=chars(4, s0="red_ringo", s1="julie_cutter"),
                  roles=["sheriff", "deputy", "outlaw", "renegade"])
    set_cubes(st, 0, "character", 4)
    set_cubes(st, 1, "character", 1)
    whip = orange(st, 0, "whip", 2)
    kept = give(st, 0, ["beer"])[0]
    events = duel_kill(st, 0, 1)
    assert {"kind": "cubes", "seat": 0, "cards": [], "amount": -4, "reason": "penalty"} in events
    assert "cubes" not in st["p"][0] and "cubes" not in st["p"][1]
    assert st["p"][0]["hand"] == [] and st["p"][0]["table"] == [] and {kept, whip} <= set(st["discard"])
    assert st["supply"] == 32
