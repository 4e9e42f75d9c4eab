"""The log route over real HTTP: page_size / page_token query parameters (either JSON or proto name),
bounded pages that follow nextPageToken to the end, and a bad token as a 400."""

from __future__ import annotations

from typing import Any

from tests.helpers import lengthen_log
from tests.rest.rest_api import Api
from tests.rest.test_rest_e2e import _first_decider


def _long_game(api: Api, redis_url: str, total: int) -> tuple[str, dict[int, str]]:
    name, tokens = api.create_game(seats=2)
    seat, actions = _first_decider(api, name, tokens)
    reply = api.post(f"/v1/{name}:act", tokens[seat], json={"action": actions[0]})
    assert reply.status_code == 200, reply.text
    lengthen_log(redis_url, name, total)
    return name, tokens


def _pages(api: Api, name: str, size_param: str, token_param: str, size: int) -> list[dict[str, Any]]:
    pages, page_token = [], ""
    while True:
        params: dict[str, Any] = {size_param: size, **({token_param: page_token} if page_token else {})}
        reply = api.get(f"/v1/{name}/log", params=params)
        assert reply.status_code == 200, reply.text
        pages.append(reply.json())
        page_token = pages[-1].get("nextPageToken", "")
        if not page_token:
            return pages


def test_pages_follow_next_page_token_to_the_end(api: Api, redis_url: str) -> None:
    name, _ = _long_game(api, redis_url, 1200)
    for size_param, token_param in (("pageSize", "pageToken"), ("page_size", "page_token")):
        pages = _pages(api, name, size_param, token_param, 500)
        assert [len(p["entries"]) for p in pages] == [500, 500, 200]
        versions = [int(e["version"]) for p in pages for e in p["entries"]]
        assert versions == list(range(1, 1201))


def test_the_default_page_is_bounded(api: Api, redis_url: str) -> None:
    name, _ = _long_game(api, redis_url, 250)
    reply = api.get(f"/v1/{name}/log")
    assert reply.status_code == 200 and len(reply.json()["entries"]) == 100 and reply.json()["nextPageToken"]


def test_a_bad_page_token_is_400(api: Api) -> None:
    name, _ = api.create_game(seats=2)
    reply = api.get(f"/v1/{name}/log", params={"pageToken": "not-a-token"})
    assert reply.status_code == 400 and reply.json()["error"]["reason"] == "INVALID_PAGE_TOKEN"
    reply = api.get(f"/v1/{name}/log", params={"pageSize": "-3"})
    assert reply.status_code == 400 and reply.json()["error"]["reason"] == "INVALID_PAGE_SIZE"
