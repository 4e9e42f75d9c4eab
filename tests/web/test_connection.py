"""The game page's connection state (issue 31): with the server stopped mid-game the indicator goes from
connected to reconnecting (with a countdown) to offline, a click meanwhile says the server cannot be reached,
and once the server is back on the same port the indicator says connected again, the page catches up and the
error it showed is gone by itself; then play goes on."""

from __future__ import annotations

import time
from typing import Any

from tabletop.v1 import game_service_pb2 as svc

from tabletop_server.rest.app import create_app, serve
from tests.helpers import bearer
from tests.web.seats import VERSION_WAIT_MS, seat_script

STATE = "[data-testid=connection][data-state='{}']"


def test_the_server_stopped_and_restarted_mid_game(browser: Any, grpc_server: Any, stub: Any) -> None:
    app = create_app(grpc_server.target)
    server = serve(app, "127.0.0.1", 0)
    url = server.url
    port = int(url.rsplit(":", 1)[1])
    created = stub.CreateGame(svc.CreateGameRequest(ruleset="ttr-europe", seat_count=2, display_names=["ann", "bob"]))
    game = created.game.name
    tokens = {c.seat: c.player_token for c in created.credentials}
    context = browser.new_context(locale="en-US")
    try:
        context.add_init_script(
            seat_script(game, 0, tokens[0]))
        page = context.new_page()
        page.goto(f"{url}/#/games/{game.removeprefix('games/')}")
        page.locator(STATE.format("online")).wait_for(timeout=VERSION_WAIT_MS)
        assert page.get_by_test_id("connection").inner_text() == "Connected"
        server.close()
        page.locator(STATE.format("reconnecting")).wait_for(timeout=30_000)
        assert "Reconnecting in" in page.get_by_test_id("connection").inner_text()
        page.locator(STATE.format("offline")).wait_for(timeout=60_000)
        assert page.get_by_test_id("connection").inner_text().startswith("Offline")
        # A click while the server is away: a sentence, not "Unknown: Failed to fetch".
        page.locator("[data-testid=action]").first.click()
        refusal = page.get_by_test_id("refusal")
        refusal.wait_for(timeout=30_000)
        assert refusal.locator(".sentence").inner_text() == \
            "The server cannot be reached right now. The page retries by itself."
        # Meanwhile the game goes on without this page (the other seat plays over gRPC).
        version = stub.GetGame(svc.GetGameRequest(name=game)).game.version
        for seat in (0, 1):
            legal = stub.ListLegalActions(svc.ListLegalActionsRequest(name=game), metadata=bearer(tokens[seat]))
            if legal.actions:
                stub.SubmitAction(svc.SubmitActionRequest(name=game, action=legal.actions[0],
                                                          expected_version=legal.version), metadata=bearer(tokens[seat]))
                break
        time.sleep(0.5)
        server = serve(app, "127.0.0.1", port)
        page.locator(STATE.format("online")).wait_for(timeout=60_000)
        after = stub.GetGame(svc.GetGameRequest(name=game)).game.version
        assert after > version
        page.locator(f"#app[data-version='{after}']").wait_for(timeout=VERSION_WAIT_MS)
        assert page.get_by_test_id("refusal").count() == 0  # the retry cleared its own error
        assert page.get_by_test_id("message").inner_text() == ""
    finally:
        context.close()
        server.close()
