"""Players over REST (issue 27): a session from the studio's backend, then a game played with it, over
real HTTP, both through a gRPC channel and in process (``rest.local``, as ``tabletop serve`` runs it)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import grpc
import pytest

from tabletop_server.rest.app import create_app, serve
from tabletop_server.rest.local import LocalChannel
from tests.conftest import start_grpc
from tests.jwks import Studio, session_key_pem
from tests.rest.rest_api import Api

API_KEY = "rest-studio-key"


@pytest.fixture(scope="module")
def players_grpc(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    key = tmp_path_factory.mktemp("session") / "session.pem"
    key.write_bytes(session_key_pem())
    studio = Studio()
    with studio.serving() as url:
        server = start_grpc(redis_url, jwt_issuers=studio.issuer_setting(url), session_key_file=str(key),
                            api_keys=API_KEY)
        yield server, studio
        server.running.stop(0)


@pytest.fixture(scope="module", params=["fast-path", "in-process"])
def api(players_grpc: Any, request: pytest.FixtureRequest) -> Iterator[Api]:
    server = players_grpc[0]
    app = create_app(server.target)
    if request.param == "in-process":
        running = server.running
        http = serve(app, "127.0.0.1", 0, loop=running.loop,
                     aio_channel=lambda: LocalChannel(running.handlers, grpc.aio.insecure_channel(server.target)))
    else:
        http = serve(app, "127.0.0.1", 0)
    client = Api(http.url)
    yield client
    client.session.close()
    http.close()


def _session(api: Api, player: str) -> dict[str, Any]:
    reply = api.post("/v1/playerSessions", json={"playerId": player, "displayName": player.upper()},
                     headers={"x-api-key": API_KEY})
    assert reply.status_code == 200, reply.text
    session: dict[str, Any] = reply.json()["session"]
    return session


def test_a_session_plays_a_game_over_rest(api: Api) -> None:
    ann, bob = _session(api, "rest-ann"), _session(api, "rest-bob")
    created = api.post("/v1/games", ann["accessToken"], json={"ruleset": "ttr-europe", "seatCount": 2})
    assert created.status_code == 200, created.text
    assert created.json()["credentials"] == [{"playerId": "rest-ann"}]  # seat 0: bound, no seat token
    name = created.json()["game"]["name"]
    joined = api.post(f"/v1/{name}:join", bob["accessToken"], json={"displayName": "Bob"})
    assert joined.status_code == 200, joined.text
    assert joined.json()["credential"] == {"seat": 1, "playerId": "rest-bob"}
    assert api.get(f"/v1/{name}", bob["accessToken"]).json()["viewerSeat"] == 1
    refreshed = api.post("/v1/playerSessions:refresh", json={"refreshToken": ann["refreshToken"]})
    assert refreshed.status_code == 200 and refreshed.json()["session"]["playerId"] == "rest-ann"
    assert api.get(f"/v1/{name}", refreshed.json()["session"]["accessToken"]).json().get("viewerSeat", 0) == 0


def test_refusals_over_rest_are_the_one_error_shape(api: Api, players_grpc: Any) -> None:
    studio = players_grpc[1]
    missing_key = api.post("/v1/playerSessions", json={"playerId": "x"})
    assert (missing_key.status_code, missing_key.json()["error"]["details"][0]["reason"]) == (401, "API_KEY_REQUIRED")
    expired = api.get("/v1/games/abc", studio.token("x", exp=1))
    assert (expired.status_code, expired.json()["error"]["details"][0]["reason"]) == (401, "JWT_EXPIRED")
    spent = api.post("/v1/playerSessions:refresh", json={"refreshToken": "r" * 43})
    assert (spent.status_code, spent.json()["error"]["details"][0]["reason"]) == (401, "REFRESH_TOKEN_INVALID")
