"""Dodge City effects and the ability-target check, pinned where the stop-20 mutation run's survivors
showed a gap: the refusal texts and details a player reads (Whisky, Tequila, Dodge, an ability given a
target it does not take), the heal event's reason, and who shot with a Derringer (issue 9).
"""

from __future__ import annotations

import pytest
from bang_helpers import act, chars, equip, give, play, refusal
from dc_cards_helpers import dc_table, use
from tabletop.v1 import bang_pb2

from tabletop_server.service.engine.errors import MalformedAction
from tabletop_server.service.games import bang
from tabletop_server.service.games.bang.tables import KEY_OF

pytestmark = pytest.mark.usefixtures("dodge_city")


@pytest.mark.rule("DC-063")
def test_whisky_at_full_life_is_refused_saying_you_are_and_naming_your_seat() -> None:
    st = dc_table(4)
    whisky = give(st, 2, ["whisky", "missed"])[0]
    st["turn"] = 2
    err = refusal(st, 2, {"type": "play", "card": whisky})
    assert (err.reason, err.message, err.details) == ("LIFE_AT_MAXIMUM", "You are already at full life",
                                                      {"target": "2"})
    st["p"][2]["life"] -= 1  # one life short of the maximum: accepted (the Missed! pays its cost)
    act(st, 2, {"type": "play", "card": whisky})
    assert st["p"][2]["life"] == st["p"][2]["max"] and st["p"][2]["hand"] == []


@pytest.mark.rule("DC-056")
def test_tequila_on_a_player_at_full_life_is_refused_naming_that_seat() -> None:
    st = dc_table(4)
    tequila = give(st, 0, ["tequila", "missed"])[0]
    err = refusal(st, 0, {"type": "play", "card": tequila, "target": 3})
    assert (err.reason, err.message, err.details) == ("LIFE_AT_MAXIMUM", "Seat 3 is already at full life",
                                                      {"target": "3"})
    err = refusal(st, 0, {"type": "play", "card": tequila, "target": 0})
    assert (err.message, err.details) == ("You are already at full life", {"target": "0"})


@pytest.mark.rule("DC-013")
def test_a_heal_event_names_the_card_that_healed() -> None:
    st = dc_table(4)
    canteen = equip(st, 0, ["canteen"])[0]
    st["p"][0]["life"] -= 1
    events = use(st, 0, canteen)
    heals = [e for e in events if e["kind"] == "heal"]
    assert heals == [{"kind": "heal", "seat": 0, "amount": 1, "life": st["p"][0]["max"], "reason": KEY_OF[canteen]}]
    assert KEY_OF[canteen] == "canteen"


@pytest.mark.rule("DC-053")
def test_dodge_played_in_your_own_turn_is_refused_with_its_text() -> None:
    st = dc_table(4)
    dodge = give(st, 0, ["dodge"])[0]
    err = refusal(st, 0, {"type": "play", "card": dodge})
    assert (err.reason, err.message) == ("CARD_NOT_PLAYABLE_NOW", "Dodge is played only to cancel a shot at you")


@pytest.mark.rule("DC-010")
def test_a_derringer_shot_is_from_its_user_and_names_the_derringer() -> None:
    """The target's request says who shot and with which card (what El Gringo and the kill rewards
    read), for a Derringer used from play."""
    st = dc_table(4)
    derringer = equip(st, 0, ["derringer"])[0]
    give(st, 1, ["missed"])  # seat 1 can answer, so the shot waits for him
    use(st, 0, derringer, target=1)
    request = bang.view(st, 1).pending[-1]
    assert (request.seat, request.source_seat, request.source_card.id) == (1, 0, derringer)


@pytest.mark.rule("DC-010", "BANG-087")
def test_el_gringo_hit_by_a_derringer_draws_from_its_user() -> None:
    st = dc_table(4, chars=chars(4, s1="el_gringo"))
    derringer = equip(st, 0, ["derringer"])[0]
    kept = give(st, 0, ["beer"])[0]
    use(st, 0, derringer, target=1)  # seat 1 holds nothing: hit at once
    # Seat 0 held the Beer and the Derringer's draw; El Gringo took one of the two at random (not from the deck).
    assert len(st["p"][0]["hand"]) == len(st["p"][1]["hand"]) == 1
    assert kept in st["p"][0]["hand"] + st["p"][1]["hand"]


def test_an_ability_given_a_target_it_does_not_take_names_the_field() -> None:
    """Only Doc Holyday's ability takes a target; any other is a malformed request on ``target``."""
    st = dc_table(4, chars=chars(4, s0="chuck_wengam"))
    err = refusal(st, 0, {"type": "ability", "target": 1, "cards": []})
    assert isinstance(err, MalformedAction)
    assert (err.reason, err.message, err.field) == ("UNEXPECTED_TARGET", "Your character's ability takes no target",
                                                    "target")
    play(st, 0, give(st, 0, ["bang"])[0], target=1)  # the table goes on: nothing was changed


@pytest.mark.rule("DC-044")
def test_a_three_player_game_refuses_a_sheriff_seat_with_its_text() -> None:
    """The 3-player game has no Sheriff, so a rematch's Sheriff seat is refused on the option's field."""
    with pytest.raises(MalformedAction) as err:
        bang.setup({"expansions": ["dodge_city"], "sheriff_seat": 0}, 3, 1)
    assert (err.value.reason, err.value.message, err.value.field) == (
        "INVALID_OPTION", "A 3-player game has no Sheriff: leave sheriff_seat unset", "options.bang.sheriff_seat")
    state = bang.setup({"expansions": ["dodge_city"], "sheriff_seat": 0}, 4, 1)
    assert bang.view(state, None).players[0].role == bang_pb2.BANG_ROLE_SHERIFF  # seat 0, face up to everyone
