"""Odd inputs over REST (issue 26, items 7 and 8): refused at once with a reason, or served as users mean them."""

from __future__ import annotations

import http.client
import time
from urllib.parse import urlsplit

from tests.rest.rest_api import Api

EACH_SHAPE = True  # what depends on the channel: tested in process and over gRPC (tests/rest/conftest.py)


def test_a_negative_last_event_id_is_refused(api: Api) -> None:
    name, _ = api.create_game(seats=2)
    reply = api.get(f"/v1/{name}:watch", headers={"Last-Event-ID": "-5"})
    assert reply.status_code == 400 and reply.json()["error"]["reason"] == "INVALID_HEADER"
    assert "Last-Event-ID" in reply.json()["error"]["message"]
    query = api.get(f"/v1/{name}:watch?fromVersion=-5")
    assert query.status_code == 400 and query.json()["error"]["reason"] == "INVALID_FROM_VERSION"


def test_a_last_event_id_after_the_games_version_is_refused_at_once(api: Api) -> None:
    name, _ = api.create_game(seats=2)
    with api.session.get(api.base + f"/v1/{name}:watch", stream=True, timeout=5):  # a hub for the game is open
        started = time.monotonic()
        reply = api.get(f"/v1/{name}:watch", headers={"Last-Event-ID": str(2**63 - 1)}, timeout=5)
        assert time.monotonic() - started < 3
        assert reply.status_code == 400 and reply.json()["error"]["reason"] == "VERSION_AHEAD"
        assert reply.json()["error"]["status"] == "OUT_OF_RANGE"


def test_two_authorization_headers_are_refused_not_one_picked(api: Api) -> None:
    name, tokens = api.create_game(seats=2)
    url = urlsplit(api.base)
    connection = http.client.HTTPConnection(url.hostname or "", url.port, timeout=5)
    connection.putrequest("GET", f"/v1/{name}")
    connection.putheader("Authorization", f"Bearer {tokens[0]}")
    connection.putheader("Authorization", f"Bearer {tokens[1]}")
    connection.endheaders()
    reply = connection.getresponse()
    body = reply.read().decode()
    connection.close()
    assert reply.status == 401 and '"reason":"DUPLICATE_AUTHORIZATION"' in body


def test_display_names_for_every_seat_and_bots_on_three_of_them(api: Api) -> None:
    reply = api.post("/v1/games", json={"ruleset": "ttr-europe", "seatCount": 4,
                                        "displayNames": ["ann", "r1", "r2", "r3"],
                                        "bots": [{"seat": s, "bot": "random"} for s in (0, 1, 2)]})
    assert reply.status_code == 200, reply.text
    body = reply.json()
    assert [c.get("seat", 0) for c in body["credentials"]] == [3]
    assert [s["displayName"] for s in body["game"]["seats"]] == ["ann", "r1", "r2", "r3"]
    assert body["game"]["status"] == "GAME_STATUS_ACTIVE"


def test_a_seat_count_past_32_bits_is_refused(api: Api) -> None:
    reply = api.post("/v1/games", json={"ruleset": "ttr-europe", "seatCount": 2**32 + 4})
    assert reply.status_code == 400 and reply.json()["error"]["reason"] in ("INVALID_FIELD", "INVALID_SEAT_COUNT")
