"""GetRuleset over REST: the catalog as JSON, its caching headers, its refusals, and the issue's proof
that a new frontend developer can draw the Ticket to Ride board from the catalog alone.

``render_board`` below is what such a developer would write: it reads nothing but the JSON of
``GET /v1/rulesets/ttr-europe`` and prints an SVG; the test then finds every route of the reference
data (``shared/reference/ttr_europe.json``) drawn between its two cities.
"""

from __future__ import annotations

import re
from typing import Any
from xml.etree import ElementTree

import pytest

from tabletop_server.rest.routes import PUBLIC_MAX_AGE
from tests import references
from tests.rest.rest_api import Api

SVG = "{http://www.w3.org/2000/svg}"
# How a frontend might paint each route colour; gray is any one colour.
PAINT = {"TTR_COLOR_PURPLE": "#8e44ad", "TTR_COLOR_WHITE": "#eeeeee", "TTR_COLOR_BLUE": "#2e86de",
         "TTR_COLOR_YELLOW": "#f1c40f", "TTR_COLOR_ORANGE": "#e67e22", "TTR_COLOR_BLACK": "#222222",
         "TTR_COLOR_RED": "#e74c3c", "TTR_COLOR_GREEN": "#27ae60", "TTR_COLOR_GRAY": "#95a5a6"}


def render_board(catalog: dict[str, Any]) -> str:
    """An SVG of the board from a ``TtrEuropeCatalog`` in proto3 JSON, and nothing else: a line per route
    (a double route's two lines side by side), a circle and a label per city."""
    box = catalog["viewBox"]
    where = {c["name"]: (c["x"], c["y"]) for c in catalog["cities"]}
    view_box = f'{box.get("minX", 0)} {box.get("minY", 0)} {box["width"]} {box["height"]}'
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="{view_box}">']
    for route in catalog["routes"]:
        (x1, y1), (x2, y2) = where[route["cityA"]], where[route["cityB"]]
        shift = 3 if route.get("doubleRouteId", route["id"]) < route["id"] else 0  # the second of a pair, aside
        dash = ' stroke-dasharray="4 2"' if route.get("tunnel") else ""
        parts.append(f'<line id="route-{route["id"]}" data-a="{route["cityA"]}" data-b="{route["cityB"]}" '
                     f'x1="{x1 + shift}" y1="{y1 + shift}" x2="{x2 + shift}" y2="{y2 + shift}" '
                     f'stroke="{PAINT[route["color"]]}" stroke-width="4"{dash}><title>{route["length"]} '
                     f'({route["points"]} points)</title></line>')
    for city in catalog["cities"]:
        parts.append(f'<circle id="city-{city["name"]}" cx="{city["x"]}" cy="{city["y"]}" r="5"/>'
                     f'<text x="{city["x"] + 6}" y="{city["y"] - 6}">{city["label"]}</text>')
    return "".join(parts) + "</svg>"


def test_the_ttr_board_is_drawn_from_the_catalog_alone(api: Api) -> None:
    reply = api.get("/v1/rulesets/ttr-europe")
    assert reply.status_code == 200, reply.text
    svg = ElementTree.fromstring(render_board(reply.json()["ttrEurope"]))
    cities = {c.get("id", "").removeprefix("city-"): (float(c.get("cx", "")), float(c.get("cy", "")))
              for c in svg.iter(f"{SVG}circle")}
    lines = {int(line.get("id", "").removeprefix("route-")): line for line in svg.iter(f"{SVG}line")}
    ref = references.load("ttr_europe.json")
    assert set(cities) == {c["name"] for c in ref["cities"]}
    assert set(lines) == {r["id"] for r in ref["routes"]}
    for route in ref["routes"]:
        line = lines[route["id"]]
        start = (float(line.get("x1", "")), float(line.get("y1", "")))
        end = (float(line.get("x2", "")), float(line.get("y2", "")))
        a, b = cities[route["a"]], cities[route["b"]]
        assert _near(start, a) and _near(end, b), f"route {route['id']} is not drawn from {route['a']} to {route['b']}"
    labels = {t.text for t in svg.iter(f"{SVG}text")}
    assert labels == {c["label"] for c in ref["cities"]}


def test_the_bang_catalog_as_json(api: Api) -> None:
    body = api.get("/v1/rulesets/bang").json()
    assert body["ruleset"]["id"] == "bang" and "ttrEurope" not in body
    cards = {c["key"]: c for c in body["bang"]["cards"]}
    assert cards["bang"]["name"] == "BANG!" and cards["bang"]["color"] == "BANG_CARD_COLOR_BROWN"
    assert "expansion" not in cards["bang"]  # the base game: unspecified, left out of the JSON
    assert {cp.get("expansion") for cp in cards["bang"]["copies"]} == {None, "BANG_EXPANSION_DODGE_CITY",
                                                                      "BANG_EXPANSION_ARMED_AND_DANGEROUS"}
    assert cards["bible"]["expansion"] == "BANG_EXPANSION_DODGE_CITY" and cards["bible"]["text"]
    # Armed & Dangerous: an orange card's own cube cost, an upgradable card's upgrade cost.
    assert (cards["whip"]["color"], cards["whip"]["cubeCost"]) == ("BANG_CARD_COLOR_ORANGE", 3)
    assert cards["caravan"]["upgradeCost"] == 2 and "cubeCost" not in cards["caravan"]
    assert cards["bang"]["copies"][0]["card"] == {"id": "base.bang.2c", "name": "bang", "suit": "BANG_SUIT_CLUBS",
                                                  "rank": "2"}
    roles = {r["role"]: r for r in body["bang"]["roles"]}
    assert roles["BANG_ROLE_SHERIFF"]["revealed"] is True and roles["BANG_ROLE_OUTLAW"]["goal"]


@pytest.mark.parametrize("ruleset", ["ttr-europe", "bang"])
def test_the_catalog_is_cacheable_by_etag(api: Api, ruleset: str) -> None:
    first = api.get(f"/v1/rulesets/{ruleset}")
    etag = first.headers["ETag"]
    assert re.fullmatch(r'"[0-9a-f]{32}"', etag) and etag == first.json()["etag"]
    assert first.headers["Cache-Control"] == f"public, max-age={PUBLIC_MAX_AGE}"
    again = api.get(f"/v1/rulesets/{ruleset}", "not-read-here")  # the catalog is the same for every caller
    assert again.status_code == 200 and again.headers["ETag"] == etag and again.content == first.content
    assert again.headers["Cache-Control"] == f"public, max-age={PUBLIC_MAX_AGE}"
    for header in (etag, f"W/{etag}", f'"other", {etag}', "*"):
        unchanged = api.get(f"/v1/rulesets/{ruleset}", headers={"If-None-Match": header})
        assert unchanged.status_code == 304 and unchanged.content == b"" and unchanged.headers["ETag"] == etag
    changed = api.get(f"/v1/rulesets/{ruleset}", headers={"If-None-Match": '"0123"'})
    assert changed.status_code == 200 and changed.content == first.content


def test_the_ruleset_etags_differ(api: Api) -> None:
    assert api.get("/v1/rulesets/ttr-europe").headers["ETag"] != api.get("/v1/rulesets/bang").headers["ETag"]


@pytest.mark.parametrize(("path", "status", "reason"), [
    ("/v1/rulesets/monopoly", 404, "RULESET_NOT_FOUND"),
    ("/v1/rulesets/TTR", 400, "INVALID_NAME"),
    ("/v1/rulesets/ttr_europe", 400, "INVALID_NAME"),
])
def test_unknown_and_malformed_rulesets_are_refused(api: Api, path: str, status: int, reason: str) -> None:
    reply = api.get(path)
    assert reply.status_code == status, reply.text
    assert reply.json()["error"]["details"][0]["reason"] == reason
    assert "public" not in reply.headers.get("Cache-Control", "")  # an error is not kept


# Helpers

def _near(point: tuple[float, float], city: tuple[float, float]) -> bool:
    return abs(point[0] - city[0]) <= 3 and abs(point[1] - city[1]) <= 3
