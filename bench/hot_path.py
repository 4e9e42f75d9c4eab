"""The action hot path (issue 29), as ratios in one run of well under a minute.

Starts a private redis-server and, in turn, ``tabletop serve`` as: one worker with the document cache
off (every action reads first: the old path), one worker with it on, and two workers
(``--workers 2``). Drives gRPC ``SubmitAction`` at concurrency 16 (a channel, so a connection, per
client thread: the kernel spreads connections over the workers) and prints per phase: calls/s, server
CPU per call (every worker process), p50/p99, Redis round trips per action (INFO commandstats: script
calls, plus reads beyond the one HMGET each compare-and-set makes itself) and the cache hit rate
(actions written by their first script call on an unread copy; a stale copy costs a second script
call, not a read). Phases: the whole answer, the lean one (``read_mask: "events"``), and
two workers with each call sent over one of four connections at random (no game affinity: the copies
go stale, and a stale copy costs a second script call, not a read).

Usage: ``.venv/bin/python bench/hot_path.py [--seconds 3]``. The machine's load changes absolute
figures: compare the ratios of one run (CPU per call is the steadier one).
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import grpc
import redis
from tabletop.v1 import game_service_pb2 as svc
from tabletop.v1 import game_service_pb2_grpc

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import run as base

LEAN = {"paths": ["events"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--concurrency", type=int, default=16)
    args = parser.parse_args()
    redis_url = base._private_redis()
    scripts = base._prepare("ttr-europe", 40)
    rclient = redis.Redis.from_url(redis_url)
    results: dict[str, dict[str, float]] = {}
    print(f"load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    for label, workers, cache, phases in (("1 worker, cache off", 1, 0, (("full", None, 1),)),
                                          ("1 worker, cache on", 1, 10000, (("full", None, 1), ("lean", LEAN, 1))),
                                          ("2 workers, cache on", 2, 10000, (("full", None, 1), ("full", None, 4)))):
        with _serve(redis_url, workers, cache) as (port, pids):
            for answer, mask, spread in phases:
                name = f"{label}: {answer}" + (", random routing over 4 connections" if spread > 1 else "")
                results[name] = _phase(args, port, pids, scripts, mask, spread, rclient)
    print(f"load average after: {os.getloadavg()[0]:.1f}")
    _print(results)


# Helpers

class _serve:
    """``tabletop serve`` with ``workers`` and the document cache size; yields (gRPC port, pids to measure)."""

    def __init__(self, redis_url: str, workers: int, cache: int) -> None:
        self.grpc_port, self.http_port = base._free_port(), base._free_port()
        env = {**os.environ, "TABLETOP_REDIS_URL": redis_url, "TABLETOP_METRICS_PORT": "0",
               "TABLETOP_LOG_LEVEL": "WARNING", "TABLETOP_CREATE_PER_MINUTE_PER_ADDRESS": "0",
               "TABLETOP_MAX_OPEN_GAMES_PER_ADDRESS": "0", "TABLETOP_REDIS_SAFETY": "warn",
               "TABLETOP_DOC_CACHE_GAMES": str(cache), "TABLETOP_PLAYER_INDEX": "false"}
        self.proc = subprocess.Popen([sys.executable, "-m", "tabletop_server.service", "serve", "--workers", str(workers),
                                      "--grpc-port", str(self.grpc_port), "--http-port", str(self.http_port)],
                                     env=env, cwd=ROOT)
        self.workers = workers

    def __enter__(self) -> tuple[int, tuple[int, ...]]:
        base._wait_http(self.http_port)
        deadline = time.monotonic() + 60
        while len(pids := _tree(self.proc.pid)) < self.workers + (self.workers > 1) and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(1.0 if self.workers > 1 else 0)  # the second worker ready too
        return self.grpc_port, pids

    def __exit__(self, *exc: object) -> None:
        self.proc.terminate()
        self.proc.wait(30)


def _phase(args: argparse.Namespace, port: int, pids: tuple[int, ...], scripts: Any, mask: Any, spread: int,
           rclient: redis.Redis) -> dict[str, float]:
    result: dict[str, Any] = base._load(args.concurrency, args.seconds, _player(port, scripts, mask, spread), pids,
                                        lambda: base._commandstats(rclient))
    counters, n = result["counters"], max(result["count"], 1)
    scripts_run = counters.get("evalsha", 0) + counters.get("eval", 0)
    reads = max(0, counters.get("hmget", 0) - scripts_run)  # cas.lua and creation.lua make one HMGET each
    result["round_trips"] = (scripts_run + reads) / n  # games created meanwhile add a little (about 1 in 100)
    result["reads"] = reads / n
    result["hit_rate"] = max(0.0, 1 - (scripts_run + reads - n) / n)  # written at the first script call, unread
    return result


def _player(port: int, scripts: Any, mask: Any, spread: int) -> Any:
    """A client thread: its own connection(s); creates games and replays their recorded actions."""
    def run(record: Any, more: Any) -> None:
        rng = random.Random(threading.get_ident())
        channels = [grpc.insecure_channel(f"127.0.0.1:{port}", options=[("grpc.use_local_subchannel_pool", 1)])
                    for _ in range(spread)]
        stubs = [game_service_pb2_grpc.GameServiceStub(c) for c in channels]
        try:
            while more():
                seed, steps = rng.choice(scripts)
                name, tokens = base._create(stubs[0], seed)
                metas = {s: [("authorization", f"Bearer {t}")] for s, t in tokens.items()}
                for seat, action in steps:
                    if not more():
                        return
                    stub = stubs[rng.randrange(spread)]
                    t = time.perf_counter()
                    stub.SubmitAction(svc.SubmitActionRequest(name=name, action=action, read_mask=mask),
                                      metadata=metas[seat])
                    record(time.perf_counter() - t)
        finally:
            for channel in channels:
                channel.close()
    return run


def _tree(pid: int) -> tuple[int, ...]:
    """``pid`` and its child processes (the workers of ``serve --workers``)."""
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        children = []
    return (pid, *(int(c) for c in children))


def _print(results: dict[str, dict[str, float]]) -> None:
    first = next(iter(results.values()))
    print(f"{'phase (SubmitAction, c16)':64} {'calls/s':>8} {'x':>5} {'CPU ms':>7} {'x':>5} {'p50':>6} {'p99':>6} "
          f"{'RT/act':>6} {'reads':>5} {'hits':>5}")
    for name, r in results.items():
        print(f"{name:64} {r['per_s']:8.0f} {r['per_s'] / first['per_s']:5.2f} {r['cpu_ms']:7.3f} "
              f"{r['cpu_ms'] / first['cpu_ms']:5.2f} {r['p50_ms']:6.2f} {r['p99_ms']:6.2f} {r['round_trips']:6.2f} "
              f"{r['reads']:5.2f} {r['hit_rate']:5.2f}")


if __name__ == "__main__":
    main()
