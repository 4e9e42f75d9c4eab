"""The board loader, called directly: every row becomes the object it describes, every bad row is named.

The board is loaded once at import, before any test runs, so a broken loader would only show in the
module-level tables if the tests that read them ran in a fresh interpreter. These tests call
``board.load`` and ``board.index`` themselves on the data file (and on damaged copies of it) and check the
result against the file's own rows and the rulebook's numbers (TTR_NOTES sections 1 and 4).
"""

from __future__ import annotations

import copy
import json
import re
from importlib import resources
from typing import Any

import pytest

from tabletop_server.service.games.ttr_europe import board


def _raw() -> dict[str, Any]:
    text = resources.files("tabletop_server.service.games.ttr_europe").joinpath("data/europe.json").read_text("utf-8")
    return json.loads(text)  # type: ignore[no-any-return]


@pytest.mark.rule("TTR-004")
def test_every_city_route_and_ticket_is_loaded_as_written() -> None:
    raw = _raw()
    cities, routes, tickets, _ = board.load(raw)
    assert list(cities) == [row["name"] for row in raw["cities"]]
    for row in raw["cities"]:
        assert cities[row["name"]] == board.City(row["name"], row["label"], row["x"], row["y"])
    points = {1: 1, 2: 2, 3: 4, 4: 7, 6: 15, 8: 21}  # the rulebook's scoring table
    assert list(routes) == [row["id"] for row in raw["routes"]]
    for row in raw["routes"]:
        color = board.GRAY if row["color"] == "gray" else board.COLORS.index(row["color"])
        assert routes[row["id"]] == board.Route(
            row["id"], row["a"], row["b"], row["length"], color, row["tunnel"], row["locomotives"],
            row["double_group"], points[row["length"]])
    assert list(tickets) == [row["id"] for row in raw["tickets"]]
    for row in raw["tickets"]:
        assert tickets[row["id"]] == board.Ticket(row["id"], row["a"], row["b"], row["points"], row["long"])


@pytest.mark.rule("TTR-003")
def test_every_rule_constant_is_loaded_from_the_rulebook_numbers() -> None:
    assert board.load(_raw())[3] == board.Rules(
        min_players=2, max_players=5, trains=45, stations=3, station_costs=(1, 2, 3), unused_station_points=4,
        per_color=12, locomotives=14, total_cards=110, initial_hand=4, face_up=5, loco_reset=3,
        setup_long=1, setup_regular=3, setup_keep=2, draw_tickets=3, draw_keep=1, tunnel_reveal=3,
        express_bonus=10, end_trains=2, doubles_single_use_max=3)


def test_a_city_without_a_label_is_labelled_by_its_name() -> None:
    raw = _raw()
    del raw["cities"][0]["label"]
    assert board.load(raw)[0]["Amsterdam"].label == "Amsterdam"


def test_index_pairs_each_double_route_and_lists_the_routes_at_each_city() -> None:
    cities, routes, _, _ = board.load(_raw())
    partner, routes_at = board.index(cities, routes)
    groups: dict[int, list[int]] = {}
    for r in routes.values():
        if r.double_group is not None:
            groups.setdefault(r.double_group, []).append(r.id)
    expected = {a: b for first, second in groups.values() for a, b in ((first, second), (second, first))}
    assert partner == expected and len(partner) == 22
    assert set(routes_at) == set(cities)
    for name in cities:
        assert routes_at[name] == tuple(r.id for r in routes.values() if name in (r.a, r.b))
    assert (partner, routes_at) == (board.PARTNER, board.ROUTES_AT)


def test_totals_count_each_double_pair_once() -> None:
    cities, routes, tickets, _ = board.load(_raw())
    assert board.totals(cities, routes, tickets) == {
        "cities": 47, "routes": 101, "route_spaces": 300, "tunnels": 18, "ferries": 13, "ferry_locomotives": 17,
        "double_pairs": 11, "gray_routes": 37, "tickets": 46, "long_tickets": 6, "ticket_points": 444}


def _set(section: str, index: int, **values: Any):  # type: ignore[no-untyped-def]
    return lambda d: d[section][index].update(values)


def _rules(*path: str, value: Any):  # type: ignore[no-untyped-def]
    def change(d: dict[str, Any]) -> None:
        node = d["rules"]
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
    return change


def _third_route_in_group(d: dict[str, Any]) -> None:
    grouped = next(r for r in d["routes"] if r["double_group"] is not None)
    d["routes"].append({**grouped, "id": 999})


def _pair_between_other_cities(d: dict[str, Any]) -> None:
    group = next(r["double_group"] for r in d["routes"] if r["double_group"] is not None)
    first, second = (r for r in d["routes"] if r["double_group"] == group)
    other = next(c["name"] for c in d["cities"] if c["name"] not in (first["a"], first["b"]))
    second["a" if second["a"] == first["b"] else "b"] = other


@pytest.mark.parametrize("mutate, message", [
    (_set("cities", 2, name=""), "cities[2]: missing name"),
    (lambda d: d["cities"][2].pop("name"), "cities[2]: missing name"),
    (_set("cities", 2, name=7), "cities[2]: missing name"),
    (lambda d: d["routes"][3].update(b=d["routes"][3]["a"]), "routes[3] (id 4): a route must join two different cities"),
    (_set("routes", 0, locomotives=2), "routes[0] (id 1): inconsistent ferry locomotives 2"),
    (_set("routes", 0, locomotives=-1), "routes[0] (id 1): inconsistent ferry locomotives -1"),
    (_set("routes", 0, ferry=True), "routes[0] (id 1): inconsistent ferry locomotives 0"),
    (_third_route_in_group, "double_group 1: needs exactly two routes between the same cities"),
    (_pair_between_other_cities, "double_group 1: needs exactly two routes between the same cities"),
    (lambda d: d["tickets"].append(dict(d["tickets"][0])), "tickets[46] (id 1): duplicate ticket id"),
    (_rules("train_cards", "colors", value=["white", "purple", "blue", "yellow", "orange", "black", "red",
                                            "green"]), "rules.train_cards.colors: expected ('purple'"),
    (_rules("train_cards", "total", value=111), "rules.train_cards: colours x per_color + locomotives != total"),
    (_rules("station_costs", value=[1, 2]), "rules.station_costs: one cost per station expected"),
    (_set("routes", 0, tunnel=True), "totals.tunnels: expected 18, found 19"),
])
def test_a_damaged_row_is_refused_by_name(mutate, message) -> None:  # type: ignore[no-untyped-def]
    raw = copy.deepcopy(_raw())
    mutate(raw)
    with pytest.raises(board.BoardDataError, match="^" + re.escape(message)):
        board.load(raw)


def test_a_ferry_row_without_its_flag_is_read_from_its_locomotives() -> None:
    raw = _raw()
    ferry = next(r for r in raw["routes"] if r["locomotives"] == 1)
    del ferry["ferry"]
    assert board.load(raw)[1][ferry["id"]].locomotives == ferry["locomotives"]
    plain = raw["routes"][0]
    del plain["ferry"]
    assert board.load(raw)[1][plain["id"]].locomotives == 0


def test_a_double_pair_written_in_opposite_directions_is_one_pair() -> None:
    raw = _raw()
    group = next(r["double_group"] for r in raw["routes"] if r["double_group"] is not None)
    second = [r for r in raw["routes"] if r["double_group"] == group][1]
    second["a"], second["b"] = second["b"], second["a"]
    routes = board.load(raw)[1]
    assert (routes[second["id"]].a, routes[second["id"]].b) == (second["a"], second["b"])
