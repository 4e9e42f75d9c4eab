"""gRPC WatchGame at the SSE side's scale: one Redis reader per watched game per process (issue 26, item 2).

Each WatchGame stream used to hold a Redis connection of its own (blocked in XREAD), so a process
served 192 streams, and 200 anonymous streams locked SSE watchers out of ``serve``. The streams of
one game now share its feed (``service/api/feeds.py``); these tests prove the scale, the sharing, that
every watcher still gets every version once and in order (also one that reads too slowly and
catches up from the log), and the issue's repro.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from tabletop.v1 import game_service_pb2 as svc
from tabletop.v1 import game_service_pb2_grpc

from bench.http_load import ServeProcess, SseWatcher, raise_fd_limit
from tabletop_server.service.api import feeds
from tests.conftest import start_grpc
from tests.helpers import create_game, error_info, lengthen_log, play
from tests.service.webhook_kit import private_redis_server

OPEN_SECONDS = 120  # a hang's bound on a loaded 2-core machine, not a latency target


@pytest.fixture()
def server(redis_url: str) -> Iterator[Any]:
    running = start_grpc(redis_url)  # the default caps
    yield running
    running.running.stop(0)


async def _watch(target: str, name: str, count: int, until: int) -> list[list[int]]:
    """``count`` WatchGame streams of ``name`` on one channel; the versions each got up to ``until``."""
    async with grpc.aio.insecure_channel(target) as channel:
        stub = game_service_pb2_grpc.GameServiceStub(channel)

        async def follow() -> list[int]:
            got: list[int] = []
            async for update in stub.WatchGame(svc.WatchGameRequest(name=name)):
                got.append(update.version)
                if update.version >= until:
                    break
            return got
        return await asyncio.wait_for(asyncio.gather(*(follow() for _ in range(count))), OPEN_SECONDS)


def test_hundreds_of_streams_of_one_game_share_one_redis_reader(server: Any, redis_url: str) -> None:
    with grpc.insecure_channel(server.target) as channel:
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        game, tokens = create_game(stub, seats=2)

        async def run() -> list[list[int]]:
            watching = asyncio.ensure_future(_watch(server.target, game.name, 250, 6))  # > the old cap of 192
            loop = asyncio.get_running_loop()
            feeds = server.running.feeds
            while sum(len(feed.followers) for feed in list(feeds.feeds.values())) < 250:  # every stream follows
                assert not watching.done(), watching.result()  # (counted open is earlier: before its game is read)
                await asyncio.sleep(0.05)
            assert feeds.open == 1  # one reader for the 250 of them
            await loop.run_in_executor(None, play, stub, game.name, tokens, 5, random.Random(3))
            return await watching

        got = asyncio.run(run())
    assert got == [[1, 2, 3, 4, 5, 6]] * 250  # every version once, in order, to every stream


def test_a_stream_that_falls_behind_catches_up_from_the_log(server: Any, redis_url: str,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(feeds, "QUEUE", 4)  # a follower holds 4 entries; the rest of a burst overflows it
    with grpc.insecure_channel(server.target) as channel:
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        game, tokens = create_game(stub, seats=2)
        play(stub, game.name, tokens, 1, random.Random(1))
        watchers = [stub.WatchGame(svc.WatchGameRequest(name=game.name)) for _ in range(3)]
        assert [next(w).version for w in watchers] == [1, 1, 1]
        assert [next(w).version for w in watchers] == [2, 2, 2]  # all three follow the feed now
        lengthen_log(redis_url, game.name, 200)  # 198 entries at once: every follower's queue overflows
        for watcher in watchers:
            assert [next(watcher).version for _ in range(198)] == list(range(3, 201))
            watcher.cancel()


def test_anonymous_grpc_streams_do_not_lock_sse_watchers_out_of_serve(redis_url: str) -> None:
    """The issue's repro: 200 anonymous gRPC WatchGame streams, then an SSE watch of another game."""
    raise_fd_limit()
    server = ServeProcess(redis_url)  # the default caps
    try:
        with grpc.insecure_channel(server.grpc_target) as channel:
            stub = game_service_pb2_grpc.GameServiceStub(channel)
            first, tokens = create_game(stub, seats=2)
            other, _ = create_game(stub, seats=2)

            async def run() -> tuple[list[list[int]], int]:
                watching = asyncio.ensure_future(_watch(server.grpc_target, first.name, 200, 2))
                loop = asyncio.get_running_loop()
                while server.metric("tabletop_watch_streams_open") < 200:
                    assert not watching.done(), watching.result()  # a refused stream ends the gather
                    await asyncio.sleep(0.1)
                sse = SseWatcher().start(server.http_port, other.name)
                await asyncio.wait_for(sse.opened.wait(), OPEN_SECONDS)
                assert sse.task is not None
                sse.task.cancel()
                await loop.run_in_executor(None, play, stub, first.name, tokens, 1, random.Random(5))
                return await watching, sse.status

            got, status = asyncio.run(run())
    finally:
        server.close()
    assert status == 200
    assert got == [[1, 2]] * 200


def test_a_stream_that_leaves_frees_its_slot_and_the_last_one_stops_the_reader(redis_url: str) -> None:
    """Slots and readers follow the streams: a cancelled stream's slot is taken again at once, and the game's one
    Redis reader stops (its connection back in the pool) once the last stream of the game has gone."""
    running = start_grpc(redis_url, max_watch_streams=8, max_watches_per_address=0)  # 8 streams per process
    try:
        with grpc.insecure_channel(running.target) as channel:
            stub = game_service_pb2_grpc.GameServiceStub(channel)
            game, _ = create_game(stub, seats=2)
            calls = [stub.WatchGame(svc.WatchGameRequest(name=game.name), timeout=60) for _ in range(8)]
            assert [next(call).version for call in calls] == [1] * 8
            assert running.running.feeds.open == 1
            with pytest.raises(grpc.RpcError) as full:
                next(stub.WatchGame(svc.WatchGameRequest(name=game.name), timeout=60))
            assert error_info(full.value).reason == "TOO_MANY_WATCH_STREAMS"
            calls.pop().cancel()
            deadline = time.monotonic() + OPEN_SECONDS
            while True:  # the server sees the cancel soon after; until then a new stream may still be refused
                again = stub.WatchGame(svc.WatchGameRequest(name=game.name), timeout=60)
                try:
                    assert next(again).version == 1
                    break
                except grpc.RpcError as error:
                    assert error_info(error).reason == "TOO_MANY_WATCH_STREAMS" and time.monotonic() < deadline
                    time.sleep(0.1)
            calls.append(again)
            for call in calls:
                call.cancel()
            deadline = time.monotonic() + OPEN_SECONDS  # a reader notices at the end of its block (5 s)
            while running.running.feeds.open and time.monotonic() < deadline:
                time.sleep(0.1)
            assert running.running.feeds.open == 0
            assert running.running.metrics.watch_streams._value.get() == 0
    finally:
        running.running.stop(0)


@pytest.mark.slow
def test_a_burst_of_two_thousand_streams_on_one_channel_all_open(tmp_path: Any) -> None:
    """gRPC core holds the calls the server has not accepted yet in a queue that, by default, drops calls at random
    past 1,000 (as CANCELLED, before any handler runs): 2,000 streams opened at once lost about 180 (issue 26;
    ``service.api.server.PENDING_CALLS``).

    On a Redis of its own: on the suite's shared one, under the stress recipe (docs/testing.md) another run's
    burst queued ahead of this one's 2,000 reads and one stream ended UNAVAILABLE "The game store is
    unreachable" after the store's 5 s timeout, which says nothing about gRPC core's queue."""
    raise_fd_limit()
    with private_redis_server(tmp_path) as (url, _):
        server = start_grpc(url, max_watches_per_address=0)  # one client address here: no fair share
        try:
            _burst(server)
        finally:
            server.running.stop(0)


def _burst(server: Any) -> None:
    with grpc.insecure_channel(server.target) as channel:
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        game, tokens = create_game(stub, seats=2)

        async def run() -> list[list[int]]:
            watching = asyncio.ensure_future(_watch(server.target, game.name, 2000, 2))
            while server.running.metrics.watch_streams._value.get() < 2000:
                assert not watching.done(), watching.result()  # a stream that ended ends the gather with its error
                await asyncio.sleep(0.1)
            await asyncio.get_running_loop().run_in_executor(None, play, stub, game.name, tokens, 1, random.Random(5))
            return await watching

        assert asyncio.run(run()) == [[1, 2]] * 2000
