"""The Ticket to Ride: Europe board: cities, routes, tickets and rule constants.

The facts live in ``data/europe.json`` (copied from ``shared/reference/ttr_europe.json``,
see TTR_NOTES.md sections 1 and 4). They are loaded once at import into frozen
dataclasses and validated: duplicate ids, unknown cities, bad colours and the
published totals all fail loudly with the offending row named (DESIGN 6). Every
table the rules need per request (routes by city, double-route partners, points)
is precomputed here, so the hot path never scans the board.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from typing import Any

# Card codes used inside the state: 0..7 are the colours, 8 is the locomotive.
COLORS: tuple[str, ...] = ("purple", "white", "blue", "yellow", "orange", "black", "red", "green")
LOCO = 8
CARD_NAMES: tuple[str, ...] = (*COLORS, "loco")
CARD_CODE: dict[str, int] = {name: code for code, name in enumerate(CARD_NAMES)}
GRAY = -1  # the colour code of a gray (any one colour) route


class BoardDataError(ValueError):
    """The data file breaks an invariant; the message names the row."""


@dataclass(frozen=True)
class City:
    """A city on the board."""

    name: str
    label: str
    x: int
    y: int


@dataclass(frozen=True)
class Route:
    """A route between two cities (one of a double pair is its own route)."""

    id: int
    a: str
    b: str
    length: int
    color: int  # 0..7, or GRAY
    tunnel: bool
    locomotives: int  # locomotives a ferry requires (0: not a ferry)
    double_group: int | None
    points: int


@dataclass(frozen=True)
class Ticket:
    """A destination ticket."""

    id: int
    a: str
    b: str
    points: int
    long: bool


@dataclass(frozen=True)
class Rules:
    """The numeric constants of the rules (TTR_NOTES section 1, ``rules``)."""

    min_players: int
    max_players: int
    trains: int
    stations: int
    station_costs: tuple[int, ...]
    unused_station_points: int
    per_color: int
    locomotives: int
    total_cards: int
    initial_hand: int
    face_up: int
    loco_reset: int
    setup_long: int
    setup_regular: int
    setup_keep: int
    draw_tickets: int
    draw_keep: int
    tunnel_reveal: int
    express_bonus: int
    end_trains: int
    doubles_single_use_max: int


# The totals TTR_NOTES section 4 publishes; a data file that disagrees is rejected.
EXPECTED_TOTALS = {
    "cities": 47,
    "routes": 101,
    "route_spaces": 300,
    "tunnels": 18,
    "ferries": 13,
    "ferry_locomotives": 17,
    "double_pairs": 11,
    "gray_routes": 37,
    "tickets": 46,
    "long_tickets": 6,
    "ticket_points": 444,
}


def load(raw: dict[str, Any]) -> tuple[dict[str, City], dict[int, Route], dict[int, Ticket], Rules]:
    """Parse and validate the data file; raises BoardDataError naming the bad row."""
    cities = _load_cities(raw["cities"])
    points = _route_points(raw["rules"])
    routes = _load_routes(raw["routes"], cities, points)
    tickets = _load_tickets(raw["tickets"], cities)
    rules = _load_rules(raw["rules"])
    _check_totals(cities, routes, tickets, rules)
    return cities, routes, tickets, rules


def totals(cities: dict[str, City], routes: dict[int, Route], tickets: dict[int, Ticket]) -> dict[str, int]:
    """The board totals, keyed as EXPECTED_TOTALS."""
    return {
        "cities": len(cities),
        "routes": len(routes),
        "route_spaces": sum(r.length for r in routes.values()),
        "tunnels": sum(r.tunnel for r in routes.values()),
        "ferries": sum(r.locomotives > 0 for r in routes.values()),
        "ferry_locomotives": sum(r.locomotives for r in routes.values()),
        "double_pairs": len({r.double_group for r in routes.values()} - {None}),
        "gray_routes": sum(r.color == GRAY for r in routes.values()),
        "tickets": len(tickets),
        "long_tickets": sum(t.long for t in tickets.values()),
        "ticket_points": sum(t.points for t in tickets.values()),
    }


# Helpers (the board itself is loaded at the end of the module, once they exist)


def _load_cities(rows: list[dict[str, Any]]) -> dict[str, City]:
    cities: dict[str, City] = {}
    for i, row in enumerate(rows):
        name = row.get("name")
        if not isinstance(name, str) or not name:
            raise BoardDataError(f"cities[{i}]: missing name")
        if name in cities:
            raise BoardDataError(f"cities[{i}] {name!r}: duplicate city")
        cities[name] = City(name, str(row.get("label", name)), int(row["x"]), int(row["y"]))
    return cities


def _route_points(rules: dict[str, Any]) -> dict[int, int]:
    """Route length -> points, shortest first."""
    return dict(sorted((int(k), int(v)) for k, v in rules["route_points"].items()))


def _load_routes(rows: list[dict[str, Any]], cities: dict[str, City],
                 points: dict[int, int]) -> dict[int, Route]:
    routes: dict[int, Route] = {}
    groups: dict[int, list[Route]] = {}
    for i, row in enumerate(rows):
        where = f"routes[{i}] (id {row.get('id')})"
        rid = int(row["id"])
        if rid in routes:
            raise BoardDataError(f"{where}: duplicate route id")
        for end in (row["a"], row["b"]):
            if end not in cities:
                raise BoardDataError(f"{where}: unknown city {end!r}")
        if row["a"] == row["b"]:
            raise BoardDataError(f"{where}: a route must join two different cities")
        color = row["color"]
        if color != "gray" and color not in COLORS:
            raise BoardDataError(f"{where}: unknown colour {color!r}")
        length, locos = int(row["length"]), int(row["locomotives"])
        if length not in points:
            raise BoardDataError(f"{where}: no points for length {length}")
        if not 0 <= locos <= length or bool(row.get("ferry", locos > 0)) != (locos > 0):
            raise BoardDataError(f"{where}: inconsistent ferry locomotives {locos}")
        group = row.get("double_group")
        route = Route(rid, row["a"], row["b"], length, GRAY if color == "gray" else COLORS.index(color),
                      bool(row["tunnel"]), locos, None if group is None else int(group), points[length])
        routes[rid] = route
        if route.double_group is not None:
            groups.setdefault(route.double_group, []).append(route)
    for group, members in groups.items():
        if len(members) != 2 or {members[0].a, members[0].b} != {members[1].a, members[1].b}:
            raise BoardDataError(f"double_group {group}: needs exactly two routes between the same cities")
    return routes


def _load_tickets(rows: list[dict[str, Any]], cities: dict[str, City]) -> dict[int, Ticket]:
    tickets: dict[int, Ticket] = {}
    for i, row in enumerate(rows):
        where = f"tickets[{i}] (id {row.get('id')})"
        tid = int(row["id"])
        if tid in tickets:
            raise BoardDataError(f"{where}: duplicate ticket id")
        for end in (row["a"], row["b"]):
            if end not in cities:
                raise BoardDataError(f"{where}: unknown city {end!r}")
        tickets[tid] = Ticket(tid, row["a"], row["b"], int(row["points"]), bool(row["long"]))
    return tickets


def _load_rules(raw: dict[str, Any]) -> Rules:
    cards = raw["train_cards"]
    if tuple(cards["colors"]) != COLORS:
        raise BoardDataError(f"rules.train_cards.colors: expected {COLORS}")
    if len(cards["colors"]) * cards["per_color"] + cards["locomotives"] != cards["total"]:
        raise BoardDataError("rules.train_cards: colours x per_color + locomotives != total")
    return Rules(
        min_players=raw["players"][0], max_players=raw["players"][1],
        trains=raw["trains_per_player"], stations=raw["stations_per_player"],
        station_costs=tuple(raw["station_costs"]), unused_station_points=raw["points_per_unused_station"],
        per_color=cards["per_color"], locomotives=cards["locomotives"], total_cards=cards["total"],
        initial_hand=raw["initial_hand"], face_up=raw["face_up_cards"],
        loco_reset=raw["face_up_locomotive_reset_threshold"],
        setup_long=raw["setup_tickets"]["long"], setup_regular=raw["setup_tickets"]["regular"],
        setup_keep=raw["setup_tickets"]["min_keep"], draw_tickets=raw["draw_tickets"]["draw"],
        draw_keep=raw["draw_tickets"]["min_keep"], tunnel_reveal=raw["tunnel_reveal"],
        express_bonus=raw["european_express_bonus"], end_trains=raw["end_trigger_trains_at_most"],
        doubles_single_use_max=raw["double_routes_single_use_max_players"],
    )


def _check_totals(cities: dict[str, City], routes: dict[int, Route], tickets: dict[int, Ticket],
                  rules: Rules) -> None:
    found = totals(cities, routes, tickets)
    for key, expected in EXPECTED_TOTALS.items():
        if found[key] != expected:
            raise BoardDataError(f"totals.{key}: expected {expected}, found {found[key]}")
    if len(rules.station_costs) != rules.stations:
        raise BoardDataError("rules.station_costs: one cost per station expected")


def load_drawing(raw: dict[str, Any]) -> tuple[tuple[int, int, int, int], dict[int, int]]:
    """The map's view box (min x, min y, width, height; y down) and the points per route length: what a
    client needs to draw the board and its scoring table (GetRuleset), beside what the rules read."""
    box = raw["map"]["viewbox"]
    if len(box) != 4 or raw["map"].get("y_axis", "down") != "down":
        raise BoardDataError("map.viewbox: expected [min_x, min_y, width, height] with the y axis down")
    return (int(box[0]), int(box[1]), int(box[2]), int(box[3])), _route_points(raw["rules"])


# The board, loaded once at import.
_RAW = json.loads(resources.files(__package__).joinpath("data/europe.json").read_text(encoding="utf-8"))
CITIES, ROUTES, TICKETS, RULES = load(_RAW)
VIEWBOX, ROUTE_POINTS = load_drawing(_RAW)
ROUTE_IDS: tuple[int, ...] = tuple(sorted(ROUTES))
CITY_NAMES: tuple[str, ...] = tuple(sorted(CITIES))
LONG_TICKETS: tuple[int, ...] = tuple(t.id for t in TICKETS.values() if t.long)
REGULAR_TICKETS: tuple[int, ...] = tuple(t.id for t in TICKETS.values() if not t.long)


def index(cities: dict[str, City], routes: dict[int, Route]) -> tuple[dict[int, int], dict[str, tuple[int, ...]]]:
    """The lookup tables: route id -> the other route of its double pair (absent for single routes), and
    city -> ids of the routes that enter or leave it."""
    by_group: dict[int, list[int]] = {}
    at: dict[str, list[int]] = {name: [] for name in cities}
    for route in routes.values():
        if route.double_group is not None:
            by_group.setdefault(route.double_group, []).append(route.id)
        at[route.a].append(route.id)
        at[route.b].append(route.id)
    partner: dict[int, int] = {}
    for first, second in by_group.values():
        partner[first], partner[second] = second, first
    return partner, {name: tuple(ids) for name, ids in at.items()}


PARTNER, ROUTES_AT = index(CITIES, ROUTES)
