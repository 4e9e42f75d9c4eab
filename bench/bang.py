"""BANG! engine benchmark: apply latency per action kind, games per second, legal-action cost.

Everything runs in this process on one core, through the ruleset contract only:

1. Random bot games (legal_actions + apply) from fixed seeds, 4 to 7 players: games/s.
2. The same games replayed from their logs without enumeration (apply only): games/s.
3. Every recorded action applied again on its stored state, decoded from JSON as the
   service does (orjson), per action kind: median and p99 of ``apply`` alone and of
   ``apply`` + ``view`` for the actor + ``project`` and ``encode_event`` for every seat.
   These are CPU times of this thread (``time.thread_time``), the figure the service's
   ~0.3 ms CPU budget per action is about, so a busy machine does not inflate them.
4. ``legal_actions`` on every recorded state: mean, p99 (CPU), mean list length.

Usage: ``.venv/bin/python bench/bang.py [--games 300]``
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from service.games import bang
from service.games.bang.tables import KEY_OF

Sample = tuple[bytes, int, dict[str, Any]]


def bot_games(games: int) -> tuple[list[tuple[int, int, list[tuple[int, dict[str, Any]]]]], list[Sample], float]:
    """Play random games; returns their logs, (state JSON, seat, action) samples and seconds."""
    logs, samples = [], []
    start = time.perf_counter()
    for g in range(games):
        seats, seed = 4 + g % 4, 1000 + g
        rng = random.Random(seed)
        state = bang.setup({}, seats, seed)
        log: list[tuple[int, dict[str, Any]]] = []
        while not bang.is_over(state):
            seat = bang.to_act(state)[0]
            action = rng.choice(bang.legal_actions(state, seat))
            if g % 10 == 0:
                samples.append((orjson.dumps(state), seat, action))
            bang.apply(state, seat, action)
            log.append((seat, action))
        logs.append((seats, seed, log))
    return logs, samples, time.perf_counter() - start


def replay_games(logs: list[tuple[int, int, list[tuple[int, dict[str, Any]]]]]) -> tuple[float, int]:
    """Replay every log with apply only; returns seconds and actions."""
    start, actions = time.perf_counter(), 0
    for seats, seed, log in logs:
        state = bang.setup({}, seats, seed)
        for seat, action in log:
            bang.apply(state, seat, action)
        actions += len(log)
    return time.perf_counter() - start, actions


def kind_of(action: dict[str, Any]) -> str:
    """A label per action kind (per card for plays)."""
    if action["type"] == "play":
        return "play:" + KEY_OF[action["card"]]
    return str(action["type"])


def apply_latency(samples: list[Sample]) -> dict[str, tuple[list[float], list[float]]]:
    """Per kind: microseconds of apply alone, and of apply + view + projection + encoding."""
    out: dict[str, tuple[list[float], list[float]]] = defaultdict(lambda: ([], []))
    for raw, seat, action in samples:
        state = orjson.loads(raw)
        t0 = time.thread_time()
        bang.apply(state, seat, action)
        t1 = time.thread_time()
        state = orjson.loads(raw)
        t2 = time.thread_time()
        events = bang.apply(state, seat, action)
        bang.view(state, seat).SerializeToString()
        for viewer in [*range(len(state["p"])), None]:
            for event in events:
                projected = bang.project(event, viewer)
                if projected is not None:
                    bang.encode_event(projected).SerializeToString()
        t3 = time.thread_time()
        alone, full = out[kind_of(action)]
        alone.append((t1 - t0) * 1e6)
        full.append((t3 - t2) * 1e6)
    return out


def legal_cost(samples: list[Sample]) -> tuple[float, float, float]:
    """Mean and p99 microseconds of legal_actions, and the mean number of actions."""
    times, sizes = [], []
    for raw, seat, _ in samples:
        state = orjson.loads(raw)
        t0 = time.thread_time()
        actions = bang.legal_actions(state, seat)
        times.append((time.thread_time() - t0) * 1e6)
        sizes.append(len(actions))
    return statistics.mean(times), _p99(times), statistics.mean(sizes)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300)
    args = parser.parse_args()
    logs, samples, bot_seconds = bot_games(args.games)
    actions = sum(len(log) for _, _, log in logs)
    replay_seconds, _ = replay_games(logs)
    print(f"random bot games (legal_actions + apply): {args.games / bot_seconds:8.1f} games/s "
          f"({actions / args.games:.0f} actions/game)")
    print(f"replayed games (apply only):              {args.games / replay_seconds:8.1f} games/s "
          f"({replay_seconds / actions * 1e6:.1f} us/action)")
    mean, p99, size = legal_cost(samples)
    print(f"legal_actions: mean {mean:.1f} us, p99 {p99:.1f} us, {size:.1f} actions listed on average")
    sizes = [len(raw) for raw, _, _ in samples]
    print(f"state JSON: mean {statistics.mean(sizes):.0f} bytes, max {max(sizes)} bytes")
    print(f"\n{'action kind':24} {'n':>6} {'apply p50':>10} {'p99':>8} {'+view/project p50':>18} {'p99':>8}  (us)")
    rows = apply_latency(samples)
    for kind in sorted(rows, key=lambda k: -len(rows[k][0])):
        alone, full = rows[kind]
        print(f"{kind:24} {len(alone):6d} {statistics.median(alone):10.1f} {_p99(alone):8.1f} "
              f"{statistics.median(full):18.1f} {_p99(full):8.1f}")
    every = [x for alone, _ in rows.values() for x in alone]
    full_all = [x for _, full in rows.values() for x in full]
    print(f"{'ALL':24} {len(every):6d} {statistics.median(every):10.1f} {_p99(every):8.1f} "
          f"{statistics.median(full_all):18.1f} {_p99(full_all):8.1f}")


# Helpers

def _p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


if __name__ == "__main__":
    main()
