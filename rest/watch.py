"""Every streaming route as Server-Sent Events on the event loop: a coroutine per watcher, shared upstreams.

A game service holds one long-lived watch per connected player, so a watcher must cost
a few kilobytes, never a thread (issue 11). Each SSE watcher is a queue and a coroutine
on the HTTP server's loop; the messages come from the stream (WatchGame, WatchPlayer)
over ``grpc.aio``. What differs between the streams is only their position (a game
version, a notification id) and how a request resumes after it: ``rest.cursors``.

Watchers that present exactly the same credentials (``authorization`` and ``x-api-key``)
for the same stream (the same game; the same player) see exactly the same stream, so they
share one upstream call (a ``Hub``): 5,000 spectators of one game cost the service one
stream and one Redis connection, and each message is printed as JSON once. Hidden
information is kept by construction: the hub's key is the full credential, never a seat
number, so a stream is only ever delivered to callers the service would have sent it.

A watcher that resumes (``Last-Event-ID``) joins a hub when the hub's buffer of recent
messages covers everything after its position; otherwise it gets an upstream of its own.
A watcher "from now on" (WatchPlayer without an id) joins its key's hub after the newest
message the hub has. Each watcher receives each position once and in order (positions at
or below the last one it got are skipped). Caps per process, per token and per client
address, shared by every stream, refuse a watch with 429, ``Retry-After`` and a reason.

Heartbeats come from one timer per server (``Heartbeats``), not one per watcher: every
``heartbeat_seconds`` each watcher with nothing queued gets a heartbeat comment, handed out in
batches with a turn of the event loop between them. A timer, a task and an ``asyncio.wait`` per
watcher per heartbeat cost about 70 µs each; at 5,000 watchers and a 1 s heartbeat that was
most of a core, and a loop that busy admitted gRPC calls too slowly for gRPC core, which cancels
a call left waiting 30 s (issue 26: the gRPC streams that "never opened").
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
from tabletop_server.rest.cursors import GAME, Cursor, Position
from tabletop_server.rest.errors import ApiError, Reason, from_rpc_error, local_error
from tabletop_server.rest.transcode import encode_response

HEARTBEAT = b": heartbeat\n\n"
BEAT_BATCH = 256  # watchers given their heartbeat per turn of the event loop (other work runs between batches)
BUFFER = 256  # recent messages a hub keeps for watchers that join it late
QUEUE = 512  # messages a watcher may fall behind before it is cut off (it resumes with Last-Event-ID)
RETRY_AFTER_SECONDS = 5
RESUMES = 3  # upstream calls reopened in a row after UNAVAILABLE before the watchers get the error
Key = tuple[str, str, str]  # (stream: "WatchGame games/x", "WatchPlayer"; authorization; x-api-key)


@dataclass
class WatchCaps:
    """How many SSE watches one process, one token and one client address may hold (0 = no cap)."""

    total: int = 20000
    per_token: int = 8
    per_address: int = 256


class Watcher:
    """One SSE client: the position it has had (None: from now on, not placed yet), and a bounded
    queue of SSE bytes (None = end). ``start`` is where it joined its hub."""

    def __init__(self, after: Position) -> None:
        self.after = self.start = after
        self.cut = False
        self.queue: asyncio.Queue[bytes | None] = asyncio.Queue(QUEUE)

    def offer(self, position: Position, data: bytes) -> None:
        if (self.after is not None and position <= self.after) or self.cut:
            return
        self.after = position
        self._put(data)

    def end(self, data: bytes | None = None) -> None:
        if data is not None:
            self._put(data)
        self._put(None)

    def beat(self) -> None:
        """A heartbeat, unless something is already queued (it goes out first, and is as good)."""
        if self.queue.empty() and not self.cut:
            self.queue.put_nowait(HEARTBEAT)

    def gone(self) -> None:
        """The client went away: drop what is queued and end the stream now."""
        self.cut = True
        while not self.queue.empty():
            self.queue.get_nowait()
        self.queue.put_nowait(None)

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


class Heartbeats:
    """One timer for every SSE watcher of a server: each ``seconds``, every watcher with nothing queued gets a
    heartbeat (so no client goes longer than ``seconds`` without a byte), ``BEAT_BATCH`` watchers per turn of the
    event loop. The timer runs while there are watchers."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.watchers: set[Watcher] = set()
        self.task: asyncio.Task[None] | None = None

    def add(self, watcher: Watcher) -> None:
        self.watchers.add(watcher)
        if self.task is None or self.task.done():
            self.task = asyncio.ensure_future(self._run())

    def discard(self, watcher: Watcher) -> None:
        self.watchers.discard(watcher)

    def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()

    async def _run(self) -> None:
        while self.watchers:
            await asyncio.sleep(self.seconds)
            for i, watcher in enumerate(list(self.watchers), 1):
                watcher.beat()
                if i % BEAT_BATCH == 0:
                    await asyncio.sleep(0)


class Hub:
    """One upstream call of a stream fanned out to every watcher that joined it."""

    def __init__(self, key: Key | None, call: Any, start: Position, hubs: Watches, cursor: Cursor = GAME) -> None:
        self.key, self.call, self.start, self.hubs, self.cursor = key, call, start, hubs, cursor
        self.watchers: set[Watcher] = set()
        self.buffer: collections.deque[tuple[Position, bytes]] = collections.deque(maxlen=BUFFER)
        self.floor = start  # every message after this position is in the buffer (None: not known)
        self.whole = True  # the buffer holds every message since ``start``
        self.last = start  # the newest position received: a resumed call starts after it
        self.task: asyncio.Task[None] | None = None

    def covers(self, after: Position) -> bool:
        """Whether the buffer holds everything after ``after`` (a position past the newest one seen gets a
        call of its own: the service says whether it has it, or refuses it, as VERSION_AHEAD). A watcher
        from now on (None) is covered by any hub: it joins after the newest message the hub has."""
        if after is None:
            return True
        if self.last is None:
            return False
        return after <= self.last and ((after == self.start and self.whole)
                                       or (self.floor is not None and after >= self.floor))

    def placed(self, start: Position) -> None:
        """The stream opened "from now on" says where that is (``Cursor.start_header``)."""
        if self.start is None and self.last is None:
            self.start = self.floor = self.last = start

    def join(self, watcher: Watcher) -> None:
        if watcher.after is None:  # from now on: after what the hub already has (None: it has nothing yet)
            watcher.after = watcher.start = self.last
        self.watchers.add(watcher)
        for position, data in self.buffer:
            watcher.offer(position, data)

    def leave(self, watcher: Watcher) -> None:
        self.watchers.discard(watcher)
        if not self.watchers:
            self.close()

    def close(self) -> None:
        self.hubs.forget(self)
        self.call.cancel()
        if self.task is not None:
            self.task.cancel()

    async def run(self, first: Message | None, reopen: Callable[[Position], Any] | None = None) -> None:
        """Fan the call out until it ends; a call the service drops as UNAVAILABLE (a Redis hiccup, a
        replica going away) is reopened after the last position, up to ``RESUMES`` times in a row, so
        the watchers see no gap and no repeat (``Watcher.offer`` skips what they had)."""
        ending: bytes | None = None
        resumes = 0
        if first is not None:
            self._fan_out(first)
        elif self.last is None and self.cursor.start_header:
            await self._place()
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

    async def _place(self) -> None:
        """Place a stream opened from now on whose start came after the open wait (``Watches._open`` places
        the others): later watchers from now on, and a reopen, then start there, not at a new "now"."""
        try:
            start = start_of(self.cursor, await self.call.initial_metadata())
        except (grpc.RpcError, ApiError, asyncio.CancelledError):
            return  # the call's error (or its cancellation) ends the loop that follows
        if start is not None:
            self.placed(start)

    def _fan_out(self, message: Message) -> None:
        cursor = self.cursor
        position = cursor.position(message)
        self.last = position if self.last is None else max(self.last, position)
        data = (f"id: {cursor.event_id(position)}\nevent: {cursor.kind(message)}\ndata: ".encode()
                + encode_response(message) + b"\n\n")
        if cursor.snapshot(message):
            self.buffer.clear()
            self.floor = position
        if len(self.buffer) == BUFFER:  # the oldest message drops out: the buffer holds everything after it
            self.whole = False
            self.floor = self.buffer[0][0]
        self.buffer.append((position, data))
        for watcher in list(self.watchers):
            watcher.offer(position, data)


class Watches:
    """Every open SSE watch of one server: the hubs, the caps and their counts."""

    def __init__(self, caps: WatchCaps, on_refused: Callable[[str], None] = lambda reason: None,
                 heartbeat_seconds: float = 15.0) -> None:
        self.caps = caps
        self.heartbeats = Heartbeats(heartbeat_seconds)
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

    async def subscribe(self, key: Key | None, after: Position, open_call: Callable[[Position], Any],
                        open_wait: float, cursor: Cursor = GAME) -> tuple[Hub, Watcher]:
        """A watcher on a hub for ``key`` (an existing one that covers ``after``, else a new one; None: a
        call of its own, never shared).

        A new hub's call must open (the service checked the request and the token) within
        ``open_wait`` seconds or fail; a failure raises the ``ApiError`` of the call.
        """
        watcher = Watcher(after)
        if key is None:
            return self._start(None, watcher, await self._open(open_call(after), open_wait, cursor), open_call, cursor)
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
            return self._start(key if shared else None, watcher,
                               await self._open(open_call(after), open_wait, cursor), open_call, cursor)
        finally:
            if shared:
                self.opening.pop(key).set_result(None)

    async def _open(self, call: Any, open_wait: float, cursor: Cursor) -> tuple[Any, Message | None, Position]:
        first: Message | None = None
        start: Position = None
        try:
            start = start_of(cursor, await asyncio.wait_for(asyncio.shield(call.initial_metadata()), open_wait))
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
        return call, first, start

    def _start(self, key: Key | None, watcher: Watcher, opened: tuple[Any, Message | None, Position],
               reopen: Callable[[Position], Any], cursor: Cursor) -> tuple[Hub, Watcher]:
        call, first, start = opened
        hub = Hub(key, call, watcher.after, self, cursor)
        if start is not None:
            hub.placed(start)
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
        self.heartbeats.stop()
        for hub in list(self.all_hubs):
            watchers = list(hub.watchers)
            hub.close()
            for watcher in watchers:
                watcher.end()

    def _refuse(self, reason: str, message: str) -> None:
        self.on_refused(reason)
        error = local_error(429, grpc.StatusCode.RESOURCE_EXHAUSTED, reason,
                            f"{message}; retry later or watch over gRPC")
        error.headers["Retry-After"] = str(RETRY_AFTER_SECONDS)
        raise error


def start_of(cursor: Cursor, metadata: Any) -> Position:
    """Where a stream opened from now on starts, as its initial metadata names it (None: not named)."""
    if not cursor.start_header:
        return None
    named = next((str(v) for k, v in metadata or () if k == cursor.start_header), "")
    return cursor.parse(named) if named else None


def error_event(error: ApiError) -> bytes:
    """The final ``event: error`` of a stream the service ended with an error."""
    return b"event: error\ndata: " + error.body() + b"\n\n"

