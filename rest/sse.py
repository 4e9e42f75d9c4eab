"""Server-streaming RPCs as Server-Sent Events (the ``:watch`` route).

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
from collections.abc import Iterator
from typing import Any

import grpc
from google.protobuf.message import Message

from rest.errors import from_rpc_error
from rest.transcode import encode_response

OPEN, MESSAGE, END, ERROR = "open", "message", "end", "error"
QUEUE_SIZE = 256
Item = tuple[str, Any]


class EventStream:
    """One watch: the gRPC call, its pump thread and the SSE byte generator."""

    def __init__(self, call: Any, version_field: str, heartbeat_seconds: float) -> None:
        self._call = call
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
        """Stop the pump and cancel the gRPC call (idempotent)."""
        self._stopped.set()
        self._call.cancel()

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
