"""My games in the web client (issue 27): two browsers sign in as guests; one creates a game inviting the
other by player id; the invitee sees the invitation on My games without reloading (WatchPlayer), takes the
seat from there, and when a move hands the turn over, the your-turn badge leaves the mover's My games and
appears on the other player's, both pages staying loaded throughout.

The moves themselves are sent to the server directly with each player's access token, read from the
page's localStorage (the game page's own play is covered by the other browser tests): what is under test
here is the sign-in, the invitation and the live list.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from tabletop.v1 import game_service_pb2 as svc
from tabletop.v1 import game_service_pb2_grpc

from tabletop_server.rest.app import create_app, serve
from tests.conftest import start_grpc
from tests.helpers import bearer
from tests.jwks import session_key_pem
from tests.web.seats import VERSION_WAIT_MS, Seat

Stub = game_service_pb2_grpc.GameServiceStub


@pytest.fixture(scope="module")
def guests_server(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    key = tmp_path_factory.mktemp("session") / "session.pem"
    key.write_bytes(session_key_pem())
    server = start_grpc(redis_url, session_key_file=str(key), guest_sessions=True)
    yield server
    server.running.stop(0)


@pytest.fixture(scope="module")
def web_url(guests_server: Any) -> Iterator[str]:
    """The web client in front of the server that issues guest sessions."""
    server = serve(create_app(guests_server.target), "127.0.0.1", 0)
    yield server.url
    server.close()


@pytest.fixture(scope="module")
def guest_stub(guests_server: Any) -> Iterator[Stub]:
    with grpc.insecure_channel(guests_server.target) as channel:
        yield game_service_pb2_grpc.GameServiceStub(channel)


def sign_in(seat: Seat, name: str) -> str:
    """Sign in as a guest on My games; the player id the page shows."""
    seat.page.goto(f"{seat.url}/#/me")
    seat.page.get_by_test_id("guest-name").fill(name)
    seat.page.get_by_test_id("guest-sign-in").click()
    seat.page.get_by_test_id("player-id").wait_for(timeout=VERSION_WAIT_MS)
    assert seat.page.get_by_test_id("player-name").inner_text() == name
    return seat.page.get_by_test_id("player-id").input_value()


def access_token(seat: Seat) -> str:
    raw = seat.page.evaluate("() => localStorage.getItem('tabletop:player')")
    return str(json.loads(raw)["accessToken"])


def row(seat: Seat, game: str) -> Any:
    return seat.page.locator(f"[data-testid=my-games] tr[data-game='{game}']")


def movers(stub: Stub, game: str, seats: list[Seat]) -> list[Seat]:
    """The seats whose decision the game waits for (they have legal actions)."""
    return [s for s in seats if stub.ListLegalActions(svc.ListLegalActionsRequest(name=game),
                                                      metadata=bearer(access_token(s)), timeout=10).actions]


def act(stub: Stub, game: str, seat: Seat) -> None:
    """The seat's first legal action."""
    token = access_token(seat)
    legal = stub.ListLegalActions(svc.ListLegalActionsRequest(name=game), metadata=bearer(token), timeout=10)
    stub.SubmitAction(svc.SubmitActionRequest(name=game, action=legal.actions[0], expected_version=legal.version),
                      metadata=bearer(token), timeout=10)


def test_invite_join_and_the_your_turn_badge_moves_live(browser: Any, web_url: str, guest_stub: Stub) -> None:
    ann, bob = Seat(browser, web_url), Seat(browser, web_url)
    try:
        sign_in(ann, "ann")
        bob_id = sign_in(bob, "bob")
        assert bob_id.startswith("guest:")
        bob.page.evaluate("() => { document.body.dataset['loaded'] = 'once'; }")  # gone if the page reloads

        # Ann creates a two-seat game in the lobby, keeping the other seat for Bob.
        ann.page.get_by_role("link", name="Lobby").click()
        ann.page.get_by_test_id("ruleset").select_option("ttr-europe")
        ann.page.get_by_test_id("seats").select_option("2")
        assert ann.page.get_by_test_id("display-name").input_value() == "ann"
        ann.page.get_by_test_id("invite").fill(bob_id)
        ann.page.get_by_test_id("create").click()
        ann.page.get_by_test_id("seat").wait_for(timeout=VERSION_WAIT_MS)
        game = "games/" + ann.page.get_by_test_id("share-link").input_value().rsplit("/", 1)[1]

        # Bob's My games shows the invitation without a reload; he takes the seat from there.
        bob.page.locator("#app[data-last-notification=INVITED]").wait_for(timeout=VERSION_WAIT_MS)  # WatchPlayer
        row(bob, game).get_by_test_id("invited").wait_for(timeout=VERSION_WAIT_MS)
        bob.page.locator("[data-testid=notification][data-kind=INVITED]").first.wait_for(timeout=VERSION_WAIT_MS)
        row(bob, game).get_by_test_id("open-game").click()
        assert bob.page.get_by_test_id("join-name").input_value() == "bob"
        bob.page.get_by_test_id("join").click()
        bob.page.get_by_test_id("seat").wait_for(timeout=VERSION_WAIT_MS)
        assert bob.page.get_by_test_id("seat").get_attribute("data-seat") == "1"

        # Both on My games; play until one player alone is to move, then until the turn passes over.
        for seat in (ann, bob):
            seat.page.evaluate("() => { location.hash = '#/me'; }")
            row(seat, game).wait_for(timeout=VERSION_WAIT_MS)
        seats = [ann, bob]
        waiting = movers(guest_stub, game, seats)
        while len(waiting) != 1:
            act(guest_stub, game, waiting[0])
            waiting = movers(guest_stub, game, seats)
        mover = waiting[0]
        other = bob if mover is ann else ann
        row(mover, game).get_by_test_id("your-turn").wait_for(timeout=VERSION_WAIT_MS)
        row(other, game).get_by_test_id("your-turn").wait_for(state="detached", timeout=VERSION_WAIT_MS)
        told = other.page.locator("#app").get_attribute("data-notifications") or "0"
        while movers(guest_stub, game, seats) == [mover]:
            act(guest_stub, game, mover)
        assert movers(guest_stub, game, seats) == [other]

        # Told by WatchPlayer (a new notification, my turn started), not found by a later re-read.
        other.page.locator(f"#app[data-notifications]:not([data-notifications='{told}'])").wait_for(timeout=VERSION_WAIT_MS)
        assert other.page.locator("#app").get_attribute("data-last-notification") == "TURN_STARTED"
        row(other, game).get_by_test_id("your-turn").wait_for(timeout=VERSION_WAIT_MS)
        row(mover, game).get_by_test_id("your-turn").wait_for(state="detached", timeout=VERSION_WAIT_MS)
        assert bob.page.evaluate("() => document.body.dataset['loaded']") == "once"

        # Signing out forgets the session: My games asks to sign in again.
        ann.page.get_by_test_id("sign-out").click()
        link = ann.page.get_by_test_id("my-games-link").filter(has_text="Sign in for My games")
        link.wait_for(timeout=VERSION_WAIT_MS)  # the lobby, drawn signed out
        link.click()
        ann.page.get_by_test_id("guest-sign-in").wait_for(timeout=VERSION_WAIT_MS)
        assert not ann.errors, ann.errors
        assert not bob.errors, bob.errors
    finally:
        ann.close()
        bob.close()


def test_guest_sign_in_refused_says_why(browser: Any, grpc_server: Any) -> None:
    """A server without guest sessions refuses, and the page shows the reason."""
    server = serve(create_app(grpc_server.target), "127.0.0.1", 0)
    seat = Seat(browser, server.url)
    try:
        seat.page.goto(f"{server.url}/#/me")
        seat.page.get_by_test_id("guest-name").fill("ann")
        seat.page.get_by_test_id("guest-sign-in").click()
        refusal = seat.page.get_by_test_id("sign-in-refusal")
        refusal.wait_for(timeout=VERSION_WAIT_MS)
        assert refusal.locator(".sentence").inner_text() == "This server does not offer guest sessions."
        assert "GUEST_SESSIONS_DISABLED" in (refusal.locator("code").text_content() or "")
    finally:
        seat.close()
        server.close()
