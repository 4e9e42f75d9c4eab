"""Details of the ruleset's contract that mutation testing showed no other test pinned.

Each test names what a client or the service relies on: the shape of a new game's state (stored as
JSON and read by later rules versions), the refusals of a malformed request (reason, text, field,
details), the end of the game, and the station's choice of route where points alone do not decide.
"""

from __future__ import annotations

from typing import Any

import pytest
from ttr_helpers import finish_by_drawing, set_face_up, set_hand, started

import tabletop_server.service.games.ttr_europe as ttr
from tabletop_server.service.engine.errors import MalformedAction, RuleError
from tabletop_server.service.games.ttr_europe import actions
from tabletop_server.service.games.ttr_europe.board import TICKETS
from tabletop_server.service.games.ttr_europe.scoring import ticket_results
from tabletop_server.service.games.ttr_europe.setup import STATE_VERSION

State = dict[str, Any]
STATE_KEYS = {"box", "deck", "discard", "drawn", "face_up", "first", "hands", "last", "n", "offered", "opts", "owner",
              "passes", "phase", "result", "rng", "score", "station_at", "stations", "ticket_pile", "tickets",
              "trains", "tunnel", "turn", "v"}


@pytest.mark.rule("TTR-001")
@pytest.mark.parametrize("seats", [2, 3, 4, 5])
def test_a_new_game_has_the_stored_shape(seats: int) -> None:
    state = ttr.setup({}, seats, 7)
    assert set(state) == STATE_KEYS and state["v"] == STATE_VERSION == 2 and state["n"] == seats
    assert state["opts"] == {"tunnel_failure_discards": False}  # options left out take their defaults
    assert [len(hand) for hand in state["hands"]] == [9] * seats  # 8 colours and the locomotive
    assert state["turn"] == state["first"] and 0 <= state["first"] < seats
    assert ttr.setup({"tunnel_failure_discards": True}, seats, 7)["opts"] == {"tunnel_failure_discards": True}


@pytest.mark.rule("TTR-001")
@pytest.mark.parametrize("seats", [0, 1, 6])
def test_a_seat_count_outside_two_to_five_is_refused(seats: int) -> None:
    with pytest.raises(MalformedAction) as err:
        ttr.setup({}, seats, 7)
    assert (err.value.reason, err.value.message, err.value.field, err.value.details) == (
        "INVALID_SEAT_COUNT", "Ticket to Ride: Europe needs 2 to 5 players", "seats", {"seats": str(seats)})


@pytest.mark.parametrize("seat", [-1, 3, "0", None])
def test_an_action_by_a_seat_that_is_not_at_the_table_is_malformed(seat: Any) -> None:
    state = started(3)
    before = repr(state)
    with pytest.raises(MalformedAction) as err:
        ttr.apply(state, seat, {"kind": "draw_tickets"})
    assert (err.value.reason, err.value.message, err.value.field, err.value.details) == (
        "UNKNOWN_ACTION", "no such seat", "seat", {"seat": str(seat)})
    assert repr(state) == before
    ttr.apply(state, 0, {"kind": "draw_tickets"})  # seat 0 is at the table


@pytest.mark.parametrize("action", [{"kind": "fly"}, {"kind": 3}, {}, "draw"])
def test_an_unknown_action_kind_is_named(action: Any) -> None:
    with pytest.raises(MalformedAction) as err:
        ttr.apply(started(3), 0, action)
    kind = action.get("kind") if isinstance(action, dict) else None
    assert (err.value.reason, err.value.message, err.value.field, err.value.details) == (
        "UNKNOWN_ACTION", "choose one action kind", "action.ttr_europe", {"kind": str(kind)})


def test_kept_ticket_ids_must_be_ids() -> None:
    state = started(3)
    ttr.apply(state, 0, {"kind": "draw_tickets"})
    with pytest.raises(MalformedAction) as err:
        ttr.apply(state, 0, {"kind": "keep_tickets", "tickets": ["one"]})
    assert (err.value.reason, err.value.message, err.value.field) == (
        "UNKNOWN_TICKET", "ticket_ids must be ticket ids", "action.ttr_europe.keep_tickets.ticket_ids")


def test_after_the_end_every_action_is_refused_as_finished() -> None:
    state = started(2)
    finish_by_drawing(state)
    for seat in (0, 1):
        with pytest.raises(RuleError) as err:
            ttr.apply(state, seat, {"kind": "draw_tickets"})
        assert (err.value.reason, err.value.message) == ("GAME_FINISHED", "the game is over")


def test_a_registered_kind_is_the_one_applied() -> None:
    kind = actions.KINDS["draw_tickets"]
    try:
        actions.register("draw_tickets_again", kind)
        assert actions.KINDS["draw_tickets_again"] is kind
    finally:
        del actions.KINDS["draw_tickets_again"]


@pytest.mark.rule("TTR-051")
def test_a_station_tells_apart_two_routes_of_equal_length_to_different_cities() -> None:
    """From the network's city Paris the station may borrow Paris-Wien or Paris-Kharkov (both 2 long, the
    edges are made up); only the second completes Angora-Kharkov, and it is chosen."""
    tickets = [next(t.id for t in TICKETS.values() if {t.a, t.b} == {"Angora", "Kharkov"})]
    own = [("Angora", "Paris", 1)]
    assert ticket_results(own, [[("Paris", "Wien", 2), ("Paris", "Kharkov", 2)]], tickets) == ([True], [1])
    assert ticket_results(own, [[("Paris", "Wien", 2)]], tickets) == ([False], [-1])


@pytest.mark.rule("TTR-016")
def test_a_face_up_slot_left_empty_when_no_card_is_left() -> None:
    """With the deck and the discards empty, a face-up card taken is not replaced: the row shows the gap
    (no colour), the state keeps its integer codes, and nobody can take a card from the gap."""
    state = started(3)
    set_face_up(state, ["red", "blue", "green", "white", "black"])
    state["box"].extend(state["deck"] + state["discard"])
    state["deck"], state["discard"] = [], []
    events = ttr.apply(state, 0, {"kind": "draw_card", "slot": 1})
    assert {"type": "face_up", "cards": ["red", None, "green", "white", "black"], "reset": False} in events
    assert state["face_up"] == [6, -1, 7, 1, 5]
    assert list(ttr.view(state, None).face_up) == [7, 0, 8, 2, 6]  # the gap: TTR_COLOR_UNSPECIFIED
    assert {"kind": "draw_card", "slot": 1} not in ttr.legal_actions(state, 0)
    with pytest.raises(RuleError) as err:
        ttr.apply(state, 0, {"kind": "draw_card", "slot": 1})
    assert (err.value.reason, err.value.details) == ("EMPTY_SLOT", {"slot": "1"})


@pytest.mark.parametrize("route", [1.0, True, [1], "1", None])
def test_a_route_id_must_be_an_integer(route: Any) -> None:
    state = started(3)
    set_hand(state, 0, {"black": 1})
    with pytest.raises(MalformedAction) as err:
        ttr.apply(state, 0, {"kind": "claim_route", "route": route, "color": "black", "cards": 1, "locos": 0})
    assert (err.value.reason, err.value.field) == ("UNKNOWN_ROUTE", "action.ttr_europe.claim_route.route_id")


@pytest.mark.parametrize("cards, locos, color, field", [
    (True, 0, "black", "payment"), (1, True, "black", "payment"), ("1", 0, "black", "payment"),
    (1, 1.0, "black", "payment"), (1, 0, ["black"], "payment.color"), (1, 0, {"black": 1}, "payment.color"),
])
def test_a_payment_must_be_counts_and_a_colour_name(cards: Any, locos: Any, color: Any, field: str) -> None:
    state = started(3)
    set_hand(state, 0, {"black": 1, "loco": 1})
    with pytest.raises(MalformedAction) as err:
        ttr.apply(state, 0, {"kind": "claim_route", "route": 1, "color": color, "cards": cards, "locos": locos})
    assert (err.value.reason, err.value.field) == ("INVALID_PAYMENT", f"action.ttr_europe.claim_route.{field}")
