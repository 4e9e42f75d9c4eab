"""A BANG! game played through the web client: four players, each in his own browser context (one creates
it in the lobby, three join by its link), and a spectator, for 30 clicked actions.

After every action each page must reach the new version by itself (WatchGame). Each seat's page shows
exactly its own hand (by card id) and no card of another seat's hand anywhere in its DOM, exactly its
legal actions as buttons, and the pending request as a question; the spectator's page has no hand and
no action.
"""

from __future__ import annotations

import random
from typing import Any

from tabletop.v1 import game_service_pb2 as svc

from tests.helpers import bearer
from tests.web.seats import Seat, create_in_lobby, join_by_link, screenshot

ACTIONS = 30
SEATS = 4


def test_four_players_and_a_spectator_play_bang_in_the_browser(browser: Any, web_url: str, stub: Any) -> None:
    pages = [Seat(browser, web_url) for _ in range(SEATS + 1)]
    players, watcher = pages[:SEATS], pages[SEATS]
    try:
        name = create_in_lobby(players[0], "bang", SEATS, "ann")
        link = players[0].page.get_by_test_id("share-link").input_value()
        for i, page in enumerate(players[1:], start=1):
            join_by_link(page, link, f"player{i}")
        watcher.page.goto(link)
        watcher.page.get_by_test_id("spectator").wait_for()
        tokens = {}
        for page in players:
            token = page.token(name)
            tokens[int(token.split(".")[1])] = (token, page)
        assert sorted(tokens) == list(range(SEATS))
        rng = random.Random(7)
        for _ in range(ACTIONS):
            game = stub.GetGame(svc.GetGameRequest(name=name)).game
            if game.status == 3:  # finished
                break
            for page in pages:
                page.wait_for_version(game.version)
            views = {s: stub.GetGame(svc.GetGameRequest(name=name), metadata=bearer(t)).view.bang
                     for s, (t, _) in tokens.items()}
            legal = {s: stub.ListLegalActions(svc.ListLegalActionsRequest(name=name), metadata=bearer(t)).actions
                     for s, (t, _) in tokens.items()}
            for seat, (_, page) in tokens.items():
                _check_seat(page, seat, views, len(legal[seat]))
            assert watcher.page.locator("[data-testid=hand]").count() == 0
            assert watcher.page.locator("[data-testid=action]").count() == 0
            html = watcher.page.content()
            assert not [c.id for v in views.values() for c in v.hand if f'data-card="{c.id}"' in html]
            acting = next(s for s in tokens if legal[s])
            mover = tokens[acting][1]
            if views[acting].pending:
                assert mover.page.get_by_test_id("question").count() == 1
            buttons = mover.page.locator("[data-testid=action]")
            mover.click_action(buttons.nth(rng.randrange(buttons.count())))
            mover.wait_past(game.version)
            assert mover.page.get_by_test_id("message").inner_text() == ""  # every click was accepted
        screenshot(players[0], "web_bang.png")
        for page in pages:
            assert not page.errors, page.errors
    finally:
        for page in pages:
            page.close()


def _check_seat(seat: Seat, me: int, views: dict[int, Any], legal: int) -> None:
    page = seat.page
    own = views[me]
    shown = sorted(str(c.get_attribute("data-card")) for c in page.locator("[data-testid=hand] [data-card]").all())
    assert shown == sorted(c.id for c in own.hand)
    html = page.content()
    for other, view in views.items():
        if other != me:
            leaked = [c.id for c in view.hand if f'data-card="{c.id}"' in html]
            assert not leaked, f"seat {me}'s page shows seat {other}'s hand cards {leaked}"
    assert page.locator("[data-testid=action]").count() == legal
