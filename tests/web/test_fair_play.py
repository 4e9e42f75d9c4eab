"""Fair play in the web client (issue 33): a game whose deal the creator chose is marked in the lobby and on
its page, and a finished game's "Verify this deal" opens its commitment with the revealed seed, in the browser."""

from __future__ import annotations

import random
from typing import Any

from tabletop.v1 import game_service_pb2 as svc

from tests.helpers import create_game, play
from tests.web.seats import Seat


def _finished(stub: Any, seed: int | None) -> str:
    game, tokens = create_game(stub, "ttr-europe", 2, seed=seed)
    play(stub, game.name, tokens, 3000, random.Random(1))
    return str(game.name)


def test_a_chosen_deal_is_marked_and_a_finished_deal_verifies_in_the_browser(browser: Any, web_url: str,
                                                                             stub: Any) -> None:
    listed = stub.CreateGame(svc.CreateGameRequest(ruleset="bang", seat_count=4, display_names=["a"], seed=9,
                                                   public=True)).game  # open seats: the suite's scope
    chosen, drawn = _finished(stub, 11), _finished(stub, None)
    visitor = Seat(browser, web_url)
    try:
        visitor.page.goto(f"{web_url}/#/")
        row = visitor.page.locator(f"tr[data-game='{listed.name}']")
        row.wait_for()
        assert row.get_by_test_id("deal-chosen").inner_text() == "deal chosen by the creator"
        for name, marked in ((chosen, True), (drawn, False)):
            visitor.page.goto(f"{web_url}/#/games/{name.removeprefix('games/')}")
            # A hash change keeps the last game's page up until this one draws: wait for this game's own page.
            visitor.page.locator(f"[data-testid=replay-link][href^='#/games/{name.removeprefix('games/')}/']").wait_for()
            visitor.page.get_by_test_id("verify-deal").click()
            visitor.page.locator("[data-testid='verify-result'][data-verified='true']").wait_for()
            assert visitor.page.get_by_test_id("deal-chosen").count() == int(marked)
            assert "opens the commitment" in visitor.page.get_by_test_id("verify-result").inner_text()
        assert not visitor.errors, visitor.errors
    finally:
        visitor.context.close()
