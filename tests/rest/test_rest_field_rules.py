"""Every annotated request limit, over REST and in the OpenAPI document: a value just past the
bound is a 400 with the field's reason and is invalid by the document's schema; a value at the
bound is not refused for that reason and is valid by the schema.

The cases are those of the gRPC test (``tests/service/field_rule_cases.py``), read from the
annotations. The gRPC test sends every one; the service checks them, and the facade only carries
values from the path, query or JSON body into the request. So over REST one request goes per
distinct (route, rule, bound) pair, the first case of each that the route's path can carry
(``REST_CASES``): two of a pattern's many samples, one ``target_seat`` maximum for the six BANG!
messages that share it. The OpenAPI document is checked for every case, once (it is one document
whichever way the facade dispatches).
"""

from __future__ import annotations

import re
from typing import Any

import pytest
import requests
from google.protobuf import descriptor_pool, json_format
from google.protobuf.message import Message
from jsonschema import Draft202012Validator, ValidationError, validators
from tabletop.v1 import game_service_pb2 as svc

from tabletop_server.rest.app import create_app, serve
from tabletop_server.rest.routes import ROUTES
from tabletop_server.service.api import field_rules
from tests.rest.rest_api import Api
from tests.service.field_rule_cases import (
    LEGAL_ACTION,
    THIS_GAME,
    UNSET,
    Case,
    annotated_fields,
    cases,
    place,
)

CASES = cases()
BY_METHOD = {r.name: r for r in ROUTES}


def _ecma_pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Any:
    """``pattern`` as JSON Schema defines it (ECMA-262): ``$`` is the end of the string. The
    jsonschema package uses Python's re, whose ``$`` also matches before a final newline."""
    if isinstance(instance, str) and not re.search(pattern.removesuffix("$") + r"\Z", instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


Validator = validators.extend(Draft202012Validator, {"pattern": _ecma_pattern})


@pytest.fixture(scope="module")
def spec(grpc_server: Any) -> Any:
    """The OpenAPI document, as the facade serves it (the same document on every dispatch path)."""
    http = serve(create_app(grpc_server.target), "127.0.0.1", 0)
    try:
        return Api(http.url).get("/openapi.json").json()
    finally:
        http.close()


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


def method_of(field: str) -> str:
    """The first method (in contract order) whose request holds the field, directly or nested."""
    message = descriptor_pool.Default().FindFieldByName(field).containing_type
    for method in svc.DESCRIPTOR.services_by_name["GameService"].methods:
        stack, seen = [method.input_type], set()
        while stack:
            current = stack.pop()
            if current is message:
                return str(method.name)
            seen.add(current.full_name)
            stack += [f.message_type for f in current.fields if f.message_type and f.message_type.full_name not in seen]
    raise AssertionError(f"no method's request holds {field}")


def _bound(rule: field_rules.Rule, limit: str) -> object:
    """The bound a case tests: the pattern itself, the length or value limit, or being required."""
    return rule.pattern.pattern if limit == "pattern" and rule.pattern else getattr(rule, limit, limit)


def _carried(case: Case, route: Any) -> bool:
    """Whether the route's path can carry the case's game name (else the route itself answers 404)."""
    field = descriptor_pool.Default().FindFieldByName(case.field)
    if route.path_variables and "{game}" not in route.openapi_path:
        return False  # a ruleset's path (GetRuleset): _send builds only games' paths; tests/rest cover it
    if field.name != "name" or field.containing_type is not route.method.input_type:
        return True
    if case.value == THIS_GAME:  # a real game's name: carried where the path holds a game (not a ruleset)
        return "{game}" in route.openapi_path
    return isinstance(case.value, str) and _sendable(route, svc.GetGameRequest(name=case.value))


def rest_cases(every: list[Case]) -> list[Case]:
    """One case per distinct (route, rule, bound, accepted or refused), the first whose value the route carries."""
    rules = {r.field.full_name: r for r in annotated_fields()}
    chosen: dict[tuple[object, ...], Case] = {}
    for case in every:
        route = BY_METHOD[method_of(case.field)]
        if _carried(case, route):
            key = (route.name, case.limit, _bound(rules[case.field], case.limit), case.reason, case.accepted)
            chosen.setdefault(key, case)
    return list(chosen.values())


REST_CASES = rest_cases(CASES)


@pytest.mark.parametrize("case", REST_CASES, ids=lambda c: c.id)
def test_each_limit_over_rest(api: Api, stub: Any, case: Case) -> None:
    method, request, token = place(stub, case)
    assert method == method_of(case.field), "the case goes through another route than REST_CASES assumed"
    route = BY_METHOD[method]
    assert _sendable(route, request), "REST_CASES keeps only names the route's path can carry"
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


def test_rest_cases_keep_every_route_rule_and_bound() -> None:
    """The merge drops samples, never a (route, rule, bound) pair with a value REST can carry."""
    rules = {r.field.full_name: r for r in annotated_fields()}

    def key(c: Case) -> tuple[object, ...]:
        return method_of(c.field), c.limit, _bound(rules[c.field], c.limit), c.reason, c.accepted

    carried = {key(c) for c in CASES if _carried(c, BY_METHOD[method_of(c.field)])}
    assert {key(c) for c in REST_CASES} == carried
    assert len(REST_CASES) == len(carried) < len(CASES)
    assert {True, False} == {c.accepted for c in REST_CASES}


# Helpers

def _parameters(spec: dict[str, Any], route: Any, json_name: str) -> list[dict[str, Any]]:
    operation = spec["paths"][route.openapi_path][route.verb.lower()]
    path_param = {"name": "game"} if json_name == "name" else {"name": json_name}
    return [p for p in operation["parameters"] if p["name"] == path_param["name"] and p["in"] in ("path", "query")]
