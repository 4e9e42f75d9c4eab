"""Final scoring: tickets with stations, longest path, bonuses, winners (TTR-051..TTR-061)."""

from __future__ import annotations

from itertools import product
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ttr_helpers import give_route, give_tickets, route_id, started

import tabletop_server.service.games.ttr_europe as ttr
from tabletop_server.service.engine.errors import EngineReason, RuleError
from tabletop_server.service.games.ttr_europe.board import ROUTES, ROUTES_AT
from tabletop_server.service.games.ttr_europe.scoring import (
    final_result,
    longest_path,
    ticket_results,
    winners,
)

State = dict[str, Any]


def edges(*pairs: tuple[str, str]) -> list[tuple[str, str, int]]:
    return [(a, b, ROUTES[route_id(a, b)].length) for a, b in pairs]


def ticket(a: str, b: str) -> int:
    from tabletop_server.service.games.ttr_europe.board import TICKETS
    return next(t.id for t in TICKETS.values() if {t.a, t.b} == {a, b})


def scored(state: State, seat: int) -> dict[str, Any]:
    entry: dict[str, Any] = final_result(state)["scores"][seat]
    return entry


@pytest.mark.rule("TTR-057")
def test_longest_path_passes_a_city_twice() -> None:
    graph = edges(("Berlin", "Frankfurt"), ("Frankfurt", "Essen"), ("Essen", "Berlin"),
                  ("Berlin", "Warszawa"))
    assert longest_path(graph) == 11


@pytest.mark.rule("TTR-057")
def test_longest_path_of_a_branch() -> None:
    graph = edges(("Paris", "Frankfurt"), ("Frankfurt", "Munchen"), ("Munchen", "Wien"),
                  ("Frankfurt", "Essen"))
    assert longest_path(graph) == 8


def test_longest_path_shapes() -> None:
    assert longest_path([]) == 0
    assert longest_path(edges(("Munchen", "Wien"))) == 3
    # A closed cycle (every degree even) is walked whole.
    assert longest_path(edges(("Berlin", "Frankfurt"), ("Frankfurt", "Essen"), ("Essen", "Berlin"))) == 7
    # Two separate networks: the longer one counts.
    assert longest_path(edges(("Munchen", "Wien"), ("Kharkov", "Kyiv"), ("Moskva", "Kharkov"))) == 8
    # Figure eight: two cycles sharing Berlin, all degrees even.
    eight = edges(("Berlin", "Frankfurt"), ("Frankfurt", "Essen"), ("Essen", "Berlin"),
                  ("Berlin", "Danzig"), ("Danzig", "Warszawa"), ("Berlin", "Warszawa"))
    assert longest_path(eight) == sum(length for _a, _b, length in eight)


def _brute(graph: list[tuple[str, str, int]]) -> int:
    best = 0

    def walk(city: str, used: frozenset[int], total: int) -> None:
        nonlocal best
        best = max(best, total)
        for i, (a, b, length) in enumerate(graph):
            if i not in used and city in (a, b):
                walk(b if city == a else a, used | {i}, total + length)

    for city in {c for a, b, _l in graph for c in (a, b)}:
        walk(city, frozenset(), 0)
    return best


# A dense corner of the map, so random subsets have cycles and branches.
_AREA = {"Berlin", "Frankfurt", "Essen", "Wien", "Munchen", "Danzig", "Warszawa", "Budapest", "Zagrab",
         "Venezia", "Zurich", "Paris", "Bruxelles", "Amsterdam", "Marseille"}
_AREA_ROUTES = [r for r in ROUTES.values() if r.a in _AREA and r.b in _AREA]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(_AREA_ROUTES), min_size=0, max_size=12, unique=True))
def test_longest_path_matches_brute_force(routes: list[Any]) -> None:
    graph = [(r.a, r.b, r.length) for r in routes]
    assert longest_path(graph) == _brute(graph)


@pytest.mark.rule("TTR-051", "TTR-052")
def test_station_borrows_one_route() -> None:
    state = started(3)
    tid = ticket("Kyiv", "Petrograd")
    give_tickets(state, 0, [tid])
    state["tickets"][0] = [tid]
    give_route(state, 0, route_id("Petrograd", "Moskva"))
    give_route(state, 0, route_id("Kharkov", "Kyiv"))
    give_route(state, 1, route_id("Moskva", "Kharkov"))
    assert scored(state, 0)["tickets"] == -6
    state["station_at"]["Moskva"] = 0
    state["stations"][0] = 2
    entry = scored(state, 0)
    assert entry["tickets"] == 6 and entry["borrowed"] == [route_id("Moskva", "Kharkov")]
    assert entry["results"] == [[tid, True]]
    # TTR-052: with two opponent routes in the way, one station is not enough; two are.
    state = started(3)
    give_tickets(state, 0, [tid])
    state["tickets"][0] = [tid]
    give_route(state, 0, route_id("Kharkov", "Kyiv"))
    give_route(state, 1, route_id("Petrograd", "Moskva"))
    give_route(state, 1, route_id("Moskva", "Kharkov"))
    state["station_at"]["Moskva"] = 0
    assert scored(state, 0)["tickets"] == -6
    del state["station_at"]["Moskva"]
    state["station_at"].update({"Petrograd": 0, "Kharkov": 0})
    assert scored(state, 0)["tickets"] == 6


@pytest.mark.rule("TTR-053")
def test_one_route_per_station_for_all_tickets() -> None:
    state = started(3)
    paris_wien, budapest_sofia = ticket("Paris", "Wien"), ticket("Budapest", "Sofia")
    give_tickets(state, 0, [paris_wien, budapest_sofia])
    state["tickets"][0] = [paris_wien, budapest_sofia]
    for a, b in (("Paris", "Frankfurt"), ("Frankfurt", "Munchen"), ("Wien", "Zagrab"), ("Zagrab", "Sarajevo"),
                 ("Sarajevo", "Sofia")):
        give_route(state, 0, route_id(a, b))
    give_route(state, 1, route_id("Wien", "Budapest", "red"))
    give_route(state, 2, route_id("Munchen", "Wien"))
    state["station_at"]["Wien"] = 0
    entry = scored(state, 0)
    # Borrowing Munchen-Wien completes Paris-Wien (8) and fails Budapest-Sofia (5): +3, the best choice.
    assert entry["results"] == [[paris_wien, True], [budapest_sofia, False]]
    assert entry["tickets"] == 3 and entry["borrowed"] == [route_id("Munchen", "Wien")]


@pytest.mark.rule("TTR-059")
def test_stations_do_not_lengthen_the_path() -> None:
    state = started(2)
    give_route(state, 0, route_id("Kharkov", "Kyiv"))
    give_route(state, 1, route_id("Moskva", "Kharkov"))
    state["station_at"]["Kharkov"] = 0
    assert scored(state, 0)["longest"] == 4


@pytest.mark.rule("TTR-054", "TTR-056", "TTR-058")
def test_score_breakdown() -> None:
    state = started(3)
    berlin_roma, stockholm_wien = ticket("Berlin", "Roma"), ticket("Stockholm", "Wien")
    state["tickets"][0] = []
    give_tickets(state, 0, [berlin_roma, stockholm_wien])
    for seat in (1, 2):
        for t in list(state["tickets"][seat]):
            state["tickets"][seat].remove(t)
            state["box"].append(t)
    for a, b in (("Berlin", "Wien"), ("Wien", "Zagrab"), ("Zagrab", "Venezia"), ("Venezia", "Roma")):
        give_route(state, 0, route_id(a, b))
    # Seat 2 ties seat 0 on the longest path: Rostov-Kharkov-Kyiv-Smolensk, 2 + 4 + 3 = 9.
    give_route(state, 2, route_id("Kharkov", "Kyiv"))
    give_route(state, 2, route_id("Kyiv", "Smolensk"))
    give_route(state, 2, route_id("Kharkov", "Rostov"))
    # Seat 1's path is one short: Paris-Frankfurt-Munchen-Wien, 3 + 2 + 3 = 8 (no bonus, not even near it).
    for a, b in (("Paris", "Frankfurt"), ("Frankfurt", "Munchen"), ("Munchen", "Wien")):
        give_route(state, 1, route_id(a, b))
    state["station_at"]["Roma"] = 0
    state["stations"][0] = 2
    result = final_result(state)
    p0, p1, p2 = result["scores"]
    assert p0["tickets"] == 9 - 11 and p0["stations"] == 8 and p1["stations"] == 12
    assert p0["longest"] == p2["longest"] == 9 and p1["longest"] == 8
    assert p0["express"] == p2["express"] == 10 and p1["express"] == 0
    for entry in result["scores"]:
        assert entry["total"] == entry["routes"] + entry["tickets"] + entry["stations"] + entry["express"]
        assert entry["routes"] == state["score"][entry["seat"]]


@pytest.mark.rule("TTR-060", "TTR-061")
def test_winners_and_tie_breaks() -> None:
    def entry(seat: int, total: int, completed: int = 0, used: int = 0, express: int = 0) -> dict[str, int]:
        return {"seat": seat, "total": total, "completed": completed, "stations_used": used,
                "express": express}
    assert winners([entry(0, 120), entry(1, 98), entry(2, 97)]) == [0]
    assert winners([entry(0, 100, 5), entry(1, 100, 4)]) == [0]
    assert winners([entry(0, 100, 5, 2), entry(1, 100, 5, 1)]) == [1]
    assert winners([entry(0, 100, 5, 1, 0), entry(1, 100, 5, 1, 10)]) == [1]
    assert winners([entry(0, 100, 5, 1, 10), entry(1, 100, 5, 1, 10), entry(2, 3)]) == [0, 1]


def _end_turn_by_drawing(state: State) -> None:
    seat = state["turn"]
    ttr.apply(state, seat, {"kind": "draw_card", "slot": None})
    ttr.apply(state, seat, {"kind": "draw_card", "slot": None})


@pytest.mark.rule("TTR-055")
@pytest.mark.parametrize("left_after, triggers", [(3, False), (2, True), (0, True)])
def test_last_round(left_after: int, triggers: bool) -> None:
    from ttr_helpers import set_hand
    state = started(4)
    _end_turn_by_drawing(state)
    rid = route_id("Munchen", "Wien")  # 3 orange
    state["trains"][1] = left_after + 3
    set_hand(state, 1, {"orange": 3})
    events = ttr.apply(state, 1, {"kind": "claim_route", "route": rid, "color": "orange", "cards": 3,
                                  "locos": 0})
    assert state["trains"][1] == left_after
    if not triggers:
        assert state["phase"] == "play" and state["last"] is None
        return
    assert {"type": "last_round", "seat": 1, "trains": left_after} in events
    assert ttr.view(state, 0).last_round_trigger_seat == 1
    for seat in (2, 3, 0):
        assert state["turn"] == seat and state["phase"] == "last"
        _end_turn_by_drawing(state)
    assert state["turn"] == 1
    ttr.apply(state, 1, {"kind": "draw_tickets"})
    events = ttr.apply(state, 1, {"kind": "keep_tickets", "tickets": state["offered"][1][:1]})
    assert events[-1]["type"] == "game_scored" and ttr.is_over(state)
    assert ttr.to_act(state) == [] and ttr.legal_actions(state, 0) == []
    with pytest.raises(RuleError) as err:
        ttr.apply(state, 2, {"kind": "draw_card", "slot": None})
    assert err.value.reason == EngineReason.GAME_FINISHED
    view = ttr.view(state, 3)
    assert len(view.final_scores) == 4 and list(view.winners) == state["result"]["winners"]
    # Once scored, the players' scores are the final totals, not the route points of play.
    assert [p.score for p in view.players] == [s.total for s in view.final_scores]
    assert [p.score for p in view.players] != state["score"]
    # Every ticket of every player is revealed at the end.
    for score, kept in zip(view.final_scores, state["tickets"]):
        assert [t.ticket.id for t in score.tickets] == kept


def test_assignment_search_is_exhaustive() -> None:
    """The chosen borrowings score at least as much as every other single choice."""
    state = started(3)
    paris_wien, budapest_sofia = ticket("Paris", "Wien"), ticket("Budapest", "Sofia")
    give_tickets(state, 0, [paris_wien, budapest_sofia])
    for a, b in (("Paris", "Frankfurt"), ("Frankfurt", "Munchen"), ("Wien", "Zagrab"), ("Zagrab", "Sarajevo"),
                 ("Sarajevo", "Sofia")):
        give_route(state, 0, route_id(a, b))
    give_route(state, 1, route_id("Wien", "Budapest", "red"))
    give_route(state, 2, route_id("Munchen", "Wien"))
    state["station_at"].update({"Wien": 0, "Budapest": 0})
    # Two stations: one borrows Munchen-Wien, the other Budapest-Wien; both tickets complete.
    entry = scored(state, 0)
    results = {t: ok for t, ok in entry["results"]}
    assert entry["completed"] == sum(results.values())
    assert results[paris_wien] and results[budapest_sofia]
    assert sorted(entry["borrowed"]) == sorted([route_id("Munchen", "Wien"),
                                                route_id("Wien", "Budapest", "red")])


def _root(parent: dict[str, str], city: str) -> str:
    while parent.get(city, city) != city:
        city = parent[city]
    return city


def _brute_tickets(own: list[tuple[str, str, int]], borrowable: list[list[tuple[str, str, int]]],
                   tickets: list[int]) -> tuple[int, int]:
    """Best (ticket points, completed) over every borrowing, without any pruning."""
    from tabletop_server.service.games.ttr_europe.board import TICKETS
    best: tuple[int, int] | None = None
    for pick in product(*[[None, *options] for options in borrowable]):
        graph = own + [edge for edge in pick if edge is not None]
        parent: dict[str, str] = {}
        for a, b, _l in graph:
            parent[_root(parent, a)] = _root(parent, b)
        done = [_root(parent, TICKETS[t].a) == _root(parent, TICKETS[t].b) for t in tickets]
        key = (sum(TICKETS[t].points * (1 if ok else -1) for t, ok in zip(tickets, done)), sum(done))
        best = key if best is None or key > best else best
    assert best is not None
    return best


@settings(max_examples=120, deadline=None)
@given(st.lists(st.integers(-1, 2), min_size=101, max_size=101),
       st.lists(st.sampled_from(sorted(ROUTES_AT)), min_size=0, max_size=3, unique=True),
       st.lists(st.integers(1, 46), min_size=1, max_size=8, unique=True))
def test_station_assignment_matches_brute_force(owners: list[int], cities: list[str],
                                                tickets: list[int]) -> None:
    from tabletop_server.service.games.ttr_europe.board import TICKETS
    from tabletop_server.service.games.ttr_europe.scoring import ticket_results
    own = [(r.a, r.b, r.length) for r in ROUTES.values() if owners[r.id - 1] == 0]
    borrowable = [[(ROUTES[r].a, ROUTES[r].b, ROUTES[r].length) for r in ROUTES_AT[c] if owners[r - 1] > 0]
                  for c in cities]
    results, _pick = ticket_results(own, borrowable, tickets)
    got = (sum(TICKETS[t].points * (1 if ok else -1) for t, ok in zip(tickets, results)), sum(results))
    assert got == _brute_tickets(own, borrowable, tickets)


def test_no_express_bonus_without_routes() -> None:
    state = started(2)
    assert [e["express"] for e in final_result(state)["scores"]] == [0, 0]
    give_route(state, 1, route_id("Munchen", "Wien"))
    assert [e["express"] for e in final_result(state)["scores"]] == [0, 10]


@pytest.mark.rule("TTR-031", "TTR-051")
def test_other_players_route_needs_a_station() -> None:
    """Erzurum-Rostov (5) through Sochi: seat 0 owns Sochi-Rostov, seat 1 owns Erzurum-Sochi."""
    state = started(3)
    tid = ticket("Erzurum", "Rostov")
    state["box"].extend(state["tickets"][0])
    state["tickets"][0] = []
    give_tickets(state, 0, [tid])
    give_route(state, 0, route_id("Rostov", "Sochi"))
    give_route(state, 1, route_id("Erzurum", "Sochi"))
    entry = scored(state, 0)
    assert entry["results"] == [[tid, False]] and entry["tickets"] == -5 and entry["borrowed"] == []
    state["station_at"]["Sochi"] = 0
    state["stations"][0] = 2
    entry = scored(state, 0)
    assert entry["results"] == [[tid, True]] and entry["tickets"] == 5
    assert entry["borrowed"] == [route_id("Erzurum", "Sochi")]


def _clear_tickets(state: State) -> None:
    for seat in range(state["n"]):
        state["box"].extend(state["tickets"][seat])
        state["tickets"][seat] = []


@pytest.mark.rule("TTR-060", "TTR-061")
def test_tie_breaks_in_a_scored_game() -> None:
    """Equal totals: most completed tickets first, then fewest stations built (through final_result)."""
    state = started(2)
    _clear_tickets(state)
    # Seat 0: Erzurum-Sochi-Rostov (3 + 2: 6 points, path 5); completes Erzurum-Rostov (+5), fails
    # Angora-Athina (-5). Seat 1: Paris-Frankfurt-Essen (3 + 2: 6 points, path 5), no tickets.
    give_tickets(state, 0, [ticket("Erzurum", "Rostov"), ticket("Angora", "Athina")])
    for a, b in (("Erzurum", "Sochi"), ("Sochi", "Rostov")):
        give_route(state, 0, route_id(a, b))
    for a, b in (("Paris", "Frankfurt"), ("Frankfurt", "Essen")):
        give_route(state, 1, route_id(a, b))
    result = final_result(state)
    assert [e["total"] for e in result["scores"]] == [28, 28]
    assert [e["completed"] for e in result["scores"]] == [1, 0]
    assert result["winners"] == [0]
    # Same totals and tickets, but seat 0 built a station (4 points fewer) and owns 4 more route points.
    state = started(2)
    _clear_tickets(state)
    for a, b in (("Erzurum", "Sochi"), ("Sochi", "Rostov"), ("Munchen", "Wien")):
        give_route(state, 0, route_id(a, b))
    for a, b in (("Paris", "Frankfurt"), ("Frankfurt", "Essen")):
        give_route(state, 1, route_id(a, b))
    state["station_at"]["Lisboa"] = 0
    state["stations"][0] = 2
    result = final_result(state)
    assert [e["total"] for e in result["scores"]] == [28, 28]
    assert [e["stations_used"] for e in result["scores"]] == [1, 0]
    assert result["winners"] == [1]


@pytest.mark.rule("TTR-057")
def test_longest_trail_between_two_cities_of_three_routes() -> None:
    """Paris and Frankfurt each touch three of the routes (both of the double, and one via Bruxelles):
    the longest trail, all 10 spaces, starts and ends there; from Bruxelles it would be 8."""
    graph = [("Paris", "Frankfurt", 3), ("Frankfurt", "Paris", 3), ("Paris", "Bruxelles", 2),
             ("Bruxelles", "Frankfurt", 2)]
    assert longest_path(graph) == 10
    assert longest_path([*graph, ("Frankfurt", "Munchen", 2)]) == 12


@pytest.mark.rule("TTR-051")
def test_equal_points_then_more_completed_tickets_decide_what_a_station_borrows() -> None:
    """The station may borrow Angora-Kharkov, completing the 10-point ticket (+10 - 5 - 5 = 0), or
    Erzurum-Sofia, completing both 5-point tickets over the owned Budapest-Erzurum and Sofia-Rostov
    (-10 + 5 + 5 = 0). The points tie, so the choice completing more tickets wins, whichever order the
    station's options come in (the edges are made up: only the graph matters here)."""
    own = [("Budapest", "Erzurum", 1), ("Sofia", "Rostov", 1)]
    pair = ("Erzurum", "Sofia", 1)  # joins Budapest-Erzurum-Sofia and Erzurum-Sofia-Rostov
    single = ("Angora", "Kharkov", 1)
    tickets = [ticket("Angora", "Kharkov"), ticket("Budapest", "Sofia"), ticket("Erzurum", "Rostov")]
    assert ticket_results(own, [[single, pair]], tickets) == ([False, True, True], [1])
    assert ticket_results(own, [[pair, single]], tickets) == ([False, True, True], [0])
