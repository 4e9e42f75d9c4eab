"""``:watch`` as Server-Sent Events on the event loop: a coroutine per watcher, shared upstreams.

A game service holds one long-lived watch per connected player, so a watcher must cost
a few kilobytes, never a thread (issue 11). Each SSE watcher is a queue and a coroutine
on the HTTP server's loop; the game's events come from WatchGame over ``grpc.aio``.

Watchers that present exactly the same credentials (``authorization`` and ``x-api-key``)
for the same game see exactly the same stream, so they share one upstream WatchGame
call (a ``Hub``): 5,000 spectators of one game cost the service one stream and one Redis
connection, and each event is printed as JSON once. Hidden information is kept by
construction: the hub's key is the full credential, never a seat number, so a stream
is only ever delivered to callers the service would have sent the same stream.

A watcher that resumes (``Last-Event-ID``) joins a hub when the hub's buffer of recent
messages covers everything after its version; otherwise it gets an upstream of its own.
Each watcher receives each version once and in order (versions at or below the last one
it got are skipped). Caps per process, per token and per client address refuse a watch
with 429, ``Retry-After`` and a reason; heartbeats go out every ``heartbeat_seconds``.
"""

from __future__ import annotations

import asyncio
import collections
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import grpc
from google.protobuf.message import Message

from tabletop_server.rest.aio import rpc_error
from tabletop_server.rest.errors import ApiError, Reason, from_rpc_error, local_error
from tabletop_server.rest.transcode import encode_response

BUFFER = 256  # recent messages a hub keeps for watchers that join it late
QUEUE = 512  # messages a watcher may fall behind before it is cut off (it resumes with Last-Event-ID)
RETRY_AFTER_SECONDS = 5
RESUMES = 3  # upstream calls reopened in a row after UNAVAILABLE before the watchers get the error
Key = tuple[str, str, str]  # (game, authorization, x-api-key)


@dataclass
class WatchCaps:
    """How many SSE watches one process, one token and one client address may hold (0 = no cap)."""

    total: int = 20000
    per_token: int = 8
    per_address: int = 256


class Watcher:
    """One SSE client: the versions it has had, and a bounded queue of SSE bytes (None = end)."""

    def __init__(self, after: int) -> None:
        self.after = after
        self.cut = False
        self.queue: asyncio.Queue[bytes | None] = asyncio.Queue(QUEUE)

    def offer(self, version: int, data: bytes) -> None:
        if version <= self.after or self.cut:
            return
        self.after = version
        self._put(data)

    def end(self, data: bytes | None = None) -> None:
        if data is not None:
            self._put(data)
        self._put(None)

    def _put(self, item: bytes | None) -> None:
        if self.cut:
            return
        try:
            self.queue.put_nowait(item)
        except asyncio.QueueFull:  # too slow a reader: end its stream, it resumes from its last id
            self.cut = True
            while not self.queue.empty():
                self.queue.get_nowait()
            self.queue.put_nowait(None)


class Hub:
    """One upstream WatchGame call fanned out to every watcher that joined it."""

    def __init__(self, key: Key | None, call: Any, start: int, hubs: Watches) -> None:
        self.key, self.call, self.start, self.hubs = key, call, start, hubs
        self.watchers: set[Watcher] = set()
        self.buffer: collections.deque[tuple[int, bytes]] = collections.deque(maxlen=BUFFER)
        self.floor = start  # every message after this version is in the buffer
        self.whole = True  # the buffer holds every message since ``start``
        self.last = start  # the newest version received: a resumed call starts after it
        self.task: asyncio.Task[None] | None = None

    def covers(self, after: int) -> bool:
        """Whether the buffer holds everything after ``after`` (a version past the newest one seen gets a
        call of its own: the service says whether the game has it, or refuses it as VERSION_AHEAD)."""
        return after <= self.last and ((after == self.start and self.whole) or after >= self.floor)

    def join(self, watcher: Watcher) -> None:
        self.watchers.add(watcher)
        for version, data in self.buffer:
            watcher.offer(version, data)

    def leave(self, watcher: Watcher) -> None:
        self.watchers.discard(watcher)
        if not self.watchers:
            self.close()

    def close(self) -> None:
        self.hubs.forget(self)
        self.call.cancel()
        if self.task is not None:
            self.task.cancel()

    async def run(self, first: Message | None, reopen: Callable[[int], Any] | None = None) -> None:
        """Fan the call out until it ends; a call the service drops as UNAVAILABLE (a Redis hiccup, a
        replica going away) is reopened after the last version, up to ``RESUMES`` times in a row, so
        the watchers see no gap and no repeat (``Watcher.offer`` skips what they had)."""
        ending: bytes | None = None
        resumes = 0
        if first is not None:
            self._fan_out(first)
        while True:
            try:
                async for message in self.call:
                    self._fan_out(message)
                    resumes = 0
                break
            except asyncio.CancelledError:
                break
            except grpc.RpcError as error:
                if self.call.cancelled():
                    break
                if (reopen is not None and resumes < RESUMES and self.watchers
                        and error.code() == grpc.StatusCode.UNAVAILABLE):
                    resumes += 1
                    try:
                        await asyncio.sleep(0.2 * 2 ** resumes)
                    except asyncio.CancelledError:
                        break
                    self.call = reopen(self.last)
                    continue
                ending = error_event(from_rpc_error(rpc_error(error)))
                break
        self.hubs.forget(self)
        for watcher in list(self.watchers):
            watcher.end(ending)

    def _fan_out(self, message: Message) -> None:
        version = int(getattr(message, "version", 0))
        self.last = max(self.last, version)
        snapshot = _has_snapshot(message)
        kind = "snapshot" if snapshot else "event"
        data = f"id: {version}\nevent: {kind}\ndata: ".encode() + encode_response(message) + b"\n\n"
        if snapshot:
            self.buffer.clear()
            self.floor = version
        full = len(self.buffer) == BUFFER
        self.buffer.append((version, data))
        if full:  # the oldest message dropped out
            self.whole = False
            self.floor = self.buffer[0][0] - 1
        for watcher in list(self.watchers):
            watcher.offer(version, data)


class Watches:
    """Every open SSE watch of one server: the hubs, the caps and their counts."""

    def __init__(self, caps: WatchCaps, on_refused: Callable[[str], None] = lambda reason: None) -> None:
        self.caps = caps
        self.on_refused = on_refused
        self.hubs: dict[Key, Hub] = {}
        self.opening: dict[Key, asyncio.Future[None]] = {}
        self.all_hubs: set[Hub] = set()
        self.open = 0
        self.by_token: collections.Counter[str] = collections.Counter()
        self.by_address: collections.Counter[str] = collections.Counter()

    def admit(self, token: str, address: str) -> None:
        """Count a new watch or raise its 429."""
        caps = self.caps
        if caps.total and self.open >= caps.total:
            self._refuse(Reason.TOO_MANY_WATCH_STREAMS, f"this server holds {caps.total} watch streams")
        if token and caps.per_token and self.by_token[token] >= caps.per_token:
            self._refuse(Reason.TOO_MANY_WATCHES_PER_TOKEN, f"this token holds {caps.per_token} watch streams")
        if address and caps.per_address and self.by_address[address] >= caps.per_address:
            self._refuse(Reason.TOO_MANY_WATCHES_PER_ADDRESS,
                         f"this client address holds {caps.per_address} watch streams")
        self.open += 1
        if token:
            self.by_token[token] += 1
        if address:
            self.by_address[address] += 1

    def release(self, token: str, address: str) -> None:
        self.open -= 1
        for counter, key in ((self.by_token, token), (self.by_address, address)):
            if key:
                counter[key] -= 1
                if counter[key] <= 0:
                    del counter[key]

    async def subscribe(self, key: Key, after: int, open_call: Callable[[int], Any],
                        open_wait: float) -> tuple[Hub, Watcher]:
        """A watcher on a hub for ``key`` (an existing one that covers ``after``, else a new one).

        A new hub's call must open (the service checked the game and the token) within
        ``open_wait`` seconds or fail; a failure raises the ``ApiError`` of the call.
        """
        watcher = Watcher(after)
        opening = self.opening.get(key)
        if opening is not None:  # watchers arriving together share the call being opened
            await asyncio.shield(opening)
        hub = self.hubs.get(key)
        if hub is not None and hub.covers(after):
            hub.join(watcher)
            return hub, watcher
        shared = key not in self.hubs and key not in self.opening
        if shared:
            self.opening[key] = asyncio.get_running_loop().create_future()
        try:
            return self._start(key if shared else None, watcher, await self._open(open_call(after), open_wait),
                               open_call)
        finally:
            if shared:
                self.opening.pop(key).set_result(None)

    async def _open(self, call: Any, open_wait: float) -> tuple[Any, Message | None]:
        first: Message | None = None
        try:
            await asyncio.wait_for(asyncio.shield(call.initial_metadata()), open_wait)
            if call.done():  # failed at once (unknown game, bad token); ends with its error
                result = await call.read()
                first = None if result is grpc.aio.EOF else result
        except TimeoutError:
            pass
        except grpc.RpcError as error:
            raise from_rpc_error(rpc_error(error)) from None
        except BaseException:
            call.cancel()
            raise
        return call, first

    def _start(self, key: Key | None, watcher: Watcher, opened: tuple[Any, Message | None],
               reopen: Callable[[int], Any]) -> tuple[Hub, Watcher]:
        call, first = opened
        hub = Hub(key, call, watcher.after, self)
        if key is not None:
            self.hubs[key] = hub
        self.all_hubs.add(hub)
        hub.join(watcher)
        hub.task = asyncio.ensure_future(hub.run(first, reopen))
        return hub, watcher

    def forget(self, hub: Hub) -> None:
        if hub.key is not None and self.hubs.get(hub.key) is hub:
            del self.hubs[hub.key]
        self.all_hubs.discard(hub)

    def close_all(self) -> None:
        """End every stream (at shutdown: clients resume elsewhere with Last-Event-ID)."""
        for hub in list(self.all_hubs):
            watchers = list(hub.watchers)
            hub.close()
            for watcher in watchers:
                watcher.end()

    def _refuse(self, reason: str, message: str) -> None:
        self.on_refused(reason)
        error = local_error(429, grpc.StatusCode.RESOURCE_EXHAUSTED, reason,
                            f"{message}; retry later or use gRPC WatchGame")
        error.headers["Retry-After"] = str(RETRY_AFTER_SECONDS)
        raise error


def error_event(error: ApiError) -> bytes:
    """The final ``event: error`` of a stream the service ended with an error."""
    return b"event: error\ndata: " + error.body() + b"\n\n"


# Helpers

def _has_snapshot(message: Message) -> bool:
    try:
        return message.HasField("snapshot")
    except ValueError:  # a streamed message without a snapshot field
        return False
