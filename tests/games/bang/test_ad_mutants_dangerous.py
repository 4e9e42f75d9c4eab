"""Armed & Dangerous' orange cards going into play: what the mutation run of ``effects/dangerous.py``
found untested (docs/mutation_runs/bang_stop24_ad.md): the refusal text and detail of an orange card the
supply cannot load, and that only an orange *weapon* replaces the weapon in play."""

from __future__ import annotations

import pytest
from bang_helpers import ad_table, drain, equip, give, orange, play, refusal, table_keys

pytestmark = pytest.mark.usefixtures("armed")


@pytest.mark.rule("AD-014")
def test_an_orange_card_the_supply_cannot_load_is_refused_saying_how_many_cubes_are_left() -> None:
    st = ad_table(4)
    drain(st, 2)
    crate = give(st, 0, ["crate"])[0]
    err = refusal(st, 0, {"type": "play", "card": crate})
    assert err.reason == "CUBE_SUPPLY_SHORT"
    assert err.message == "The supply holds 2 cubes; Crate needs 3"
    assert err.details == {"supply": "2"}


@pytest.mark.rule("AD-018")
def test_an_orange_card_that_is_no_weapon_leaves_the_weapon_in_play() -> None:
    st = ad_table(4)
    schofield = equip(st, 0, ["schofield"])[0]
    crate = give(st, 0, ["crate"])[0]
    play(st, 0, crate)
    assert table_keys(st, 0) == ["crate", "schofield"] and schofield in st["p"][0]["table"]
    assert schofield not in st["discard"]


@pytest.mark.rule("AD-018")
def test_an_orange_weapon_replaces_the_weapon_in_play() -> None:
    st = ad_table(4)
    schofield = equip(st, 0, ["schofield"])[0]
    orange(st, 1, "crate", 1)  # someone else's orange card is not involved
    thunderer = give(st, 0, ["thunderer"])[0]
    play(st, 0, thunderer)
    assert table_keys(st, 0) == ["thunderer"] and schofield in st["discard"]


@pytest.mark.rule("AD-059")
def test_a_lockpick_aimed_at_an_empty_hand_is_refused_naming_the_seat() -> None:
    st = ad_table(4)
    lockpick = orange(st, 0, "lockpick", 4)
    equip(st, 2, ["mustang"])  # a card in play is not a card in hand
    err = refusal(st, 0, {"type": "use", "card": lockpick, "target": 2})
    assert (err.reason, err.message, err.details) == ("NOTHING_TO_TAKE", "Seat 2 has no cards in hand", {"target": "2"})
