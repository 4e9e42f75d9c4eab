"""Replays over real HTTP: GET /v1/games/{id}?atVersion=N (or at_version) answers the spectator's view
the game showed at N; a version ahead is a 400-class refusal with its reason (issue 31)."""

from __future__ import annotations

from tests.rest.rest_api import Api
from tests.rest.test_rest_e2e import _first_decider


def test_at_version_is_the_view_shown_then(api: Api) -> None:
    name, tokens = api.create_game(seats=2)
    seen = {1: api.get(f"/v1/{name}").json()["view"]}
    for _ in range(3):
        seat, actions = _first_decider(api, name, tokens)
        reply = api.post(f"/v1/{name}:act", tokens[seat], json={"action": actions[0]})
        assert reply.status_code == 200, reply.text
        seen[api.version(name)] = api.get(f"/v1/{name}").json()["view"]
    for param in ("atVersion", "at_version"):
        for version, view in seen.items():
            reply = api.get(f"/v1/{name}", tokens[0], params={param: version})
            assert reply.status_code == 200, reply.text
            assert reply.json()["view"] == view and "viewerSeat" not in reply.json()


def test_a_version_ahead_or_zero_is_refused(api: Api) -> None:
    name, _ = api.create_game(seats=2)
    reply = api.get(f"/v1/{name}", params={"atVersion": 9})
    assert reply.status_code == 400 and reply.json()["error"]["reason"] == "VERSION_AHEAD"
    reply = api.get(f"/v1/{name}", params={"atVersion": 0})
    assert reply.status_code == 400 and reply.json()["error"]["reason"] == "INVALID_AT_VERSION"
