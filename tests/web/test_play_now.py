"""Play now and the leaderboard in the web client (issue 28): a guest asks for a two-seat Ticket to Ride game
with bots after one second; the wait shows, then the game opens as the guest's own seat (a bot in the other);
the ruleset's leaderboard page draws."""

from __future__ import annotations

from typing import Any

import redis

from tabletop_server.service.store import keys
from tests.web.seats import VERSION_WAIT_MS, Seat
from tests.web.test_my_games import guests_server, sign_in, web_url  # noqa: F401  (module fixtures)


def test_play_now_seats_the_player_with_a_bot_and_opens_the_game(browser: Any, web_url: str,  # noqa: F811
                                                                 redis_url: str) -> None:
    ann = Seat(browser, web_url)
    try:
        player = sign_in(ann, "ann")
        ann.page.get_by_role("link", name="Play now").click()
        form = ann.page.get_by_test_id("play-ttr-europe")
        form.wait_for(timeout=VERSION_WAIT_MS)
        ann.page.get_by_test_id("play-min-ttr-europe").fill("2")
        ann.page.get_by_test_id("play-max-ttr-europe").fill("2")
        ann.page.get_by_test_id("play-bots-ttr-europe").fill("1")
        ann.page.get_by_test_id("play-go-ttr-europe").click()
        ann.page.get_by_test_id("play-waiting").wait_for(timeout=VERSION_WAIT_MS)
        ann.page.wait_for_url("**/#/games/*", timeout=VERSION_WAIT_MS)
        ann.page.get_by_test_id("seat").wait_for(timeout=VERSION_WAIT_MS)  # the game page, as the player's seat
        rating = ann.page.get_by_test_id("table-rating")  # the player's own rating at the table
        rating.wait_for(timeout=VERSION_WAIT_MS)
        assert rating.inner_text() == "Your rating: none yet"
        # A rating stacked in the store as three rated games left it: the table shows mu - 3 sigma.
        redis.Redis.from_url(redis_url).hset(keys.player(player, "rating:ttr-europe"),
                                             mapping={"mu": 30.0, "sigma": 2.0, "n": 3, "w": 2, "name": "ann"})
        ann.page.reload()
        ann.page.get_by_test_id("seat").wait_for(timeout=VERSION_WAIT_MS)
        assert rating.inner_text(timeout=VERSION_WAIT_MS) == "Your rating: 24.0 (3 rated games)"
        ann.page.goto(f"{web_url}/#/leaderboard/ttr-europe")
        ann.page.locator("#app[data-ready=leaderboard]").wait_for(timeout=VERSION_WAIT_MS)
    finally:
        ann.close()
