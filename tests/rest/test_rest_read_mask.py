"""REST ``:act`` with a read mask (issue 29): the proto3 JSON of a FieldMask in the body (``"readMask":
"events"``, the facade derives the body from the route's ``body: "*"``); the ETag is the new version."""

from __future__ import annotations

from tests.rest.rest_api import Api
from tests.rest.test_rest_e2e import _first_decider


def test_act_with_read_mask_answers_the_version_and_events(api: Api) -> None:
    name, tokens = api.create_game()
    seat, actions = _first_decider(api, name, tokens)
    version = api.version(name)
    lean = api.post(f"/v1/{name}:act", tokens[seat], json={"action": actions[0], "readMask": "events"})
    assert lean.status_code == 200, lean.text
    body = lean.json()
    assert set(body) == {"version", "events"} and body["version"] == str(version + 1)
    assert lean.headers["ETag"] == f'"{version + 1}"'


def test_act_without_mask_is_the_whole_answer_and_a_bad_mask_is_400(api: Api) -> None:
    name, tokens = api.create_game()
    seat, actions = _first_decider(api, name, tokens)
    full = api.post(f"/v1/{name}:act", tokens[seat], json={"action": actions[0]})
    assert full.status_code == 200 and {"game", "view", "events", "version"} <= set(full.json())
    assert full.headers["ETag"] == f'"{full.json()["game"]["version"]}"'
    seat, actions = _first_decider(api, name, tokens)
    bad = api.post(f"/v1/{name}:act", tokens[seat], json={"action": actions[0], "readMask": "game.nope"})
    assert bad.status_code == 400 and bad.json()["error"]["reason"] == "INVALID_READ_MASK"
    deep = api.post(f"/v1/{name}:act", tokens[seat], json={"action": actions[0], "readMask": "game.actionCount"})
    assert deep.status_code == 200 and set(deep.json()) == {"version", "game"}, deep.text
