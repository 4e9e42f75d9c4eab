"""Armed & Dangerous' cube economy: the deck and the 32-cube supply, where cubes are kept, the recharges
(a blue card, the phase-3 discards), the 4-cube limit, the supply running short, Reloading and Rust
(AD-001..003, 009..014, 058, 060), and cube conservation over random games."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from bang_helpers import (
    act,
    ad_table,
    cubes_on,
    drain,
    equip,
    first_readings,
    give,
    kinds,
    orange,
    pending_kind,
    play,
    refused,
    set_cubes,
    stack_deck,
)
from hypothesis import strategies as hs

from tabletop_server.service.engine.ruleset import State
from tabletop_server.service.games import bang
from tabletop_server.service.games.bang import cubes
from tabletop_server.service.games.bang.state import all_cards
from tabletop_server.service.games.bang.tables import TYPE_OF, deck_and_characters
from tests.volume import run_examples, volumes

pytestmark = pytest.mark.usefixtures("armed")

AD = ["armed_and_dangerous"]


def recharge_seat(st: State) -> int | None:
    """The seat asked where a cube goes, if any."""
    return st["pending"][-1]["seat"] if pending_kind(st) == "place_cubes" else None


# The components (AD-001)


@pytest.mark.rule("AD-001")
def test_the_deck_gains_28_cards_13_of_them_orange() -> None:
    deck, pool = deck_and_characters(AD)
    base_deck, base_pool = deck_and_characters([])
    new = [c for c in deck if c not in base_deck]
    assert len(deck) == 108 and len(base_deck) == 80 and len(new) == 28 and set(base_deck) <= set(deck)
    oranges = [c for c in deck if TYPE_OF[c].color == "orange"]
    assert len(oranges) == 13 and set(oranges) <= set(new)
    assert sum(1 for c in oranges if TYPE_OF[c].weapon_range) == 4  # 9 objects + 4 weapons
    assert Counter(TYPE_OF[c].key for c in new if TYPE_OF[c].key in ("bang", "cat_balou", "missed")) == \
        {"bang": 4, "cat_balou": 1, "missed": 1}  # the 6 base reprints
    assert sum(1 for c in new if TYPE_OF[c].color == "brown" and TYPE_OF[c].key not in
               ("bang", "cat_balou", "missed")) == 9  # the 9 new brown cards
    assert len(pool) == 24 and len(base_pool) == 16


def _dealt(ringo: bool) -> State:
    """A real A&D deal (bang.setup) with or without Red Ringo, found by seed."""
    for seed in range(1, 500):
        state = bang.setup({"expansions": AD}, 4, seed)
        if any(p["char"] == "red_ringo" for p in state["p"]) == ringo:
            return state
    raise AssertionError("no such seed")


@pytest.mark.rule("AD-001", "AD-002")
def test_the_supply_starts_with_32_cubes_and_no_one_holds_any() -> None:
    state = _dealt(ringo=False)
    assert state["supply"] == 32 and cubes.total(state) == 32
    assert all("cubes" not in p for p in state["p"]) and not state.get("marks")
    assert len(all_cards(state)) == 108


@pytest.mark.rule("AD-001", "AD-040")
def test_with_red_ringo_dealt_the_supply_starts_with_28() -> None:
    state = _dealt(ringo=True)
    ringo = next(s for s, p in enumerate(state["p"]) if p["char"] == "red_ringo")
    assert state["supply"] == 28 and cubes.total(state) == 32
    assert [cubes_on(state, s) for s in range(4)] == [4 if s == ringo else 0 for s in range(4)]


@pytest.mark.rule("AD-001")
def test_a_game_without_the_expansion_has_no_supply() -> None:
    state = bang.setup({}, 4, 1)
    assert "supply" not in state and not cubes.armed(state)


# Where cubes are kept (AD-003)


@pytest.mark.rule("AD-003", "AD-009")
def test_a_recharge_cube_goes_on_the_character_or_one_of_his_orange_cards_only() -> None:
    st = first_readings(ad_table(4))  # bang-ad-1: the recharge cube is always placed
    whip = orange(st, 0, "whip", 3)
    crate = orange(st, 0, "crate", 2)
    equip(st, 0, ["scope"])  # a blue card in play holds no cubes
    orange(st, 1, "bell_tower", 1)  # nor another player's orange card
    mustang = give(st, 0, ["mustang"])[0]
    play(st, 0, mustang)
    assert recharge_seat(st) == 0
    assert bang.legal_actions(st, 0) == [{"type": "choose", "pick": "character"},
                                         {"type": "choose", "pick": whip}, {"type": "choose", "pick": crate}]
    before = st["supply"]
    events = act(st, 0, {"type": "choose", "pick": crate})
    assert events == [{"kind": "cubes", "seat": 0, "cards": [crate], "amount": 1, "reason": "recharge"}]
    assert cubes_on(st, 0, crate) == 3 and st["supply"] == before - 1 and st["pending"] == []


@pytest.mark.rule("AD-003")
def test_a_cube_cannot_be_placed_on_a_blue_card_or_someone_elses_card() -> None:
    st = ad_table(4)
    whip = orange(st, 0, "whip", 3)
    scope = equip(st, 0, ["scope"])[0]
    tower = orange(st, 1, "bell_tower", 1)
    play(st, 0, give(st, 0, ["mustang"])[0])
    refused(st, 0, {"type": "choose", "pick": scope}, "NO_ROOM_FOR_CUBES")
    refused(st, 0, {"type": "choose", "pick": tower}, "NO_ROOM_FOR_CUBES")
    assert {"type": "choose", "pick": whip} in bang.legal_actions(st, 0)


@pytest.mark.rule("AD-022", "AD-003")
def test_an_upgrade_is_paid_cube_by_cube_from_holders_that_have_one() -> None:
    st = ad_table(4)
    whip = orange(st, 0, "whip", 2)
    crate = orange(st, 0, "crate", 1)
    orange(st, 1, "bell_tower", 3)  # another player's cubes never pay
    caravan = give(st, 0, ["caravan"])[0]
    play(st, 0, caravan)
    act(st, 0, {"type": "upgrade"})
    assert pending_kind(st) == "pay_cubes"
    assert bang.legal_actions(st, 0) == [{"type": "choose", "pick": whip}, {"type": "choose", "pick": crate}]
    refused(st, 0, {"type": "choose", "pick": "character"}, "NOT_A_CUBE_HOLDER")
    events = act(st, 0, {"type": "choose", "pick": crate})
    # one holder left: the second cube is taken from it without asking, and Caravan draws 3
    assert events[:3] == [{"kind": "cubes", "seat": 0, "cards": [crate], "amount": -1, "reason": "upgrade"},
                          {"kind": "discard", "seat": 0, "cards": [crate], "reason": "no_cubes"},
                          {"kind": "cubes", "seat": 0, "cards": [whip], "amount": -1, "reason": "upgrade"}]
    assert st["pending"] == [] and cubes_on(st, 0, whip) == 1 and len(st["p"][0]["hand"]) == 3
    assert st["supply"] == 32 - 1 - 3 and cubes.total(st) == 32


# Gaining cubes: a blue card played (AD-009, 010)


@pytest.mark.rule("AD-009")
def test_playing_a_blue_card_earns_one_cube_on_the_only_holder() -> None:
    st = first_readings(ad_table(4))  # bang-ad-1: the recharge cube is always placed
    mustang = give(st, 0, ["mustang"])[0]
    events = play(st, 0, mustang)
    assert kinds(events) == ["equip", "cubes"]
    assert events[1] == {"kind": "cubes", "seat": 0, "cards": [], "amount": 1, "reason": "recharge"}
    assert cubes_on(st, 0) == 1 and st["supply"] == 31 and st["pending"] == []


@pytest.mark.rule("AD-009")
def test_jail_played_on_another_player_earns_its_player_a_cube() -> None:
    st = first_readings(ad_table(4))  # bang-ad-1: the recharge cube is always placed
    jail = give(st, 0, ["jail"])[0]
    play(st, 0, jail, target=2)
    assert st["p"][2]["table"] == [jail]
    assert cubes_on(st, 0) == 1 and cubes_on(st, 2) == 0 and st["supply"] == 31


@pytest.mark.rule("AD-009")
def test_dynamite_passed_on_earns_its_new_holder_no_cube() -> None:
    st = ad_table(4)
    dynamite = equip(st, 1, ["dynamite"])[0]
    stack_deck(st, ["any:Kh", "any:2c", "any:3c"])
    act(st, 0, {"type": "end_turn"})
    assert st["p"][2]["table"] == [dynamite] and st["turn"] == 1 and st["phase"] == "play"
    assert [cubes_on(st, s) for s in range(4)] == [0, 0, 0, 0] and st["supply"] == 32
    assert st["pending"] == []


@pytest.mark.rule("AD-009")
def test_a_green_card_earns_no_cube() -> None:
    st = ad_table(4, expansions=["dodge_city"])
    play(st, 0, give(st, 0, ["knife"])[0])
    assert st["pending"] == [] and st["supply"] == 32 and cubes_on(st, 0) == 0


@pytest.mark.rule("AD-010")
def test_playing_an_orange_card_earns_no_recharge_cube() -> None:
    """RULINGS AD-010: an orange card arrives with its 3 cubes and nothing more."""
    st = ad_table(4)
    crate = orange(st, 0, "crate", 1)  # a holder with room, so a recharge would be asked
    whip = give(st, 0, ["whip"])[0]
    events = play(st, 0, whip)
    assert kinds(events) == ["equip", "cubes"] and events[1]["reason"] == "loaded"
    assert st["pending"] == [] and cubes_on(st, 0) == 0 and cubes_on(st, 0, crate) == 1
    assert st["supply"] == 32 - 1 - 3


# Gaining cubes: the phase-3 discards (AD-011, 012)


@pytest.mark.rule("AD-011")
def test_each_forced_phase_3_discard_earns_a_cube() -> None:
    st = first_readings(ad_table(4))  # bang-ad-1: the recharge cube is always placed
    st["p"][0]["life"] = 2
    hand = give(st, 0, ["beer", "panic", "bang", "missed"])
    whip = orange(st, 0, "whip", 3)
    act(st, 0, {"type": "end_turn"})
    assert pending_kind(st) == "discard"
    events = act(st, 0, {"type": "discard", "card": hand[0]})
    assert events == [{"kind": "discard", "seat": 0, "cards": [hand[0]], "reason": "hand_limit"}]
    assert recharge_seat(st) == 0
    assert bang.legal_actions(st, 0) == [{"type": "choose", "pick": "character"}, {"type": "choose", "pick": whip}]
    act(st, 0, {"type": "choose", "pick": whip})
    assert cubes_on(st, 0, whip) == 4 and pending_kind(st) == "discard" and st["turn"] == 0
    events = act(st, 0, {"type": "discard", "card": hand[1]})
    # the Whip is full: the second cube goes on the character without asking, and the turn passes
    assert events[:3] == [{"kind": "discard", "seat": 0, "cards": [hand[1]], "reason": "hand_limit"},
                          {"kind": "cubes", "seat": 0, "cards": [], "amount": 1, "reason": "hand_limit"},
                          {"kind": "turn", "seat": 1, "count": 2}]
    assert cubes_on(st, 0) == 1 and st["supply"] == 32 - 4 - 1 and st["turn"] == 1
    assert st["p"][0]["hand"] == hand[2:]


@pytest.mark.rule("AD-011")
def test_a_turn_ending_within_the_hand_limit_earns_nothing() -> None:
    st = ad_table(4)
    give(st, 0, ["beer", "panic"])
    act(st, 0, {"type": "end_turn"})
    assert st["turn"] == 1 and cubes_on(st, 0) == 0 and st["supply"] == 32


@pytest.mark.rule("AD-012")
def test_no_voluntary_phase_3_discard_for_cubes() -> None:
    st = ad_table(4)
    st["p"][0]["life"] = 3
    hand = give(st, 0, ["beer", "panic", "bang"])
    refused(st, 0, {"type": "discard", "card": hand[0]}, "WRONG_ANSWER")
    assert {"type": "end_turn"} in bang.legal_actions(st, 0)
    act(st, 0, {"type": "end_turn"})
    assert st["turn"] == 1 and st["p"][0]["hand"] == hand and cubes_on(st, 0) == 0 and st["supply"] == 32


@pytest.mark.rule("AD-012", "AD-011")
def test_phase_3_stops_at_the_limit_with_one_cube_per_card_over_it() -> None:
    st = first_readings(ad_table(4))  # bang-ad-1: the recharge cube is always placed
    st["p"][0]["life"] = 3
    hand = give(st, 0, ["beer", "panic", "bang", "missed"])
    act(st, 0, {"type": "end_turn"})
    act(st, 0, {"type": "discard", "card": hand[0]})
    assert st["turn"] == 1 and cubes_on(st, 0) == 1 and st["supply"] == 31


@pytest.mark.rule("AD-011")
def test_the_turn_waits_for_the_last_phase_3_cube_to_be_placed() -> None:
    st = ad_table(4)
    st["p"][0]["life"] = 2
    hand = give(st, 0, ["beer", "panic", "bang"])
    crate = orange(st, 0, "crate", 1)
    act(st, 0, {"type": "end_turn"})
    act(st, 0, {"type": "discard", "card": hand[0]})
    assert recharge_seat(st) == 0 and st["turn"] == 0
    refused(st, 1, {"type": "end_turn"}, "NOT_YOUR_DECISION")
    events = act(st, 0, {"type": "choose", "pick": crate})
    assert events[0] == {"kind": "cubes", "seat": 0, "cards": [crate], "amount": 1, "reason": "hand_limit"}
    assert st["turn"] == 1 and cubes_on(st, 0, crate) == 2 and cubes_on(st, 0) == 0


@pytest.mark.rule("AD-011", "AD-013")
def test_phase_3_discards_with_an_empty_supply_earn_nothing() -> None:
    st = ad_table(4)
    drain(st, 0)
    st["p"][0]["life"] = 2
    hand = give(st, 0, ["beer", "panic", "bang"])
    act(st, 0, {"type": "end_turn"})
    act(st, 0, {"type": "discard", "card": hand[0]})
    assert st["turn"] == 1 and cubes_on(st, 0) == 0 and st["supply"] == 0


# The 4-cube limit and the supply running short (AD-013, 014)


@pytest.mark.rule("AD-013")
def test_a_full_character_is_not_offered_and_the_cube_goes_to_the_card_with_room() -> None:
    st = first_readings(ad_table(4))  # bang-ad-1: the recharge cube is always placed
    set_cubes(st, 0, "character", 4)
    whip = orange(st, 0, "whip", 3)
    crate = orange(st, 0, "crate", 3)
    play(st, 0, give(st, 0, ["mustang"])[0])
    assert bang.legal_actions(st, 0) == [{"type": "choose", "pick": whip}, {"type": "choose", "pick": crate}]
    refused(st, 0, {"type": "choose", "pick": "character"}, "NO_ROOM_FOR_CUBES")


@pytest.mark.rule("AD-013")
def test_with_every_holder_full_a_recharge_does_nothing() -> None:
    st = first_readings(ad_table(4))  # bang-ad-1: the recharge cube is always placed
    set_cubes(st, 0, "character", 4)
    whip = orange(st, 0, "whip", 3)
    play(st, 0, give(st, 0, ["mustang"])[0])  # the only holder with room: no question
    assert cubes_on(st, 0, whip) == 4 and st["pending"] == [] and st["supply"] == 24
    events = play(st, 0, give(st, 0, ["barrel"])[0])
    assert kinds(events) == ["equip"] and st["pending"] == []
    assert cubes_on(st, 0) == 4 and cubes_on(st, 0, whip) == 4 and st["supply"] == 24


@pytest.mark.rule("AD-013", "AD-002")
def test_an_empty_supply_gives_no_recharge_cube() -> None:
    st = ad_table(4)
    drain(st, 0)
    events = play(st, 0, give(st, 0, ["mustang"])[0])
    assert kinds(events) == ["equip"] and st["pending"] == [] and cubes_on(st, 0) == 0 and st["supply"] == 0


@pytest.mark.rule("AD-014")
def test_an_orange_card_cannot_be_played_with_two_cubes_in_the_supply() -> None:
    st = ad_table(4)
    drain(st, 2)
    thunderer = give(st, 0, ["thunderer"])[0]
    assert {"type": "play", "card": thunderer} not in bang.legal_actions(st, 0)
    refused(st, 0, {"type": "play", "card": thunderer}, "CUBE_SUPPLY_SHORT")


@pytest.mark.rule("AD-014")
def test_an_orange_card_can_be_played_with_exactly_three_cubes_in_the_supply() -> None:
    st = ad_table(4)
    drain(st, 3)
    thunderer = give(st, 0, ["thunderer"])[0]
    play(st, 0, thunderer)
    assert st["p"][0]["table"] == [thunderer] and cubes_on(st, 0, thunderer) == 3 and st["supply"] == 0


@pytest.mark.rule("AD-014", "AD-006")
def test_the_bomb_also_needs_three_cubes_in_the_supply() -> None:
    st = ad_table(4)
    drain(st, 2)
    bomb = give(st, 0, ["bomb"])[0]
    refused(st, 0, {"type": "play", "card": bomb, "target": 2}, "CUBE_SUPPLY_SHORT")


# Reloading (AD-058)


@pytest.mark.rule("AD-058")
def test_reloading_spreads_three_cubes_one_by_one() -> None:
    st = ad_table(4)
    set_cubes(st, 0, "character", 3)
    whip = orange(st, 0, "whip", 2)
    play(st, 0, give(st, 0, ["reloading"])[0])
    assert pending_kind(st) == "place_cubes" and st["pending"][-1]["args"]["count"] == 3
    assert bang.legal_actions(st, 0) == [{"type": "choose", "pick": "character"}, {"type": "choose", "pick": whip}]
    act(st, 0, {"type": "choose", "pick": whip})
    act(st, 0, {"type": "choose", "pick": "character"})
    # the character is full: the last cube goes on the Whip without asking
    assert st["pending"] == [] and cubes_on(st, 0) == 4 and cubes_on(st, 0, whip) == 4
    assert st["supply"] == 32 - 8 and cubes.total(st) == 32


@pytest.mark.rule("AD-058", "AD-013")
def test_reloading_onto_a_nearly_full_character_loses_the_cubes_that_do_not_fit() -> None:
    st = ad_table(4)
    set_cubes(st, 0, "character", 3)
    events = play(st, 0, give(st, 0, ["reloading"])[0])
    assert events[-1] == {"kind": "cubes", "seat": 0, "cards": [], "amount": 1, "reason": "reloading"}
    assert st["pending"] == [] and cubes_on(st, 0) == 4 and st["supply"] == 28


@pytest.mark.rule("AD-058")
def test_reloading_from_a_short_supply_gives_only_what_is_left() -> None:
    st = ad_table(4)
    drain(st, 2)
    play(st, 0, give(st, 0, ["reloading"])[0])
    assert st["pending"] == [] and cubes_on(st, 0) == 2 and st["supply"] == 0


# Rust (AD-060)


@pytest.mark.rule("AD-060")
def test_rust_takes_one_cube_from_each_holder_of_every_other_player() -> None:
    st = ad_table(4)
    whip = orange(st, 1, "whip", 3)
    set_cubes(st, 1, "character", 1)
    crate = orange(st, 2, "crate", 1)
    rust = give(st, 0, ["rust"])[0]
    events = play(st, 0, rust)
    assert [(e["seat"], e["cards"], e["amount"]) for e in events if e["kind"] == "cubes"] == [
        (1, [], -1), (1, [whip], -1), (2, [crate], -1), (0, [], 3)]
    assert {"kind": "discard", "seat": 2, "cards": [crate], "reason": "no_cubes"} in events
    assert cubes_on(st, 0) == 3 and cubes_on(st, 1) == 0 and cubes_on(st, 1, whip) == 2
    assert st["p"][2]["table"] == [] and crate in st["discard"] and st["supply"] == 32 - 5
    assert rust in st["discard"]


@pytest.mark.rule("AD-060", "AD-013")
def test_rust_beyond_four_on_the_character_returns_the_rest_to_the_supply() -> None:
    st = ad_table(4)
    set_cubes(st, 0, "character", 3)
    own = orange(st, 0, "crate", 2)  # the Rust player's own cubes are untouched
    for seat in (1, 2, 3):
        set_cubes(st, seat, "character", 2)
    play(st, 0, give(st, 0, ["rust"])[0])
    assert cubes_on(st, 0) == 4 and cubes_on(st, 0, own) == 2
    assert [cubes_on(st, s) for s in (1, 2, 3)] == [1, 1, 1]
    assert st["supply"] == 32 - 4 - 2 - 3 and cubes.total(st) == 32


@pytest.mark.rule("AD-060")
def test_rust_with_no_cubes_around_changes_nothing() -> None:
    st = ad_table(4)
    play(st, 0, give(st, 0, ["rust"])[0])
    assert st["supply"] == 32 and cubes_on(st, 0) == 0 and st["pending"] == []


# Conservation over random play (AD-002, 013)


def check_cubes(state: State, deck: set[str]) -> None:
    """Supply + cubes on characters + cubes on cards is 32; no holder above 4; cubes lie only on
    the orange cards in play and on characters; every card of the game is somewhere, once."""
    assert cubes.total(state) == cubes.SUPPLY
    assert 0 <= state["supply"] <= cubes.SUPPLY
    in_play = {c for p in state["p"] for c in p["table"]}
    for p in state["p"]:
        assert 0 <= int(p.get("cubes", 0)) <= cubes.MAX_ON_HOLDER
        if not p["alive"]:
            assert not p.get("cubes"), "a dead character holds no cubes"
    for card, mark in state.get("marks", {}).items():
        if mark.get("cubes"):
            assert card in in_play and TYPE_OF[card].color == "orange", card
            assert 1 <= mark["cubes"] <= cubes.MAX_ON_HOLDER
    for card in in_play:
        if TYPE_OF[card].color == "orange":
            assert cubes.on(state, 0, card) >= 1, "an orange card in play always has a cube"
    cards = all_cards(state)
    assert len(cards) == len(deck) and set(cards) == deck


@pytest.mark.rule("AD-002", "AD-013")
@pytest.mark.parametrize("examples", volumes(8, 40))
def test_cubes_are_conserved_over_random_armed_and_dangerous_games(examples: int) -> None:
    run_examples(examples, cubes_are_conserved_over_random_armed_and_dangerous_games, seed=hs.integers(0, 2**31 - 1),
                 n=hs.integers(4, 7), dodge_city=hs.booleans())


def cubes_are_conserved_over_random_armed_and_dangerous_games(seed: int, n: int, dodge_city: bool) -> None:
    expansions = AD + (["dodge_city"] if dodge_city else [])
    deck = set(deck_and_characters(expansions)[0])
    rng = random.Random(seed)
    state = bang.setup({"expansions": expansions}, n, seed)
    check_cubes(state, deck)
    for _ in range(600):
        if bang.is_over(state):
            break
        seat = bang.to_act(state)[0]
        bang.apply(state, seat, rng.choice(bang.legal_actions(state, seat)))
        check_cubes(state, deck)
