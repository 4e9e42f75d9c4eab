"""Turn-timer benchmark (issue 16): lag from due time to the bot's move, and sweeper CPU per fired timer.

Starts ``--replicas`` gRPC service processes on one private Redis, creates ``--games`` Ticket to
Ride games of two named seats with a 1-second turn timer that nobody plays, and lets the timers
fire for ``--seconds``. Every decision of such a game starts when the previous one is written
(the first two, both seats' tickets, at creation), so each bot move's lag is its log time minus
the previous entry's time minus the timer. Prints lag p50/p99/max, moves per second, and the
service processes' CPU per fired timer (everything a timed-out decision costs: the sweep, the
claim, the bot's choice, the rules and the compare-and-set).

Usage: ``.venv/bin/python bench/timers.py [--games 1000] [--seconds 10] [--replicas 1]``
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import grpc
from tabletop.v1 import game_pb2, game_service_pb2_grpc
from tabletop.v1 import game_service_pb2 as svc

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from run import _cpu, _free_port, _private_redis, _wait_grpc  # the platform bench's helpers

TIMER_SECONDS = 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--replicas", type=int, default=1)
    args = parser.parse_args()
    redis_url = _private_redis()
    env = {**os.environ, "TABLETOP_REDIS_URL": redis_url, "TABLETOP_METRICS_PORT": "0", "TABLETOP_LOG_LEVEL": "WARNING",
           "TABLETOP_CREATE_PER_MINUTE_PER_ADDRESS": "0", "TABLETOP_MAX_OPEN_GAMES_PER_ADDRESS": "0",
           "TABLETOP_REDIS_SAFETY": "warn"}
    ports = [_free_port() for _ in range(args.replicas)]
    procs = [subprocess.Popen([sys.executable, "-m", "tabletop_server.service", "grpc", "--grpc-port", str(p)], env=env, cwd=ROOT)
             for p in ports]
    try:
        for port in ports:
            _wait_grpc(f"127.0.0.1:{port}")
        with grpc.insecure_channel(f"127.0.0.1:{ports[0]}") as channel:
            stub = game_service_pb2_grpc.GameServiceStub(channel)
            started = time.time()
            names = [stub.CreateGame(svc.CreateGameRequest(
                ruleset="ttr-europe", seat_count=2, display_names=["a", "b"], seed=i,
                turn_timer=game_pb2.TurnTimer(decision_seconds=TIMER_SECONDS))).game.name for i in range(args.games)]
            created = time.time() - started
            cpu_start, window_start = _cpu(tuple(p.pid for p in procs)), time.time()
            time.sleep(args.seconds)
            cpu, window = _cpu(tuple(p.pid for p in procs)) - cpu_start, time.time() - window_start
            lags, moves_in_window = [], 0
            for name in names:
                times = [e.time.ToMicroseconds() / 1e6 for e in _entries(stub, name)]
                created_at = times[0]
                for i, t in enumerate(times[1:], start=1):
                    start = created_at if i <= 2 else times[i - 1]  # the first two decisions start together
                    lags.append(t - start - TIMER_SECONDS)
                    moves_in_window += window_start <= t <= window_start + window
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(30)
    lags.sort()
    print(f"== Turn timers: {args.games} games, {TIMER_SECONDS} s per decision, {args.replicas} replica(s), "
          f"{args.seconds:.0f} s ==")
    print(f"games created in {created:.1f} s; bot moves {len(lags)} ({moves_in_window / window:.0f}/s in the window)")
    if lags:
        print(f"lag (due -> move) p50 {1000 * statistics.median(lags):.0f} ms, "
              f"p99 {1000 * lags[int(len(lags) * 0.99)]:.0f} ms, max {1000 * lags[-1]:.0f} ms")
    print(f"service CPU per fired timer {1000 * cpu / max(moves_in_window, 1):.2f} ms "
          f"({100 * cpu / window:.0f}% of one core over the window)")


def _entries(stub: game_service_pb2_grpc.GameServiceStub, name: str) -> list[game_pb2.LogEntry]:
    out, token = [], ""
    while True:
        page = stub.GetGameLog(svc.GetGameLogRequest(name=name, page_size=1000, page_token=token))
        out.extend(page.entries)
        token = page.next_page_token
        if not token:
            return out


if __name__ == "__main__":
    main()
