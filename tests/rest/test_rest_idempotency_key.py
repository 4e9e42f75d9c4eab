"""An Idempotency-Key reused with another request is a 422 and applies nothing; the same request
still gets the first response (issue 12: a client checking only the status was fooled)."""

from __future__ import annotations

import uuid

from tests.rest.rest_api import Api
from tests.rest.test_rest_e2e import _first_decider

EACH_SHAPE = True  # what depends on the channel: tested in process and over gRPC (tests/rest/conftest.py)


def test_a_key_reused_with_another_body_is_422(api: Api) -> None:
    name, tokens = api.create_game()
    seat, actions = _first_decider(api, name, tokens)
    assert len(actions) >= 2
    key = {"Idempotency-Key": uuid.uuid4().hex}
    first = api.post(f"/v1/{name}:act", tokens[seat], json={"action": actions[0]}, headers=key)
    assert first.status_code == 200, first.text
    version = api.version(name)
    reused = api.post(f"/v1/{name}:act", tokens[seat], json={"action": actions[1]}, headers=key)
    assert reused.status_code == 422, reused.text
    error = reused.json()["error"]
    assert (error["status"], error["reason"]) == ("INVALID_ARGUMENT", "IDEMPOTENCY_KEY_REUSED")
    assert api.version(name) == version
    again = api.post(f"/v1/{name}:act", tokens[seat], json={"action": actions[0]}, headers=key)
    assert again.status_code == 200 and again.json() == first.json()


def test_a_key_reused_with_another_if_match_is_422(api: Api) -> None:
    name, tokens = api.create_game()
    seat, actions = _first_decider(api, name, tokens)
    key = uuid.uuid4().hex
    version = api.version(name)
    first = api.post(f"/v1/{name}:act", tokens[seat], json={"action": actions[0]},
                     headers={"Idempotency-Key": key, "If-Match": f'"{version}"'})
    assert first.status_code == 200, first.text
    reused = api.post(f"/v1/{name}:act", tokens[seat], json={"action": actions[0]}, headers={"Idempotency-Key": key})
    assert reused.status_code == 422 and reused.json()["error"]["reason"] == "IDEMPOTENCY_KEY_REUSED"


def test_a_key_on_create_and_join_makes_one_game_and_takes_one_seat(api: Api) -> None:
    """The lost answer of a mobile client's POST, retried: the same game and tokens, the same seat."""
    body = {"ruleset": "ttr-europe", "seatCount": 3, "displayNames": ["ann"]}
    key = {"Idempotency-Key": uuid.uuid4().hex}
    first = api.post("/v1/games", json=body, headers=key)
    again = api.post("/v1/games", json=body, headers=key)
    assert first.status_code == again.status_code == 200, (first.text, again.text)
    assert again.json() == first.json()
    reused = api.post("/v1/games", json={**body, "displayNames": ["bob"]}, headers=key)
    assert reused.status_code == 422 and reused.json()["error"]["reason"] == "IDEMPOTENCY_KEY_REUSED"
    name = first.json()["game"]["name"]
    join = {"Idempotency-Key": uuid.uuid4().hex}
    joined = api.post(f"/v1/{name}:join", json={"displayName": "cy"}, headers=join)
    rejoined = api.post(f"/v1/{name}:join", json={"displayName": "cy"}, headers=join)
    assert joined.status_code == rejoined.status_code == 200, (joined.text, rejoined.text)
    assert rejoined.json() == joined.json()
    seats = api.get(f"/v1/{name}").json()["game"]["seats"]
    assert [bool(s.get("occupied")) for s in seats] == [True, True, False]
