"""Final scoring (TTR_NOTES section 5, "Stations at scoring" and "Final scoring"; TTR-051..TTR-061).

- Route points were scored during play (``state["score"]``).
- Each ticket adds its value when its cities are joined by the player's own routes
  plus, per built station, at most one route of another player that enters or
  leaves the station's city; otherwise it subtracts its value. The owner chooses
  each station's route at the end, once for all tickets, so we try every
  assignment and keep the one that scores most (then completes most tickets).
- 4 points per unused station.
- European Express: 10 to every player tied for the longest continuous path of
  their own routes (a trail: cities may repeat, routes may not; stations and
  borrowed routes never count).
- Winners: most points, then most completed tickets, then fewest stations built,
  then the European Express bonus (TTR_NOTES "Tie-break"); players still level all win.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import product
from typing import Any

from tabletop_server.service.games.ttr_europe.board import ROUTES, ROUTES_AT, RULES, TICKETS
from tabletop_server.service.games.ttr_europe.layout import State

Edge = tuple[str, str, int]  # city, city, length


def final_result(state: State) -> dict[str, Any]:
    """Every player's score breakdown and the winners' seats."""
    owner: list[int] = state["owner"]
    count = state["n"]
    owned: list[list[int]] = [[] for _ in range(count)]
    for index, seat in enumerate(owner):
        if seat >= 0:
            owned[seat].append(index + 1)
    stations: list[list[str]] = [[] for _ in range(count)]
    for city, seat in state["station_at"].items():
        stations[seat].append(city)
    scores = [_score_seat(state, seat, owned, stations[seat]) for seat in range(count)]
    best_path = max(s["longest"] for s in scores)
    for entry in scores:
        # Interpretation: a player without a single route has no path to be longest with.
        entry["express"] = RULES.express_bonus if entry["longest"] == best_path > 0 else 0
        entry["total"] = entry["routes"] + entry["tickets"] + entry["stations"] + entry["express"]
    return {"scores": scores, "winners": winners(scores, state.get("conceded", ()))}


def winners(scores: Sequence[dict[str, Any]], conceded: Iterable[int] = ()) -> list[int]:
    """The seats ranked first by points and the tie-breaks (TTR-060, TTR-061); a seat that
    conceded ranks below every seat that did not (``concede.py``)."""
    out = set(conceded)
    top = max(_rank(entry, out) for entry in scores)
    return [entry["seat"] for entry in scores if _rank(entry, out) == top]


def standings(state: State) -> list[tuple[list[int], int]] | None:
    """Every seat alone, with its place (1 first; equal places tie) by the winners' order: points and the
    tie-breaks, a seat that conceded below every other (docs/ratings.md). None until final scoring."""
    result = state.get("result")
    if not result:
        return None
    out = set(state.get("conceded", ()))
    keys = [_rank(entry, out) for entry in result["scores"]]
    return [([entry["seat"]], 1 + sum(other > key for other in keys))
            for entry, key in zip(result["scores"], keys, strict=True)]


def longest_path(edges: Sequence[Edge]) -> int:
    """The longest trail's length: cities may repeat, edges may not (TTR-057)."""
    adjacency: dict[str, list[tuple[int, str, int]]] = {}
    for index, (a, b, length) in enumerate(edges):
        adjacency.setdefault(a, []).append((index, b, length))
        adjacency.setdefault(b, []).append((index, a, length))
    used = [False] * len(edges)
    best = 0
    for component in _components(adjacency):
        odd = [city for city in component if len(adjacency[city]) % 2]
        if not odd:
            # Every degree even: an Euler circuit uses the whole component.
            best = max(best, sum(length for a, _b, length in edges if a in component))
            continue
        # An open longest trail ends at odd-degree cities (else it could be extended).
        for start in odd:
            best = max(best, _trail(adjacency, used, start))
    return best


def ticket_results(own: Iterable[Edge], borrowable: Sequence[Sequence[Edge]],
                   tickets: Sequence[int]) -> tuple[list[bool], list[int]]:
    """Best completion of ``tickets``: own edges plus at most one edge per station.

    ``borrowable[i]`` lists the edges station ``i`` may borrow. Returns each ticket's
    result and the index chosen per station (-1 for none).
    """
    parent: dict[str, str] = {}
    for a, b, _length in own:
        _union(parent, a, b)
    base = {city: _find(parent, city) for city in list(parent)}
    choices = [_useful(base, edges) for edges in borrowable]
    best: tuple[int, int] | None = None
    best_results: list[bool] = []
    best_pick: list[int] = [-1] * len(borrowable)
    for pick in product(*[[(-1, None)] + options for options in choices]):
        links: dict[str, str] = {}
        for _index, edge in pick:
            if edge is not None:
                _union(links, base.get(edge[0], edge[0]), base.get(edge[1], edge[1]))
        results = [_joined(base, links, TICKETS[t].a, TICKETS[t].b) for t in tickets]
        key = (sum(TICKETS[t].points * (1 if ok else -1) for t, ok in zip(tickets, results)), sum(results))
        if best is None or key > best:
            best, best_results, best_pick = key, results, [index for index, _edge in pick]
    return best_results, best_pick


# Helpers

def _rank(entry: dict[str, Any], conceded: set[int]) -> tuple[bool, int, int, int, int]:
    """The order of TTR-060/061: not conceded, points, completed tickets, fewer stations, the Express."""
    return entry["seat"] not in conceded, entry["total"], entry["completed"], -entry["stations_used"], entry["express"]



def _score_seat(state: State, seat: int, owned: list[list[int]], stations: list[str]) -> dict[str, Any]:
    own = [(ROUTES[r].a, ROUTES[r].b, ROUTES[r].length) for r in owned[seat]]
    borrowable_ids = [[r for r in ROUTES_AT[city] if state["owner"][r - 1] not in (-1, seat)]
                      for city in stations]
    borrowable = [[(ROUTES[r].a, ROUTES[r].b, ROUTES[r].length) for r in ids] for ids in borrowable_ids]
    tickets = state["tickets"][seat]
    results, pick = ticket_results(own, borrowable, tickets)
    ticket_points = sum(TICKETS[t].points * (1 if ok else -1) for t, ok in zip(tickets, results))
    return {
        "seat": seat, "routes": sum(ROUTES[r].points for r in owned[seat]), "tickets": ticket_points,
        "stations": RULES.unused_station_points * state["stations"][seat], "express": 0, "total": 0,
        "longest": longest_path(own), "completed": sum(results),
        "stations_used": RULES.stations - state["stations"][seat],
        "borrowed": [ids[i] for ids, i in zip(borrowable_ids, pick) if i >= 0],
        "results": [[t, ok] for t, ok in zip(tickets, results)],
    }


def _useful(base: dict[str, str], edges: Sequence[Edge]) -> list[tuple[int, Edge | None]]:
    """Borrowable edges that join two different own components, one per component pair."""
    seen: set[frozenset[str]] = set()
    found: list[tuple[int, Edge | None]] = []
    for index, edge in enumerate(edges):
        ends = frozenset((base.get(edge[0], edge[0]), base.get(edge[1], edge[1])))
        if len(ends) == 2 and ends not in seen:
            seen.add(ends)
            found.append((index, edge))
    return found


def _joined(base: dict[str, str], links: dict[str, str], a: str, b: str) -> bool:
    root_a, root_b = base.get(a, a), base.get(b, b)
    return root_a == root_b or _find(links, root_a) == _find(links, root_b)


def _find(parent: dict[str, str], city: str) -> str:
    root = city
    while parent.get(root, root) != root:
        root = parent[root]
    while city != root:
        parent[city], city = root, parent[city]
    return root


def _union(parent: dict[str, str], a: str, b: str) -> None:
    parent.setdefault(a, a)
    parent.setdefault(b, b)
    root_a, root_b = _find(parent, a), _find(parent, b)
    if root_a != root_b:
        parent[root_a] = root_b


def _components(adjacency: dict[str, list[tuple[int, str, int]]]) -> list[set[str]]:
    seen: set[str] = set()
    found: list[set[str]] = []
    for city in adjacency:
        if city in seen:
            continue
        component, stack = {city}, [city]
        while stack:
            for _e, other, _l in adjacency[stack.pop()]:
                if other not in component:
                    component.add(other)
                    stack.append(other)
        seen |= component
        found.append(component)
    return found


def _trail(adjacency: dict[str, list[tuple[int, str, int]]], used: list[bool], city: str) -> int:
    best = 0
    for edge, other, length in adjacency[city]:
        if not used[edge]:
            used[edge] = True
            best = max(best, length + _trail(adjacency, used, other))
            used[edge] = False
    return best
