"""The leaderboard and a player's profile over REST (issue 28): routes from the proto's http rules, over
real HTTP, with a game between two guests rated by the server's drain."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from tabletop_server.rest.app import create_app
from tests.conftest import start_grpc
from tests.jwks import session_key_pem
from tests.rest.conftest import serve_shape
from tests.rest.rest_api import Api


@pytest.fixture(scope="module")
def api(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    key = tmp_path_factory.mktemp("session") / "session.pem"
    key.write_bytes(session_key_pem())
    server = start_grpc(redis_url, session_key_file=str(key), guest_sessions=True)
    http = serve_shape(server, "in-process", create_app(server.target))
    client = Api(http.url)
    yield client
    client.session.close()
    http.close()
    server.running.stop(0)


def _guest(api: Api, name: str) -> dict[str, Any]:
    reply = api.post("/v1/guestSessions", json={"displayName": name})
    assert reply.status_code == 200, reply.text
    session: dict[str, Any] = reply.json()["session"]
    return session


def test_a_rated_game_shows_on_the_leaderboard_and_the_profiles(api: Api) -> None:
    ann, bob = _guest(api, "Ann"), _guest(api, "Bob")
    created = api.post("/v1/games", ann["accessToken"], json={"ruleset": "ttr-europe", "seatCount": 2,
                                                               "invitedPlayerIds": [bob["playerId"]]})
    assert created.status_code == 200, created.text
    name = created.json()["game"]["name"]
    assert api.post(f"/v1/{name}:join", bob["accessToken"], json={"displayName": "Bob"}).status_code == 200
    assert api.post(f"/v1/{name}:concede", bob["accessToken"], json={}).status_code == 200
    # The finish is rated after the answer, a player at a time: the rating first, then the leaderboard (two
    # hash tags, so two steps on Redis Cluster). Wait until both players are rated and ranked.
    deadline = time.monotonic() + 30
    while True:
        mine = api.get("/v1/players/me/profile", ann["accessToken"]).json()["profile"]
        seen = api.get("/v1/players/me/profile", bob["accessToken"]).json()["profile"]
        if all(p.get("ratings") and p["ratings"][0].get("rank") for p in (mine, seen)) or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert (mine["playerId"], mine["gamesPlayed"], mine["gamesWon"]) == (ann["playerId"], 1, 1)
    (ttr,) = mine["ratings"]
    assert ttr["ruleset"] == "ttr-europe" and ttr["history"][0]["game"] == name and ttr["history"][0]["won"]
    around = api.get("/v1/rulesets/ttr-europe/leaderboard?pageSize=3&aroundMe=true", ann["accessToken"])
    assert around.status_code == 200, around.text
    entries = around.json()["entries"]
    assert any(e["playerId"] == ann["playerId"] and e["rank"] == ttr["rank"] for e in entries)
    reply = api.get("/v1/players/me/profile", bob["accessToken"])
    assert reply.status_code == 200, reply.text
    theirs = reply.json()["profile"]
    assert (theirs["gamesPlayed"], theirs.get("gamesWon", 0)) == (1, 0)
    for path in (f"/v1/players/{bob['playerId']}/profile",  # a guest's id holds ":", and no verb follows it here
                 f"/v1/players/{bob['playerId'].replace(':', '%3A')}/profile"):
        by_id = api.get(path)  # anyone reads any player's profile, a guest's too
        assert by_id.status_code == 200, by_id.text
        assert by_id.json()["profile"] == theirs
    top = api.get("/v1/rulesets/ttr-europe/leaderboard?pageSize=2")
    assert top.status_code == 200 and [e["rank"] for e in top.json()["entries"]] == [1, 2]


def test_refusals_are_the_one_error_shape(api: Api) -> None:
    verb = api.get("/v1/tickets/0123456789abcdef.0123456789abcdef:cancel")  # ":" still ends a path as its verb
    assert verb.status_code == 405, verb.text
    missing = api.get("/v1/rulesets/chess/leaderboard")
    assert (missing.status_code, missing.json()["error"]["details"][0]["reason"]) == (404, "RULESET_NOT_FOUND")
    anonymous = api.get("/v1/players/me/profile")
    assert (anonymous.status_code, anonymous.json()["error"]["details"][0]["reason"]) == (401, "PLAYER_REQUIRED")
