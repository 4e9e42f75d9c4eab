"""A frontend can draw the Ticket to Ride board from GetRuleset alone (issue 15): the web client's
``#/board/ttr-europe`` page, drawn from the catalog only, holds every route of the game's data as a
line between its two cities, with its colour, tunnel and ferry marks."""

from __future__ import annotations

import math
from typing import Any

from tabletop_server.service.games.ttr_europe.board import CITIES, ROUTES
from tests.web.seats import VERSION_WAIT_MS, Seat

GAP = 7  # clients/web/src/ttr/board.ts DOUBLE_ROUTE_GAP: a double route's two lines are shifted apart


def test_every_route_is_drawn_between_its_cities(browser: Any, web_url: str) -> None:
    seat = Seat(browser, web_url)
    try:
        page = seat.page
        page.goto(f"{web_url}/#/board/ttr-europe")
        page.locator("#app[data-ready='board']").wait_for(timeout=VERSION_WAIT_MS)
        drawn: dict[int, dict[str, Any]] = {}
        for group in page.locator("g[data-route]").all():
            line = group.locator("line.track").first
            drawn[int(group.get_attribute("data-route") or -1)] = {
                "from": group.get_attribute("data-from"), "to": group.get_attribute("data-to"),
                "tunnel": group.get_attribute("data-tunnel"), "ferry": group.get_attribute("data-ferry"),
                "ends": [float(line.get_attribute(k) or "nan") for k in ("x1", "y1", "x2", "y2")]}
        assert set(drawn) == set(ROUTES), "every route of the data, and no other, is drawn"
        for rid, route in ROUTES.items():
            got = drawn[rid]
            assert {got["from"], got["to"]} == {route.a, route.b}, rid
            a, b = (CITIES[got["from"]], CITIES[got["to"]])
            x1, y1, x2, y2 = got["ends"]
            assert math.dist((x1, y1), (a.x, a.y)) <= GAP and math.dist((x2, y2), (b.x, b.y)) <= GAP, rid
            assert (got["tunnel"] not in (None, "false")) == route.tunnel, rid
            assert int(got["ferry"] or 0) == route.locomotives
        cities = {c.get_attribute("data-city") for c in page.locator("g[data-city]").all()}
        assert cities == set(CITIES)
    finally:
        seat.close()


def test_every_city_label_lies_inside_the_map(browser: Any, web_url: str) -> None:
    """No label is clipped at the map's edge (issue 31: "Rostov" at the right edge was)."""
    seat = Seat(browser, web_url)
    try:
        page = seat.page
        page.goto(f"{web_url}/#/board/ttr-europe")
        page.locator("#app[data-ready='board']").wait_for(timeout=VERSION_WAIT_MS)
        x0, y0, width, height = (float(v) for v in (page.get_by_test_id("board").get_attribute("viewBox") or "").split())
        boxes = page.evaluate("""() => [...document.querySelectorAll("g[data-city] text")].map((t) => {
          const b = t.getBBox(); return [t.parentElement.dataset.city, b.x, b.y, b.width, b.height]; })""")
        assert len(boxes) == len(CITIES)
        outside = [city for city, x, y, w, h in boxes
                   if x < x0 or y < y0 or x + w > x0 + width or y + h > y0 + height]
        assert not outside, outside
        assert all(w > 0 for _, _, _, w, _ in boxes)
    finally:
        seat.close()
