"""Hostile inputs on every REST route: a 4xx with the JSON error shape and a stable reason, never
a 5xx, and no game changes; seat views are never cacheable.

Routes come from the contract (``rest.routes.ROUTES``), so a new route is swept too.
"""

from __future__ import annotations

from typing import Any

import pytest
import requests

from tabletop_server.rest.routes import ROUTES
from tests.rest.rest_api import Api

HUGE = "x" * 60_000
INT64_PAST = str(2**63)


def _path(route: Any, game: str) -> str:
    return route.openapi_path.replace("{game}", game.split("/", 1)[1])


def _send(api: Api, route: Any, game: str, headers: dict[str, str] | None = None,
          body: Any = None, query: str = "") -> requests.Response:
    kwargs: dict[str, Any] = {"headers": headers or {}, "stream": route.streaming, "timeout": 10}
    if body is not None:
        kwargs["data"] = body if isinstance(body, (bytes, str)) else None
        if not isinstance(body, (bytes, str)):
            kwargs["json"] = body
    reply = api.call(route.verb, _path(route, game) + query, **kwargs)
    if route.streaming:
        if reply.status_code != 200:
            _ = reply.content  # an error is a short JSON body: read it before closing
        reply.close()
    return reply


def _assert_4xx(reply: requests.Response, what: str) -> str:
    assert 400 <= reply.status_code < 500, f"{what}: {reply.status_code} {reply.text[:300]}"
    error = reply.json()["error"]
    assert error["reason"] and error["reason"] == error["reason"].upper(), what
    assert len(reply.content) < 8192, f"{what}: {len(reply.content)} bytes of error"
    return str(error["reason"])


@pytest.fixture()
def game(api: Api) -> tuple[str, dict[int, str]]:
    return api.create_game(seats=2)


def _hostile_headers(game: str) -> list[dict[str, str]]:
    game_id = game.split("/", 1)[1]
    return [
        {"Authorization": f"Bearer {game_id}." + "9" * 5000 + ".secret"},
        {"Authorization": "Bearer " + "y" * 8000},
        {"If-Match": f'"{INT64_PAST}"'},
        {"If-Match": '"-9223372036854775809"'},
        {"If-Match": '"' + "9" * 5000 + '"'},
        {"Idempotency-Key": "k" * 8000},
        {"Last-Event-ID": INT64_PAST},
        {"X-Api-Key": "a" * 8000, "Authorization": "Basic " + "z" * 4000},
        {"Authorization": "Bearer " + "y" * 20000},  # past gRPC's 8 KiB metadata limit: refused by the facade
    ]


def test_hostile_headers_on_every_route(api: Api, game: tuple[str, dict[int, str]]) -> None:
    name, tokens = game
    before = api.version(name)
    for route in ROUTES:
        for headers in _hostile_headers(name):
            if "Authorization" not in headers and route.name in ("SubmitAction", "ListLegalActions"):
                headers = {**headers, "Authorization": f"Bearer {tokens[0]}"}
            body = {"action": {"ttrEurope": {"drawTrainCard": {}}}} if route.body == "*" else None
            if route.name == "CreateGame":
                body = {"ruleset": "ttr-europe", "seatCount": 2}
            if route.name == "JoinGame":
                body = {"displayName": "late"}
            reply = _send(api, route, name, headers, body)
            reads_token = route.name not in ("ListRulesets", "GetRuleset", "CreateGame", "JoinGame")
            if reply.status_code == 200 and not (reads_token and "9" * 5000 in headers.get("Authorization", "")):
                continue  # a route that ignores this header (the versions below prove nothing changed)
            _assert_4xx(reply, f"{route.name} {list(headers)}")
    assert api.version(name) == before


def test_huge_body_fields_and_query_values(api: Api, game: tuple[str, dict[int, str]]) -> None:
    name, tokens = game
    before = api.version(name)
    auth = {"Authorization": f"Bearer {tokens[0]}"}
    for route in ROUTES:
        fields = [f for f in route.request_class.DESCRIPTOR.fields if f.type == f.TYPE_STRING]
        for field in fields:
            if route.body == "*":
                value: Any = [HUGE] if field.is_repeated else HUGE
                reply = _send(api, route, name, auth, {field.json_name: value})
                _assert_4xx(reply, f"{route.name} body {field.json_name}")
        for key in route.query:
            for value in (HUGE, INT64_PAST + "0", "1e30", "-"):
                reply = _send(api, route, name, auth, query=f"?{key}={value}")
                _assert_4xx(reply, f"{route.name} ?{key}")
    assert api.version(name) == before


def test_a_field_under_both_its_json_and_proto_names_is_refused(api: Api, game: tuple[str, dict[int, str]]) -> None:
    name, tokens = game
    create = api.post("/v1/games", data=b'{"ruleset":"ttr-europe","seatCount":2,"seat_count":3}',
                      headers={"Content-Type": "application/json"})
    assert create.status_code == 400 and create.json()["error"]["reason"] == "DUPLICATE_FIELD"
    assert create.json()["error"]["details"][1]["fieldViolations"][0]["field"] == "seatCount"
    nested = api.post(f"/v1/{name}:act", tokens[0], json={"action": {"ttrEurope": {
        "drawTrainCard": {"faceUpSlot": 1, "face_up_slot": 2}}}})
    assert nested.status_code == 400 and nested.json()["error"]["reason"] == "DUPLICATE_FIELD"
    same_value = api.post("/v1/games", json={"ruleset": "ttr-europe", "seatCount": 2, "seat_count": 2})
    assert same_value.status_code == 400  # even the same value twice: one name per field
    watch = api.get(f"/v1/{name}:watch?fromVersion=1&from_version=2")
    assert watch.status_code == 400 and watch.json()["error"]["reason"] == "DUPLICATE_FIELD"
    assert api.version(name) == 1


def test_seat_views_are_private_no_store_and_spectator_views_revalidate(api: Api) -> None:
    name, tokens = api.create_game(seats=2)
    seat = api.get(f"/v1/{name}", tokens[0])
    spectator = api.get(f"/v1/{name}")
    assert seat.headers["Cache-Control"] == "private, no-store"
    assert spectator.headers["Cache-Control"] == "no-cache"
    assert "Authorization" in spectator.headers["Vary"] and "Authorization" in seat.headers["Vary"]
    for reply in (api.get(f"/v1/{name}:legalActions", tokens[0]),
                  api.post("/v1/games", json={"ruleset": "ttr-europe", "seatCount": 2}),  # a credential
                  api.get(f"/v1/{name}/log", tokens[0])):
        assert reply.status_code == 200 and reply.headers["Cache-Control"] == "private, no-store", reply.url
    watch = api.get(f"/v1/{name}:watch", tokens[0], stream=True)
    watch.close()
    assert watch.headers["Cache-Control"] == "private, no-store"
