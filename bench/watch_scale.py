"""gRPC WatchGame streams and SSE watchers side by side, in one run against one ``tabletop serve`` process
(issue 26, item 2).

Opens ``--grpc`` WatchGame streams and ``--sse`` SSE watchers spread over ``--games`` games, then plays
``--updates`` moves (one game at a time) and prints, per transport: the server memory each watcher
costs, the server's CPU while they idle and while updates go out, and the delivery latency of an update
from the move's submit to each watcher (p50/p99 of every delivery, and of the time until the last
watcher of the game had it). The clients run in this process on the same machine, so the latencies
include this process's own event loop reading thousands of streams: read them as an upper bound.

Usage: ``.venv/bin/python bench/watch_scale.py [--redis URL] [--grpc 3000] [--sse 3000] [--games 20]``
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path
from typing import Any

import grpc

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tabletop.v1 import game_service_pb2 as svc
from tabletop.v1 import game_service_pb2_grpc

from bench.http_load import ServeProcess, SseWatcher, percentile, raise_fd_limit

STREAMS_PER_CHANNEL = 100  # as many HTTP/2 connections as a crowd of real clients would open, roughly


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--redis", default="redis://127.0.0.1:6379")
    parser.add_argument("--grpc", type=int, default=3000)
    parser.add_argument("--sse", type=int, default=3000)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--updates", type=int, default=40)
    args = parser.parse_args()
    raise_fd_limit()
    print(f"\n== watchers at scale: {args.grpc} gRPC WatchGame streams and {args.sse} SSE watchers over "
          f"{args.games} games (one tabletop serve process, loopback) ==")
    server = ServeProcess(args.redis, max_watches_per_address=0, max_watches_per_token=0, http_max_connections_per_address=0,
                          max_sse_watches=args.sse + 100, max_watch_streams=args.grpc + args.sse + 100)
    try:
        asyncio.run(_run(server, args))
    finally:
        server.close()


async def _run(server: ServeProcess, args: argparse.Namespace) -> None:
    channels = [grpc.aio.insecure_channel(server.grpc_target, options=[("grpc.use_local_subchannel_pool", 1)])
                for _ in range(max(1, -(-args.grpc // STREAMS_PER_CHANNEL)))]  # a connection each
    stub = game_service_pb2_grpc.GameServiceStub(channels[0])
    games = [await _create(stub) for _ in range(args.games)]
    await asyncio.sleep(1)
    figures: dict[str, dict[str, Any]] = {"gRPC": {}, "SSE": {}}
    rss, started = server.rss_kib(), time.monotonic()
    streams = [_GrpcWatcher(channels[i // STREAMS_PER_CHANNEL], games[i % len(games)][0]) for i in range(args.grpc)]
    opened = await _until(server, "tabletop_watch_streams_open", args.grpc)
    figures["gRPC"].update(opened=opened, open_s=time.monotonic() - started, kib=(server.rss_kib() - rss) / max(1, opened))
    rss, started = server.rss_kib(), time.monotonic()
    sse_games = [games[i % len(games)][0] for i in range(args.sse)]
    sse = [SseWatcher().start(server.http_port, name) for name in sse_games]
    await asyncio.wait_for(asyncio.gather(*(w.opened.wait() for w in sse)), 300)
    await _until(server, "tabletop_watches_open", opened + args.sse)
    figures["SSE"].update(opened=sum(1 for w in sse if w.status == 200), open_s=time.monotonic() - started, kib=(server.rss_kib() - rss) / max(1, args.sse))
    refused = sum(1 for w in sse if w.status != 200) + sum(1 for s in streams if s.error)
    errors = sorted({s.error for s in streams if s.error} | {str(w.status) for w in sse if w.status != 200})
    cpu = server.cpu_seconds()
    await asyncio.sleep(10)
    idle_cpu = (server.cpu_seconds() - cpu) / 10
    cpu, started = server.cpu_seconds(), time.monotonic()
    sent = await _play(stub, games, args.updates)
    play_cpu = (server.cpu_seconds() - cpu) / (time.monotonic() - started)
    await asyncio.sleep(3)
    for label, arrivals, watched in (("gRPC", _grpc_arrivals(streams), [s.name for s in streams]),
                                     ("SSE", _sse_arrivals(sse, sse_games), sse_games)):
        figures[label].update(_latencies(sent, arrivals, watched))
    print(f"opened with {refused} refused or ended {errors}; server RSS {server.rss_kib() / 1024:.0f} MiB with all open; server CPU "
          f"{100 * idle_cpu:.1f}% of a core while they idle, {100 * play_cpu:.0f}% while {args.updates} updates "
          f"go out (a move about every 0.25 s)")
    print(f"{'':32}{'gRPC WatchGame':>18}{'SSE :watch':>18}")
    rows = (("watchers (open of asked)", lambda f: f"{f['opened']:,.0f}/{f['count']:,}"), ("opened in", lambda f: f"{f['open_s']:.1f} s"),
            ("server memory per watcher", lambda f: f"{f['kib']:.1f} KiB"),
            ("deliveries (of expected)", lambda f: f"{f['got']:,}/{f['expected']:,}"),
            ("delivery p50 / p99", lambda f: f"{f['p50']:.0f} / {f['p99']:.0f} ms"),
            ("last watcher of a game p50/p99", lambda f: f"{f['last50']:.0f} / {f['last99']:.0f} ms"))
    figures["gRPC"]["count"], figures["SSE"]["count"] = args.grpc, args.sse
    for name, show in rows:
        print(f"{name:32}{show(figures['gRPC']):>18}{show(figures['SSE']):>18}")
    for stream in streams:
        stream.closing = True
        stream.call.cancel()
    for watcher in sse:
        watcher.cut()
    await asyncio.gather(*(s.task for s in streams), *(w.task for w in sse if w.task), return_exceptions=True)
    for channel in channels:
        await channel.close()


async def _until(server: ServeProcess, metric: str, count: int, stall: float = 30) -> float:
    """Wait until the server's ``metric`` reaches ``count``, or stops growing for ``stall`` seconds; its value
    (read in a thread: this loop keeps reading streams meanwhile)."""
    best, since = -1.0, time.monotonic()
    while (value := await asyncio.to_thread(server.metric, metric)) < count:
        if value > best:
            best, since = value, time.monotonic()
        elif time.monotonic() - since > stall:
            break
        await asyncio.sleep(0.5)
    return value


class _GrpcWatcher:
    """One WatchGame stream: when each version arrived."""

    def __init__(self, channel: grpc.aio.Channel, name: str) -> None:
        self.name = name
        self.call = game_service_pb2_grpc.GameServiceStub(channel).WatchGame(svc.WatchGameRequest(name=name))
        self.arrivals: list[tuple[int, float]] = []
        self.error = ""
        self.closing = False  # the bench cancels every stream at the end
        self.task = asyncio.ensure_future(self._read())

    async def _read(self) -> None:
        try:
            async for update in self.call:
                self.arrivals.append((update.version, time.perf_counter()))
        except grpc.aio.AioRpcError as error:
            if not self.closing:  # CANCELLED before the bench cancelled it: gRPC core gave up waiting for the
                self.error = str(error.code())  # server to accept the call (30 s), so it never opened


async def _create(stub: Any) -> tuple[str, dict[int, str]]:
    reply = await stub.CreateGame(svc.CreateGameRequest(ruleset="ttr-europe", seat_count=2, display_names=["a", "b"]))
    return reply.game.name, {c.seat: c.player_token for c in reply.credentials}


async def _play(stub: Any, games: list[tuple[str, dict[int, str]]], updates: int) -> dict[tuple[str, int], float]:
    """One move per game in turn; when each (game, version) was submitted (and the server CPU share)."""
    sent: dict[tuple[str, int], float] = {}
    for i in range(updates):
        name, tokens = games[i % len(games)]
        for token in tokens.values():
            metadata = (("authorization", f"Bearer {token}"),)
            actions = (await stub.ListLegalActions(svc.ListLegalActionsRequest(name=name), metadata=metadata)).actions
            if actions:
                started = time.perf_counter()
                reply = await stub.SubmitAction(svc.SubmitActionRequest(name=name, action=actions[0]),
                                                metadata=metadata)
                sent[(name, reply.game.version)] = started
                break
        await asyncio.sleep(0.25)
    return sent


def _grpc_arrivals(streams: list[_GrpcWatcher]) -> list[tuple[str, int, float]]:
    return [(s.name, v, t) for s in streams for v, t in s.arrivals]


def _sse_arrivals(watchers: list[SseWatcher], names: list[str]) -> list[tuple[str, int, float]]:
    return [(name, v, t) for w, name in zip(watchers, names, strict=True) for v, t in zip(w.ids, w.times, strict=True)]


def _latencies(sent: dict[tuple[str, int], float], arrivals: list[tuple[str, int, float]],
               watched: list[str]) -> dict[str, float]:
    """Every delivery's delay after its submit, and per update the delay of its last watcher."""
    delays: list[float] = []
    last: dict[tuple[str, int], float] = {}
    for name, version, at in arrivals:
        submitted = sent.get((name, version))
        if submitted is not None:
            delays.append(at - submitted)
            last[(name, version)] = max(last.get((name, version), 0.0), at - submitted)
    per_game = {name: watched.count(name) for name in set(watched)}
    expected = sum(per_game.get(name, 0) for name, _ in sent)
    return {"got": len(delays), "expected": expected, "p50": 1000 * percentile(delays, .5),
            "p99": 1000 * percentile(delays, .99), "last50": 1000 * percentile(list(last.values()), .5),
            "last99": 1000 * percentile(list(last.values()), .99)}


if __name__ == "__main__":
    main()
