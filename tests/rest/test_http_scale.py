"""Proof of issue 11 against one ``tabletop serve`` process, loopback only.

- 10,000 idle connections and 110 byte-by-byte slow clients: every unary REST call still
  answers (within a generous timeout here; ``bench/http_scale.py`` prints the p99), and
  the memory per idle connection is reported.
- Thousands of SSE watchers of one game plus hundreds of gRPC watchers: each receives
  every event of a game played meanwhile, in order, once; unary calls keep answering;
  cutting watcher connections abruptly (RST, no FIN) frees their slots within seconds.

The full figures (5,000 SSE + 500 gRPC watchers, 1,000 cut) run under ``-m slow``; the
default run has the same test at a tenth of the watchers.
"""

from __future__ import annotations

import asyncio
import math
import random
import sys
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from tabletop.v1 import game_service_pb2 as svc
from tabletop.v1 import game_service_pb2_grpc

from bench.http_load import (
    ServeProcess,
    SseWatcher,
    open_idle,
    percentile,
    probe,
    raise_fd_limit,
    read_metric,
    slow_clients,
    until,
)
from tests.helpers import create_game, play

IDLE, SLOW = 10_000, 110
# Deadlines sized for a loaded 2-core machine (the whole suite beside a second copy of it): they bound a hang,
# they are not the speed claim (bench/http_scale.py measures that).
OPEN_SECONDS, WAIT_SECONDS, PROBE_SECONDS, CUT_SECONDS = 240, 120, 30, 30


@pytest.fixture(scope="module")
def fds() -> int:
    limit = raise_fd_limit()
    if limit < IDLE + SLOW + 1000:  # this process holds the client ends; the server its own
        pytest.skip(f"the open-file limit ({limit}) is too low for {IDLE} loopback connections")
    return limit


@pytest.fixture
def serve_process(redis_url: str, fds: int, request: pytest.FixtureRequest) -> Iterator[ServeProcess]:
    server = ServeProcess(redis_url, **getattr(request, "param", {}))
    yield server
    server.close()


@pytest.mark.parametrize("serve_process", [{"http_header_timeout_seconds": 120,
                                            "http_max_connections": IDLE + SLOW + 500,
                                            "http_max_connections_per_address": 0}], indirect=True)
def test_ten_thousand_idle_and_110_slow_clients_never_stop_unary_calls(serve_process: ServeProcess) -> None:
    port = serve_process.http_port

    async def main() -> tuple[float, list[float]]:
        before = serve_process.rss_kib()
        idle = await open_idle(port, IDLE)
        assert await until(lambda: _at_least(serve_process, "tabletop_http_connections_open", IDLE), 60, 0.5)
        per_connection = (serve_process.rss_kib() - before) / IDLE
        stop = asyncio.Event()
        slow = await slow_clients(port, SLOW, stop, interval=0.2)
        await asyncio.sleep(1)
        latencies = await probe(port, 100, timeout=10)  # every call answers; a hang fails here
        stop.set()
        for _, writer in idle + slow:
            writer.close()
        return per_connection, latencies

    per_connection, latencies = asyncio.run(main())
    print(f"\n{IDLE} idle + {SLOW} slow clients: {per_connection:.1f} KiB of server memory per idle connection; "
          f"unary p50 {1000 * percentile(latencies, 0.5):.1f} ms, p99 {1000 * percentile(latencies, 0.99):.1f} ms",
          file=sys.stderr)
    assert per_connection < 64  # a few kilobytes, never a thread (a thread's stack alone is 8 MiB virtual)


WATCHERS = [pytest.param((500, 50, 100), id="500-sse-50-grpc"),
            # Beside CPU-heavy work some of the 500 gRPC streams used to end CANCELLED before they opened (issue 26):
            # the 5,000 SSE heartbeats a second (a 1 s heartbeat here) cost the one event loop more CPU than the
            # process got, and grpc.aio accepts one new call per turn of that loop, so calls waited in gRPC core,
            # which cancels a call left unaccepted for 30 s. Heartbeats now cost a fifth (rest.watch.Heartbeats).
            pytest.param((5000, 500, 1000), id="5000-sse-500-grpc", marks=pytest.mark.slow)]


@pytest.mark.parametrize("sizes", WATCHERS)
def test_thousands_of_watchers_each_get_every_event_once_in_order(redis_url: str, fds: int,
                                                                  sizes: tuple[int, int, int]) -> None:
    sse_count, grpc_count, cut_count = sizes
    # 5,000 connections opened at once on a starved 2-core machine take the server longer than the default 10 s
    # header deadline to read (it answers 408): the header deadline is not what this test is about.
    server = ServeProcess(redis_url, max_watch_streams=grpc_count + 100, max_watches_per_address=0,
                          http_max_connections_per_address=0,
                          max_watches_per_token=0, watch_heartbeat_seconds=1, http_header_timeout_seconds=120)
    try:
        _watch_and_play(server, sse_count, grpc_count, cut_count)
    finally:
        server.close()


def _watch_and_play(server: ServeProcess, sse_count: int, grpc_count: int, cut_count: int) -> None:
    port = server.http_port
    with grpc.insecure_channel(server.grpc_target) as channel:
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        game, tokens = create_game(stub)

        async def main() -> None:
            seat_watchers = [SseWatcher().start(port, game.name, tokens[s]) for s in tokens]
            watchers = [SseWatcher().start(port, game.name) for _ in range(sse_count - len(seat_watchers))]
            everyone = watchers + seat_watchers
            followers: list[asyncio.Future[None]] = []
            try:
                await asyncio.wait_for(asyncio.gather(*(w.opened.wait() for w in everyone)), OPEN_SECONDS)
                assert {w.status for w in everyone} == {200}
                async with grpc.aio.insecure_channel(server.grpc_target) as aio_channel:
                    await _play_while_watched(server, stub, aio_channel, game.name, tokens, everyone, watchers,
                                              grpc_count, cut_count, followers)
            finally:  # every task this test started ends here, failed or not: no "never retrieved" records
                for follower in followers:
                    follower.cancel()
                for watcher in everyone:
                    if watcher.conn is not None and not watcher.conn[1].transport.is_closing():
                        watcher.cut()
                    elif watcher.task is not None:
                        watcher.task.cancel()
                await asyncio.gather(*followers, *(w.task for w in everyone if w.task), return_exceptions=True)

        asyncio.run(main())


async def _play_while_watched(server: ServeProcess, stub: Any, aio_channel: grpc.aio.Channel, name: str,
                              tokens: dict[int, str], everyone: list[SseWatcher], watchers: list[SseWatcher],
                              grpc_count: int, cut_count: int, followers: list[asyncio.Future[None]]) -> None:
    """Watch over gRPC too, play a game, and check every watcher got every version once, in order."""
    aio_stub = game_service_pb2_grpc.GameServiceStub(aio_channel)
    grpc_ids: list[list[int]] = [[] for _ in range(grpc_count)]
    calls = [aio_stub.WatchGame(svc.WatchGameRequest(name=name)) for _ in range(grpc_count)]
    opened: list[int] = []

    async def follow(call: Any, ids: list[int]) -> None:
        await call.initial_metadata()  # the server checked the game: the stream is open
        opened.append(1)
        async for update in call:
            ids.append(update.version)

    followers += [asyncio.ensure_future(follow(c, i)) for c, i in zip(calls, grpc_ids, strict=True)]

    def all_open() -> Any:
        ended = [f for f in followers if f.done()]  # a stream that ended before the game was played failed
        assert not ended, f"{len(ended)} gRPC streams ended: {ended[0].exception()!r}"
        return len(opened) == grpc_count and _at_least(server, "tabletop_watches_open", len(everyone) + grpc_count)

    assert await until(all_open, WAIT_SECONDS, 0.5)
    played = asyncio.ensure_future(asyncio.to_thread(play, stub, name, tokens, 30, random.Random(3)))
    latencies = await probe(server.http_port, 30, timeout=PROBE_SECONDS)  # unary calls answer while events fan out
    await played
    final = stub.GetGame(svc.GetGameRequest(name=name)).game.version
    expected = list(range(1, final + 1))

    def all_delivered() -> bool:
        return all(w.ids[-1:] == [final] for w in everyone) and all(ids[-1:] == [final] for ids in grpc_ids)

    assert await until(all_delivered, WAIT_SECONDS, 0.2)
    wrong = [w.ids for w in everyone if w.ids != expected] + [ids for ids in grpc_ids if ids != expected]
    assert wrong == [], f"{len(wrong)} watchers missed, repeated or reordered events"
    open_before = math.nan
    for _ in range(10):  # a read that timed out on a starved machine is NaN: read again
        if not math.isnan(open_before := await read_metric(server, "tabletop_watches_open")):
            break
    for watcher in watchers[:cut_count]:
        watcher.cut()

    async def freed() -> bool:
        return await read_metric(server, "tabletop_watches_open") <= open_before - cut_count

    assert await until(freed, CUT_SECONDS, 0.2)
    print(f"\n{len(everyone)} SSE + {grpc_count} gRPC watchers: {final} versions each, in order, once; "
          f"unary p99 {1000 * percentile(latencies, 0.99):.1f} ms; {cut_count} cut, freed within {CUT_SECONDS} s",
          file=sys.stderr)


# Helpers

async def _at_least(server: ServeProcess, metric: str, value: float) -> bool:
    return await read_metric(server, metric) >= value
