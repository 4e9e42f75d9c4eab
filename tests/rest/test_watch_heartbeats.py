"""SSE heartbeats come from one timer per server, handed out in batches (issue 26).

A timer, a task and an ``asyncio.wait`` per watcher per heartbeat cost about 70 µs each: 5,000 watchers at a
1 s heartbeat took more CPU than a starved process had, and the gRPC streams of that process were then
accepted too slowly (grpc.aio takes one new call per turn of the loop; gRPC core cancels a call left waiting
30 s). ``rest.watch.Heartbeats`` gives every watcher with nothing queued one heartbeat per period, and lets the
loop run other work between batches of ``BEAT_BATCH`` watchers.
"""

from __future__ import annotations

import asyncio

from tabletop_server.rest import watch
from tabletop_server.rest.watch import HEARTBEAT, Heartbeats, Watcher


def test_every_idle_watcher_gets_one_heartbeat_per_period_in_batches() -> None:
    async def main() -> tuple[int, list[int], list[bytes | None]]:
        beats = Heartbeats(0.05)
        watchers = [Watcher(0) for _ in range(3 * watch.BEAT_BATCH)]
        for watcher in watchers:
            beats.add(watcher)
        watchers[0].offer(1, b"an event")  # something queued: no heartbeat for it
        seen_between: list[int] = []

        async def other_work() -> None:  # runs while the heartbeats are handed out, between batches
            while (queued := sum(w.queue.qsize() for w in watchers)) < len(watchers):
                seen_between.append(queued)
                await asyncio.sleep(0)

        await asyncio.wait_for(other_work(), 10)
        counts = {w.queue.qsize() for w in watchers}
        first = [watchers[0].queue.get_nowait()]
        for watcher in watchers:
            beats.discard(watcher)
        assert beats.task is not None
        await asyncio.wait_for(beats.task, 10)  # no watchers left: the timer ends
        return len(counts), seen_between, first

    distinct, seen_between, first = asyncio.run(main())
    assert distinct == 1  # one item each: a heartbeat, or the event already queued (never both)
    assert first == [b"an event"]
    assert any(1 < seen < 3 * watch.BEAT_BATCH for seen in seen_between)  # the loop ran between batches


def test_a_watcher_that_left_gets_no_heartbeat() -> None:
    async def main() -> list[bytes | None]:
        beats = Heartbeats(0.01)
        staying, leaving = Watcher(0), Watcher(0)
        beats.add(staying)
        beats.add(leaving)
        leaving.gone()
        beats.discard(leaving)
        got = await asyncio.wait_for(staying.queue.get(), 10)
        items = [leaving.queue.get_nowait() for _ in range(leaving.queue.qsize())]
        beats.stop()
        return [got, *items]

    assert asyncio.run(main()) == [HEARTBEAT, None]  # the one that left only has its end
