"""The REST facade before and after a change, side by side in one run (issue 25).

Starts, from each of two checkouts (``--before``: another worktree, e.g. the old main;
"after": this one), ``tabletop serve`` and a standalone ``tabletop rest`` in front of it,
all on one private Redis, and drives them in turn from this process with ``bench/run.py``'s
load: REST ``:act`` in ``serve`` and through the standalone facade, and gRPC
``SubmitAction`` on the same ``serve`` as the reference, at each concurrency (calls/s,
p50/p99, server CPU per call). The two sides alternate per figure, so the machine's load
(other processes on a shared machine) falls on both alike, and ``--rounds`` repeats the
alternation (medians printed). Then, with ``--scale``, the
HTTP-at-scale figures of ``bench/http_scale.py`` (10,000 idle connections, 5,000 SSE
watchers) for each side.

A checkout's code is chosen by ``PYTHONPATH=<checkout>/src`` for the processes it starts
(the same virtualenv: the dependencies are the same).

Usage: ``.venv/bin/python bench/facade_ab.py --before /work/wt/base [--seconds 4] [--scale]``
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

import grpc
from tabletop.v1 import game_service_pb2_grpc

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import http_scale  # bench/ scripts import each other from their folder
import run

CONCURRENCY = (1, 16, 64)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="the other checkout (its src/ is put on PYTHONPATH)")
    parser.add_argument("--seconds", type=float, default=4.0)
    parser.add_argument("--rounds", type=int, default=3, help="alternations per figure; the median is printed")
    parser.add_argument("--scale", action="store_true", help="also the idle-connection and SSE-watcher figures")
    parser.add_argument("--idle", type=int, default=10_000)
    parser.add_argument("--slow", type=int, default=110)
    parser.add_argument("--watchers", type=int, default=5000)
    parser.add_argument("--cut", type=int, default=1000)
    args = parser.parse_args()
    sides = {"before": str(Path(args.before).resolve() / "src"), "after": str(run.ROOT / "src")}
    redis_url = run._private_redis()
    scripts = run._prepare("ttr-europe", 40)
    started = {name: _start(src, redis_url) for name, src in sides.items()}
    try:
        for name, side in started.items():
            run._wait_grpc(f"127.0.0.1:{side['grpc']}")
            run._wait_http(side["http"])
            run._wait_http(side["rest"])
            side["stub"] = game_service_pb2_grpc.GameServiceStub(grpc.insecure_channel(f"127.0.0.1:{side['grpc']}"))
        rounds: dict[str, list[dict[str, Any]]] = {}
        for _ in range(args.rounds):
            for conc in CONCURRENCY:
                for name, side in started.items():
                    stub, serve_pid, rest_pid = side["stub"], side["procs"][0].pid, side["procs"][1].pid
                    loads = {
                        "gRPC SubmitAction": (run._grpc_player(stub, scripts), serve_pid),
                        "REST :act in serve": (run._rest_player(stub, side["http"], scripts), serve_pid),
                        "REST :act own process": (run._rest_player(stub, side["rest"], scripts), (rest_pid, serve_pid)),
                    }
                    for figure, (work, pids) in loads.items():
                        rounds.setdefault(f"{name} {figure} c{conc}", []).append(
                            run._load(conc, args.seconds, work, pids))
        results = {key: {field: statistics.median(r[field] for r in runs)
                         for field in ("per_s", "p50_ms", "p99_ms", "cpu_ms")} for key, runs in rounds.items()}
        _print(results)
    finally:
        for side in started.values():
            for proc in side["procs"]:
                proc.terminate()
                proc.wait(30)
    if args.scale:
        http_scale.raise_fd_limit()
        for name, src in sides.items():
            os.environ["PYTHONPATH"] = src  # ServeProcess starts serve with this environment
            print(f"\n== HTTP at scale, {name} (one tabletop serve process, loopback) ==")
            scale_args = argparse.Namespace(**{**vars(args), "redis": redis_url})
            http_scale.idle_figures(scale_args)
            http_scale.watcher_figures(scale_args)


def _start(src: str, redis_url: str) -> dict[str, Any]:
    grpc_port, http_port, rest_port = run._free_port(), run._free_port(), run._free_port()
    env = {**os.environ, "PYTHONPATH": src, "TABLETOP_REDIS_URL": redis_url, "TABLETOP_METRICS_PORT": "0",
           "TABLETOP_LOG_LEVEL": "WARNING", "TABLETOP_CREATE_PER_MINUTE_PER_ADDRESS": "0",
           "TABLETOP_MAX_OPEN_GAMES_PER_ADDRESS": "0", "TABLETOP_REDIS_SAFETY": "warn"}
    serve = subprocess.Popen([sys.executable, "-m", "tabletop_server.service", "serve", "--grpc-port", str(grpc_port),
                              "--http-port", str(http_port)], env=env, cwd=run.ROOT)
    rest = subprocess.Popen([sys.executable, "-m", "tabletop_server.service", "rest", "--http-port", str(rest_port),
                             "--grpc-target", f"127.0.0.1:{grpc_port}"], env=env, cwd=run.ROOT)
    return {"grpc": grpc_port, "http": http_port, "rest": rest_port, "procs": (serve, rest)}


def _print(results: dict[str, dict[str, Any]]) -> None:
    print("\n== REST facade, before and after (one run, alternating; medians of the rounds) ==")
    print(f"{'figure':44} {'calls/s':>9} {'p50 ms':>8} {'p99 ms':>8} {'CPU ms/call':>12}")
    for name, r in results.items():
        print(f"{name:44} {r['per_s']:9.0f} {r['p50_ms']:8.2f} {r['p99_ms']:8.2f} {r['cpu_ms']:12.3f}")
    for conc in CONCURRENCY:
        for figure in ("REST :act in serve", "REST :act own process"):
            ratios = []
            for side in ("before", "after"):
                grpc_rate = results[f"{side} gRPC SubmitAction c{conc}"]["per_s"]
                ratios.append(results[f"{side} {figure} c{conc}"]["per_s"] / max(grpc_rate, 1e-9))
            print(f"{figure} / gRPC SubmitAction c{conc}: before {ratios[0]:.2f}, after {ratios[1]:.2f}")


if __name__ == "__main__":
    main()
