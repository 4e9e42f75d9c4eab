"""Server-streaming RPCs as Server-Sent Events in Flask (the ``:watch`` view), with a thread each.

``rest.serve`` answers ``GET :watch`` on the event loop (``rest.watch``, no thread); this
view remains for ``HEAD`` and for the Flask app served by any other WSGI server.

Each stream message becomes one SSE event: ``id: <version>`` (so a browser's
EventSource resumes with ``Last-Event-ID``), ``event: snapshot`` when the message
carries a catch-up snapshot, else ``event: event`` (one version's events) and ``data: <proto3 JSON of the
message>``. A comment line goes out every ``heartbeat_seconds`` so proxies keep the
connection and a vanished client is noticed at the next write; the generator's
``finally`` then cancels the gRPC call, ending the server's stream too.

The gRPC iterator has no timeout, so one pump thread per stream moves messages into
a bounded queue the response generator waits on with a timeout. Errors the service
reports before anything was streamed (unknown game, bad token) become ordinary HTTP
error responses; later ones become a final ``event: error`` carrying the error JSON.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterator
from typing import Any

import grpc
from google.protobuf.message import Message

from tabletop_server.rest.errors import Reason, from_rpc_error, local_error
from tabletop_server.rest.transcode import encode_response

OPEN, MESSAGE, END, ERROR = "open", "message", "end", "error"
QUEUE_SIZE = 256
Item = tuple[str, Any]


class WatchSlots:
    """A cap on open SSE streams: each holds one server worker thread for its whole life.

    Without a cap, as many watchers as the server has threads would leave none for the
    unary routes (``:act`` would hang). ``limit`` None means no cap (``serve`` sets one).
    """

    def __init__(self, limit: int | None = None) -> None:
        self.limit = limit
        self._open = 0
        self._lock = threading.Lock()
        self._streams: set[EventStream] = set()

    def acquire(self) -> None:
        """Take a slot or raise a 429 ``TOO_MANY_WATCH_STREAMS``."""
        with self._lock:
            if self.limit is not None and self._open >= self.limit:
                message = (
                    f"this server has {self.limit} watch streams open; retry later or use gRPC WatchGame"
                )
                error = local_error(
                    429, grpc.StatusCode.RESOURCE_EXHAUSTED, Reason.TOO_MANY_WATCH_STREAMS, message
                )
                error.headers["Retry-After"] = "5"
                raise error
            self._open += 1

    def release(self, stream: EventStream | None = None) -> None:
        """Give a slot back."""
        with self._lock:
            self._open -= 1
            if stream is not None:
                self._streams.discard(stream)

    def track(self, stream: EventStream) -> None:
        """Remember an open stream, for ``close_all``."""
        with self._lock:
            self._streams.add(stream)

    def close_all(self) -> None:
        """End every open stream (at shutdown: clients resume elsewhere with Last-Event-ID)."""
        with self._lock:
            streams = list(self._streams)
        for stream in streams:
            stream.close()

    @property
    def open(self) -> int:
        """How many streams are open now."""
        return self._open


class EventStream:
    """One watch: the gRPC call, its pump thread and the SSE byte generator."""

    def __init__(
        self, start: Callable[[], Any], version_field: str, heartbeat_seconds: float, slots: WatchSlots
    ) -> None:
        slots.acquire()  # before the call: a refused watch opens no gRPC stream
        self._slots = slots
        self._closed = threading.Lock()
        try:
            self._call = start()
        except BaseException:
            slots.release()
            raise
        slots.track(self)
        self._version_field = version_field
        self._heartbeat = heartbeat_seconds
        self._queue: queue.Queue[Item] = queue.Queue(QUEUE_SIZE)
        self._stopped = threading.Event()
        self._pump = threading.Thread(target=self._run, name="sse-pump", daemon=True)
        self._pump.start()

    def first(self, wait_seconds: float) -> Item | None:
        """The first item within ``wait_seconds``; raises ``ApiError`` if the call failed at once."""
        try:
            item = self._queue.get(timeout=wait_seconds)
        except queue.Empty:
            return None
        if item[0] == ERROR:
            self.close()
            raise from_rpc_error(item[1])
        return item

    def body(self, first: Item | None, opening: str) -> Iterator[bytes]:
        """The SSE body: an opening comment, then events and heartbeats until the end."""
        try:
            yield f": {opening}\nretry: 1000\n\n".encode()
            item = first
            while True:
                if item is not None:
                    kind, value = item
                    if kind == MESSAGE:
                        yield self._event(value)
                    elif kind == END:
                        return
                    elif kind == ERROR:
                        yield b"event: error\ndata: " + from_rpc_error(value).body() + b"\n\n"
                        return
                try:
                    item = self._queue.get(timeout=self._heartbeat)
                except queue.Empty:
                    item = None
                    yield b": heartbeat\n\n"
        finally:
            self.close()

    def close(self) -> None:
        """Stop the pump, cancel the gRPC call, end the body and free the slot (idempotent)."""
        self._stopped.set()
        self._call.cancel()
        if self._closed.acquire(blocking=False):  # the first close only
            self._slots.release(self)
            try:
                self._queue.put_nowait((END, None))  # wakes the body generator at once
            except queue.Full:
                pass

    # Helpers

    def _event(self, message: Message) -> bytes:
        version = getattr(message, self._version_field)
        kind = _update_kind(message)
        return f"id: {version}\nevent: {kind}\ndata: ".encode() + encode_response(message) + b"\n\n"

    def _run(self) -> None:
        try:
            self._call.initial_metadata()  # returns once the server opened the stream (or failed)
            if not self._call.done():
                self._put((OPEN, None))
            for message in self._call:
                if not self._put((MESSAGE, message)):
                    return
            self._put((END, None))
        except grpc.RpcError as error:
            if not self._stopped.is_set():
                self._put((ERROR, error))

    def _put(self, item: Item) -> bool:
        while not self._stopped.is_set():
            try:
                self._queue.put(item, timeout=0.5)
                return True
            except queue.Full:
                continue
        return False


def _update_kind(message: Message) -> str:
    # WatchGameResponse carries either a snapshot (a catch-up view) or a version's events.
    return "snapshot" if _has_snapshot(message) else "event"


def _has_snapshot(message: Message) -> bool:
    try:
        return message.HasField("snapshot")
    except ValueError:  # a streamed message without a snapshot field
        return False
