"""Final scoring as players see it: positions built, the game ended through ``apply``, scores read from
``view`` (TTR-051, TTR-054, TTR-057..TTR-061).

Each position is a table: per seat the routes it owns, the tickets it holds and the cities of its
stations. ``finish_by_drawing`` then plays the last round out with blind draws, which change no score.
"""

from __future__ import annotations

from typing import Any

import pytest
from tabletop.v1 import ttr_europe_pb2 as pb
from ttr_helpers import clear_tickets, finish_by_drawing, give_route, give_tickets, route_id, started

import tabletop_server.service.games.ttr_europe as ttr
from tabletop_server.service.games.ttr_europe.board import TICKETS

State = dict[str, Any]
Seat = dict[str, list[Any]]  # "routes": [(a, b)], "tickets": [(a, b)], "stations": [city]


def ticket(a: str, b: str) -> int:
    return next(t.id for t in TICKETS.values() if {t.a, t.b} == {a, b})


def play_out(*seats: Seat) -> pb.TtrEuropeView:
    """Build the position (one Seat per player), end the game, return the final view."""
    state = started(len(seats))
    clear_tickets(state)
    for seat, spec in enumerate(seats):
        for a, b in spec.get("routes", []):
            give_route(state, seat, route_id(a, b))
        give_tickets(state, seat, [ticket(a, b) for a, b in spec.get("tickets", [])])
        for city in spec.get("stations", []):
            state["station_at"][city] = seat
            state["stations"][seat] -= 1
    return finish_by_drawing(state)


def column(view: pb.TtrEuropeView, field: str) -> list[int]:
    return [getattr(score, field) for score in view.final_scores]


# Seat layouts reused below. Erzurum-Sochi-Rostov: 4 + 2 route points, path 5, completes Erzurum-Rostov (5).
EAST = [("Erzurum", "Sochi"), ("Sochi", "Rostov")]
# Paris-Frankfurt-Essen: 4 + 2 route points, path 5.
WEST = [("Paris", "Frankfurt"), ("Frankfurt", "Essen")]
# Paris-Frankfurt-Munchen-Wien: 4 + 2 + 4 route points, path 8.
ALPS = [("Paris", "Frankfurt"), ("Frankfurt", "Munchen"), ("Munchen", "Wien")]


@pytest.mark.rule("TTR-061")
def test_more_tickets_beat_fewer_stations() -> None:
    """29 each. Seat 0 completed 1 ticket and built 1 station; seat 1 completed none and built none.
    Tickets come first, so seat 0 wins (ranking stations first would pick seat 1)."""
    view = play_out({"routes": EAST, "tickets": [("Erzurum", "Rostov")], "stations": ["Lisboa"]},
                    {"routes": [*WEST, ("Budapest", "Wien")]})
    assert column(view, "total") == [29, 29] and column(view, "express_bonus") == [10, 10]
    assert column(view, "completed_tickets") == [1, 0] and column(view, "stations_used") == [1, 0]
    assert list(view.winners) == [0]


@pytest.mark.rule("TTR-061")
def test_fewer_stations_beat_the_express() -> None:
    """25 each, no tickets. Seat 0 built no station and has no bonus (path 3); seat 1 built one and
    holds the European Express (path 4). Stations come before the bonus, so seat 0 wins."""
    view = play_out({"routes": [("Athina", "Sofia"), ("Paris", "Frankfurt"), ("Kyiv", "Smolensk"),
                                ("Budapest", "Wien")]},
                    {"routes": [("Kharkov", "Moskva")], "stations": ["Lisboa"]})
    assert column(view, "total") == [25, 25] and column(view, "completed_tickets") == [0, 0]
    assert column(view, "stations_used") == [0, 1] and column(view, "express_bonus") == [0, 10]
    assert list(view.winners) == [0]


@pytest.mark.rule("TTR-061")
def test_more_tickets_beat_the_express() -> None:
    """23 each, no station built. Seat 0 completed a ticket; seat 1 failed Berlin-Roma (-9) but holds
    the European Express (path 8). Tickets come before the bonus, so seat 0 wins."""
    view = play_out({"routes": EAST, "tickets": [("Erzurum", "Rostov")]},
                    {"routes": ALPS, "tickets": [("Berlin", "Roma")]})
    assert column(view, "total") == [23, 23] and column(view, "stations_used") == [0, 0]
    assert column(view, "completed_tickets") == [1, 0] and column(view, "express_bonus") == [0, 10]
    assert list(view.winners) == [0]


@pytest.mark.rule("TTR-060", "TTR-061")
def test_points_come_before_every_tie_break() -> None:
    """Seat 1 has one point more (34 to 33) but fewer tickets, more stations and the same bonus: it wins."""
    view = play_out({"routes": EAST, "tickets": [("Erzurum", "Rostov")]},
                    {"routes": [*WEST, ("Athina", "Sofia"), ("Kyiv", "Smolensk"), ("Budapest", "Wien"),
                                ("Amsterdam", "Bruxelles")], "stations": ["Lisboa"]})
    assert column(view, "total") == [33, 34] and column(view, "express_bonus") == [10, 10]
    assert column(view, "completed_tickets") == [1, 0] and column(view, "stations_used") == [0, 1]
    assert list(view.winners) == [1]


@pytest.mark.rule("TTR-061")
def test_players_level_on_everything_share_the_win() -> None:
    view = play_out({"routes": WEST}, {"routes": [("Angora", "Constantinople"), ("Constantinople", "Sofia")]},
                    {"routes": [("Munchen", "Wien")]})
    assert column(view, "total") == [28, 28, 16] and list(view.winners) == [0, 1]


@pytest.mark.rule("TTR-057")
@pytest.mark.parametrize("routes, longest", [
    # A closed loop: every city has two of the player's routes, the trail walks it whole.
    ([("Berlin", "Frankfurt"), ("Frankfurt", "Essen"), ("Essen", "Berlin")], 7),
    # The loop with a tail: Warszawa-Berlin-Frankfurt-Essen-Berlin passes Berlin twice.
    ([("Berlin", "Frankfurt"), ("Frankfurt", "Essen"), ("Essen", "Berlin"), ("Berlin", "Warszawa")], 11),
    # Two loops sharing Berlin (a figure eight), walked whole: 3 + 2 + 2 + 4 + 2 + 4.
    ([("Berlin", "Frankfurt"), ("Frankfurt", "Essen"), ("Essen", "Berlin"), ("Berlin", "Danzig"),
      ("Danzig", "Warszawa"), ("Berlin", "Warszawa")], 17),
    # A branch: only two of the three arms at Frankfurt are on one trail.
    ([("Paris", "Frankfurt"), ("Frankfurt", "Munchen"), ("Munchen", "Wien"), ("Frankfurt", "Essen")], 8),
    # Two separate networks: the longer counts, they are never added.
    ([("Munchen", "Wien"), ("Kharkov", "Kyiv"), ("Moskva", "Kharkov")], 8),
])
def test_longest_path_shapes(routes: list[tuple[str, str]], longest: int) -> None:
    """Seat 1's single route (Budapest-Wien, 1) never wins the bonus; seat 0's network does."""
    view = play_out({"routes": routes}, {"routes": [("Budapest", "Wien")]})
    assert column(view, "longest_path") == [longest, 1]
    assert column(view, "express_bonus") == [10, 0]


@pytest.mark.rule("TTR-059", "TTR-051")
def test_a_borrowed_route_does_not_lengthen_the_path() -> None:
    """Seat 0 owns Kyiv-Kharkov (4) and Rostov-Sochi-Erzurum (2 + 3); its station in Kharkov borrows
    seat 1's Kharkov-Rostov (2) for Kyiv-Sochi (8). Through the borrowed route the path would be 11;
    it stays 5, so seat 1's Paris-Frankfurt-Munchen-Wien (8) takes the European Express."""
    view = play_out({"routes": [("Kyiv", "Kharkov"), ("Rostov", "Sochi"), ("Sochi", "Erzurum")],
                     "tickets": [("Kyiv", "Sochi")], "stations": ["Kharkov"]},
                    {"routes": [("Kharkov", "Rostov"), *ALPS]})
    first = view.final_scores[0]
    assert list(first.borrowed_route_ids) == [route_id("Kharkov", "Rostov")]
    assert [(t.ticket.id, t.completed) for t in first.tickets] == [(ticket("Kyiv", "Sochi"), True)]
    assert column(view, "longest_path") == [5, 8] and column(view, "express_bonus") == [0, 10]


@pytest.mark.rule("TTR-054")
@pytest.mark.parametrize("built", [0, 1, 2, 3])
def test_each_unused_station_scores_four(built: int) -> None:
    view = play_out({"stations": ["Lisboa", "Cadiz", "Madrid"][:built]}, {})
    assert column(view, "station_points") == [4 * (3 - built), 12]
    assert column(view, "stations_used") == [built, 0]


@pytest.mark.rule("TTR-056")
def test_completed_tickets_add_and_failed_ones_subtract() -> None:
    """Seat 0 completes Berlin-Roma (9) and fails Stockholm-Wien (11): -2 in tickets."""
    view = play_out({"routes": [("Berlin", "Wien"), ("Wien", "Zagrab"), ("Zagrab", "Venezia"),
                                ("Venezia", "Roma")], "tickets": [("Berlin", "Roma"), ("Stockholm", "Wien")]}, {})
    assert column(view, "ticket_points") == [-2, 0] and column(view, "completed_tickets") == [1, 0]
    assert [t.completed for t in view.final_scores[0].tickets] == [True, False]


@pytest.mark.rule("TTR-058")
def test_tied_longest_paths_each_take_the_bonus() -> None:
    """Seats 0 and 2 both have a path of 9, seat 1 has 8: 10 points each to seats 0 and 2 only."""
    view = play_out({"routes": [("Berlin", "Wien"), ("Wien", "Zagrab"), ("Zagrab", "Venezia"),
                                ("Venezia", "Roma")]},
                    {"routes": ALPS},
                    {"routes": [("Kharkov", "Kyiv"), ("Kyiv", "Smolensk"), ("Kharkov", "Rostov")]})
    assert column(view, "longest_path") == [9, 8, 9]
    assert column(view, "express_bonus") == [10, 0, 10]


@pytest.mark.rule("TTR-052")
@pytest.mark.parametrize("stations, done", [(["Moskva"], False), (["Petrograd", "Kharkov"], True)])
def test_two_opponent_routes_need_two_stations(stations: list[str], done: bool) -> None:
    """Kyiv-Petrograd (6): seat 0 owns only Kharkov-Kyiv; seat 1 owns Petrograd-Moskva and Moskva-Kharkov."""
    view = play_out({"routes": [("Kharkov", "Kyiv")], "tickets": [("Kyiv", "Petrograd")], "stations": stations},
                    {"routes": [("Petrograd", "Moskva"), ("Moskva", "Kharkov")]})
    assert column(view, "ticket_points")[0] == (6 if done else -6)
    assert len(view.final_scores[0].borrowed_route_ids) == (2 if done else 0)


@pytest.mark.rule("TTR-053")
def test_a_station_borrows_one_route_for_all_tickets() -> None:
    """Seat 0's station in Wien sits by seat 1's Wien-Budapest and seat 2's Munchen-Wien; Paris-Wien (8)
    needs the one, Budapest-Sofia (5) the other. It picks Munchen-Wien: +8 - 5."""
    view = play_out({"routes": [("Paris", "Frankfurt"), ("Frankfurt", "Munchen"), ("Wien", "Zagrab"),
                                ("Zagrab", "Sarajevo"), ("Sarajevo", "Sofia")],
                     "tickets": [("Paris", "Wien"), ("Budapest", "Sofia")], "stations": ["Wien"]},
                    {"routes": [("Wien", "Budapest")]}, {"routes": [("Munchen", "Wien")]})
    first = view.final_scores[0]
    assert [t.completed for t in first.tickets] == [True, False] and first.ticket_points == 3
    assert list(first.borrowed_route_ids) == [route_id("Munchen", "Wien")]


@pytest.mark.rule("TTR-055")
@pytest.mark.parametrize("seats", [2, 3, 4, 5])
def test_last_round_gives_every_seat_one_more_turn(seats: int) -> None:
    """Seat 0 ends a turn on 2 trains: seats 1..n-1 and then seat 0 each play once more, then it is over."""
    state = started(seats)
    state["trains"][0] = 2
    order = []
    while not ttr.is_over(state):
        seat = state["turn"]
        order.append(seat)
        ttr.apply(state, seat, {"kind": "draw_card", "slot": None})
        ttr.apply(state, seat, {"kind": "draw_card", "slot": None})
    assert order == [0, *range(1, seats), 0]


@pytest.mark.rule("TTR-057")
@pytest.mark.parametrize("routes, bonus", [([], [0, 0]), ([("Budapest", "Wien")], [10, 0])])
def test_express_needs_a_route(routes: list[tuple[str, str]], bonus: list[int]) -> None:
    """Interpretation (docs/ttr_europe.md): nobody with no route at all wins the bonus; the shortest
    route there is (length 1) is already a path that can."""
    view = play_out({"routes": routes}, {})
    assert column(view, "express_bonus") == bonus


@pytest.mark.rule("TTR-051")
@pytest.mark.parametrize("own, station, other, needed, ends", [
    # The station's city is the second end of both opponent routes in the board data...
    (("Sofia", "Sarajevo"), "Sarajevo", ("Athina", "Sarajevo"), ("Budapest", "Sarajevo"), ("Sofia", "Budapest")),
    # ...and here the first end of both.
    (("Constantinople", "Smyrna"), "Constantinople", ("Constantinople", "Sevastopol"),
     ("Constantinople", "Sofia"), ("Smyrna", "Sofia")),
])
def test_the_station_picks_the_route_its_ticket_needs(own: tuple[str, str], station: str, other: tuple[str, str],
                                                      needed: tuple[str, str], ends: tuple[str, str]) -> None:
    """Seat 0 owns one route and a station at its end, where seat 1 owns two routes to cities off seat 0's
    network: the station borrows the one its 5-point ticket needs, listed after the other one."""
    view = play_out({"routes": [own], "tickets": [ends], "stations": [station]},
                    {"routes": [other, needed]})
    first = view.final_scores[0]
    assert first.ticket_points == 5 and list(first.borrowed_route_ids) == [route_id(*needed)]
