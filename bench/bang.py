"""BANG! engine benchmark: apply latency per action kind, games per second, legal-action cost.

Everything runs in this process on one core, through the ruleset contract only:

1. Random bot games (legal_actions + apply) from fixed seeds, 4 to 7 players: games/s.
2. The same games replayed from their logs without enumeration (apply only): games/s.
3. Every recorded action applied again on its stored state, decoded from JSON as the
   service does (orjson), per action kind: median and p99 of ``apply`` alone and of
   ``apply`` + ``view`` for the actor + ``project`` and ``encode_event`` for every seat.
   These are CPU times of this thread (``time.thread_time``), the figure the service's
   ~0.3 ms CPU budget per action is about, so a busy machine does not inflate them.
4. ``legal_actions`` on every recorded state: p50, mean, p99 (CPU), mean list length.

The base game (4 to 7 players), Dodge City (3 to 8 players), Armed & Dangerous (4 to 7) and both
expansions (3 to 8) run in the same process, one after the other, and their figures are printed
side by side (issues 10 and 14: an expansion must not make a base-game action slower by more than
10%; compare the base column with an older checkout's, since one process runs only today's code). ``--rounds 2`` measures both twice,
alternating, so that a load that comes and goes shows as a difference between rounds.

Usage: ``.venv/bin/python bench/bang.py [--games 300] [--rounds 1] [--kinds] [--base-only]``
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

from tabletop_server.service.games import bang
from tabletop_server.service.games.bang.tables import KEY_OF

Sample = tuple[bytes, int, dict[str, Any]]
Log = tuple[int, int, list[tuple[int, dict[str, Any]]]]
# The games measured: their options and the seat counts they take.
VARIANTS: dict[str, tuple[dict[str, Any], tuple[int, ...]]] = {
    "base game": ({}, (4, 5, 6, 7)),
    "Dodge City": ({"expansions": ["dodge_city"]}, (3, 4, 5, 6, 7, 8)),
    "Armed & Dangerous": ({"expansions": ["armed_and_dangerous"]}, (4, 5, 6, 7)),
    "DC + A&D": ({"expansions": ["dodge_city", "armed_and_dangerous"]}, (3, 4, 5, 6, 7, 8)),
}


def bot_games(games: int, options: dict[str, Any] | None = None,
              seat_counts: tuple[int, ...] = (4, 5, 6, 7)) -> tuple[list[Log], list[Sample], float]:
    """Play random games; returns their logs, (state JSON, seat, action) samples and seconds."""
    logs, samples = [], []
    options = options or {}
    start = time.perf_counter()
    for g in range(games):
        seats, seed = seat_counts[g % len(seat_counts)], 1000 + g
        rng = random.Random(seed)
        state = bang.setup(options, seats, seed)
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


def replay_games(logs: list[Log], options: dict[str, Any] | None = None) -> tuple[float, int]:
    """Replay every log with apply only; returns seconds and actions."""
    start, actions = time.perf_counter(), 0
    for seats, seed, log in logs:
        state = bang.setup(options or {}, seats, seed)
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


def legal_cost(samples: list[Sample]) -> tuple[float, float, float, float]:
    """Median, mean and p99 microseconds of legal_actions, and the mean number of actions."""
    times, sizes = [], []
    for raw, seat, _ in samples:
        state = orjson.loads(raw)
        t0 = time.thread_time()
        actions = bang.legal_actions(state, seat)
        times.append((time.thread_time() - t0) * 1e6)
        sizes.append(len(actions))
    return statistics.median(times), statistics.mean(times), _p99(times), statistics.mean(sizes)


def measure(games: int, options: dict[str, Any], seat_counts: tuple[int, ...]) -> dict[str, Any]:
    """Every figure of one variant: a row per figure, and the per-kind apply table."""
    logs, samples, bot_seconds = bot_games(games, options, seat_counts)
    actions = sum(len(log) for _, _, log in logs)
    replay_seconds, _ = replay_games(logs, options)
    rows = apply_latency(samples)
    every = [x for alone, _ in rows.values() for x in alone]
    full = [x for _, f in rows.values() for x in f]
    legal_p50, legal_mean, legal_p99, size = legal_cost(samples)
    sizes = [len(raw) for raw, _, _ in samples]
    figures = {
        "bot games/s (legal_actions + apply)": f"{games / bot_seconds:.1f}",
        "actions per game": f"{actions / games:.0f}",
        "replayed games/s (apply only)": f"{games / replay_seconds:.1f}",
        "replay us/action (wall)": f"{replay_seconds / actions * 1e6:.1f}",
        "apply p50 us (CPU)": f"{statistics.median(every):.1f}",
        "apply p99 us (CPU)": f"{_p99(every):.1f}",
        "apply+view+project p50 us": f"{statistics.median(full):.1f}",
        "apply+view+project p99 us": f"{_p99(full):.1f}",
        "legal_actions p50 us (CPU)": f"{legal_p50:.1f}",
        "legal_actions mean us": f"{legal_mean:.1f}",
        "legal_actions p99 us (CPU)": f"{legal_p99:.1f}",
        "actions listed (mean)": f"{size:.1f}",
        "state JSON mean bytes": f"{statistics.mean(sizes):.0f}",
        "state JSON max bytes": f"{max(sizes)}",
        "apply samples": f"{len(every)}",
    }
    return {"figures": figures, "rows": rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=1, help="measure every variant this many times")
    parser.add_argument("--kinds", action="store_true", help="also print apply per action kind")
    parser.add_argument("--base-only", action="store_true",
                        help="the base game only (to run this file on a checkout from before Dodge City)")
    args = parser.parse_args()
    variants = {k: v for k, v in VARIANTS.items() if not args.base_only or k == "base game"}
    results: dict[str, dict[str, Any]] = {}
    for r in range(args.rounds):
        for label, (options, seats) in variants.items():
            results[f"{label} #{r + 1}" if args.rounds > 1 else label] = measure(args.games, options, seats)
    columns = list(results)
    print(f"{args.games} games per column; seats: " + "; ".join(
        f"{label} {min(s)}-{max(s)}" for label, (_, s) in variants.items()))
    print(f"{'figure':38}" + "".join(f"{c:>19}" for c in columns))
    for figure in results[columns[0]]["figures"]:
        print(f"{figure:38}" + "".join(f"{results[c]['figures'][figure]:>19}" for c in columns))
    base = [c for c in columns if c.startswith("base game")]
    for label in [v for v in variants if v != "base game"]:
        for b, d in zip(base, [c for c in columns if c.startswith(label)]):
            ratio = (float(results[d]["figures"]["apply p50 us (CPU)"])
                     / float(results[b]["figures"]["apply p50 us (CPU)"]))
            print(f"apply p50, {label} / base game ({d.removeprefix(label).strip() or 'run'}): {ratio:.2f}")
    if args.kinds:
        for c in columns:
            print(f"\n{c}: {'action kind':24} {'n':>6} {'apply p50':>10} {'p99':>8} "
                  f"{'+view/project p50':>18} {'p99':>8}  (us)")
            rows = results[c]["rows"]
            for kind in sorted(rows, key=lambda k: -len(rows[k][0])):
                alone, full = rows[kind]
                print(f"{'':{len(c) + 2}}{kind:24} {len(alone):6d} {statistics.median(alone):10.1f} "
                      f"{_p99(alone):8.1f} {statistics.median(full):18.1f} {_p99(full):8.1f}")


# Helpers

def _p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


if __name__ == "__main__":
    main()
