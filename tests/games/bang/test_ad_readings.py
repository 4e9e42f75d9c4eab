"""Issue 32: the two readings RULINGS settles for Armed & Dangerous, the default from rules version
``bang-ad-2``; games stored as ``bang-ad-1`` keep the first readings (tested here side by side).

- AD-009, AD-011: each recharge cube (a blue card played, a card forced out in phase 3) is the
  player's to place on a holder of his choice or to decline (``pass``, "you *may* add 1").
- AD-067: a green card used from play is no card played: a paid Bell Tower neither stretches it nor
  is spent by it, and stays for the next card played from the hand.
"""

from __future__ import annotations

from typing import Any

import pytest
from bang_helpers import (
    act,
    ad_table,
    chars,
    cubes_on,
    drain,
    equip,
    first_readings,
    give,
    orange,
    pending_kind,
    play,
    recharge,
    refusal,
    refused,
    set_cubes,
    stack_deck,
)

from tabletop_server.service.engine.rng import Rng
from tabletop_server.service.engine.ruleset import Action, State
from tabletop_server.service.games import bang
from tabletop_server.service.games.bang import versions
from tabletop_server.service.games.bang.bots import basic

pytestmark = pytest.mark.usefixtures("armed")

PASS: Action = {"type": "pass"}


def offered(st: State) -> dict[str, Any]:
    """The recharge request on top of the stack."""
    req = st["pending"][-1]
    assert req["kind"] == "place_cubes"
    return dict(req["args"])


# AD-009, AD-011: the recharge cube is the player's choice

@pytest.mark.rule("AD-009")
def test_new_armed_games_are_created_with_the_second_readings() -> None:
    st = bang.setup({"expansions": ["armed_and_dangerous"]}, 4, 7)
    assert st["v"] == versions.ARMED_RULES_VERSION == "bang-ad-3" and not versions.first_ad_readings(st)
    assert versions.first_ad_readings(first_readings(st))


@pytest.mark.rule("AD-009")
def test_a_blue_card_offers_its_cube_even_with_one_holder_and_declining_leaves_the_supply() -> None:
    st = ad_table(4)
    mustang = give(st, 0, ["mustang"])[0]
    events = play(st, 0, mustang)
    assert [e["kind"] for e in events] == ["equip"]  # nothing placed without asking
    assert st["pending"] == [{"kind": "place_cubes", "seat": 0, "source": 0,
                               "args": {"count": 1, "split": True, "reason": "recharge", "optional": True}}]
    assert bang.legal_actions(st, 0) == [{"type": "choose", "pick": "character"}, PASS]
    events = recharge(st, 0, None)
    assert events == [{"kind": "pass", "seat": 0, "reason": "recharge"}]
    assert st["supply"] == 32 and cubes_on(st, 0) == 0 and st["pending"] == []
    assert {"type": "end_turn"} in bang.legal_actions(st, 0)  # not offered again


@pytest.mark.rule("AD-009")
def test_a_declined_cube_is_not_offered_again_and_the_next_blue_card_offers_its_own() -> None:
    st = ad_table(4)
    mustang, barrel = give(st, 0, ["mustang", "barrel"])
    play(st, 0, mustang)
    recharge(st, 0, None)
    assert st["pending"] == [] and pending_kind(st) is None
    refused(st, 0, {"type": "choose", "pick": "character"}, "WRONG_ANSWER")  # nothing to place any more
    play(st, 0, barrel)
    assert offered(st)["count"] == 1  # one cube, for the Barrel only
    recharge(st, 0)
    assert cubes_on(st, 0) == 1 and st["supply"] == 31 and st["pending"] == []


@pytest.mark.rule("AD-009")
@pytest.mark.parametrize("holder", ["character", "whip", "thunderer", "bomb"])
def test_placing_a_recharge_cube_works_on_every_kind_of_holder(holder: str) -> None:
    st = ad_table(4)
    pick = holder if holder == "character" else orange(st, 0, holder, 2)
    before, supply = cubes_on(st, 0, pick), st["supply"]
    play(st, 0, give(st, 0, ["jail"])[0], target=2)  # a blue card onto another player earns it too
    assert offered(st)["reason"] == "recharge"
    events = recharge(st, 0, pick)
    assert events == [{"kind": "cubes", "seat": 0, "cards": [] if pick == "character" else [pick], "amount": 1,
                       "reason": "recharge"}]
    assert cubes_on(st, 0, pick) == before + 1 and st["supply"] == supply - 1 and st["pending"] == []


@pytest.mark.rule("AD-009", "AD-013")
def test_a_full_holder_is_not_offered_and_with_none_left_nothing_is_asked() -> None:
    st = ad_table(4)
    set_cubes(st, 0, "character", 4)
    whip = orange(st, 0, "whip", 3)
    play(st, 0, give(st, 0, ["mustang"])[0])
    assert bang.legal_actions(st, 0) == [{"type": "choose", "pick": whip}, PASS]
    refused(st, 0, {"type": "choose", "pick": "character"}, "NO_ROOM_FOR_CUBES")
    recharge(st, 0, whip)
    play(st, 0, give(st, 0, ["barrel"])[0])
    assert st["pending"] == [] and st["supply"] == 24  # every holder full: no question


@pytest.mark.rule("AD-011")
def test_each_phase_3_cube_is_placed_or_declined_one_by_one() -> None:
    st = ad_table(4)
    st["p"][0]["life"] = 2
    hand = give(st, 0, ["beer", "panic", "bang", "missed"])
    whip = orange(st, 0, "whip", 2)
    supply = st["supply"]
    act(st, 0, {"type": "end_turn"})
    act(st, 0, {"type": "discard", "card": hand[0]})
    assert st["pending"][-1] == {"kind": "place_cubes", "seat": 0, "source": 0,
                                 "args": {"count": 1, "split": True, "reason": "hand_limit", "optional": True}}
    assert bang.legal_actions(st, 0) == [{"type": "choose", "pick": "character"}, {"type": "choose", "pick": whip},
                                         PASS]
    assert recharge(st, 0, None) == [{"kind": "pass", "seat": 0, "reason": "hand_limit"}]
    assert pending_kind(st) == "discard" and st["supply"] == supply and st["turn"] == 0
    act(st, 0, {"type": "discard", "card": hand[1]})
    assert st["turn"] == 0 and offered(st)["reason"] == "hand_limit"  # the turn waits for the last cube
    recharge(st, 0, whip)
    assert cubes_on(st, 0, whip) == 3 and st["supply"] == supply - 1 and st["turn"] == 1


@pytest.mark.rule("AD-011")
def test_declining_the_last_phase_3_cube_ends_the_turn() -> None:
    st = ad_table(4)
    st["p"][0]["life"] = 3
    hand = give(st, 0, ["beer", "panic", "bang", "missed"])
    act(st, 0, {"type": "end_turn"})
    act(st, 0, {"type": "discard", "card": hand[0]})
    recharge(st, 0, None)
    assert st["turn"] == 1 and cubes_on(st, 0) == 0 and st["supply"] == 32


@pytest.mark.rule("AD-058", "AD-034")
def test_cubes_a_card_or_an_ability_puts_in_play_cannot_be_declined() -> None:
    st = ad_table(4)
    orange(st, 0, "whip", 1)
    play(st, 0, give(st, 0, ["reloading"])[0])
    assert "optional" not in offered(st) and PASS not in bang.legal_actions(st, 0)
    refused(st, 0, PASS, "WRONG_ANSWER")
    st = ad_table(4, chars=chars(4, s0="bass_greeves"))
    orange(st, 0, "whip", 1)
    act(st, 0, {"type": "ability", "cards": [give(st, 0, ["beer"])[0]]})
    refused(st, 0, PASS, "WRONG_ANSWER")


@pytest.mark.rule("AD-009", "AD-011")
def test_a_bang_ad_1_game_places_every_recharge_cube_as_before() -> None:
    st = first_readings(ad_table(4))
    events = play(st, 0, give(st, 0, ["mustang"])[0])
    assert events[-1] == {"kind": "cubes", "seat": 0, "cards": [], "amount": 1, "reason": "recharge"}
    assert st["pending"] == [] and st["supply"] == 31
    whip = orange(st, 0, "whip", 2)
    play(st, 0, give(st, 0, ["barrel"])[0])
    assert st["pending"] == [{"kind": "place_cubes", "seat": 0, "source": 0,  # stored as before: no "optional"
                               "args": {"count": 1, "split": True, "reason": "recharge"}}]
    assert bang.legal_actions(st, 0) == [{"type": "choose", "pick": "character"}, {"type": "choose", "pick": whip}]
    err = refusal(st, 0, PASS)  # refused as before "pass" was an answer to this request
    assert (err.reason, err.message, err.details) == ("WRONG_ANSWER", "Answer the pending place_cubes request",
                                                      {"request": "place_cubes"})


# AD-067: a green card used from play is not the Bell Tower's next card

def bell_and_derringer(first: bool = False) -> tuple[State, str, str, str]:
    """Seat 0 with a Bell Tower (3 cubes), a Derringer in play and a BANG! in hand; seats 1 and 3 at
    distance 1, seat 2 at distance 2."""
    st = ad_table(4, expansions=["dodge_city"])
    if first:
        first_readings(st)
    tower = orange(st, 0, "bell_tower", 3)
    derringer = equip(st, 0, ["derringer"])[0]
    give(st, 2, ["beer"])
    bang_card = give(st, 0, ["bang"])[0]
    return st, tower, derringer, bang_card


@pytest.mark.rule("AD-067")
def test_a_paid_bell_tower_does_not_stretch_a_derringer_used_from_play_and_stays_for_the_bang() -> None:
    st, tower, derringer, bang_card = bell_and_derringer()
    act(st, 0, {"type": "use", "card": tower})
    assert st["bell"] == 0 and cubes_on(st, 0, tower) == 2
    derringer_at_2: Action = {"type": "use", "card": derringer, "target": 2}
    assert derringer_at_2 not in bang.legal_actions(st, 0)
    refused(st, 0, derringer_at_2, "OUT_OF_RANGE")
    assert st["bell"] == 0  # the refusal changed nothing
    play(st, 0, bang_card, target=2)  # the Bell Tower applies to this card from the hand
    assert pending_kind(st) == "bang" and st["pending"][-1]["seat"] == 2


@pytest.mark.rule("AD-067")
def test_a_green_card_used_in_reach_does_not_spend_the_bell_tower() -> None:
    st, tower, derringer, bang_card = bell_and_derringer()
    act(st, 0, {"type": "use", "card": tower})
    stack_deck(st, ["beer"])  # the Derringer's card
    act(st, 0, {"type": "use", "card": derringer, "target": 1})  # seat 1 holds no card: hit at once
    assert st["p"][1]["life"] == 3 and derringer in st["discard"] and st["bell"] == 0
    play(st, 0, bang_card, target=2)
    assert pending_kind(st) == "bang" and st["pending"][-1]["seat"] == 2
    act(st, 2, PASS)
    assert "bell" not in st  # spent by the BANG! card, the next card played
    refused(st, 0, {"type": "play", "card": give(st, 0, ["bang"])[0], "target": 2}, "OUT_OF_RANGE")


@pytest.mark.rule("AD-067")
def test_a_bang_ad_1_game_stretches_the_derringer_and_spends_the_bell_tower_as_before() -> None:
    st, tower, derringer, bang_card = bell_and_derringer(first=True)
    act(st, 0, {"type": "use", "card": tower})
    assert {"type": "use", "card": derringer, "target": 2} in bang.legal_actions(st, 0)
    act(st, 0, {"type": "use", "card": derringer, "target": 2})
    act(st, 2, PASS)
    assert st["p"][2]["life"] == 3 and "bell" not in st
    refused(st, 0, {"type": "play", "card": bang_card, "target": 2}, "OUT_OF_RANGE")


# The basic bot's choice

def decide(st: State, seat: int) -> Action:
    return basic(bang.view(st, seat), bang.legal_actions(st, seat), Rng({"rng": 1}))


@pytest.mark.rule("AD-009")
def test_basic_declines_a_cube_only_its_character_can_hold_while_frankie_canton_plays() -> None:
    st = ad_table(4, chars=chars(4, s2="frankie_canton"))
    st["discard"].append(give(st, 1, ["rust"])[0])  # the one Rust is spent: only Frankie threatens
    st["p"][1]["hand"].clear()
    play(st, 0, give(st, 0, ["mustang"])[0])
    assert decide(st, 0) == PASS
    st = ad_table(4, chars=chars(4, s2="frankie_canton"))
    whip = orange(st, 0, "whip", 2)
    play(st, 0, give(st, 0, ["mustang"])[0])
    assert decide(st, 0)["type"] == "choose"  # an orange card can hold it: placed
    assert decide(st, 0)["pick"] in ("character", whip)


@pytest.mark.rule("AD-009")
def test_basic_declines_while_the_rust_is_still_to_come_and_places_when_it_is_spent() -> None:
    st = ad_table(4)
    play(st, 0, give(st, 0, ["mustang"])[0])
    assert decide(st, 0) == PASS  # the Rust is somewhere in the deck or a hand
    st = ad_table(4)
    st["discard"].append(give(st, 1, ["rust"])[0])
    st["p"][1]["hand"].clear()
    play(st, 0, give(st, 0, ["mustang"])[0])
    assert decide(st, 0) == {"type": "choose", "pick": "character"}
    st = ad_table(4)
    give(st, 0, ["rust"])  # the bot holds it: no one can play it on him
    play(st, 0, give(st, 0, ["mustang"])[0])
    assert decide(st, 0) == {"type": "choose", "pick": "character"}


@pytest.mark.rule("AD-011")
def test_basic_declines_when_the_supply_is_nearly_out() -> None:
    st = ad_table(4)
    whip = orange(st, 0, "whip", 1)  # an orange card has room: no foe could take the cube there
    drain(st, 4)
    play(st, 0, give(st, 0, ["mustang"])[0])
    assert decide(st, 0)["type"] == "choose"  # 4 left: placing leaves 3, enough for an orange card
    recharge(st, 0, whip)
    play(st, 0, give(st, 0, ["barrel"])[0])
    assert st["supply"] == 3 and decide(st, 0) == PASS  # placing would leave fewer than an orange card needs
