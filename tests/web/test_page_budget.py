"""The web client's weight and speed: the JS bundle's size and the time until a page can be used.

Time to interactive is measured from navigation start (a fresh context: nothing cached) to the moment the
page's first control answers: the lobby's Create button, and a game page's first action button. The figures
are printed (``-s``) for the closing note; the budgets are generous, for a loaded 2-core machine, and fail
only when the page grows or slows by a multiple.
"""

from __future__ import annotations

import gzip
import statistics
import time
from pathlib import Path
from typing import Any

from tabletop.v1 import game_service_pb2 as svc

ASSETS = Path(__file__).resolve().parents[2] / "rest" / "web" / "assets"
RUNS = 5
BUNDLE_BUDGET_GZIP = 150_000  # bytes of gzipped JS
TTI_BUDGET_MS = 8_000


def _bundle() -> tuple[int, int]:
    script = next(ASSETS.glob("app-*.js"))
    raw = script.read_bytes()
    return len(raw), len(gzip.compress(raw, 9))


def _tti(browser: Any, url: str, selector: str) -> float:
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        page = context.new_page()
        started = time.perf_counter()
        page.goto(url)
        page.locator(selector).first.wait_for(state="visible")
        return (time.perf_counter() - started) * 1000
    finally:
        context.close()


def test_bundle_size_and_time_to_interactive(browser: Any, web_url: str, stub: Any) -> None:
    raw, packed = _bundle()
    created = stub.CreateGame(svc.CreateGameRequest(
        ruleset="ttr-europe", seat_count=2, display_names=["ann", "bob"]))
    game = created.game.name.removeprefix("games/")
    lobby = [_tti(browser, f"{web_url}/", "[data-testid=create]:enabled") for _ in range(RUNS)]
    spectator = [_tti(browser, f"{web_url}/#/games/{game}", "#app[data-version]") for _ in range(RUNS)]
    print(f"\nbundle: {raw} bytes, {packed} gzipped; time to interactive (median of {RUNS}, ms): "
          f"lobby {statistics.median(lobby):.0f}, game page {statistics.median(spectator):.0f}")
    assert packed < BUNDLE_BUDGET_GZIP
    assert statistics.median(lobby) < TTI_BUDGET_MS
    assert statistics.median(spectator) < TTI_BUDGET_MS
