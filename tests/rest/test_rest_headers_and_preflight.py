"""Headers every answer carries, and a clear refusal of a disallowed CORS preflight (issue 26).

``X-Content-Type-Options: nosniff`` on every answer (JSON, errors, the event stream, the canned
refusals of the HTTP layer); ``Vary: Origin`` on every answer whenever CORS is configured (an
answer without CORS headers, to another origin, must not be cached for an allowed one); a
preflight from an origin not in ``TABLETOP_CORS_ORIGINS`` gets 403 ``CORS_ORIGIN_NOT_ALLOWED``
naming the origin and the setting, and one log line (at most once a minute per origin).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from tabletop_server.rest.app import HttpServer, create_app, serve
from tests.helpers import create_game


@pytest.fixture(scope="module")
def servers(grpc_server: Any) -> Iterator[tuple[HttpServer, HttpServer]]:
    with_cors = serve(create_app(grpc_server.target, cors_origins=["https://play.example"], heartbeat_seconds=0.5),
                      "127.0.0.1", 0)
    plain = serve(create_app(grpc_server.target, heartbeat_seconds=0.5), "127.0.0.1", 0)
    yield with_cors, plain
    with_cors.close(1)
    plain.close(1)


def _varies(response: requests.Response) -> set[str]:
    return {v.strip().lower() for v in response.headers.get("Vary", "").split(",") if v.strip()}


def test_every_kind_of_answer_says_nosniff(servers: tuple[HttpServer, HttpServer], stub: Any) -> None:
    for server in servers:
        game, tokens = create_game(stub, seats=2)
        name = game.name
        answers = [requests.get(f"{server.url}/v1/rulesets", timeout=5),  # event-loop route
                   requests.get(f"{server.url}/v1/{name}", headers={"Authorization": f"Bearer {tokens[0]}"}, timeout=5),
                   requests.get(f"{server.url}/v1/nothing/here", timeout=5),  # Flask's 404
                   requests.get(f"{server.url}/openapi.json", timeout=5),
                   requests.post(f"{server.url}/v1/games", data="{", headers={"Content-Type": "application/json"},
                                 timeout=5)]
        for answer in answers:
            assert answer.headers.get("X-Content-Type-Options") == "nosniff", (answer.url, answer.status_code)
        with requests.get(f"{server.url}/v1/{name}:watch", stream=True, timeout=5) as watch:
            assert watch.status_code == 200 and watch.headers["X-Content-Type-Options"] == "nosniff"


def test_with_cors_configured_every_answer_varies_by_origin(servers: tuple[HttpServer, HttpServer], stub: Any) -> None:
    with_cors, plain = servers
    name = create_game(stub, seats=2)[0].name
    for origin in ({}, {"Origin": "https://other.example"}, {"Origin": "https://play.example"}):
        for path in ("/v1/rulesets", f"/v1/{name}", "/v1/nothing/here", "/openapi.json"):
            answer = requests.get(f"{with_cors.url}{path}", headers=origin, timeout=5)
            assert "origin" in _varies(answer), (path, origin)
            assert "Origin, Origin" not in answer.headers.get("Vary", "")
        assert "authorization" in _varies(requests.get(f"{with_cors.url}/v1/{name}", headers=origin, timeout=5))
    assert "origin" not in _varies(requests.get(f"{plain.url}/v1/rulesets", timeout=5))


@pytest.mark.parametrize("which", [0, 1])
def test_a_preflight_from_a_disallowed_origin_is_refused_clearly_and_logged_once(
        servers: tuple[HttpServer, HttpServer], which: int, caplog: pytest.LogCaptureFixture) -> None:
    server = servers[which]
    origin = f"https://dev-{which}.example:3000"
    caplog.set_level(logging.WARNING, logger="tabletop.rest")
    for _ in range(3):
        answer = requests.options(f"{server.url}/v1/games", headers={
            "Origin": origin, "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "content-type"}, timeout=5)
        assert answer.status_code == 403 and "Access-Control-Allow-Origin" not in answer.headers
        error = answer.json()["error"]
        assert error["reason"] == "CORS_ORIGIN_NOT_ALLOWED" and error["status"] == "PERMISSION_DENIED"
        assert origin in error["message"] and "TABLETOP_CORS_ORIGINS" in error["message"]
    lines = [r.getMessage() for r in caplog.records if origin in r.getMessage()]
    assert len(lines) == 1 and "TABLETOP_CORS_ORIGINS" in lines[0]
    allowed = requests.options(f"{servers[0].url}/v1/games", headers={
        "Origin": "https://play.example", "Access-Control-Request-Method": "POST"}, timeout=5)
    assert allowed.status_code == 204
