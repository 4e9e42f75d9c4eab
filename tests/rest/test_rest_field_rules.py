"""Every annotated request limit, over REST and in the OpenAPI document: a value just past the
bound is a 400 with the field's reason and is invalid by the document's schema; a value at the
bound is not refused for that reason and is valid by the schema.

The cases are those of the gRPC test (``tests/service/field_rule_cases.py``), read from the
annotations, sent through the route of their method.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
import requests
from google.protobuf import descriptor_pool, json_format
from google.protobuf.message import Message
from jsonschema import Draft202012Validator, ValidationError, validators

from tabletop_server.rest.routes import ROUTES
from tests.rest.rest_api import Api
from tests.service.field_rule_cases import LEGAL_ACTION, THIS_GAME, UNSET, Case, cases, place

CASES = cases()
BY_METHOD = {r.name: r for r in ROUTES}


def _ecma_pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Any:
    """``pattern`` as JSON Schema defines it (ECMA-262): ``$`` is the end of the string. The
    jsonschema package uses Python's re, whose ``$`` also matches before a final newline."""
    if isinstance(instance, str) and not re.search(pattern.removesuffix("$") + r"\Z", instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


Validator = validators.extend(Draft202012Validator, {"pattern": _ecma_pattern})


@pytest.fixture(scope="module")
def spec(rest_server: Any) -> dict[str, Any]:
    return Api(rest_server.url).get("/openapi.json").json()  # type: ignore[no-any-return]


def _sendable(route: Any, request: Message) -> bool:
    """Whether the request's name fits in the route's path (else the route itself answers 404)."""
    if not route.path_variables:
        return True
    name = getattr(request, "name", "")
    game = name.removeprefix("games/")
    return name.startswith("games/") and bool(game) and "/" not in game and ":" not in game and game.isprintable()


def _send(api: Api, route: Any, request: Message, token: str | None) -> requests.Response:
    fields = json_format.MessageToDict(request)
    path = route.openapi_path.replace("{game}", fields.pop("name", "").removeprefix("games/"))
    kwargs: dict[str, Any] = {"stream": route.streaming, "timeout": 10}
    if route.body == "*":
        kwargs["json"] = fields
    else:
        kwargs["params"] = fields
    reply = api.call(route.verb, path, token, **kwargs)
    if route.streaming:
        if reply.status_code != 200:
            _ = reply.content
        reply.close()
    return reply


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_each_limit_over_rest(api: Api, stub: Any, case: Case) -> None:
    method, request, token = place(stub, case)
    route = BY_METHOD[method]
    if not _sendable(route, request):
        pytest.skip("a name the route's path cannot carry")
    reply = _send(api, route, request, token)
    reason = reply.json()["error"]["reason"] if reply.status_code != 200 else None
    if case.accepted:
        assert reason != case.reason, f"{case.id}: {reply.status_code} {reply.text[:300]}"
    else:
        assert (reply.status_code, reason) == (400, case.reason), reply.text[:300]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_the_openapi_document_states_each_limit(spec: dict[str, Any], case: Case) -> None:
    field = descriptor_pool.Default().FindFieldByName(case.field)
    schema = spec["components"]["schemas"][field.containing_type.full_name]
    json_name = field.json_name
    if case.value is UNSET:
        assert json_name in schema["required"], case.id
        return
    if case.value in (LEGAL_ACTION, THIS_GAME):
        return  # a message or a real game: nothing to check against a bound
    property_schema = {**schema["properties"][json_name], "components": spec["components"]}
    # Items that are messages (a rematch's kept characters) are checked as their JSON.
    value = [json_format.MessageToDict(v) if isinstance(v, Message) else v for v in case.value] \
        if isinstance(case.value, list) else case.value
    valid = Validator(property_schema).is_valid(value)
    assert valid == case.accepted, f"{case.id}: the document says {'valid' if valid else 'invalid'}"
    route = next((r for r in ROUTES if r.method.input_type is field.containing_type), None)
    for parameter in _parameters(spec, route, json_name) if route else []:  # the same limit where it is a path or query parameter
        value = case.value.removeprefix("games/") if parameter["in"] == "path" else case.value
        if parameter["in"] == "path" and not (isinstance(value, str) and case.value.startswith("games/")):
            continue
        assert Validator(parameter["schema"]).is_valid(value) == case.accepted, (case.id, parameter)


# Helpers

def _parameters(spec: dict[str, Any], route: Any, json_name: str) -> list[dict[str, Any]]:
    operation = spec["paths"][route.openapi_path][route.verb.lower()]
    path_param = {"name": "game"} if json_name == "name" else {"name": json_name}
    return [p for p in operation["parameters"] if p["name"] == path_param["name"] and p["in"] in ("path", "query")]
