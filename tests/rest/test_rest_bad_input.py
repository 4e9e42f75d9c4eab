"""Bad REST input: each gets a clear JSON error, the right status, and changes nothing."""

from __future__ import annotations

import socket
from typing import Any

import pytest

from tabletop_server.rest.app import create_app, serve
from tests.conftest import start_grpc
from tests.rest.rest_api import Api

EACH_SHAPE = True  # what depends on the channel: tested in process and over gRPC (tests/rest/conftest.py)


@pytest.fixture
def game(api: Api) -> tuple[str, dict[int, str], dict[str, Any], int]:
    """A fresh game, a seat able to act, one of its legal actions, and the version."""
    name, tokens = api.create_game()
    for seat, token in tokens.items():
        actions = api.get(f"/v1/{name}:legalActions", token).json().get("actions", [])
        if actions:
            return name, {seat: token, **tokens}, actions[0], api.version(name)
    raise AssertionError("no seat can act")


def _error(reply: Any, http: int, status: str, reason: str | None = None) -> dict[str, Any]:
    assert reply.status_code == http, reply.text
    assert reply.headers["Content-Type"] == "application/json"
    error: dict[str, Any] = reply.json()["error"]
    assert set(error) == {"code", "status", "message", "reason", "details"}
    assert error["code"] == http and error["status"] == status and error["message"]
    if reason is not None:
        assert error["reason"] == reason, error
    infos = [d for d in error["details"] if d["@type"].endswith("google.rpc.ErrorInfo")]
    assert len(infos) == 1 and infos[0]["reason"] == error["reason"] and infos[0]["domain"] == "tabletop.dev"
    return error


def _seat(tokens: dict[int, str], action: dict[str, Any], api: Api, name: str) -> int:
    for seat, token in tokens.items():
        if action in api.get(f"/v1/{name}:legalActions", token).json().get("actions", []):
            return seat
    raise AssertionError("nobody may take the action")


def test_malformed_json(api: Api, game: Any) -> None:
    name, tokens, _, version = game
    reply = api.post(
        f"/v1/{name}:act", tokens[0], data=b'{"action": ', headers={"Content-Type": "application/json"}
    )
    _error(reply, 400, "INVALID_ARGUMENT", "MALFORMED_JSON")
    reply = api.post(
        f"/v1/{name}:act", tokens[0], data=b"[1, 2]", headers={"Content-Type": "application/json"}
    )
    assert "JSON object" in _error(reply, 400, "INVALID_ARGUMENT", "MALFORMED_JSON")["message"]
    assert api.version(name) == version


def test_unknown_fields_are_named(api: Api, game: Any) -> None:
    name, tokens, action, version = game
    seat = _seat(tokens, action, api, name)
    reply = api.post(f"/v1/{name}:act", tokens[seat], json={"action": action, "actoin": 1})
    error = _error(reply, 400, "INVALID_ARGUMENT", "UNKNOWN_FIELD")
    assert "actoin" in error["message"]
    violations = [d for d in error["details"] if d["@type"].endswith("google.rpc.BadRequest")]
    assert violations[0]["fieldViolations"][0]["field"] == "actoin"
    nested = {"action": {"ttrEurope": {"keepTickets": {"ticketIds": [1], "bogus": True}}}}
    error = _error(
        api.post(f"/v1/{name}:act", tokens[seat], json=nested), 400, "INVALID_ARGUMENT", "UNKNOWN_FIELD"
    )
    assert "action.ttrEurope.keepTickets.bogus" in error["message"]
    assert api.version(name) == version


@pytest.mark.parametrize(
    "body, field",
    [
        ({"ruleset": "ttr-europe", "seatCount": "three"}, "seatCount"),
        ({"ruleset": "ttr-europe", "seatCount": 2.5}, "seatCount"),
        ({"ruleset": 5, "seatCount": 3}, "ruleset"),
        ({"ruleset": "ttr-europe", "seatCount": 3, "displayNames": "ann"}, "displayNames"),
        ({"ruleset": "ttr-europe", "seatCount": 3, "seed": -1}, "seed"),
        ({"ruleset": "ttr-europe", "seatCount": 3, "options": {"ttrEurope": {}, "bang": {}}}, "options"),
    ],
)
def test_wrong_types_are_400_naming_the_field(api: Api, body: dict[str, Any], field: str) -> None:
    error = _error(api.post("/v1/games", json=body), 400, "INVALID_ARGUMENT", "INVALID_FIELD")
    assert field in error["message"]


def test_wrong_content_type_is_415(api: Api, game: Any) -> None:
    name, tokens, _, version = game
    reply = api.post(f"/v1/{name}:act", tokens[0], data=b"action=1", headers={"Content-Type": "text/plain"})
    _error(reply, 415, "INVALID_ARGUMENT", "UNSUPPORTED_MEDIA_TYPE")
    assert api.version(name) == version


def test_oversized_body_is_413(api: Api, game: Any) -> None:
    name, tokens, action, version = game
    huge = {"action": action, "requestId": "x" * 70_000}
    _error(api.post(f"/v1/{name}:act", tokens[0], json=huge), 413, "INVALID_ARGUMENT", "BODY_TOO_LARGE")
    assert api.version(name) == version


def test_missing_and_forged_tokens(api: Api, game: Any) -> None:
    name, tokens, action, version = game
    missing = api.post(f"/v1/{name}:act", json={"action": action})
    assert _error(missing, 401, "UNAUTHENTICATED")["reason"]
    assert missing.headers["WWW-Authenticate"] == "Bearer"
    seat = _seat(tokens, action, api, name)
    secret = tokens[seat].rpartition(".")[2]
    forged = tokens[seat][: -len(secret)] + ("A" * len(secret))
    reply = api.post(f"/v1/{name}:act", forged, json={"action": action})
    assert reply.status_code in (401, 403), reply.text
    _error(reply, reply.status_code, "UNAUTHENTICATED" if reply.status_code == 401 else "PERMISSION_DENIED")
    _error(api.post(f"/v1/{name}:act", "garbage", json={"action": action}), 401, "UNAUTHENTICATED")
    other_name, _ = api.create_game()
    reply = api.post(
        f"/v1/{other_name}:act", tokens[seat], json={"action": action}
    )  # right token, wrong game
    assert reply.status_code in (401, 403), reply.text
    assert api.version(name) == version


def test_out_of_turn_is_409_failed_precondition(api: Api, game: Any) -> None:
    name, tokens, action, version = game
    seat = _seat(tokens, action, api, name)
    assert api.post(f"/v1/{name}:act", tokens[seat], json={"action": action}).status_code == 200
    again = api.post(f"/v1/{name}:act", tokens[seat], json={"action": action})  # no longer its decision
    error = _error(again, 409, "FAILED_PRECONDITION")
    assert error["reason"] and error["reason"] == error["reason"].upper()
    assert api.version(name) == version + 1


def test_unknown_game_is_404(api: Api) -> None:
    _error(api.get("/v1/games/doesnotexist"), 404, "NOT_FOUND")


def test_unknown_route_and_wrong_method_are_json(api: Api, game: Any) -> None:
    name, _, _, version = game
    _error(api.get("/v2/games"), 404, "NOT_FOUND", "ROUTE_NOT_FOUND")
    wrong = api.get(f"/v1/{name}:act")  # ":act" is POST only; never a GetGame of "<id>:act"
    _error(wrong, 405, "UNIMPLEMENTED", "METHOD_NOT_ALLOWED")
    assert "POST" in wrong.headers["Allow"]
    _error(api.call("DELETE", f"/v1/{name}"), 405, "UNIMPLEMENTED", "METHOD_NOT_ALLOWED")
    assert api.version(name) == version


def test_path_and_body_disagree_is_400(api: Api, game: Any) -> None:
    name, tokens, action, version = game
    reply = api.post(f"/v1/{name}:act", tokens[0], json={"name": "games/other", "action": action})
    _error(reply, 400, "INVALID_ARGUMENT", "CONFLICTING_FIELD")
    assert api.version(name) == version


def test_bad_headers_and_query(api: Api, game: Any) -> None:
    name, tokens, action, version = game
    bad_if_match = api.post(
        f"/v1/{name}:act", tokens[0], json={"action": action}, headers={"If-Match": "soon"}
    )
    _error(bad_if_match, 400, "INVALID_ARGUMENT", "INVALID_HEADER")
    _error(api.get(f"/v1/{name}?view=full"), 400, "INVALID_ARGUMENT", "UNKNOWN_QUERY_PARAMETER")
    key_on_leave = api.post(f"/v1/{name}:leave", tokens[0], json={}, headers={"Idempotency-Key": "k"})
    _error(key_on_leave, 400, "INVALID_ARGUMENT", "UNSUPPORTED_HEADER")  # LeaveGame takes no request_id
    assert api.version(name) == version


def test_service_errors_map_generically(grpc_server: Any) -> None:
    """RESOURCE_EXHAUSTED -> 429 + Retry-After; DEADLINE_EXCEEDED -> 504; UNAVAILABLE -> 503."""
    big = serve(create_app(grpc_server.target, max_body_bytes=1 << 20), "127.0.0.1", 0)
    silent = socket.create_server(("127.0.0.1", 0))  # accepts TCP, never speaks HTTP/2
    hasty = serve(create_app(f"127.0.0.1:{silent.getsockname()[1]}", deadline_seconds=0.3), "127.0.0.1", 0)
    dead = serve(create_app("127.0.0.1:1", deadline_seconds=2), "127.0.0.1", 0)
    try:
        names = ["n" * 100] * 1000  # over the service's own request limit, under this facade's
        reply = Api(big.url).post(
            "/v1/games", json={"ruleset": "ttr-europe", "seatCount": 3, "displayNames": names}
        )
        _error(reply, 429, "RESOURCE_EXHAUSTED")
        assert int(reply.headers["Retry-After"]) >= 1
        _error(Api(hasty.url).get("/v1/rulesets"), 504, "DEADLINE_EXCEEDED")
        _error(Api(dead.url).get("/v1/rulesets"), 503, "UNAVAILABLE")
        _error(Api(dead.url).get("/readyz"), 503, "UNAVAILABLE")
        assert Api(dead.url).get("/healthz").status_code == 200
    finally:
        for server in (big, hasty, dead):
            server.close()
        silent.close()


def test_rate_limit_is_429_with_retry_after_from_retry_info(redis_url: str) -> None:
    limited = start_grpc(redis_url, rate_limit_per_token=0.5)
    rest = serve(create_app(limited.target), "127.0.0.1", 0)
    try:
        api = Api(rest.url)
        name, tokens = api.create_game()
        assert api.get(f"/v1/{name}", tokens[0]).status_code == 200
        reply = api.get(f"/v1/{name}", tokens[0])  # the same token again at once: over 0.5 calls/s
        error = _error(reply, 429, "RESOURCE_EXHAUSTED", "RATE_LIMITED")
        assert any(d["@type"].endswith("google.rpc.RetryInfo") for d in error["details"])
        assert 1 <= int(reply.headers["Retry-After"]) <= 2
    finally:
        rest.close()
        limited.running.stop(0)


def test_api_key_is_forwarded(redis_url: str) -> None:
    keyed = start_grpc(redis_url, api_keys="k-123")
    rest = serve(create_app(keyed.target), "127.0.0.1", 0)
    try:
        api = Api(rest.url)
        body = {"ruleset": "ttr-europe", "seatCount": 2, "displayNames": ["a", "b"]}
        _error(api.post("/v1/games", json=body), 401, "UNAUTHENTICATED", "API_KEY_REQUIRED")
        _error(api.post("/v1/games", json=body, headers={"x-api-key": "nope"}), 403, "PERMISSION_DENIED")
        assert api.post("/v1/games", json=body, headers={"x-api-key": "k-123"}).status_code == 200
    finally:
        rest.close()
        keyed.running.stop(0)


def test_readyz_is_503_while_the_service_is_not_serving(redis_url: str) -> None:
    draining = start_grpc(redis_url)
    rest = serve(create_app(draining.target), "127.0.0.1", 0)
    try:
        api = Api(rest.url)
        assert api.get("/readyz").status_code == 200
        draining.running.stopping.set()  # what stop() does first: health goes NOT_SERVING
        draining.running.set_serving(False)
        error = _error(api.get("/readyz"), 503, "UNAVAILABLE", "NOT_SERVING")
        assert "NOT_SERVING" in error["message"]
        assert api.get("/healthz").status_code == 200
    finally:
        rest.close()
        draining.running.stop(0)


def test_the_flask_app_served_without_the_asgi_front_says_so(grpc_server: Any) -> None:
    """The contract routes are answered only by rest.app.serve's front (rest.dispatch); the bare Flask app (any
    other WSGI server) answers them with a 500 in the JSON shape that names the cause, and calls nothing."""
    client = create_app(grpc_server.target).test_client()
    reply = client.post("/v1/games", json={"ruleset": "ttr-europe", "seatCount": 2})
    assert reply.status_code == 500 and reply.json is not None
    error = reply.json["error"]
    assert error["status"] == "INTERNAL" and "rest.app.serve" in error["message"]
    assert client.get("/healthz").status_code == 200 and client.get("/v2/nothing").status_code == 404


def test_a_streaming_route_other_than_watch_says_where_it_is_served(api: Api) -> None:
    """WatchPlayer's route is in the contract, but only :watch (WatchGame) is served as SSE: the request is still
    refused as the stream refuses it (no player: 401 PLAYER_REQUIRED; bad input: its 400, test_rest_field_rules),
    and one the stream would accept gets a 501 naming where it is served (rest.app._not_sse)."""
    _error(api.get("/v1/players/me:watch"), 401, "UNAUTHENTICATED", "PLAYER_REQUIRED")
