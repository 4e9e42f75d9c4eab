"""A Ticket to Ride game played through the web client: created in the lobby of one browser, joined from a
second by its link, watched from a third without a seat, and played by clicks for 36 actions.

After every action each page must show the new version by itself (WatchGame), and what each seat sees is
checked against the server's own view for that seat: the hand in the page is the seat's hand, its tickets
are its own (no other seat's ticket id or ticket text is anywhere in its DOM), its actions are exactly the
seat's legal actions, and the board's claimed routes are the view's. The spectator's page has no hand and
no ticket at all.
"""

from __future__ import annotations

import random
from typing import Any

from tabletop.v1 import game_service_pb2 as svc
from tabletop.v1 import ttr_europe_pb2

from tests.helpers import bearer
from tests.web.seats import Seat, create_in_lobby, join_by_link, screenshot

ACTIONS = 36


def test_two_seats_and_a_spectator_play_ticket_to_ride_in_the_browser(browser: Any, web_url: str, stub: Any) -> None:
    ann, bob, watcher = (Seat(browser, web_url) for _ in range(3))
    try:
        name = create_in_lobby(ann, "ttr-europe", 2, "ann", checks=("tunnelFailureDiscards",))
        assert stub.GetGame(svc.GetGameRequest(name=name)).game.options.ttr_europe.tunnel_failure_discards
        link = ann.page.get_by_test_id("share-link").input_value()
        join_by_link(bob, link, "bob")
        watcher.page.goto(link)
        watcher.page.get_by_test_id("spectator").wait_for()  # the table is full: the link only watches
        seats = {0: ann, 1: bob}
        tokens = {seat: page.token(name) for seat, page in seats.items()}
        assert tokens[0] != tokens[1]  # two contexts, two seats
        rng = random.Random(2026)
        claims = 0
        for _ in range(ACTIONS):
            version = stub.GetGame(svc.GetGameRequest(name=name)).game.version
            for page in (ann, bob, watcher):
                page.wait_for_version(version)
            views = {s: stub.GetGame(svc.GetGameRequest(name=name), metadata=bearer(t)).view.ttr_europe
                     for s, t in tokens.items()}
            legal = {s: stub.ListLegalActions(svc.ListLegalActionsRequest(name=name), metadata=bearer(t)).actions
                     for s, t in tokens.items()}
            for seat, page in seats.items():
                _check_seat(page, views[seat], views[1 - seat], len(legal[seat]))
            _check_spectator(watcher, views[0])
            seat = next(s for s in seats if legal[s])
            claims += _click(seats[seat], rng)
            seats[seat].wait_past(version)
            assert seats[seat].page.get_by_test_id("message").inner_text() == ""  # every click was accepted
        assert stub.GetGame(svc.GetGameRequest(name=name)).game.action_count >= ACTIONS
        assert claims > 0
        screenshot(ann, "web_ttr.png")
        for page in (ann, bob, watcher):
            assert not page.errors, page.errors
    finally:
        for page in (ann, bob, watcher):
            page.close()


# Helpers


def _click(seat: Seat, rng: random.Random) -> int:
    """Click one of the seat's action buttons: a route claim when there is one (most of the time), so that
    the map fills; otherwise any. Returns 1 for a claim."""
    claims = seat.page.locator("[data-testid=action][data-kind=claimRoute]")
    buttons = seat.page.locator("[data-testid=action]")
    if claims.count() and rng.random() < 0.7:
        seat.click_action(claims.nth(rng.randrange(claims.count())))
        return 1
    seat.click_action(buttons.nth(rng.randrange(buttons.count())))
    return 0


def _check_seat(seat: Seat, own: Any, other: Any, legal: int) -> None:
    page = seat.page
    shown = sorted((str(c.get_attribute("data-color")), int(c.get_attribute("data-count") or 0))
                   for c in page.locator("[data-testid=hand] [data-color]").all())
    expected = sorted((ttr_europe_pb2.TtrColor.Name(c.color).removeprefix("TTR_COLOR_").lower(), c.count)
                      for c in own.private.hand if c.count)
    assert shown == expected, (shown, expected)
    mine = {t.id for t in own.private.tickets} | {t.id for t in own.private.offered_tickets}
    on_page = {int(t.get_attribute("data-ticket") or 0) for t in page.locator("[data-ticket]").all()}
    assert on_page == mine
    html = page.content()
    for ticket in [*other.private.tickets, *other.private.offered_tickets]:
        if ticket.id not in mine:
            assert f'data-ticket="{ticket.id}"' not in html
            assert f"{ticket.city_a} – {ticket.city_b}, {ticket.points}" not in html  # its text, as the page words it
    assert int(page.get_by_test_id("actions").get_attribute("data-count") or -1) == legal
    assert page.locator("[data-testid=action]").count() == legal
    _check_claims(seat, own)


def _check_spectator(seat: Seat, view: Any) -> None:
    page = seat.page
    assert page.locator("[data-testid=hand]").count() == 0
    assert page.locator("[data-ticket]").count() == 0
    assert page.locator("[data-testid=action]").count() == 0
    _check_claims(seat, view)


def _check_claims(seat: Seat, view: Any) -> None:
    drawn = {int(g.get_attribute("data-route") or 0): int(g.get_attribute("data-owner") or 0)
             for g in seat.page.locator("[data-route][data-owner]:not([data-owner=''])").all()}
    assert drawn == {i + 1: owner for i, owner in enumerate(view.route_owners) if owner >= 0}
