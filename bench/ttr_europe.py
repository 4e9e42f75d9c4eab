"""Ticket to Ride: Europe engine benchmark: apply latency per action type, games per second,
and the cost of legal-action enumeration in the worst position we can build.

Everything runs in this process on one core, through the ruleset contract only:

1. Random bot games (legal_actions + apply each step, claims preferred) from fixed seeds,
   2 to 5 players: games/s. The same games replayed from their logs (apply only): games/s.
2. Every recorded action applied again on its stored state, decoded from JSON as the
   service does (orjson), per action type: median and p99 of ``apply`` alone, and of
   ``apply`` + ``view`` for the actor + ``project`` and ``encode_event`` for every seat and a
   spectator (the ruleset's whole share of a SubmitAction).
3. ``legal_actions`` on every recorded state (mean, p99, list length), and on the worst
   position (5 seats, every route free, one hand holding all 110 cards, a 3-card station
   to build: 2,245 actions).

Usage: ``.venv/bin/python bench/ttr_europe.py [--games 200]``
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "games" / "ttr_europe"))

from ttr_helpers import worst_position

import tabletop_server.service.games.ttr_europe as ttr
from tabletop_server.service.engine.rng import Rng

# CPU time of this process: the budget is CPU per action, and other processes on the
# machine must not inflate the figures (wall-clock p99s under load are scheduler noise).
CLOCK = time.process_time
Sample = tuple[bytes, int, dict[str, Any]]
Log = tuple[int, int, list[tuple[int, dict[str, Any]]]]


def bot_games(games: int) -> tuple[list[Log], list[Sample], float]:
    """Play random games; returns their logs, (state JSON, seat, action) samples and seconds."""
    logs: list[Log] = []
    samples: list[Sample] = []
    spent = 0.0
    for g in range(games):
        seats, seed = 2 + g % 4, 10_000 + g
        bot = Rng({"rng": seed})
        start = CLOCK()
        state = ttr.setup({}, seats, seed)
        log: list[tuple[int, dict[str, Any]]] = []
        while not ttr.is_over(state):
            seat = bot.choice(ttr.to_act(state))
            actions = ttr.legal_actions(state, seat)
            claims = [a for a in actions if a["kind"] in ("claim_route", "pay_tunnel")]
            action = bot.choice(claims) if claims and bot.below(3) else bot.choice(actions)
            log.append((seat, action))
            spent -= CLOCK()
            snapshot = orjson.dumps(state)
            spent += CLOCK()
            samples.append((snapshot, seat, action))
            ttr.apply(state, seat, action)
        spent += CLOCK() - start
        logs.append((seats, seed, log))
    return logs, samples, spent


def replay(logs: list[Log]) -> float:
    """Seconds to replay every game from its log, apply only."""
    start = CLOCK()
    for seats, seed, log in logs:
        state = ttr.setup({}, seats, seed)
        for seat, action in log:
            ttr.apply(state, seat, action)
    return CLOCK() - start


def per_action(samples: list[Sample]) -> dict[str, tuple[list[float], list[float]]]:
    """Per action type: apply times and full ruleset-share times (microseconds)."""
    out: dict[str, tuple[list[float], list[float]]] = defaultdict(lambda: ([], []))
    for raw, seat, action in samples:
        state = orjson.loads(raw)
        start = CLOCK()
        ttr.apply(state, seat, action)
        applied = CLOCK() - start
        state = orjson.loads(raw)
        start = CLOCK()
        events = ttr.apply(state, seat, action)
        ttr.view(state, seat).SerializeToString()
        for viewer in [*range(state["n"]), None]:
            for event in events:
                projected = ttr.project(event, viewer)
                if projected is not None:
                    ttr.encode_event(projected).SerializeToString()
        whole = CLOCK() - start
        times = out[action["kind"]]
        times[0].append(applied * 1e6)
        times[1].append(whole * 1e6)
    return out


def legal_cost(samples: list[Sample]) -> tuple[float, float, float]:
    """Mean and p99 microseconds of legal_actions over the recorded states, and mean length."""
    times, lengths = [], []
    for raw, seat, _action in samples:
        state = orjson.loads(raw)
        start = CLOCK()
        listed = ttr.legal_actions(state, seat)
        times.append((CLOCK() - start) * 1e6)
        lengths.append(len(listed))
    return statistics.fmean(times), _p99(times), statistics.fmean(lengths)


def worst_case(rounds: int = 30) -> tuple[int, float, float]:
    """The worst position: list length, best-of and median milliseconds of legal_actions
    (and of encoding the list as protos, as ListLegalActions does)."""
    state = worst_position()
    runs, encodes = [], []
    listed: list[dict[str, Any]] = []
    for _ in range(rounds):
        start = CLOCK()
        listed = ttr.legal_actions(state, 0)
        runs.append(CLOCK() - start)
        start = CLOCK()
        for action in listed:
            ttr.encode_action(action)
        encodes.append(CLOCK() - start)
    return len(listed), statistics.median(runs) * 1e3, statistics.median(encodes) * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    args = parser.parse_args()
    logs, samples, spent = bot_games(args.games)
    print(f"random bot games: {args.games} in {spent:.2f}s = {args.games / spent:.1f} games/s on one core "
          f"({len(samples) / args.games:.0f} actions per game)")
    replayed = replay(logs)
    print(f"replay from logs (apply only): {args.games / replayed:.1f} games/s, "
          f"{replayed / len(samples) * 1e6:.1f} us per action")
    print(f"{'action type':<16}{'count':>8}{'apply p50':>11}{'p99':>9}{'+view/proj p50':>16}{'p99':>9}  (us)")
    for kind, (applied, whole) in sorted(per_action(samples).items()):
        print(f"{kind:<16}{len(applied):>8}{statistics.median(applied):>11.1f}{_p99(applied):>9.1f}"
              f"{statistics.median(whole):>16.1f}{_p99(whole):>9.1f}")
    mean, p99, length = legal_cost(samples)
    print(f"legal_actions over recorded states: mean {mean:.1f} us, p99 {p99:.1f} us, {length:.1f} actions")
    size, ms, enc = worst_case()
    print(f"legal_actions, worst position: {size} actions in {ms:.2f} ms (+ {enc:.2f} ms to encode as protos)")


def _p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


if __name__ == "__main__":
    main()
