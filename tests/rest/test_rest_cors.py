"""CORS: browser frontends of allowed origins get preflight answers and CORS headers; others get none."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import requests

from tabletop_server.rest.app import HttpServer, create_app, serve


@pytest.fixture(scope="module")
def cors_server(grpc_server: Any) -> Iterator[HttpServer]:
    server = serve(create_app(grpc_server.target, cors_origins=["https://play.example"]), "127.0.0.1", 0)
    yield server
    server.close()


def test_preflight_from_an_allowed_origin(cors_server: HttpServer) -> None:
    r = requests.options(f"{cors_server.url}/v1/games", headers={
        "Origin": "https://play.example", "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization, content-type, idempotency-key"}, timeout=5)
    assert r.status_code == 204
    assert r.headers["Access-Control-Allow-Origin"] == "https://play.example"
    allowed = r.headers["Access-Control-Allow-Headers"]
    assert {"authorization", "content-type", "idempotency-key", "if-match",
            "x-tabletop-game"} <= {h.strip() for h in allowed.split(",")}  # the browser client's routing header
    assert "POST" in r.headers["Access-Control-Allow-Methods"]


def test_responses_to_an_allowed_origin_carry_cors_headers(cors_server: HttpServer) -> None:
    r = requests.post(f"{cors_server.url}/v1/games", json={"ruleset": "ttr-europe", "seatCount": 2},
                      headers={"Origin": "https://play.example"}, timeout=5)
    assert r.status_code == 200
    assert r.headers["Access-Control-Allow-Origin"] == "https://play.example"
    assert "etag" in r.headers["Access-Control-Expose-Headers"]
    error = requests.get(f"{cors_server.url}/v1/games/nope", headers={"Origin": "https://play.example"}, timeout=5)
    assert error.status_code == 404 and error.headers["Access-Control-Allow-Origin"] == "https://play.example"


def test_other_origins_and_the_default_app_get_no_cors(cors_server: HttpServer, grpc_server: Any) -> None:
    r = requests.get(f"{cors_server.url}/v1/rulesets", headers={"Origin": "https://evil.example"}, timeout=5)
    assert r.status_code == 200 and "Access-Control-Allow-Origin" not in r.headers
    plain = serve(create_app(grpc_server.target), "127.0.0.1", 0)
    try:
        r = requests.get(f"{plain.url}/v1/rulesets", headers={"Origin": "https://play.example"}, timeout=5)
        assert "Access-Control-Allow-Origin" not in r.headers
    finally:
        plain.close()
