"""Schemathesis against the live ``/openapi.json``: no 5xx, responses match the schema,
input the schema forbids is rejected.

Bounded: ``MAX_EXAMPLES`` generated requests per operation. WatchGame is excluded (its 200
is an endless event stream, covered by test_rest_sse.py). Schemathesis' own pytest plugin
does not run under pytest 9 here, so each operation's strategy is driven by ``@given``.
"""

from __future__ import annotations

from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis.strategies import booleans
from schemathesis.generation import GenerationMode

from tabletop_server.rest.app import HttpServer
from tabletop_server.rest.routes import ROUTES
from tests.rest.rest_api import Api

MAX_EXAMPLES = 25
CHECKS = [
    schemathesis.checks.not_a_server_error,
    schemathesis.checks.status_code_conformance,
    schemathesis.checks.content_type_conformance,
    schemathesis.checks.response_schema_conformance,
    schemathesis.checks.response_headers_conformance,
]


@pytest.fixture(scope="module")
def rest_schema(rest_server: HttpServer) -> Any:
    return schemathesis.openapi.from_url(f"{rest_server.url}/openapi.json")


@pytest.fixture(scope="module")
def seated_game(rest_server: HttpServer) -> tuple[str, str]:
    """A real game and seat 0's token: generated requests then reach the rules, not just a 404."""
    name, tokens = Api(rest_server.url).create_game()
    return name.removeprefix("games/"), tokens[0]


@pytest.mark.parametrize("route", [r for r in ROUTES if not r.streaming], ids=lambda r: r.name)
def test_operation_conforms_to_the_openapi(
    rest_schema: Any, seated_game: tuple[str, str], route: Any
) -> None:
    operation = rest_schema[route.openapi_path][route.verb]
    game_id, token = seated_game

    @given(case=operation.as_strategy(), real_game=booleans())
    @settings(
        max_examples=MAX_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None
    )
    def check(case: Any, real_game: bool) -> None:
        if real_game and "game" in (case.path_parameters or {}):
            case.path_parameters["game"] = game_id
            case.headers = {**(case.headers or {}), "Authorization": f"Bearer {token}"}
        case.call_and_validate(checks=CHECKS)

    check()


NEGATIVE_EXAMPLES = 10


@pytest.mark.parametrize(
    "route", [r for r in ROUTES if not r.streaming and r.name != "ListRulesets"], ids=lambda r: r.name
)
def test_input_the_schema_forbids_is_rejected(rest_schema: Any, route: Any) -> None:
    """Negative generation: bodies, paths and queries that violate the schema get a 4xx, never a 5xx.

    ListRulesets takes no input, so nothing about it can be invalid.
    """
    operation = rest_schema[route.openapi_path][route.verb]

    @given(case=operation.as_strategy(generation_mode=GenerationMode.NEGATIVE))
    @settings(
        max_examples=NEGATIVE_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None
    )
    def check(case: Any) -> None:
        case.call_and_validate(
            checks=[schemathesis.checks.not_a_server_error, schemathesis.checks.negative_data_rejection]
        )

    check()
