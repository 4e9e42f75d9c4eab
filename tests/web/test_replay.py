"""Replays in the browser (issue 31): a finished game stepped to move N with the page's own controls (from
the keyboard) shows exactly the board, players and feed lines (what happened at each move, worded as the live
feed words it) the spectator's page showed at version N; the spectator's page links to the replay; axe-core finds no serious WCAG violation on the replay page, in English and Czech."""

from __future__ import annotations

from typing import Any

import pytest
from tabletop.v1 import game_service_pb2 as svc

from tests.helpers import bearer, deciding_seat
from tests.web.axe import serious
from tests.web.seats import VERSION_WAIT_MS

BOARD = "#app .play > :first-child"  # the ruleset's drawing (ttr/panel.ts, bang/table.ts): map, players, hands


def _move(stub: Any, name: str, tokens: dict[int, str], count: int) -> None:
    for _ in range(count):
        seat, actions = deciding_seat(stub, name, tokens)
        assert seat is not None
        stub.SubmitAction(svc.SubmitActionRequest(name=name, action=actions[-1]), metadata=bearer(tokens[seat]))


def _shown(page: Any, version: int) -> dict[str, str]:
    page.locator(f"#app[data-version='{version}'] .play").wait_for(timeout=VERSION_WAIT_MS)
    # The feed's newest line is this version's (the live page's comes by its watch stream, a moment later).
    page.locator(f"[data-testid=feed] li:first-child:text-matches('^{version}: ')").wait_for(timeout=VERSION_WAIT_MS)
    chips = page.locator("[data-testid=seat-chip]").all_inner_texts()
    feed = page.locator("[data-testid=feed] li").all_inner_texts()
    return {"board": page.locator(BOARD).evaluate("e => e.outerHTML"), "seats": "|".join(chips), "feed": "|".join(feed)}


@pytest.mark.parametrize(("ruleset", "seats", "locale"), [("ttr-europe", 2, "en-US"), ("bang", 4, "cs-CZ")])
def test_a_finished_game_stepped_to_move_n_is_the_spectator_page_at_n(browser: Any, web_url: str, stub: Any,
                                                                      ruleset: str, seats: int, locale: str) -> None:
    created = stub.CreateGame(svc.CreateGameRequest(ruleset=ruleset, seat_count=seats, max_actions=6, seed=11,
                                                    display_names=[f"p{i}" for i in range(seats)]))
    name, game_id = created.game.name, created.game.name.removeprefix("games/")
    tokens = {c.seat: c.player_token for c in created.credentials}
    context = browser.new_context(locale=locale, bypass_csp=True, viewport={"width": 1400, "height": 1000})
    errors: list[str] = []
    try:
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        _move(stub, name, tokens, 3)
        page.goto(f"{web_url}/#/games/{game_id}")
        spectator = _shown(page, 4)
        assert page.get_by_test_id("replay-link").get_attribute("href") == f"#/games/{game_id}/replay/4"
        _move(stub, name, tokens, 3)  # the action limit: the game is finished at version 7
        assert stub.GetGame(svc.GetGameRequest(name=name)).game.status == 3
        page.goto(f"{web_url}/#/games/{game_id}/replay/7")
        page.locator("#app[data-ready=replay][data-version='7']").wait_for(timeout=VERSION_WAIT_MS)
        back = page.get_by_test_id("replay-back")
        for version in (6, 5, 4):  # stepped from the keyboard: the focus stays on the control
            back.focus()
            page.keyboard.press("Enter")
            page.locator(f"#app[data-version='{version}']").wait_for(timeout=VERSION_WAIT_MS)
        assert _shown(page, 4) == spectator
        page.get_by_test_id("replay-forward").click()
        page.locator("#app[data-version='5']").wait_for(timeout=VERSION_WAIT_MS)
        assert _shown(page, 5) != spectator or ruleset == "bang"  # a TTR move always changes the board
        page.get_by_test_id("replay-first").click()
        page.locator("#app[data-version='1']").wait_for(timeout=VERSION_WAIT_MS)
        assert page.get_by_test_id("replay-back").get_attribute("aria-disabled") == "true"
        page.go_back()  # every position is its own address: history steps back to move 5
        page.locator("#app[data-version='5']").wait_for(timeout=VERSION_WAIT_MS)
        assert not serious(page)
        assert not errors, errors
    finally:
        context.close()
