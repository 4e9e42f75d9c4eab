"""Each illegal action is refused with its own reason and changes nothing; the pass rule."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from ttr_helpers import check_invariants, claim, give_route, route_id, set_face_up, set_hand, started

import tabletop_server.service.games.ttr_europe as ttr
from tabletop_server.service.engine.errors import EngineReason, RuleError

State = dict[str, Any]
MUNCHEN_WIEN = route_id("Munchen", "Wien")  # 3 orange


def _wrong_color(s: State) -> tuple[int, dict[str, Any]]:
    set_hand(s, 0, {"red": 3})
    return 0, claim(MUNCHEN_WIEN, "red", 3)


def _too_few_cards(s: State) -> tuple[int, dict[str, Any]]:
    set_hand(s, 0, {"orange": 2})
    return 0, claim(MUNCHEN_WIEN, "orange", 3)


def _taken_route(s: State) -> tuple[int, dict[str, Any]]:
    give_route(s, 1, MUNCHEN_WIEN)
    set_hand(s, 0, {"orange": 3})
    return 0, claim(MUNCHEN_WIEN, "orange", 3)


def _closed_double(s: State) -> tuple[int, dict[str, Any]]:
    give_route(s, 1, route_id("Berlin", "Frankfurt", "black"))
    set_hand(s, 0, {"red": 3})
    return 0, claim(route_id("Berlin", "Frankfurt", "red"), "red", 3)


def _second_locomotive(s: State) -> tuple[int, dict[str, Any]]:
    set_face_up(s, ["red", "loco", "blue", "green", "white"])
    ttr.apply(s, 0, {"kind": "draw_card", "slot": 0})
    return 0, {"kind": "draw_card", "slot": 1}


def _not_your_turn(s: State) -> tuple[int, dict[str, Any]]:
    return 1, {"kind": "draw_card", "slot": None}


def _occupied_city(s: State) -> tuple[int, dict[str, Any]]:
    s["station_at"]["Wien"] = 1
    s["stations"][1] = 2
    set_hand(s, 0, {"red": 1})
    return 0, {"kind": "build_station", "city": "Wien", "color": "red", "cards": 1, "locos": 0}


def _too_few_trains(s: State) -> tuple[int, dict[str, Any]]:
    s["trains"][0] = 2
    set_hand(s, 0, {"orange": 3})
    return 0, claim(MUNCHEN_WIEN, "orange", 3)


@pytest.mark.parametrize("build, reason", [
    (_wrong_color, "WRONG_COLOR"), (_too_few_cards, "INSUFFICIENT_CARDS"),
    (_taken_route, "ROUTE_ALREADY_CLAIMED"), (_closed_double, "DOUBLE_ROUTE_CLOSED"),
    (_second_locomotive, "SECOND_LOCOMOTIVE"), (_not_your_turn, EngineReason.NOT_YOUR_TURN),
    (_occupied_city, "CITY_HAS_STATION"), (_too_few_trains, "NOT_ENOUGH_TRAINS"),
])
def test_refused_with_its_own_reason(build: Callable[[State], tuple[int, dict[str, Any]]], reason: str) -> None:
    state = started(3)
    seat, action = build(state)
    assert action not in ttr.legal_actions(state, seat)
    before = repr(state)
    with pytest.raises(RuleError) as err:
        ttr.apply(state, seat, action)
    assert err.value.reason == reason and err.value.message
    assert repr(state) == before


def _nothing_left(state: State) -> list[int]:
    """No card anywhere to draw or pay with, no ticket to draw: returns the 110 cards, set aside."""
    for seat in range(state["n"]):
        set_hand(state, seat, {})
    set_face_up(state, [None] * 5)
    parked = state["deck"] + state["discard"]
    state["deck"], state["discard"] = [], []
    state["box"].extend(state["ticket_pile"])
    state["ticket_pile"] = []
    return parked  # type: ignore[no-any-return]


def test_pass_only_when_nothing_else_and_deadlock_ends_the_game() -> None:
    state = started(3)
    with pytest.raises(RuleError) as err:
        ttr.apply(state, 0, {"kind": "pass"})
    assert err.value.reason == "CANNOT_PASS"
    parked = _nothing_left(state)
    assert len(parked) == 110
    assert ttr.legal_actions(state, 0) == [{"kind": "pass"}]
    events = ttr.apply(state, 0, {"kind": "pass"})
    assert events == [{"type": "passed", "seat": 0}, {"type": "turn_started", "seat": 1}]
    ttr.apply(state, 1, {"kind": "pass"})
    assert not ttr.is_over(state)
    events = ttr.apply(state, 2, {"kind": "pass"})
    assert events[-1]["type"] == "game_scored" and ttr.is_over(state)
    assert ttr.encode_event(events[0]).turn_passed.seat == 2
    state["deck"] = parked
    check_invariants(state)


def test_a_real_action_resets_the_pass_count() -> None:
    state = started(3)
    parked = _nothing_left(state)
    ttr.apply(state, 0, {"kind": "pass"})
    ttr.apply(state, 1, {"kind": "pass"})
    # Seat 2 still holds one card: it builds a station, which is not a pass.
    state["hands"][2][0] = 1
    parked.remove(0)
    ttr.apply(state, 2, {"kind": "build_station", "city": "Wien", "color": "purple", "cards": 1, "locos": 0})
    assert state["passes"] == 0 and not ttr.is_over(state)
    # The paid card came back face up at the end of the turn; set it aside again.
    parked += [c for c in state["face_up"] if c >= 0] + state["discard"] + state["deck"]
    state["face_up"], state["discard"], state["deck"] = [-1] * 5, [], []
    ttr.apply(state, 0, {"kind": "pass"})
    ttr.apply(state, 1, {"kind": "pass"})
    assert not ttr.is_over(state)
    ttr.apply(state, 2, {"kind": "pass"})
    assert ttr.is_over(state)


def test_action_kinds_register_once() -> None:
    from tabletop_server.service.games.ttr_europe import actions

    with pytest.raises(ValueError, match="registered twice"):
        actions.register("draw_card", actions.KINDS["draw_card"])


@pytest.mark.parametrize("action", [
    {"kind": "draw_tickets", "extra": 1},
    {"kind": "draw_card"},
    {"kind": "claim_route", "route": 1, "color": "black", "cards": 1},
    {"kind": "keep_tickets", "tickets": [1], "slot": None},
    {"route": 1},
    [],
])
def test_unexpected_or_missing_fields_are_malformed(action: Any) -> None:
    from tabletop_server.service.engine.errors import MalformedAction

    state = started(3)
    before = repr(state)
    with pytest.raises(MalformedAction) as err:
        ttr.apply(state, 0, action)
    assert err.value.reason == "UNKNOWN_ACTION" and repr(state) == before


def _empty_slot(s: State) -> tuple[int, dict[str, Any]]:
    set_face_up(s, ["red", None, "blue", "green", "white"])
    return 0, {"kind": "draw_card", "slot": 1}


def _no_cards_left(s: State) -> tuple[int, dict[str, Any]]:
    s["box"].extend(s["deck"] + s["discard"])  # set aside, out of the game
    s["deck"], s["discard"] = [], []
    return 0, {"kind": "draw_card", "slot": None}


def _no_stations_left(s: State) -> tuple[int, dict[str, Any]]:
    s["stations"][0] = 0
    set_hand(s, 0, {"red": 4})
    return 0, {"kind": "build_station", "city": "Wien", "color": "red", "cards": 1, "locos": 0}


def _cannot_pass(s: State) -> tuple[int, dict[str, Any]]:
    return 0, {"kind": "pass"}


@pytest.mark.parametrize("build, reason, message, details", [
    (_empty_slot, "EMPTY_SLOT", "that face-up slot is empty", {"slot": "1"}),
    (_no_cards_left, "NO_CARDS_LEFT",
     "the deck and the discard pile are empty; take a face-up card or choose another action", {}),
    (_no_stations_left, "NO_STATIONS_LEFT", "you have built all your stations", {}),
    (_cannot_pass, "CANNOT_PASS", "you can still act: draw, claim, build or take tickets", {}),
    (_occupied_city, "CITY_HAS_STATION", "that city already has a station; choose another",
     {"city": "Wien", "owner": "1"}),
    (_too_few_trains, "NOT_ENOUGH_TRAINS", "this route needs 3 trains", None),
])
def test_rare_refusals_say_what_to_do(build: Callable[[State], tuple[int, dict[str, Any]]], reason: str,
                                      message: str, details: dict[str, str] | None) -> None:
    """The refusals random play seldom meets (the error catalog has the rest): reason, text and details."""
    state = started(3)
    seat, action = build(state)
    before = repr(state)
    with pytest.raises(RuleError) as err:
        ttr.apply(state, seat, action)
    assert (err.value.reason, err.value.message) == (reason, message)
    assert details is None or err.value.details == details
    assert repr(state) == before


@pytest.mark.rule("TTR-024", "TTR-027")
def test_refused_payments_name_the_colours_involved() -> None:
    state = started(3)
    set_hand(state, 0, {"red": 3, "loco": 1})
    with pytest.raises(RuleError) as err:
        ttr.apply(state, 0, claim(MUNCHEN_WIEN, None, 0, 3))
    assert (err.value.reason, err.value.message) == ("INSUFFICIENT_CARDS", "you do not hold those cards")
    assert err.value.details == {"color": "locomotive", "cards": "0", "locos": "3"}
    with pytest.raises(RuleError) as err:
        ttr.apply(state, 0, claim(MUNCHEN_WIEN, "red", 3))
    assert (err.value.reason, err.value.message) == ("WRONG_COLOR", "pay with orange cards or locomotives")
    assert err.value.details == {"needed": "orange", "given": "red"}
