"""A page's view and its actions belong to one version (issue 31: found by the whole-game browser tests). The page
asks GetGame and ListLegalActions together; a move landing between the two answers gave a page showing the new
version with the old version's actions, which no later message mended (the stream's next version is the one shown),
so the seat's next click was refused as stale. Here the browser holds the seat's first GetGame until the other seat
has moved: the page must ask again, show the actions of the version it shows, and a click on them is accepted."""

from __future__ import annotations

from typing import Any

from tabletop.v1 import game_service_pb2 as svc

from tests.helpers import bearer
from tests.web.seats import VERSION_WAIT_MS, seat_script


def test_a_move_between_the_view_and_the_actions_is_not_shown_stale(browser: Any, web_url: str, stub: Any) -> None:
    created = stub.CreateGame(svc.CreateGameRequest(ruleset="ttr-europe", seat_count=2, display_names=["ann", "bob"]))
    game, game_id = created.game.name, created.game.name.removeprefix("games/")
    tokens = {c.seat: c.player_token for c in created.credentials}
    context = browser.new_context(locale="en-US", viewport={"width": 1400, "height": 1000})
    held: list[Any] = []
    listed: list[Any] = []

    def get_game(route: Any) -> None:
        if not held and route.request.headers.get("authorization"):
            held.append(route)  # the seat's first GetGame waits for the test
        else:
            route.continue_()

    try:
        context.add_init_script(
            seat_script(game, 0, tokens[0]))
        context.route("**/tabletop.v1.GameService/GetGame", get_game)
        context.on("requestfinished", lambda r: listed.append(r) if r.url.endswith("/ListLegalActions") else None)
        page = context.new_page()
        page.goto(f"{web_url}/#/games/{game_id}")
        page.wait_for_timeout(100)
        deadline = 600
        while (not held or not listed) and deadline:  # both calls made; the actions answered at the first version
            page.wait_for_timeout(100)
            deadline -= 1
        assert held and listed
        before = stub.GetGame(svc.GetGameRequest(name=game)).game.version
        bob = stub.ListLegalActions(svc.ListLegalActionsRequest(name=game), metadata=bearer(tokens[1]))
        stub.SubmitAction(svc.SubmitActionRequest(name=game, action=bob.actions[0], expected_version=bob.version),
                          metadata=bearer(tokens[1]))  # bob keeps his tickets: ann's choices stay, the version moves
        held[0].continue_()  # the view now answers the new version
        page.locator(f"#app[data-version='{before + 1}']").wait_for(timeout=VERSION_WAIT_MS)
        page.get_by_test_id("keep-tickets").click()
        page.locator(f"#app[data-version='{before + 2}']").wait_for(timeout=VERSION_WAIT_MS)
        assert page.get_by_test_id("refusal").count() == 0
    finally:
        context.close()


def test_a_failed_list_of_actions_is_asked_again(browser: Any, web_url: str, stub: Any) -> None:
    """A ListLegalActions that fails (here the browser aborts the first one) must not leave the seat with no moves
    until the next version, which may be its own to make: the page asks again and shows its moves."""
    created = stub.CreateGame(svc.CreateGameRequest(ruleset="ttr-europe", seat_count=2, display_names=["ann", "bob"]))
    game, game_id = created.game.name, created.game.name.removeprefix("games/")
    tokens = {c.seat: c.player_token for c in created.credentials}
    context = browser.new_context(locale="en-US", viewport={"width": 1400, "height": 1000})
    failed: list[Any] = []

    def legal_actions(route: Any) -> None:
        if not failed:
            failed.append(route)
            route.abort("failed")
        else:
            route.continue_()

    try:
        context.add_init_script(
            seat_script(game, 0, tokens[0]))
        context.route("**/tabletop.v1.GameService/ListLegalActions", legal_actions)
        page = context.new_page()
        page.goto(f"{web_url}/#/games/{game_id}")
        page.get_by_test_id("keep-tickets").wait_for(timeout=VERSION_WAIT_MS)  # no version moved meanwhile
        assert failed
        assert stub.GetGame(svc.GetGameRequest(name=game)).game.version == created.game.version
    finally:
        context.close()
