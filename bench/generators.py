"""The deal's generator: SHAKE-256 (rules versions from issue 33) beside SplitMix64 (before), in one run.

Everything runs in this process, through the ruleset contract only. For each ruleset and each generator:

1. Random games from fixed seeds are played (legal_actions + apply), their logs kept.
2. Those logs are replayed from their seeds (``apply`` only, in CPU time: the cost a replica pays per action) several
   times, the two generators alternating so that the machine's load falls on both alike; the best round
   counts. Reported: microseconds of ``apply`` per action, the generator draws per action, and the
   difference between the generators.
3. The raw cost of one draw (``Rng.below(110)``) for each generator.

Usage: ``.venv/bin/python bench/generators.py [--games 40] [--rounds 5]``
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tabletop_server.service.engine import registry
from tabletop_server.service.engine.replay import new_game
from tabletop_server.service.engine.rng import Rng, seed_state, shake_state

VERSIONS = {"ttr-europe": {"SplitMix64": "ttr-europe/2005-official.1", "SHAKE-256": "ttr-europe/2005-official.2"},
            "bang": {"SplitMix64": "bang-base-1", "SHAKE-256": "bang-base-2"}}
Log = tuple[int, int, list[tuple[int, Any]]]  # seats, seed, actions


def record(ruleset_id: str, version: str, games: int) -> list[Log]:
    """Random games of one rules version: their seeds and actions."""
    ruleset = registry.get(ruleset_id)
    assert ruleset is not None
    logs = []
    for game in range(games):
        seats, seed, bot = (2 if ruleset_id == "ttr-europe" else 4) + game % 4, 1000 + game, random.Random(game)
        state, _ = new_game(ruleset, ruleset.decode_options(None), seats, seed, version)
        actions = []
        for _ in range(3000):
            if ruleset.is_over(state):
                break
            seat = bot.choice(ruleset.to_act(state))
            action = bot.choice(ruleset.legal_actions(state, seat))
            ruleset.apply(state, seat, action)
            actions.append((seat, action))
        logs.append((seats, seed, actions))
    return logs


def replay_seconds(ruleset_id: str, version: str, logs: list[Log]) -> tuple[float, int]:
    """Seconds spent in ``apply`` replaying the logs, and the generator draws they made."""
    ruleset = registry.get(ruleset_id)
    assert ruleset is not None
    spent, draws = 0.0, 0
    for seats, seed, actions in logs:
        state, _ = new_game(ruleset, ruleset.decode_options(None), seats, seed, version)
        before = _counter(state["rng"])
        for seat, action in actions:
            start = time.process_time()
            ruleset.apply(state, seat, action)
            spent += time.process_time() - start
        draws += _counter(state["rng"]) - before
    return spent, draws


def draw_seconds(holder: dict[str, Any], count: int = 200_000) -> float:
    """Microseconds per ``Rng.below(110)``."""
    rng = Rng(holder)
    start = time.process_time()
    for _ in range(count):
        rng.below(110)
    return (time.process_time() - start) / count * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    print(f"one draw, Rng.below(110): SplitMix64 {draw_seconds({'rng': seed_state(7)}):.2f} us, "
          f"SHAKE-256 {draw_seconds({'rng': shake_state(7)}):.2f} us")
    for ruleset_id, versions in VERSIONS.items():
        logs = {name: record(ruleset_id, version, args.games) for name, version in versions.items()}
        best: dict[str, float] = {}
        draws: dict[str, int] = {}
        for _ in range(args.rounds):
            for name, version in versions.items():
                spent, draws[name] = replay_seconds(ruleset_id, version, logs[name])
                best[name] = min(best.get(name, spent), spent)
        rows = []
        for name in versions:
            actions = sum(len(a) for _, _, a in logs[name])
            rows.append((name, best[name] / actions * 1e6, draws[name] / actions, actions))
        for name, per_action, per_draw, actions in rows:
            print(f"{ruleset_id:10} {name:10} apply {per_action:7.2f} us/action  {per_draw:5.3f} draws/action  "
                  f"({actions} actions, {args.games} games, best of {args.rounds})")
        (_, old, _, _), (_, new, _, _) = rows
        print(f"{ruleset_id:10} SHAKE-256 vs SplitMix64: {100 * (new - old) / old:+.1f}% on apply per action")


def _counter(generator: Any) -> int:
    """Draws made so far by a SHAKE-256 state (its counter); SplitMix64 counts by its steps."""
    if isinstance(generator, list):
        return int(generator[1])
    return (int(generator) * _GAMMA_INVERSE) % (1 << 64)  # state = seed + k * gamma (mod 2**64)


_GAMMA_INVERSE = pow(0x9E3779B97F4A7C15, -1, 1 << 64)


if __name__ == "__main__":
    main()
