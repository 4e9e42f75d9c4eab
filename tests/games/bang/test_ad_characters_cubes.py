"""Armed & Dangerous characters who move cubes in their own turn: Frankie Canton and Red Ringo
(AD-028, 036, 040; Red Ringo's start through the real setup, AD-029)."""

from __future__ import annotations

import pytest
from bang_helpers import (
    act,
    ad_table,
    chars,
    cubes_on,
    give,
    orange,
    refused,
    set_cubes,
)

from tabletop_server.service.engine.ruleset import Action, Event, State
from tabletop_server.service.games import bang
from tabletop_server.service.games.bang import cubes

pytestmark = pytest.mark.usefixtures("armed")


def abilities(st: State, seat: int) -> list[Action]:
    return [a for a in bang.legal_actions(st, seat) if a["type"] == "ability"]


def cube_events(events: list[Event]) -> list[tuple[int, list[str], int, str]]:
    return [(e["seat"], e["cards"], e["amount"], e["reason"]) for e in events if e["kind"] == "cubes"]


# Frankie Canton (AD-036)

def frankie() -> State:
    """Frankie Canton at seat 0, in his turn."""
    return ad_table(4, chars=chars(4, s0="frankie_canton"))


@pytest.mark.rule("AD-036")
def test_frankie_canton_takes_the_last_cube_of_a_card_and_it_is_discarded() -> None:
    st = frankie()
    thunderer = orange(st, 2, "thunderer", 1)
    crate = orange(st, 0, "crate", 2)
    set_cubes(st, 3, "character", 1)
    assert abilities(st, 0) == [{"type": "ability", "cards": [crate]}, {"type": "ability", "cards": [thunderer]},
                                {"type": "ability", "cards": [], "target": 3}]
    events = act(st, 0, {"type": "ability", "cards": [thunderer]})
    assert cube_events(events) == [(2, [thunderer], -1, "frankie_canton"), (0, [], 1, "frankie_canton")]
    assert {"kind": "discard", "seat": 2, "cards": [thunderer], "reason": "no_cubes"} in events
    assert (cubes_on(st, 0), st["p"][2]["table"], thunderer in st["discard"]) == (1, [], True)
    assert st["supply"] == 32 - 2 - 1 - 1 and cubes.total(st) == 32
    assert abilities(st, 0) == []
    refused(st, 0, {"type": "ability", "cards": [], "target": 3}, "USED_UP_THIS_TURN")


@pytest.mark.rule("AD-036")
def test_frankie_canton_takes_from_another_character_or_his_own_card() -> None:
    st = frankie()
    set_cubes(st, 1, "character", 2)
    events = act(st, 0, {"type": "ability", "cards": [], "target": 1})
    assert cube_events(events) == [(1, [], -1, "frankie_canton"), (0, [], 1, "frankie_canton")]
    assert (cubes_on(st, 0), cubes_on(st, 1), st["supply"]) == (1, 1, 30)
    st = frankie()
    crate = orange(st, 0, "crate", 2)
    act(st, 0, {"type": "ability", "cards": [crate]})
    assert (cubes_on(st, 0), cubes_on(st, 0, crate), st["supply"]) == (1, 1, 30)


@pytest.mark.rule("AD-036")
def test_frankie_canton_never_from_his_own_character_or_an_empty_holder() -> None:
    st = frankie()
    set_cubes(st, 0, "character", 2)
    assert abilities(st, 0) == []  # nothing holds a cube but himself
    refused(st, 0, {"type": "ability", "cards": [], "target": 0}, "BAD_TARGET")
    refused(st, 0, {"type": "ability", "cards": [], "target": 1}, "NOT_A_CUBE_HOLDER")
    refused(st, 0, {"type": "ability", "cards": []}, "MISSING_TARGET")
    whip = give(st, 1, ["whip"])[0]  # in a hand, not in play
    refused(st, 0, {"type": "ability", "cards": [whip]}, "NOT_A_CUBE_HOLDER")


@pytest.mark.rule("AD-036")
def test_frankie_canton_taking_a_bombs_last_cube_explodes_it() -> None:
    st = frankie()
    bomb = orange(st, 1, "bomb", 1)
    events = act(st, 0, {"type": "ability", "cards": [bomb]})
    assert {"kind": "explode", "seat": 1, "cards": [bomb]} in events
    assert (st["p"][1]["life"], st["p"][1]["table"], bomb in st["discard"], cubes_on(st, 0)) == (2, [], True, 1)
    damage = [e for e in events if e["kind"] == "damage"]
    assert damage == [{"kind": "damage", "seat": 1, "amount": 2, "life": 2, "other": None}]


@pytest.mark.rule("AD-028", "AD-036")
def test_frankie_canton_holds_at_most_four_cubes() -> None:
    st = frankie()
    set_cubes(st, 0, "character", 3)
    set_cubes(st, 1, "character", 2)
    assert abilities(st, 0) == [{"type": "ability", "cards": [], "target": 1}]
    act(st, 0, {"type": "ability", "cards": [], "target": 1})
    assert cubes_on(st, 0) == 4
    st = frankie()
    set_cubes(st, 0, "character", 4)
    set_cubes(st, 1, "character", 2)
    assert abilities(st, 0) == []
    refused(st, 0, {"type": "ability", "cards": [], "target": 1}, "NO_ROOM_FOR_CUBES")


@pytest.mark.rule("AD-028", "AD-036")
def test_frankie_canton_only_in_his_turn() -> None:
    st = ad_table(4, chars=chars(4, s2="frankie_canton"))
    set_cubes(st, 1, "character", 2)
    refused(st, 2, {"type": "ability", "cards": [], "target": 1}, "NOT_YOUR_TURN")


# Red Ringo (AD-040)

def ringo() -> tuple[State, str, str]:
    """Red Ringo at seat 0 with 4 cubes, a Whip (3) and a Crate (2)."""
    st = ad_table(4, chars=chars(4, s0="red_ringo"))
    set_cubes(st, 0, "character", 4)
    return st, orange(st, 0, "whip", 3), orange(st, 0, "crate", 2)


def move(*cards: str) -> Action:
    return {"type": "ability", "cards": list(cards)}


@pytest.mark.rule("AD-040")
def test_red_ringo_moves_one_and_one_onto_two_cards() -> None:
    st, whip, crate = ringo()
    assert abilities(st, 0) == [move(whip), move(crate), move(whip, crate), move(crate, crate)]
    events = act(st, 0, move(whip, crate))
    assert cube_events(events) == [(0, [], -1, "red_ringo"), (0, [whip], 1, "red_ringo"),
                                   (0, [], -1, "red_ringo"), (0, [crate], 1, "red_ringo")]
    assert (cubes_on(st, 0), cubes_on(st, 0, whip), cubes_on(st, 0, crate), st["supply"]) == (2, 4, 3, 23)
    assert abilities(st, 0) == []
    refused(st, 0, move(crate), "USED_UP_THIS_TURN")


@pytest.mark.rule("AD-040")
def test_red_ringo_moves_two_onto_one_card_within_its_four() -> None:
    st, whip, crate = ringo()
    refused(st, 0, move(whip, whip), "NO_ROOM_FOR_CUBES")  # the Whip has room for 1
    act(st, 0, move(crate, crate))
    assert (cubes_on(st, 0), cubes_on(st, 0, crate), cubes_on(st, 0, whip)) == (2, 4, 3)


@pytest.mark.rule("AD-040")
def test_red_ringo_never_moves_cubes_back_or_more_than_two() -> None:
    st, whip, crate = ringo()
    set_cubes(st, 0, "character", 2)
    refused(st, 0, move("character"), "UNKNOWN_CARD")  # the cubes always come from his character
    refused(st, 0, move(whip, crate, crate), "NEED_ONE_CARD")
    refused(st, 0, move(), "NEED_ONE_CARD")
    other = orange(st, 1, "bomb", 1)
    refused(st, 0, move(other), "NOT_A_CUBE_HOLDER")
    set_cubes(st, 0, "character", 1)
    assert abilities(st, 0) == [move(whip), move(crate)]
    refused(st, 0, move(whip, crate), "NOT_ENOUGH_CUBES")
    set_cubes(st, 0, "character", 0)
    assert abilities(st, 0) == []


@pytest.mark.rule("AD-028", "AD-040")
def test_red_ringo_only_in_his_turn() -> None:
    st = ad_table(4, chars=chars(4, s1="red_ringo"))
    set_cubes(st, 1, "character", 4)
    crate = orange(st, 1, "crate", 2)
    refused(st, 1, move(crate), "NOT_YOUR_TURN")


@pytest.mark.rule("AD-029", "AD-040")
def test_red_ringo_starts_with_four_cubes_from_the_supply_at_setup() -> None:
    """Through the real setup: the first seeds that deal Red Ringo, as the Sheriff and not."""
    seen = set()
    for seed in range(1, 200):
        st = bang.setup({"expansions": ["armed_and_dangerous"]}, 4, seed)
        for p in st["p"]:
            if p["char"] == "red_ringo":
                sheriff = p["role"] == "sheriff"
                seen.add(sheriff)
                assert (p["cubes"], st["supply"], p["life"], p["max"]) == (4, 28, 5 + sheriff, 5 + sheriff)
            else:
                assert "cubes" not in p
        if len(seen) == 2:
            break
    assert seen == {True, False}
