"""ConcedeGame and RematchGame over REST (issue 15): the routes the contract derives, with the
Idempotency-Key and the error shape."""

from __future__ import annotations

from tests.rest.rest_api import Api


def _bearer(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


def test_concede_then_rematch_over_rest(api: Api) -> None:
    made = api.post("/v1/games", json={"ruleset": "ttr-europe", "seatCount": 2, "displayNames": ["ann", "bob"]})
    assert made.status_code == 200, made.text
    name = made.json()["game"]["name"]
    tokens = {c.get("seat", 0): c["playerToken"] for c in made.json()["credentials"]}
    early = api.post(f"/v1/{name}:rematch", json={}, headers=_bearer(tokens[0]))
    assert early.status_code == 409 and early.json()["error"]["details"][0]["reason"] == "GAME_NOT_FINISHED"
    headers = {**_bearer(tokens[1]), "Idempotency-Key": "give-up-1"}
    done = api.post(f"/v1/{name}:concede", json={}, headers=headers)
    assert done.status_code == 200, done.text
    body = done.json()
    assert body["game"]["status"] == "GAME_STATUS_FINISHED" and body["game"]["seats"][1]["conceded"] is True
    assert any(e.get("lifecycle", {}).get("kind") == "KIND_SEAT_CONCEDED" for e in body["events"])
    again = api.post(f"/v1/{name}:concede", json={}, headers=headers)
    assert again.status_code == 200 and again.json() == body  # answered once
    late = api.post(f"/v1/{name}:concede", json={}, headers=_bearer(tokens[0]))
    assert late.status_code == 409 and late.json()["error"]["details"][0]["reason"] == "GAME_FINISHED"
    first = api.post(f"/v1/{name}:rematch", json={}, headers=_bearer(tokens[1]))
    assert first.status_code == 200, first.text
    new = first.json()["game"]
    assert new["rematchOf"] == name and new["seats"][0]["reserved"] is True
    assert first.json()["credential"]["seat"] == 1
    told = api.get(f"/v1/{name}", headers=_bearer(tokens[0]))
    assert told.json()["game"]["rematch"] == new["name"]
    second = api.post(f"/v1/{name}:rematch", json={}, headers=_bearer(tokens[0]))
    assert second.json()["game"]["name"] == new["name"] and second.json()["game"]["status"] == "GAME_STATUS_ACTIVE"
    missing = api.post(f"/v1/{name}:concede", json={})
    assert missing.status_code == 401
