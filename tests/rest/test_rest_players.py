"""Players over REST (issue 27): a session from the studio's backend, then a game played with it, and the
player's notifications as Server-Sent Events (``GET /v1/players/me:watch``, resumed with Last-Event-ID),
over real HTTP, both through a gRPC channel and in process (``rest.local``, as ``tabletop serve`` runs it)."""

from __future__ import annotations

import secrets
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from tabletop_server.rest.app import create_app
from tabletop_server.rest.watch import WatchCaps
from tests.conftest import start_grpc
from tests.jwks import Studio, session_key_pem
from tests.rest.conftest import SHAPES, serve_shape
from tests.rest.rest_api import Api, SseEvent, SseReader

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


@pytest.fixture(scope="module", params=SHAPES)
def api(players_grpc: Any, request: pytest.FixtureRequest) -> Iterator[Api]:
    http = serve_shape(players_grpc[0], request.param, create_app(players_grpc[0].target))
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


def _invite(api: Api, host: dict[str, Any], guest: dict[str, Any]) -> str:
    """A game ``host`` creates with a seat kept for ``guest`` (who is told: INVITED); its name."""
    reply = api.post("/v1/games", host["accessToken"], json={"ruleset": "ttr-europe", "seatCount": 2,
                                                             "invitedPlayerIds": [guest["playerId"]]})
    assert reply.status_code == 200, reply.text
    return str(reply.json()["game"]["name"])


@contextmanager
def _player_watch(api: Api, token: str, **kwargs: Any) -> Iterator[SseReader]:
    response = api.get("/v1/players/me:watch", token, stream=True, timeout=10, **kwargs)
    assert response.status_code == 200, response.text
    try:
        yield SseReader(response)
    finally:
        response.close()


def _notifications(stream: SseReader, count: int) -> list[SseEvent]:
    """The next ``count`` notifications of the stream (comments and a bare ``id:`` skipped)."""
    got: list[SseEvent] = []
    stream.read(lambda item: item.event == "notification" and (got.append(item) or len(got) == count))
    assert len(got) == count, "the stream ended early"
    return got


def test_watch_player_streams_notifications_as_sse_and_resumes_after_last_event_id(api: Api) -> None:
    run = secrets.token_hex(4)
    ann, bob = _session(api, f"sse-ann-{run}"), _session(api, f"sse-bob-{run}")
    with _player_watch(api, bob["accessToken"]) as live:
        assert live.response.headers["Content-Type"].startswith("text/event-stream")
        assert live.response.headers["Cache-Control"] == "private, no-store"  # one player's notifications
        start = next(i for i in live.read(lambda item: item.id is not None) if i.id is not None)
        assert start.event is None and start.id == "0-0", "from now on: placed where bob's empty inbox is"
        games = [_invite(api, ann, bob), _invite(api, ann, bob)]
        told = _notifications(live, 2)
    # Two games' notifications are made by whichever drain takes each game's mark first: in either order.
    assert sorted(e.json()["notification"]["game"] for e in told) == sorted(games)
    for event in told:
        payload = event.json()["notification"]
        assert (payload["id"], payload["kind"]) == (event.id, "NOTIFICATION_KIND_INVITED")
        assert payload["playerGame"]["invited"] is True
    with _player_watch(api, bob["accessToken"], headers={"Last-Event-ID": told[0].id}) as resumed:
        assert [e.id for e in _notifications(resumed, 1)] == [told[1].id], "after Last-Event-ID, only what followed"
        third = _invite(api, ann, bob)
        assert _notifications(resumed, 1)[0].json()["notification"]["game"] == third  # then live
    with _player_watch(api, bob["accessToken"], params={"afterId": "0-0"}) as from_start:  # the query as gRPC's
        replayed = [e.json()["notification"]["game"] for e in _notifications(from_start, 3)]
        assert replayed == [e.json()["notification"]["game"] for e in told] + [third]


def test_watchers_of_one_player_share_a_stream_and_a_late_one_starts_from_now(api: Api) -> None:
    run = secrets.token_hex(4)
    ann, bob = _session(api, f"sse-ann2-{run}"), _session(api, f"sse-bob2-{run}")
    with _player_watch(api, bob["accessToken"]) as first:
        first.read(lambda item: item.id is not None)
        older = _invite(api, ann, bob)
        assert _notifications(first, 1)[0].json()["notification"]["game"] == older
        with _player_watch(api, bob["accessToken"]) as late:
            placed = next(i for i in late.read(lambda item: item.id is not None) if i.id is not None)
            newer = _invite(api, ann, bob)
            got = _notifications(late, 1)[0]
            assert got.json()["notification"]["game"] == newer, "a watch from now on got an older notification"
            assert placed.id is not None and tuple(map(int, placed.id.split("-"))) < tuple(map(int, got.id.split("-")))
            assert _notifications(first, 1)[0].id == got.id


def test_a_watch_placed_after_the_open_wait_still_places_the_next_watcher(players_grpc: Any) -> None:
    """The service named the start after the open wait (0 s here): the first watch opens unplaced, its hub
    is placed when the metadata comes, and a second watcher from now on is told where it starts."""
    app = create_app(players_grpc[0].target, watch_open_seconds=0.0, heartbeat_seconds=0.2)
    http = serve_shape(players_grpc[0], "grpc", app)
    api = Api(http.url)
    beat = (lambda item: item.id is not None or item.comment == "heartbeat")
    try:
        bob = _session(api, f"sse-late-{secrets.token_hex(4)}")
        with _player_watch(api, bob["accessToken"]) as first:
            assert [i.id for i in first.read(beat) if i.id is not None] == [], "placed within a 0 s wait?"
            end = time.monotonic() + 5  # the metadata comes within milliseconds; a loaded machine may be slower
            while True:
                with _player_watch(api, bob["accessToken"]) as second:
                    placed = [i.id for i in second.read(beat) if i.id is not None]
                if placed or time.monotonic() > end:
                    break
            assert placed == ["0-0"], "the hub was never placed"
    finally:
        api.session.close()
        http.close()


def test_watch_player_refusals_over_rest(api: Api, players_grpc: Any) -> None:
    game = api.post("/v1/games", json={"ruleset": "ttr-europe", "seatCount": 2, "displayNames": ["a", "b"]},
                    headers={"x-api-key": API_KEY}).json()
    seat_token = game["credentials"][0]["playerToken"]
    for token in (None, seat_token):  # no player: 401, not a stream
        refused = api.get("/v1/players/me:watch", token, stream=True, timeout=10)
        assert refused.status_code == 401, refused.text
        assert refused.json()["error"]["details"][0]["reason"] in ("PLAYER_REQUIRED", "MISSING_TOKEN")
    expired = api.get("/v1/players/me:watch", players_grpc[1].token("x", exp=1), stream=True, timeout=10)
    assert (expired.status_code, expired.json()["error"]["details"][0]["reason"]) == (401, "JWT_EXPIRED")
    bob = _session(api, f"sse-bob3-{secrets.token_hex(4)}")
    bad_header = api.get("/v1/players/me:watch", bob["accessToken"], headers={"Last-Event-ID": "12"}, timeout=10)
    assert (bad_header.status_code, bad_header.json()["error"]["details"][0]["reason"]) == (400, "INVALID_HEADER")
    bad_query = api.get("/v1/players/me:watch?afterId=yesterday", bob["accessToken"], timeout=10)
    assert bad_query.status_code == 400, bad_query.text
    assert bad_query.json()["error"]["details"][0]["reason"] == "INVALID_NOTIFICATION_ID"  # the service's words


def test_player_watches_count_under_the_watch_caps(players_grpc: Any) -> None:
    """Per token and per address, with the game watches: the same caps, the same 429."""
    http = serve_shape(players_grpc[0], "grpc", create_app(players_grpc[0].target),
                       caps=WatchCaps(per_token=2, per_address=3))
    api = Api(http.url)
    try:
        ann, bob = (_session(api, f"sse-cap-{who}-{secrets.token_hex(4)}") for who in ("ann", "bob"))
        held = [api.get("/v1/players/me:watch", ann["accessToken"], stream=True, timeout=10) for _ in range(2)]
        assert [r.status_code for r in held] == [200, 200]
        over = api.get("/v1/players/me:watch", ann["accessToken"], stream=True, timeout=10)
        assert (over.status_code, over.json()["error"]["reason"]) == (429, "TOO_MANY_WATCHES_PER_TOKEN")
        assert int(over.headers["Retry-After"]) > 0
        held.append(api.get("/v1/players/me:watch", bob["accessToken"], stream=True, timeout=10))
        assert held[-1].status_code == 200
        name = _invite(api, ann, bob)
        game_watch = api.get(f"/v1/{name}:watch", bob["accessToken"], stream=True, timeout=10)  # a 4th of this address
        assert (game_watch.status_code, game_watch.json()["error"]["reason"]) == (429, "TOO_MANY_WATCHES_PER_ADDRESS")
        for response in held:
            response.close()
    finally:
        api.session.close()
        http.close()
