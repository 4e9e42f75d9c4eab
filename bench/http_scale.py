"""The HTTP side at scale (issue 11), in one run against one ``tabletop serve`` process.

Prints: unary REST p50/p99 with 10,000 idle connections and 110 byte-by-byte slow clients
open, the server memory per idle connection, SSE watchers held per process and per GiB
(server memory per watcher), and the time for 1,000 abruptly cut watchers to free their
slots. ``bench/run.py`` prints the throughput side (REST and gRPC at c1, c16, c64).

Usage: ``.venv/bin/python bench/http_scale.py [--redis URL] [--idle 10000] [--watchers 5000]``
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import sys
import time
from pathlib import Path

import grpc

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tabletop.v1 import game_service_pb2_grpc

from bench.http_load import (
    ServeProcess,
    SseWatcher,
    open_idle,
    percentile,
    probe,
    raise_fd_limit,
    slow_clients,
    until,
)
from tests.helpers import create_game


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--redis", default="redis://127.0.0.1:6379")
    parser.add_argument("--idle", type=int, default=10_000)
    parser.add_argument("--slow", type=int, default=110)
    parser.add_argument("--watchers", type=int, default=5000)
    parser.add_argument("--cut", type=int, default=1000)
    args = parser.parse_args()
    raise_fd_limit()
    print("\n== HTTP at scale (one tabletop serve process, loopback) ==")
    idle_figures(args)
    watcher_figures(args)


def idle_figures(args: argparse.Namespace) -> None:
    server = ServeProcess(args.redis, http_header_timeout_seconds=300, http_max_connections=args.idle + args.slow + 500,
                          http_max_connections_per_address=0)
    try:
        async def run() -> None:
            port = server.http_port
            quiet = await probe(port, 200, timeout=10)
            before = server.rss_kib()
            idle = await open_idle(port, args.idle)
            await until(lambda: server.metric("tabletop_http_connections_open") >= args.idle, 60, 0.5)
            per_connection = (server.rss_kib() - before) / args.idle
            stop = asyncio.Event()
            slow = await slow_clients(port, args.slow, stop, interval=0.2)
            await asyncio.sleep(1)
            crowded = await probe(port, 500, timeout=10)
            stop.set()
            print(f"unary GET /v1/rulesets, fresh connection each: p50 {1000 * percentile(quiet, .5):.1f} ms, "
                  f"p99 {1000 * percentile(quiet, .99):.1f} ms alone; with {args.idle} idle + {args.slow} slow "
                  f"clients open: p50 {1000 * percentile(crowded, .5):.1f} ms, p99 {1000 * percentile(crowded, .99):.1f} ms "
                  "(target < 100 ms)")
            print(f"server memory per idle connection: {per_connection:.1f} KiB "
                  f"({server.rss_kib() / 1024:.0f} MiB RSS with {args.idle + args.slow} connections)")
            for _, writer in idle + slow:
                writer.close()

        asyncio.run(run())
    finally:
        server.close()


def watcher_figures(args: argparse.Namespace) -> None:
    server = ServeProcess(args.redis, max_watches_per_address=0, max_watches_per_token=0, watch_heartbeat_seconds=5,
                          http_max_connections_per_address=0)
    try:
        with grpc.insecure_channel(server.grpc_target) as channel:
            game, _ = create_game(game_service_pb2_grpc.GameServiceStub(channel))

        async def run() -> None:
            port = server.http_port
            before = server.rss_kib()
            started = time.monotonic()
            watchers = [SseWatcher().start(port, game.name) for _ in range(args.watchers)]
            await asyncio.wait_for(asyncio.gather(*(w.opened.wait() for w in watchers)), 300)
            opened = time.monotonic() - started
            await until(lambda: server.metric("tabletop_watches_open") >= args.watchers, 60, 0.5)
            per_watcher = (server.rss_kib() - before) / args.watchers
            print(f"SSE watchers: {args.watchers} opened in {opened:.1f} s; {per_watcher:.1f} KiB each "
                  f"(connection included): {1024 * 1024 / max(per_watcher, 0.001):,.0f} watchers per GiB; "
                  f"per process capped by TABLETOP_MAX_SSE_WATCHES (20000) and the fd limit")
            latencies = await probe(port, 200, timeout=10)
            print(f"unary p99 with {args.watchers} watchers open: {1000 * percentile(latencies, .99):.1f} ms")
            live = [watcher for watcher in watchers if watcher.task is not None and not watcher.task.done()]
            if len(live) < len(watchers):
                errors = collections.Counter(w.error for w in watchers if w.task is not None and w.task.done())
                print(f"{len(watchers) - len(live)} of {args.watchers} watch streams had already ended (the server "
                      f"closed them); their last error events: {dict(errors)}")
            open_before = server.metric("tabletop_watches_open")
            started = time.monotonic()
            for watcher in live[:args.cut]:
                watcher.cut()
            cut = len(live[:args.cut])
            freed = await until(lambda: server.metric("tabletop_watches_open") <= open_before - cut, 30, 0.05)
            print(f"{cut} watchers cut (RST, no FIN): slots freed in {time.monotonic() - started:.2f} s"
                  f"{'' if freed else ' (NOT within 30 s)'}")
            for watcher in live[args.cut:]:
                watcher.cut()

        asyncio.run(run())
    finally:
        server.close()


if __name__ == "__main__":
    main()
