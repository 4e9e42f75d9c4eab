"""The board data file: totals and validation (TTR_NOTES section 4)."""

from __future__ import annotations

import copy
import json
import re
from importlib import resources

import pytest

from tabletop_server.service.games.ttr_europe import board


def _raw() -> dict:  # type: ignore[type-arg]
    text = resources.files("tabletop_server.service.games.ttr_europe").joinpath("data/europe.json").read_text("utf-8")
    return json.loads(text)  # type: ignore[no-any-return]


@pytest.mark.rule("TTR-004")
def test_board_totals() -> None:
    found = board.totals(board.CITIES, board.ROUTES, board.TICKETS)
    assert found == board.EXPECTED_TOTALS
    assert len(board.CITIES) == 47 and len(board.ROUTES) == 101 and len(board.TICKETS) == 46
    assert sum(r.length for r in board.ROUTES.values()) == 300
    assert sorted(t.points for t in board.TICKETS.values() if t.long) == [20, 20, 20, 21, 21, 21]
    assert sum(t.points for t in board.TICKETS.values() if not t.long) == 321
    lengths = [r.length for r in board.ROUTES.values()]
    assert {n: lengths.count(n) for n in set(lengths)} == {1: 4, 2: 35, 3: 30, 4: 29, 6: 2, 8: 1}
    for color in range(8):
        assert sum(r.color == color for r in board.ROUTES.values()) == 8
    assert len(board.PARTNER) == 22


@pytest.mark.rule("TTR-003")
def test_rule_constants() -> None:
    rules = board.RULES
    assert (rules.trains, rules.stations, rules.station_costs) == (45, 3, (1, 2, 3))
    assert rules.per_color * 8 + rules.locomotives == rules.total_cards == 110
    assert [board.ROUTES[r].points for r in (1,)] == [1]


@pytest.mark.parametrize("mutate, message", [
    (lambda d: d["routes"].append(dict(d["routes"][0])), "duplicate route id"),
    (lambda d: d["routes"][5].update(a="Atlantis"), "routes[5] (id 6): unknown city 'Atlantis'"),
    (lambda d: d["routes"][7].update(color="pink"), "routes[7] (id 8): unknown colour 'pink'"),
    (lambda d: d["cities"].append(dict(d["cities"][3])), "cities[47] 'Barcelona': duplicate city"),
    (lambda d: d["tickets"][2].update(b="Nowhere"), "tickets[2] (id 3): unknown city 'Nowhere'"),
    (lambda d: d["tickets"].pop(), "totals.tickets: expected 46, found 45"),
    (lambda d: d["routes"][0].update(length=5), "no points for length 5"),
])
def test_validation_names_the_row(mutate, message) -> None:  # type: ignore[no-untyped-def]
    raw = copy.deepcopy(_raw())
    mutate(raw)
    with pytest.raises(board.BoardDataError, match=re.escape(message)):
        board.load(raw)


def test_loaded_data_is_valid() -> None:
    board.load(_raw())
