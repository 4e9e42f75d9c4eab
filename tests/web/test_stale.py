"""The stale-game banner (issue 31): a watch stream that stays open but brings nothing (a proxy holding it, a
stuck replica) must not look like a quiet game. The browser holds every WatchGame request unanswered while the
game moves on over gRPC: the page's own version check finds the game ahead, shows the banner, reloads the game
by itself (so the page reaches the game's version without the stream), and drops the banner once it is current."""

from __future__ import annotations

from typing import Any

from tabletop.v1 import game_service_pb2 as svc

from tests.helpers import bearer, deciding_seat
from tests.web.seats import VERSION_WAIT_MS


def test_a_watch_stream_that_brings_nothing_shows_the_stale_banner(browser: Any, web_url: str, stub: Any) -> None:
    created = stub.CreateGame(svc.CreateGameRequest(ruleset="ttr-europe", seat_count=2, display_names=["ann", "bob"]))
    game, game_id = created.game.name, created.game.name.removeprefix("games/")
    tokens = {c.seat: c.player_token for c in created.credentials}
    context = browser.new_context(locale="en-US", viewport={"width": 1400, "height": 1000})
    held: list[Any] = []
    try:
        # Every watch stream is held open and never answered (held, so the requests stay pending).
        context.route("**/tabletop.v1.GameService/WatchGame", lambda route: held.append(route))
        page = context.new_page()
        page.goto(f"{web_url}/#/games/{game_id}")
        shown = stub.GetGame(svc.GetGameRequest(name=game)).game.version
        page.locator(f"#app[data-version='{shown}']").wait_for(timeout=VERSION_WAIT_MS)
        assert held, "the page opened no watch stream"
        banner = page.get_by_test_id("stale")
        assert banner.is_hidden()
        seat, actions = deciding_seat(stub, game, tokens)
        assert seat is not None
        stub.SubmitAction(svc.SubmitActionRequest(name=game, action=actions[0]), metadata=bearer(tokens[seat]))
        moved = stub.GetGame(svc.GetGameRequest(name=game)).game.version
        assert moved > shown
        banner.wait_for(state="visible", timeout=VERSION_WAIT_MS)
        assert banner.inner_text().startswith("This page may be behind the game")
        assert page.get_by_test_id("connection").get_attribute("data-state") == "online"  # not a lost connection
        # The page caught up without its stream, and the banner goes once a check finds it current.
        page.locator(f"#app[data-version='{moved}']").wait_for(timeout=VERSION_WAIT_MS)
        banner.wait_for(state="hidden", timeout=VERSION_WAIT_MS)
        assert len(held) >= 2  # the stream was reopened (and held again)
    finally:
        context.close()
