"""docs/rest.md keeps up with the code: every route, facade reason and header is documented."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tabletop_server.rest.errors import HTTP_STATUS, Reason
from tabletop_server.rest.routes import ROUTES

DOC = (Path(__file__).resolve().parents[2] / "docs" / "rest.md").read_text()
CURL_LINES = [line for line in DOC.splitlines() if line.lstrip().startswith("curl ")]


def _curl_calls() -> set[tuple[str, str]]:
    """(method, path template) of every curl example, with ``$GAME`` read as ``games/{game}`` and ``$RULESET``
    as ``rulesets/{ruleset}``, ``$PLAYER`` as ``players/{player}``, ``$TICKET`` as ``tickets/{ticket}`` (the query left out)."""
    calls = set()
    for line in CURL_LINES:
        line = line.replace("$GAME", "games/{game}").replace("$RULESET", "rulesets/{ruleset}")
        line = line.replace("$PLAYER", "players/{player}").replace("$TICKET", "tickets/{ticket}")
        match = re.search(r"localhost:8080(/[^\"' ?]*)", line)
        if match:
            calls.add(("POST" if "-X POST" in line else "GET", match.group(1)))
    return calls


@pytest.mark.parametrize("route", ROUTES, ids=lambda r: r.name)
def test_every_route_is_in_the_table_and_has_a_curl_example(route: Any) -> None:
    assert f"| {route.verb} | `{route.openapi_path}` | `{route.name}`" in DOC
    assert (route.verb, route.openapi_path) in _curl_calls(), f"no curl example for {route.name}"


def test_every_facade_reason_is_documented() -> None:
    for reason in Reason:
        if reason is not Reason.INTERNAL:
            assert f"`{reason}`" in DOC, f"{reason} is not in docs/rest.md"


def test_the_status_table_matches_the_code() -> None:
    for code, status in HTTP_STATUS.items():
        if code.name != "OK" and status != 500:
            row = next(
                (line for line in DOC.splitlines() if f"`{code.name}`" in line and line.startswith("|")), ""
            )
            assert row.rstrip(" |").endswith(str(status)) or f"| {status}" in row, (
                f"{code.name} -> {status} not documented"
            )
