"""Path planning for the Ticket to Ride: Europe bots: which routes join a seat's ticket cities.

Shortest paths by route length (Dijkstra) over the routes a seat can still use: its own (free),
the unclaimed ones it may claim (their length), and another player's route out of a city where
it has a station (free: the station borrows it at scoring, TTR-051). Tickets are planned in
order of points; the routes chosen for one ticket are free for the next, so tickets that share
a corridor share its routes. When a ticket's cities can no longer be joined, the plan names the
city where a station would reopen the cheapest path over another player's route.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from dataclasses import dataclass, field

from tabletop_server.service.games.ttr_europe.board import PARTNER, ROUTES, ROUTES_AT, RULES, TICKETS, Route

# The cost of crossing another player's route when looking for a station's detour: high, so that
# the detour borrows as few routes as it can.
BORROW_COST = 20


@dataclass(frozen=True)
class Board:
    """The board as one seat sees it: who owns each route (index id - 1) and where stations stand."""

    seat: int
    owners: tuple[int, ...]
    my_stations: frozenset[str]
    players: int
    station_cities: frozenset[str] = field(default_factory=frozenset)
    trains: int = RULES.trains  # a free route longer than the trains left is out of reach

    def cost(self, route: Route, borrow: bool = False) -> int | None:
        """What using ``route`` costs the seat in trains (None: it cannot use it)."""
        owner = self.owners[route.id - 1]
        if owner == self.seat:
            return 0
        if owner >= 0:
            if route.a in self.my_stations or route.b in self.my_stations:
                return 0
            return BORROW_COST if borrow else None
        partner = PARTNER.get(route.id)
        if partner is not None:
            other = self.owners[partner - 1]
            if other == self.seat or (other >= 0 and self.players <= RULES.doubles_single_use_max):
                return None
        return route.length if route.length <= self.trains else None

    def open(self, route: Route) -> bool:
        """Whether the route is unclaimed (and so costs trains to use)."""
        return self.owners[route.id - 1] < 0


@dataclass(frozen=True)
class Plan:
    """The unclaimed routes the seat's tickets still need, their trains, and what is cut."""

    routes: tuple[int, ...]
    trains: int
    unreachable: tuple[int, ...]
    cut_city: str | None


def plan_routes(board: Board, tickets: Sequence[int]) -> Plan:
    """The routes to claim for ``tickets`` (most points first), sharing routes between tickets."""
    chosen: set[int] = set()
    unreachable: list[int] = []
    cut_city: str | None = None
    for tid in sorted(tickets, key=lambda t: (-TICKETS[t].points, t)):
        ticket = TICKETS[tid]
        path = shortest_path(board, ticket.a, ticket.b, chosen)
        if path is None:
            unreachable.append(tid)
            if cut_city is None:
                cut_city = _station_city(board, ticket.a, ticket.b, chosen)
            continue
        chosen.update(rid for rid in path if board.open(ROUTES[rid]))
    routes = tuple(sorted(chosen))
    return Plan(routes, sum(ROUTES[r].length for r in routes), tuple(unreachable), cut_city)


def shortest_path(board: Board, start: str, goal: str, free: set[int], borrow: bool = False) -> list[int] | None:
    """Route ids of a cheapest path from ``start`` to ``goal`` (``free`` routes cost nothing)."""
    best: dict[str, int] = {start: 0}
    came: dict[str, tuple[str, int]] = {}
    queue: list[tuple[int, str]] = [(0, start)]
    while queue:
        dist, city = heapq.heappop(queue)
        if city == goal:
            return _walk_back(came, start, goal)
        if dist > best[city]:
            continue
        for rid in ROUTES_AT[city]:
            route = ROUTES[rid]
            cost = 0 if rid in free else board.cost(route, borrow)
            if cost is None:
                continue
            other = route.b if route.a == city else route.a
            total = dist + cost
            if total < best.get(other, total + 1):
                best[other] = total
                came[other] = (city, rid)
                heapq.heappush(queue, (total, other))
    return None


# Helpers


def _walk_back(came: dict[str, tuple[str, int]], start: str, goal: str) -> list[int]:
    path: list[int] = []
    city = goal
    while city != start:
        city, rid = came[city]
        path.append(rid)
    return path


def _station_city(board: Board, a: str, b: str, chosen: set[int]) -> str | None:
    """Where a station reopens the cut path: an end of the first borrowed route, free of stations."""
    path = shortest_path(board, a, b, chosen, borrow=True)
    for rid in path or ():
        route = ROUTES[rid]
        if board.owners[rid - 1] >= 0 and board.owners[rid - 1] != board.seat:
            for city in (route.a, route.b):
                if city not in board.station_cities:
                    return city
    return None
