"""The action hot path (issue 29), as ratios in one run of about a minute.

Starts a private redis-server and, in turn, ``tabletop serve`` as: one worker with the document cache
off (every action reads first: the old path), one worker with it on, and two workers
(``--workers 2``). Drives gRPC ``SubmitAction`` at concurrency 16 (a channel, so a connection, per
client thread: the kernel spreads connections over the workers) and prints per phase: calls/s, server
CPU per call (every worker process), p50/p99, and from ``redis_cost.py``: Redis round trips per action
(INFO commandstats: script calls, plus reads beyond the one HMGET each compare-and-set makes itself),
the cache hit rate (actions written by their first script call on an unread copy), the script's time
per call inside Redis, Redis's command time and the redis-server process's CPU per action. Phases: the
whole answer, the lean one (``read_mask: "events"``), two workers with each call sent over one of four
connections at random; then three single-worker ``serve`` processes on ports of their own, as the
chart's replicas: each call to one of 1, 2 or 3 at random, and to the one a hash of the game's name
picks (game affinity, as an ingress hashing on the name routes); and where Debian's nginx is installed,
through nginx in front of the three as the chart's ``grpc.ingress.gameAffinity`` routes (``bench/nginx_proxy.py``:
consistent hashing on the ``x-tabletop-game`` header), each action with the header and without it (nginx
then falls back to round robin). Without affinity a copy is mostly
stale: a stale copy costs a second script call, or a read when the action fails on it (another seat's
turn on the old state), so the hit rate falls to about 1/R.

Usage: ``.venv/bin/python bench/hot_path.py [--seconds 3] [--no-replicas]``. The machine's load changes
absolute figures: compare the ratios of one run (CPU per call is the steadier one).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import shutil
import sys
import threading
import time
import uuid
import zlib
from pathlib import Path
from typing import Any

import grpc
import redis
from tabletop.client import GAME_HEADER
from tabletop.v1 import game_service_pb2 as svc
from tabletop.v1 import game_service_pb2_grpc

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import nginx_proxy, redis_cost, serve_proc
from bench import run as base

LEAN = {"paths": ["events"]}
IDS = object()  # the whole answer, and a request id with each action (remembered with its response)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--no-replicas", action="store_true", help="skip the hit rate over 1-3 replicas")
    args = parser.parse_args()
    redis_url = base._private_redis()
    scripts = base._prepare("ttr-europe", 40)
    rclient = redis.Redis.from_url(redis_url)
    results: dict[str, dict[str, float]] = {}
    print(f"load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    for label, workers, cache, phases in (("1 worker, cache off", 1, 0, (("full", None, 1),)),
                                          ("1 worker, cache on", 1, 10000, (("full", None, 1), ("lean", LEAN, 1), ("full", IDS, 1))),
                                          ("2 workers, cache on", 2, 10000, (("full", None, 1), ("full", None, 4)))):
        with _serve(redis_url, workers, cache) as (port, pids):
            for answer, mask, spread in phases:
                name = f"{label}: {answer}" + (", random routing over 4 connections" if spread > 1 else "") + (
                    ", with request ids" if mask is IDS else "")  # as the Python client sends
                results[name] = _phase(args, (port,), pids, scripts, mask, spread, rclient)
    if not args.no_replicas:
        results.update(replica_phases(args, redis_url, scripts, rclient))
    print(f"load average after: {os.getloadavg()[0]:.1f}")
    _print(results)


def replica_phases(args: argparse.Namespace, redis_url: str, scripts: Any,
                   rclient: redis.Redis) -> dict[str, dict[str, float]]:
    """The cache's hit rate over R replicas (``serve`` processes on ports of their own, as the chart's pods):
    each call to a replica at random, and with game affinity (the replica a hash of the game's name picks,
    as an ingress hashing on the name would: ``deploy/README.md``)."""
    results: dict[str, dict[str, float]] = {}
    with contextlib.ExitStack() as stack:
        servers = [stack.enter_context(_serve(redis_url, 1, 10000)) for _ in range(3)]
        for count, routing in ((1, "random"), (2, "random"), (3, "random"), (2, "affinity"), (3, "affinity")):
            ports = tuple(port for port, _ in servers[:count])
            pids = tuple(pid for _, group in servers[:count] for pid in group)
            results[f"{count} replica{'s' * (count > 1)}, cache on: full, {routing} routing"] = _phase(
                args, ports, pids, scripts, None, -1 if routing == "affinity" else 0, rclient)
        if shutil.which("nginx") is not None:
            pids = tuple(pid for _, group in servers for pid in group)
            with nginx_proxy.Nginx([port for port, _ in servers]) as (target, nginx_pid):
                port = int(target.rsplit(":", 1)[1])
                for header in (True, False):
                    results[f"3 replicas behind nginx (chart's routing), {'with' if header else 'no'} game header"] = (
                        _phase(args, (port,), (*pids, nginx_pid), scripts, None, 1, rclient, header))
    return results


# Helpers

def _serve(redis_url: str, workers: int, cache: int) -> serve_proc.Serve:
    """``tabletop serve`` with ``workers`` and the document cache size (0: off); the player index off."""
    return serve_proc.Serve(redis_url, workers, {"TABLETOP_DOC_CACHE_GAMES": str(cache), "TABLETOP_PLAYER_INDEX": "false"})


def _phase(args: argparse.Namespace, ports: tuple[int, ...], pids: tuple[int, ...], scripts: Any, mask: Any,
           spread: int, rclient: redis.Redis, header: bool = False) -> dict[str, float]:
    result: dict[str, Any] = base._load(args.concurrency, args.seconds, _player(ports, scripts, mask, spread, header),
                                        pids,
                                        lambda: redis_cost.snapshot(rclient))
    result.update(redis_cost.per_action(result["counters"], result["count"]))
    return result


def _player(ports: tuple[int, ...], scripts: Any, mask: Any, spread: int, header: bool = False) -> Any:
    """A client thread: its own connection(s); creates games and replays their recorded actions (with
    ``header``, each action carries ``x-tabletop-game``, as the clients send it).

    ``spread`` > 0: that many connections to the first port, each call over one at random (the kernel
    spreads connections over ``serve``'s workers). 0: one connection per port, each call to one at random.
    -1: one per port, each game's calls to the port a hash of its name picks (game affinity)."""
    targets = [ports[0]] * spread if spread > 0 else list(ports)

    def run(record: Any, more: Any) -> None:
        rng = random.Random(threading.get_ident())
        channels = [grpc.insecure_channel(f"127.0.0.1:{port}", options=[("grpc.use_local_subchannel_pool", 1)])
                    for port in targets]
        stubs = [game_service_pb2_grpc.GameServiceStub(c) for c in channels]
        try:
            while more():
                seed, steps = rng.choice(scripts)
                name, tokens = base._create(stubs[rng.randrange(len(stubs))], seed)
                routing = [(GAME_HEADER, name.removeprefix("games/"))] if header else []
                metas = {s: [("authorization", f"Bearer {t}"), *routing] for s, t in tokens.items()}
                home = zlib.crc32(name.encode()) % len(stubs)
                for seat, action in steps:
                    if not more():
                        return
                    stub = stubs[home if spread < 0 else rng.randrange(len(stubs))]
                    t = time.perf_counter()
                    request = (svc.SubmitActionRequest(name=name, action=action, request_id=uuid.uuid4().hex)
                               if mask is IDS else svc.SubmitActionRequest(name=name, action=action, read_mask=mask))
                    stub.SubmitAction(request, metadata=metas[seat])
                    record(time.perf_counter() - t)
        finally:
            for channel in channels:
                channel.close()
    return run


def _print(results: dict[str, dict[str, float]]) -> None:
    first = next(iter(results.values()))
    print(f"{'phase (SubmitAction, c16)':64} {'calls/s':>8} {'x':>5} {'CPU ms':>7} {'x':>5} {'p50':>6} {'p99':>6} "
          f"{'RT/act':>6} {'reads':>5} {'hits':>5} {'cas us':>6} {'R us':>5} {'R CPU':>5}")
    for name, r in results.items():
        print(f"{name:64} {r['per_s']:8.0f} {r['per_s'] / first['per_s']:5.2f} {r['cpu_ms']:7.3f} "
              f"{r['cpu_ms'] / first['cpu_ms']:5.2f} {r['p50_ms']:6.2f} {r['p99_ms']:6.2f} {r['round_trips']:6.2f} "
              f"{r['reads']:5.2f} {r['hit_rate']:5.2f} {r['script_us_per_call']:6.1f} {r['redis_us']:5.1f} "
              f"{r.get('redis_cpu_us', float('nan')):5.0f}")
    print("cas us: Redis time per script call (INFO commandstats); R us: Redis command time per action (scripts "
          "and reads); R CPU: the redis-server process's CPU per action in us (its I/O and parsing too)")


if __name__ == "__main__":
    main()
