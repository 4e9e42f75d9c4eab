"""Accessibility (issue 31): axe-core (clients/web's devDependency, `npm ci` there) finds no serious or
critical WCAG 2 A/AA violation on the lobby, a Ticket to Ride and a BANG! game page as a seat and as a
spectator, in English and in Czech. axe is injected into the page (the page's CSP allows only its own
scripts, so these contexts bypass it: the page itself is unchanged)."""

from __future__ import annotations

from typing import Any

import pytest
from tabletop.v1 import game_service_pb2 as svc

from tests.web.axe import serious
from tests.web.seats import VERSION_WAIT_MS


@pytest.mark.parametrize("locale", ["en-US", "cs-CZ"])
def test_no_serious_violation_on_the_lobby_and_the_game_pages(browser: Any, web_url: str, stub: Any,
                                                              locale: str) -> None:
    pages: dict[str, str] = {"lobby": f"{web_url}/"}
    scripts: dict[str, str] = {}
    for ruleset, seats in (("ttr-europe", 2), ("bang", 4)):
        created = stub.CreateGame(svc.CreateGameRequest(ruleset=ruleset, seat_count=seats,
                                                        display_names=[f"p{i}" for i in range(seats)]))
        game = created.game.name
        url = f"{web_url}/#/games/{game.removeprefix('games/')}"
        pages[f"{ruleset} spectator"] = url
        pages[f"{ruleset} seat"] = url
        token = created.credentials[0].player_token
        scripts[f"{ruleset} seat"] = f"sessionStorage.setItem('tabletop:seat:{game}', JSON.stringify({{seat: 0, token: '{token}'}}))"
    found = {}
    for name, url in pages.items():
        context = browser.new_context(locale=locale, bypass_csp=True, viewport={"width": 1400, "height": 1000})
        try:
            if name in scripts:
                context.add_init_script(scripts[name])
            page = context.new_page()
            page.goto(url)
            page.locator("[data-testid=create], #app[data-version]").first.wait_for(timeout=VERSION_WAIT_MS)
            violations = serious(page)
            if violations:
                found[name] = violations
        finally:
            context.close()
    assert not found, found
