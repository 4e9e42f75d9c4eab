"""A spectator who arrives late (issue 31's small defect): the live feed starts with the game's recent moves,
worded and as a spectator may see them (replayed by WatchGame from a few versions back), not empty."""

from __future__ import annotations

import random
import re
from typing import Any

from tabletop.v1 import game_service_pb2 as svc

from tests.helpers import create_game, play
from tests.web.seats import VERSION_WAIT_MS, Seat


def test_a_late_spectator_sees_the_recent_moves(browser: Any, web_url: str, stub: Any) -> None:
    game, tokens = create_game(stub, "ttr-europe", 2)
    play(stub, game.name, tokens, 20, random.Random(3))
    version = stub.GetGame(svc.GetGameRequest(name=game.name)).game.version
    watcher = Seat(browser, web_url)
    try:
        page = watcher.page
        page.goto(f"{web_url}/#/games/{game.name.removeprefix('games/')}")
        page.locator(f"#app[data-version='{version}']").wait_for(timeout=VERSION_WAIT_MS)
        lines = page.get_by_test_id("feed").locator("li")
        # The stream replays the recent versions one message at a time, so the page's version (from GetGame)
        # comes before the feed's newest line: wait for that line, then read the feed (a race under load).
        lines.filter(has_text=re.compile(rf"^{version}: ")).first.wait_for(timeout=VERSION_WAIT_MS)
        lines.nth(2).wait_for(timeout=VERSION_WAIT_MS)
        texts = lines.all_inner_texts()
        assert 3 <= len(texts) <= 12, texts
        assert texts[0].startswith(f"{version}: "), texts  # newest first, up to the version shown
        assert not [t for t in texts if "faceUpChanged" in t or "undefined" in t or "{" in t], texts
        assert not watcher.errors, watcher.errors
    finally:
        watcher.close()
