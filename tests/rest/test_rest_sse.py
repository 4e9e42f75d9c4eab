"""WatchGame as Server-Sent Events: events, resume, snapshots, heartbeats, disconnects."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from tabletop_server.rest.app import create_app, serve
from tests.conftest import start_grpc
from tests.rest.conftest import HEARTBEAT_SECONDS
from tests.rest.rest_api import Api, SseEvent, SseReader

EACH_SHAPE = True  # what depends on the channel: tested in process and over gRPC (tests/rest/conftest.py)


def _act(api: Api, name: str, tokens: dict[int, str]) -> int:
    """Apply the first legal action of the first seat that has one; the new version."""
    for token in tokens.values():
        actions = api.get(f"/v1/{name}:legalActions", token).json().get("actions", [])
        if actions:
            reply = api.post(f"/v1/{name}:act", token, json={"action": actions[0]})
            assert reply.status_code == 200, reply.text
            return int(reply.json()["game"]["version"])
    raise AssertionError("no seat can act")


def _events(items: list[SseEvent]) -> list[SseEvent]:
    return [item for item in items if item.comment is None]


def _until_version(version: int) -> Any:
    return lambda item: item.comment is None and int(item.id or 0) >= version


def _watch(api: Api, name: str, token: str | None = None, **kwargs: Any) -> Any:
    return api.get(f"/v1/{name}:watch", token, stream=True, timeout=5, **kwargs)


@contextmanager
def _reader(api: Api, name: str, token: str | None = None, **kwargs: Any) -> Iterator[SseReader]:
    response = _watch(api, name, token, **kwargs)
    assert response.status_code == 200, response.text
    try:
        yield SseReader(response)
    finally:
        response.close()


def test_watch_streams_every_version_then_live_events(api: Api) -> None:
    name, tokens = api.create_game()
    current = api.version(name)
    with _reader(api, name, tokens[0]) as stream:
        assert stream.response.headers["Content-Type"].startswith("text/event-stream")
        assert stream.response.headers["Cache-Control"] == "private, no-store"  # a seat's events
        backlog = _events(stream.read(_until_version(current)))
        assert [int(e.id or 0) for e in backlog] == list(range(1, current + 1))
        for event in backlog:
            assert event.event == "event"
            payload = event.json()
            assert payload["version"] == event.id and payload["events"]
        new_version = _act(api, name, tokens)
        live = _events(stream.read(_until_version(new_version)))
        assert [e.id for e in live] == [str(new_version)]
        assert all(int(e["version"]) == new_version for e in live[0].json()["events"])


@pytest.mark.parametrize("how", ["last-event-id", "query"])
def test_resume_after_a_version(api: Api, how: str) -> None:
    name, tokens = api.create_game()
    resume_from = api.version(name)
    target = _act(api, name, tokens)
    target = _act(api, name, tokens)
    if how == "last-event-id":
        kwargs: dict[str, Any] = {
            "headers": {"Last-Event-ID": str(resume_from)},
            "params": {"fromVersion": "0"},
        }
    else:
        kwargs = {"params": {"fromVersion": str(resume_from)}}
    with _reader(api, name, tokens[1], **kwargs) as stream:
        got = _events(stream.read(_until_version(target)))
    assert [int(e.id or 0) for e in got] == list(range(resume_from + 1, target + 1))


def test_heartbeat_comments_while_idle(api: Api) -> None:
    name, tokens = api.create_game()
    started = time.monotonic()
    with _reader(api, name, tokens[0], headers={"Last-Event-ID": str(api.version(name))}) as stream:
        items = stream.read(lambda item: item.comment == "heartbeat")
    assert time.monotonic() - started < HEARTBEAT_SECONDS * 6
    assert not _events(items), "nothing happened, yet an event came"


def test_client_disconnect_ends_the_stream(api: Api, rest_server: Any) -> None:
    name, tokens = api.create_game()
    watches = rest_server.app.watches
    before = watches.open
    streams = [SseReader(_watch(api, name, tokens[0])) for _ in range(3)]
    for stream in streams:
        stream.read(_until_version(1))
    assert watches.open >= before + 3
    assert len(watches.hubs) >= 1 and _pumps() == 0  # one shared upstream, no thread per watcher
    for stream in streams:
        stream.response.close()
    deadline = time.monotonic() + HEARTBEAT_SECONDS * 8
    while watches.open > before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert watches.open <= before, "a watch outlived its client"
    assert api.get("/v1/rulesets").status_code == 200


def test_head_on_watch_opens_no_lasting_stream(api: Api, rest_server: Any) -> None:
    """HEAD is the watch's answer without its body: checked as a GET would be (404 for no such game), then the
    watch it opened ends at once (no slot, no upstream call left)."""
    name, tokens = api.create_game()
    watches = rest_server.app.watches
    before = (watches.open, len(watches.all_hubs))
    reply = api.call("HEAD", f"/v1/{name}:watch", tokens[0])
    assert reply.status_code == 200 and reply.headers["Content-Type"].startswith("text/event-stream")
    assert reply.headers["Cache-Control"] == "private, no-store" and not reply.content
    deadline = time.monotonic() + HEARTBEAT_SECONDS * 8
    while (watches.open, len(watches.all_hubs)) > before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert watches.open <= before[0] and len(watches.all_hubs) <= before[1], "a HEAD left a watch stream open"
    assert _pumps() == 0
    assert api.call("HEAD", "/v1/games/nosuchgame:watch").status_code == 404


def test_watch_errors_before_streaming_are_http_errors(api: Api) -> None:
    missing = _watch(api, "games/nosuchgame")
    assert missing.status_code == 404 and missing.json()["error"]["status"] == "NOT_FOUND"
    name, _ = api.create_game()
    forged = _watch(api, name, "not-a-token")
    assert forged.status_code == 401 and forged.json()["error"]["status"] == "UNAUTHENTICATED"
    bad_resume = _watch(api, name, headers={"Last-Event-ID": "yesterday"})
    assert bad_resume.status_code == 400 and bad_resume.json()["error"]["reason"] == "INVALID_HEADER"


@pytest.fixture(scope="module")
def short_backlog_api(redis_url: str) -> Iterator[Api]:
    """A gRPC server that snapshots any watcher more than 1 version behind, and REST on it."""
    grpc_server = start_grpc(redis_url, watch_backlog=1)
    rest = serve(create_app(grpc_server.target, heartbeat_seconds=HEARTBEAT_SECONDS), "127.0.0.1", 0)
    yield Api(rest.url)
    rest.close()
    grpc_server.running.stop(0)


def test_far_behind_watcher_gets_a_snapshot_first(short_backlog_api: Api) -> None:
    api = short_backlog_api
    name, tokens = api.create_game()
    _act(api, name, tokens)
    current = _act(api, name, tokens)
    with _reader(api, name, tokens[0]) as stream:
        first = _events(stream.read(lambda item: item.comment is None))[0]
        assert first.event == "snapshot" and first.id == str(current)
        snapshot = first.json()["snapshot"]
        assert snapshot["game"]["version"] == str(current) and snapshot["viewerSeat"] == 0
        new_version = _act(api, name, tokens)
        after = _events(stream.read(_until_version(new_version)))
        assert [(e.event, e.id) for e in after] == [("event", str(new_version))]


def _pumps() -> int:
    return sum(1 for thread in threading.enumerate() if thread.name == "sse-pump" and thread.is_alive())


def test_watch_streams_are_capped_and_unary_routes_keep_answering(grpc_server: Any) -> None:
    app = create_app(grpc_server.target, heartbeat_seconds=HEARTBEAT_SECONDS, max_watch_streams=2)
    rest = serve(app, "127.0.0.1", 0, threads=4)
    api = Api(rest.url)
    try:
        name, tokens = api.create_game()
        streams = [SseReader(_watch(api, name, tokens[0])) for _ in range(2)]
        for stream in streams:
            stream.read(_until_version(1))
        refused = _watch(api, name, tokens[0])
        assert refused.status_code == 429 and refused.json()["error"]["reason"] == "TOO_MANY_WATCH_STREAMS"
        assert int(refused.headers["Retry-After"]) > 0
        assert api.get(f"/v1/{name}", tokens[0]).status_code == 200  # unary routes still answer
        streams[0].response.close()
        deadline = time.monotonic() + HEARTBEAT_SECONDS * 8
        while rest.app.watches.open > 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        again = _watch(api, name, tokens[0])
        assert again.status_code == 200
        again.close()
        streams[1].response.close()
    finally:
        rest.close()



@pytest.mark.parametrize(("ruleset", "seats"), [("ttr-europe", 3), ("bang", 5)])
def test_a_game_of_bots_created_over_rest_plays_to_the_end_in_front_of_an_sse_watcher(
        api: Api, ruleset: str, seats: int) -> None:
    """Issue 16: every seat a bot; an SSE spectator sees every version, in order, once, up to FINISHED."""
    reply = api.post("/v1/games", json={"ruleset": ruleset, "seatCount": seats, "seed": "3",
                                        "bots": [{"seat": i, "bot": "random"} for i in range(seats)]})
    assert reply.status_code == 200, reply.text
    name = reply.json()["game"]["name"]
    finished = (lambda item: item.comment is None and any(
        e.get("lifecycle", {}).get("kind") == "KIND_FINISHED" for e in item.json()["events"]))
    response = api.get(f"/v1/{name}:watch", None, stream=True, timeout=60)
    try:
        seen = _events(SseReader(response).read(finished))
    finally:
        response.close()
    versions = [int(e.id or 0) for e in seen]
    assert versions == list(range(1, len(versions) + 1)) and finished(seen[-1])
    game = api.get(f"/v1/{name}").json()["game"]
    assert game["status"] == "GAME_STATUS_FINISHED" and int(game["version"]) == versions[-1]
    kinds = [e.get("lifecycle", {}).get("kind") for item in seen for e in item.json()["events"]]
    assert kinds.count("KIND_BOT_PLAYED") == int(game.get("actionCount", 0))
