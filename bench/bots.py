"""Bot tournament: the ``basic`` bots against ``random``, side by side, through ``service.engine.bots.choose``.

Each game seats one ``basic`` bot (rotating over the seats game by game) among ``random`` bots,
and the same deal is played again with ``random`` in that seat: the two win rates of that seat
are the figures compared. A Ticket to Ride seat wins when it is among the winners; a BANG! seat
wins when its team wins (the Sheriff with his Deputies, the Outlaws together, a Renegade alone),
so BANG! rates are also given per role.

Usage: ``.venv/bin/python bench/bots.py [--games 200] [--game ttr|bang|all]``
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tabletop_server.service.engine.bots import choose
from tabletop_server.service.engine.ruleset import Ruleset, State
from tabletop_server.service.games import bang
from tabletop_server.service.games import ttr_europe as ttr

DODGE_CITY = {"expansions": ["dodge_city"]}
ARMED = {"expansions": ["armed_and_dangerous"]}
BOTH = {"expansions": ["dodge_city", "armed_and_dangerous"]}


@dataclass(frozen=True)
class Table:
    """One line of the tournament: a game, a seat count and its options."""

    label: str
    ruleset: Any
    seats: int
    options: dict[str, Any] = field(default_factory=dict)


TABLES = (
    *(Table(f"ttr {n}p", ttr, n) for n in range(2, 6)),
    *(Table(f"bang {n}p", bang, n) for n in range(4, 8)),
    *(Table(f"bang+dc {n}p", bang, n, DODGE_CITY) for n in range(3, 9)),
    *(Table(f"bang+ad {n}p", bang, n, ARMED) for n in range(4, 8)),
    *(Table(f"bang+dc+ad {n}p", bang, n, BOTH) for n in range(3, 9)),
)


def play_game(ruleset: Ruleset, state: State, bots: Sequence[str], seed: int) -> int:
    """Play ``state`` to its end with one named bot per seat; returns the actions taken."""
    limit = ruleset.INFO.max_actions
    for step in range(limit):
        if ruleset.is_over(state):
            return step
        seat = ruleset.to_act(state)[0]
        action = choose(ruleset, state, seat, bots[seat], seed * 1_000_003 + step)
        ruleset.apply(state, seat, action)
    raise AssertionError(f"game of seed {seed} not over after {limit} actions")


def seat_won(table: Table, state: State, seat: int) -> bool:
    """Whether ``seat`` won: among the winners (TTR), or on the winning team (BANG!)."""
    if table.ruleset is ttr:
        return seat in state["result"]["winners"]
    return seat in state["winners"]


def role_of(table: Table, state: State, seat: int) -> str:
    """The seat's role (BANG!) or ``""`` (TTR)."""
    return str(state["p"][seat]["role"]) if table.ruleset is bang else ""


def run_table(table: Table, games: int, first_seed: int = 1) -> dict[str, Any]:
    """Play ``games`` deals twice (basic in the rotating seat, then random there); the tallies."""
    wins = {"basic": 0, "random": 0}
    by_role: dict[str, dict[str, int]] = defaultdict(lambda: {"basic": 0, "random": 0, "games": 0})
    actions = 0
    start = time.perf_counter()
    for game in range(games):
        seed = first_seed + game
        seat = game % table.seats
        for bot in ("basic", "random"):
            bots = ["random"] * table.seats
            bots[seat] = bot
            state = table.ruleset.setup(table.options, table.seats, seed)
            actions += play_game(table.ruleset, state, bots, seed)
            won = seat_won(table, state, seat)
            wins[bot] += won
            role = role_of(table, state, seat)
            by_role[role][bot] += won
        by_role[role]["games"] += 1
    seconds = time.perf_counter() - start
    return {"games": games, "wins": wins, "by_role": dict(by_role), "seconds": seconds, "actions": actions}


def report(table: Table, tally: dict[str, Any]) -> str:
    """One line: win rates of the seat as basic and as random, games/s, and per role for BANG!."""
    games = tally["games"]
    line = (f"{table.label:<12} {games:>4} games  basic {tally['wins']['basic'] / games:6.1%}  "
            f"random {tally['wins']['random'] / games:6.1%}  {2 * games / tally['seconds']:6.1f} games/s")
    roles = {r: v for r, v in sorted(tally["by_role"].items()) if r}
    if roles:
        line += "  | " + "  ".join(f"{r} {v['basic'] / v['games']:.0%}/{v['random'] / v['games']:.0%} (n={v['games']})"
                                   for r, v in roles.items())
    return line


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200, help="deals per table (each played twice)")
    parser.add_argument("--game", choices=("ttr", "bang", "all"), default="all")
    args = parser.parse_args(argv)
    print("win rate of the rotating seat played by basic, then by random, on the same deals")
    for table in TABLES:
        if args.game != "all" and not table.label.startswith(args.game):
            continue
        print(report(table, run_table(table, args.games)), flush=True)


if __name__ == "__main__":
    main()
