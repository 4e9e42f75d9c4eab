"""ListGames over REST: GET /v1/games with the filter and pages in the query (issue 15)."""

from __future__ import annotations

from tests.rest.rest_api import Api


def test_the_lobby_over_rest(api: Api) -> None:
    reply = api.post("/v1/games", json={"ruleset": "ttr-europe", "seatCount": 2, "displayNames": ["ann"],
                                        "public": True})
    assert reply.status_code == 200, reply.text
    name = reply.json()["game"]["name"]
    listed = api.get("/v1/games", params={"filter": 'ruleset = "ttr-europe" AND open_seat = true', "pageSize": 100})
    assert listed.status_code == 200, listed.text
    games = {g["name"]: g for g in listed.json()["games"]}
    assert games[name]["public"] is True and games[name]["status"] == "GAME_STATUS_WAITING"
    bad = api.get("/v1/games", params={"filter": "status = 1"})
    assert bad.status_code == 400 and bad.json()["error"]["details"][0]["reason"] == "INVALID_FILTER"
