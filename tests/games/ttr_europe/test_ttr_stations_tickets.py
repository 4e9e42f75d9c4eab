"""Stations (TTR-048..TTR-050) and destination tickets during play (TTR-043..TTR-047)."""

from __future__ import annotations

from typing import Any

import pytest
from ttr_helpers import check_invariants, hand_of, reason, set_hand

import tabletop_server.service.games.ttr_europe as ttr
from tabletop_server.service.engine.errors import MalformedAction

State = dict[str, Any]


def station(city: str, color: str | None, cards: int, locos: int = 0) -> dict[str, Any]:
    return {"kind": "build_station", "city": city, "color": color, "cards": cards, "locos": locos}


def pass_turns(state: State, *seats: int) -> None:
    for seat in seats:
        ttr.apply(state, seat, {"kind": "draw_card", "slot": None})
        ttr.apply(state, seat, {"kind": "draw_card", "slot": None})


@pytest.mark.rule("TTR-048")
def test_one_station_per_city(game3: State) -> None:
    set_hand(game3, 0, {"blue": 1})
    set_hand(game3, 1, {"red": 1})
    events = ttr.apply(game3, 0, station("Wien", "blue", 1))
    assert events[0] == {"type": "station_built", "seat": 0, "city": "Wien", "color": "blue", "cards": 1,
                         "locos": 0}
    assert game3["station_at"] == {"Wien": 0} and game3["stations"][0] == 2 and game3["trains"][0] == 45
    assert [(s.city, s.seat) for s in ttr.view(game3, None).stations] == [("Wien", 0)]
    assert reason(game3, 1, station("Wien", "red", 1)) == "CITY_HAS_STATION"
    assert not [a for a in ttr.legal_actions(game3, 1) if a.get("city") == "Wien"]
    check_invariants(game3)


@pytest.mark.rule("TTR-049", "TTR-050")
def test_station_costs_and_limit(game3: State) -> None:
    set_hand(game3, 0, {"blue": 2, "red": 3, "green": 1, "loco": 2})
    assert reason(game3, 0, station("Wien", "blue", 2)) == "WRONG_CARD_COUNT"
    ttr.apply(game3, 0, station("Wien", "blue", 1))
    pass_turns(game3, 1, 2)
    set_hand(game3, 0, {"red": 4, "blue": 1, "loco": 1})
    assert reason(game3, 0, station("Roma", "red", 1)) == "WRONG_CARD_COUNT"
    assert reason(game3, 0, station("Roma", "red", 3)) == "WRONG_CARD_COUNT"
    # "red + blue" has no spelling with one colour; 1 blue + 1 red is caught as a count of blues.
    assert reason(game3, 0, station("Roma", "blue", 2)) == "INSUFFICIENT_CARDS"
    ttr.apply(game3, 0, station("Roma", "red", 2))
    pass_turns(game3, 1, 2)
    assert reason(game3, 0, station("Berlin", "red", 2)) == "WRONG_CARD_COUNT"
    assert reason(game3, 0, station("Berlin", "red", 4)) == "WRONG_CARD_COUNT"
    ttr.apply(game3, 0, station("Berlin", "red", 2, 1))
    assert hand_of(game3, 0) == {"blue": 1} and game3["stations"][0] == 0
    pass_turns(game3, 1, 2)
    set_hand(game3, 0, {"red": 5})
    assert reason(game3, 0, station("Paris", "red", 3)) == "NO_STATIONS_LEFT"
    assert not [a for a in ttr.legal_actions(game3, 0) if a["kind"] == "build_station"]


@pytest.mark.rule("TTR-049")
def test_station_options_enumerate_payments(game3: State) -> None:
    set_hand(game3, 0, {"red": 1, "loco": 1})
    options = [a for a in ttr.legal_actions(game3, 0) if a["kind"] == "build_station"]
    assert len(options) == 47 * 2
    assert station("Wien", None, 0, 1) in options and station("Wien", "red", 1) in options


def test_unknown_city(game3: State) -> None:
    with pytest.raises(MalformedAction) as err:
        ttr.apply(game3, 0, station("Praha", "red", 1))
    assert (err.value.reason, err.value.field) == ("UNKNOWN_CITY", "action.ttr_europe.build_station.city")


@pytest.mark.rule("TTR-043", "TTR-044")
def test_draw_tickets_keep_at_least_one(game3: State) -> None:
    pile = list(game3["ticket_pile"])
    events = ttr.apply(game3, 0, {"kind": "draw_tickets"})
    assert events == [{"type": "tickets_drawn", "seat": 0, "count": 3, "tickets": pile[:3]}]
    assert ttr.to_act(game3) == [0] and game3["offered"][0] == pile[:3]
    assert reason(game3, 0, {"kind": "keep_tickets", "tickets": []}) == "TOO_FEW_TICKETS_KEPT"
    assert reason(game3, 0, {"kind": "keep_tickets", "tickets": [pile[5]]}) == "TICKET_NOT_OFFERED"
    assert reason(game3, 0, {"kind": "draw_card", "slot": None}) == "MUST_CHOOSE_TICKETS"
    assert len([a for a in ttr.legal_actions(game3, 0)]) == 7
    held = list(game3["tickets"][0])
    ttr.apply(game3, 0, {"kind": "keep_tickets", "tickets": [pile[1]]})
    assert game3["tickets"][0] == held + [pile[1]]
    # The two returned tickets go under the pile, in order.
    assert game3["ticket_pile"] == pile[3:] + [pile[0], pile[2]]
    assert game3["turn"] == 1
    check_invariants(game3)


@pytest.mark.rule("TTR-045", "TTR-047")
def test_ticket_pile_runs_out(game3: State) -> None:
    # Seat 0 keeps everything it draws until the pile is nearly empty (no limit on tickets).
    start = len(game3["tickets"][0])
    while len(game3["ticket_pile"]) > 2:
        ttr.apply(game3, 0, {"kind": "draw_tickets"})
        ttr.apply(game3, 0, {"kind": "keep_tickets", "tickets": game3["offered"][0]})
        pass_turns(game3, 1, 2)
    remaining = len(game3["ticket_pile"])
    assert len(game3["tickets"][0]) == start + (31 - remaining)
    ttr.apply(game3, 0, {"kind": "draw_tickets"})
    assert len(game3["offered"][0]) == remaining == 1
    ttr.apply(game3, 0, {"kind": "keep_tickets", "tickets": game3["offered"][0]})
    pass_turns(game3, 1, 2)
    assert reason(game3, 0, {"kind": "draw_tickets"}) == "NO_TICKETS_LEFT"
    assert {"kind": "draw_tickets"} not in ttr.legal_actions(game3, 0)
    check_invariants(game3)


@pytest.mark.rule("TTR-007", "TTR-010")
def test_unused_long_tickets_never_drawn(game3: State) -> None:
    """Long tickets nobody was dealt, and starting tickets returned, never come back."""
    boxed = set(game3["box"])
    seen: set[int] = set()
    while game3["ticket_pile"]:
        seat = game3["turn"]
        ttr.apply(game3, seat, {"kind": "draw_tickets"})
        seen |= set(game3["offered"][seat])
        ttr.apply(game3, seat, {"kind": "keep_tickets", "tickets": game3["offered"][seat]})
    assert not seen & boxed and len(seen) == 40 - 9


@pytest.mark.rule("TTR-046")
def test_kept_tickets_cannot_be_discarded(game3: State) -> None:
    kept = game3["tickets"][0][0]
    assert reason(game3, 0, {"kind": "keep_tickets", "tickets": [kept]}) == "TICKET_NOT_OFFERED"


def test_keep_malformed(game3: State) -> None:
    ttr.apply(game3, 0, {"kind": "draw_tickets"})
    offered = game3["offered"][0]
    for bad in ([offered[0], offered[0]], [0], ["x"], "1"):
        with pytest.raises(MalformedAction) as err:
            ttr.apply(game3, 0, {"kind": "keep_tickets", "tickets": bad})
        assert err.value.reason == "UNKNOWN_TICKET"


@pytest.mark.rule("TTR-043")
@pytest.mark.parametrize("keep", [[0], [0, 2], [0, 1, 2]])
def test_keep_one_two_or_three(game3: State, keep: list[int]) -> None:
    ttr.apply(game3, 0, {"kind": "draw_tickets"})
    offered = list(game3["offered"][0])
    held = list(game3["tickets"][0])
    ttr.apply(game3, 0, {"kind": "keep_tickets", "tickets": [offered[i] for i in keep]})
    assert game3["tickets"][0] == held + [offered[i] for i in keep]
    returned = [t for i, t in enumerate(offered) if i not in keep]
    assert game3["ticket_pile"][len(game3["ticket_pile"]) - len(returned):] == returned
    assert game3["turn"] == 1
    check_invariants(game3)


@pytest.mark.rule("TTR-045")
def test_ticket_pile_of_two(game3: State) -> None:
    game3["box"].extend(game3["ticket_pile"][2:])
    del game3["ticket_pile"][2:]
    pile = list(game3["ticket_pile"])
    events = ttr.apply(game3, 0, {"kind": "draw_tickets"})
    assert events[0]["count"] == 2 and game3["offered"][0] == pile and game3["ticket_pile"] == []
    assert reason(game3, 0, {"kind": "keep_tickets", "tickets": []}) == "TOO_FEW_TICKETS_KEPT"
    ttr.apply(game3, 0, {"kind": "keep_tickets", "tickets": [pile[1]]})
    assert game3["ticket_pile"] == [pile[0]]
    check_invariants(game3)
