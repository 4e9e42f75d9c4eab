"""Ratings converge (issue 28, slow tier): players whose moves the rules' bots choose, of a known order of
strength (``basic`` over ``random``), play rated Ticket to Ride games seated by the matchmaker; their
ratings end in that order with clear margins. ``bench/ratings.py`` runs the league (each round every
player files a ticket, in a new order; the matcher seats tables of two, oldest first; each game is played
to its end in process by its seats' bots and rated by the service's own ``ratings.rate_game``); here at
800 games and two levels, there at a few thousand and three (``greedy`` between). Prints the figures."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from bench.ratings import league, report
from tests.service.webhook_kit import private_redis

GAMES = 800  # about 77 ms of rules per game here: a few thousand would not fit the tier (bench/ratings.py runs them)
PER_LEVEL = 8
LEVELS = ("basic", "random")


@pytest.mark.slow
@pytest.mark.timeout(1200)  # 800 games of rules (about 77 ms of CPU each) plus the matcher: minutes on a loaded machine
def test_ratings_end_in_the_order_of_strength(tmp_path: Any) -> None:
    with private_redis(tmp_path) as url:
        board, seconds = asyncio.run(league(url, GAMES, LEVELS, PER_LEVEL))
    print(f"\n{GAMES} rated games in {seconds:.1f} s")
    margins = report(board, LEVELS)
    assert len(board) == PER_LEVEL * len(LEVELS)
    assert margins["basic>random"] > 10  # every basic player above every random one, by a clear margin
