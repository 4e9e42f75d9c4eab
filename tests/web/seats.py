"""Browser seats for the web client tests: one Chromium context per seat, and the page's few gestures."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

# How long a page may take to show a new version: a deadline on a condition (it ends as soon as the page
# shows it), sized for a loaded 2-core machine running the whole suite beside another CPU-heavy process.
VERSION_WAIT_MS = 90_000
# Where the games' screenshots go when set (docs/web.md: how the README's screenshots are made).
SCREENSHOTS = os.environ.get("TABLETOP_WEB_SCREENSHOTS")


def seat_script(game: str, seat: int, token: str) -> str:
    """An init script that holds ``seat``'s credential for ``game`` where the page keeps it (sessionStorage,
    as after joining), so a context opens the game as that seat."""
    return f"sessionStorage.setItem('tabletop:seat:{game}', JSON.stringify({{seat: {seat}, token: '{token}'}}))"


class Seat:
    """One browser context playing one seat (or watching): its page and the errors it raised."""

    def __init__(self, browser: Any, url: str, width: int = 1400, height: int = 1000, locale: str = "en-US") -> None:
        self.context = browser.new_context(viewport={"width": width, "height": height}, locale=locale)
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.url = url

    def version(self) -> int:
        return int(self.page.locator("#app").get_attribute("data-version") or 0)

    def wait_past(self, version: int) -> None:
        """Until the page shows a version after ``version`` (a CSS selector: the page's CSP forbids eval)."""
        self.page.locator(f"#app[data-version]:not([data-version='{version}'])").wait_for(timeout=VERSION_WAIT_MS)

    def wait_for_version(self, version: int) -> None:
        self.page.locator(f"#app[data-version='{version}']").wait_for(timeout=VERSION_WAIT_MS)

    def click_action(self, button: Any) -> None:
        """Click an action button, opening its group first when it is folded (a long list of claims)."""
        group = self.page.locator(f"details[data-group='{button.get_attribute('data-kind')}']")
        if group.get_attribute("open") is None:
            group.locator("summary").click()
        button.click()

    def token(self, game: str) -> str:
        """The seat token the page keeps in sessionStorage (the test reads it to ask the server directly)."""
        raw = self.page.evaluate("(key) => sessionStorage.getItem(key)", f"tabletop:seat:{game}")
        return str(json.loads(raw)["token"])

    def close(self) -> None:
        self.context.close()


def create_in_lobby(seat: Seat, ruleset: str, seats: int, name: str, checks: tuple[str, ...] = ()) -> str:
    """Create a game through the lobby's form; the game's resource name (the page opens it)."""
    page = seat.page
    page.goto(f"{seat.url}/")
    page.get_by_test_id("ruleset").select_option(ruleset)
    for option in checks:  # first: the seat counts offered follow the options ticked (Dodge City: 3 and 8)
        page.locator(f"fieldset.options input[name='{option}']").check()
    page.get_by_test_id("seats").select_option(str(seats))
    page.get_by_test_id("display-name").fill(name)
    page.get_by_test_id("create").click()
    page.get_by_test_id("seat").wait_for()
    link = page.get_by_test_id("share-link").input_value()
    return "games/" + link.rsplit("/", 1)[1]


def join_by_link(seat: Seat, link: str, name: str) -> None:
    """Open the join link and take a seat."""
    seat.page.goto(link)
    seat.page.get_by_test_id("join-name").fill(name)
    seat.page.get_by_test_id("join").click()
    seat.page.get_by_test_id("seat").wait_for()


def wait_for_count(seat: Seat, items: list[Any], count: int, timeout_ms: int = 5_000) -> None:
    """Let the page run until ``items`` (filled by the page's event handlers) holds ``count`` entries."""
    for _ in range(timeout_ms // 50):
        if len(items) >= count:
            return
        seat.page.wait_for_timeout(50)


def screenshot(seat: Seat, name: str) -> None:
    if SCREENSHOTS:
        Path(SCREENSHOTS).mkdir(parents=True, exist_ok=True)
        seat.page.screenshot(path=str(Path(SCREENSHOTS) / name), full_page=True)
