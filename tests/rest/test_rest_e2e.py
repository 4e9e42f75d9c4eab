"""REST end to end over real HTTP against the real gRPC service: the happy paths and headers."""

from __future__ import annotations

import re
import uuid
from typing import Any

from tabletop_server.rest.handlers import metadata
from tabletop_server.rest.routes import ROUTES
from tests.rest.rest_api import Api

EACH_SHAPE = True  # what depends on the channel: tested in process and over gRPC (tests/rest/conftest.py)


def _first_decider(api: Api, name: str, tokens: dict[int, str]) -> tuple[int, list[dict[str, Any]]]:
    for seat, token in tokens.items():
        reply = api.get(f"/v1/{name}:legalActions", token)
        assert reply.status_code == 200, reply.text
        actions = reply.json().get("actions", [])
        if actions:
            return seat, actions
    raise AssertionError("no seat has a legal action")


def test_rulesets_lists_ttr_europe(api: Api) -> None:
    reply = api.get("/v1/rulesets")
    assert reply.status_code == 200, reply.text
    assert reply.headers["Content-Type"] == "application/json"
    ids = [r["id"] for r in reply.json()["rulesets"]]
    assert "ttr-europe" in ids


def test_create_join_view_act_log(api: Api) -> None:
    created = api.post("/v1/games", json={"ruleset": "ttr-europe", "seatCount": 3, "displayNames": ["ann"]})
    assert created.status_code == 200, created.text
    game = created.json()["game"]
    name, tokens = game["name"], {0: created.json()["credentials"][0]["playerToken"]}
    assert name.startswith("games/") and game["status"] == "GAME_STATUS_WAITING"
    for display_name in ("bob", "cid"):
        joined = api.post(f"/v1/{name}:join", json={"displayName": display_name})
        assert joined.status_code == 200, joined.text
        credential = joined.json()["credential"]
        tokens[credential["seat"]] = credential["playerToken"]
    assert sorted(tokens) == [0, 1, 2]
    assert joined.json()["game"]["status"] == "GAME_STATUS_ACTIVE"

    view = api.get(f"/v1/{name}", tokens[1])
    assert view.status_code == 200, view.text
    assert view.json()["viewerSeat"] == 1 and "ttrEurope" in view.json()["view"]
    version = int(view.json()["game"]["version"])
    assert view.headers["ETag"] == f'"{version}"'

    seat, actions = _first_decider(api, name, tokens)
    acted = api.post(f"/v1/{name}:act", tokens[seat], json={"action": actions[0]})
    assert acted.status_code == 200, acted.text
    assert int(acted.json()["game"]["version"]) == version + 1
    assert acted.headers["ETag"] == f'"{version + 1}"'
    assert acted.json()["events"], "the action caused no event"

    log = api.get(f"/v1/{name}/log", tokens[seat])
    assert log.status_code == 200, log.text
    entries = log.json()["entries"]
    assert int(entries[-1]["version"]) == version + 1
    assert entries[-1]["seat"] == seat and entries[-1]["action"] == actions[0]  # own action shown back
    assert not log.json().get("complete", False) and "seed" not in log.json()


def test_spectator_view_has_no_seat(api: Api) -> None:
    name, _ = api.create_game()
    reply = api.get(f"/v1/{name}")
    assert reply.status_code == 200, reply.text
    assert "viewerSeat" not in reply.json()
    assert api.get(f"/v1/{name}:legalActions").json().get("actions", []) == []


def test_if_none_match_gives_304_until_the_game_changes(api: Api) -> None:
    name, tokens = api.create_game()
    first = api.get(f"/v1/{name}", tokens[0])
    etag = first.headers["ETag"]
    cached = api.get(f"/v1/{name}", tokens[0], headers={"If-None-Match": etag})
    assert cached.status_code == 304 and cached.content == b"" and cached.headers["ETag"] == etag
    seat, actions = _first_decider(api, name, tokens)
    assert api.post(f"/v1/{name}:act", tokens[seat], json={"action": actions[0]}).status_code == 200
    fresh = api.get(f"/v1/{name}", tokens[0], headers={"If-None-Match": etag})
    assert fresh.status_code == 200 and fresh.headers["ETag"] != etag


def test_head_is_the_get_without_its_body(api: Api) -> None:
    """HEAD of a GET route takes the same request path: the GET's status and headers, no body."""
    name, tokens = api.create_game()
    get = api.get(f"/v1/{name}", tokens[0])
    head = api.call("HEAD", f"/v1/{name}", tokens[0])
    assert head.status_code == 200 and head.content == b""
    for header in ("ETag", "Cache-Control", "Vary", "Content-Type", "Content-Length"):
        assert head.headers[header] == get.headers[header], header
    missing = api.call("HEAD", "/v1/games/nosuchgame")
    assert missing.status_code == 404 and missing.content == b""
    assert api.call("HEAD", f"/v1/{name}:act").status_code == 405  # a POST route: no HEAD


def test_if_match_stale_is_412_and_changes_nothing(api: Api) -> None:
    name, tokens = api.create_game()
    version = api.version(name)
    seat, actions = _first_decider(api, name, tokens)
    stale = api.post(
        f"/v1/{name}:act", tokens[seat], json={"action": actions[0]}, headers={"If-Match": f'"{version - 1}"'}
    )
    assert stale.status_code == 412, stale.text
    error = stale.json()["error"]
    assert error["status"] == "FAILED_PRECONDITION" and error["reason"] == "STALE_VERSION"
    types = [d["@type"].rsplit("/", 1)[-1] for d in error["details"]]
    assert "google.rpc.ErrorInfo" in types and "google.rpc.PreconditionFailure" in types
    assert api.version(name) == version
    fresh = api.post(
        f"/v1/{name}:act", tokens[seat], json={"action": actions[0]}, headers={"If-Match": f'"{version}"'}
    )
    assert fresh.status_code == 200, fresh.text
    assert api.version(name) == version + 1


def test_idempotency_key_returns_the_first_response(api: Api) -> None:
    name, tokens = api.create_game()
    version = api.version(name)
    seat, actions = _first_decider(api, name, tokens)
    key = {"Idempotency-Key": uuid.uuid4().hex}
    first = api.post(f"/v1/{name}:act", tokens[seat], json={"action": actions[0]}, headers=key)
    again = api.post(f"/v1/{name}:act", tokens[seat], json={"action": actions[0]}, headers=key)
    assert first.status_code == again.status_code == 200, (first.text, again.text)
    assert again.json() == first.json()
    assert api.version(name) == version + 1


def test_idempotency_key_conflicting_with_body_request_id_is_400(api: Api) -> None:
    name, tokens = api.create_game()
    seat, actions = _first_decider(api, name, tokens)
    reply = api.post(
        f"/v1/{name}:act",
        tokens[seat],
        json={"action": actions[0], "requestId": "a"},
        headers={"Idempotency-Key": "b"},
    )
    assert reply.status_code == 400 and reply.json()["error"]["reason"] == "CONFLICTING_FIELD"


def test_request_id_is_echoed_and_health_endpoints(api: Api) -> None:
    reply = api.get("/healthz", headers={"X-Request-Id": "trace-1"})
    assert reply.status_code == 200 and reply.headers["X-Request-Id"] == "trace-1"
    ready = api.get("/readyz")
    assert ready.status_code == 200 and ready.json() == {"status": "SERVING"}


def test_query_parameters_fill_get_request_fields(api: Api) -> None:
    name, _ = api.create_game()
    # fromVersion is a WatchGameRequest field; a bad value is rejected before any stream opens.
    reply = api.get(f"/v1/{name}:watch?fromVersion=abc")
    assert reply.status_code == 400 and reply.json()["error"]["reason"] == "INVALID_FIELD"
    assert "fromVersion" in reply.json()["error"]["message"]


def test_metadata_forwards_headers_and_the_client_address() -> None:
    environ = {
        "HTTP_AUTHORIZATION": "Bearer t",
        "HTTP_X_API_KEY": "k",
        "HTTP_X_REQUEST_ID": "r",
        "REMOTE_ADDR": "10.0.0.7",
        "HTTP_X_FORWARDED_FOR": "203.0.113.9",
    }
    assert metadata(environ) == [
        ("authorization", "Bearer t"),
        ("x-api-key", "k"),
        ("x-request-id", "r"),
        ("x-forwarded-for", "203.0.113.9, 10.0.0.7"),
    ]
    assert metadata({"REMOTE_ADDR": "10.0.0.7"}) == [("x-forwarded-for", "10.0.0.7")]


def test_metadata_names_the_game_a_route_is_about_for_routing() -> None:
    """``x-tabletop-game`` for a gRPC balancer that keeps each game on one replica (deploy/README.md,
    "Game-affinity routing"): from a REST route's path, or as the client sent it (Connect, gRPC-Web)."""
    assert metadata({"PATH_INFO": "/v1/games/g7:act"}) == [("x-tabletop-game", "g7")]
    assert metadata({"PATH_INFO": "/v1/games/g7/log"}) == [("x-tabletop-game", "g7")]
    assert metadata({"PATH_INFO": "/v1/games"}) == []
    assert metadata({"PATH_INFO": "/v1/tickets/t1"}) == []
    assert metadata({"PATH_INFO": "/tabletop.v1.GameService/GetGame", "HTTP_X_TABLETOP_GAME": "g8"}) == [
        ("x-tabletop-game", "g8")]
    assert metadata({"PATH_INFO": "/v1/games/g7:act", "HTTP_X_TABLETOP_GAME": "g8"}) == [("x-tabletop-game", "g8")]


def test_every_unary_route_of_the_protos_takes_the_one_request_path(rest_server: Any) -> None:
    """The dispatcher's routes are the contract's (rest.routes, from the protos): a new RPC with an http rule is
    served without REST code, in each deployment shape, and no unary route is left to another path."""
    dispatcher = rest_server.app.unary
    unary = [route for route in ROUTES if not route.streaming]
    assert unary and sorted(h.route.name for _, _, h, _ in dispatcher.routes) == sorted(r.name for r in unary)
    for route in unary:
        matched = dispatcher.match(route.verb, re.sub(r"\{[a-z_0-9]+\}", "x1", route.openapi_path))
        assert matched is not None and matched[0].route is route, route.name
