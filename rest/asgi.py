"""The REST facade as one ASGI app: the contract routes on the event loop, Flask beside them.

Flask stays the REST framework (DESIGN 11): it holds the route table built from the protos
(``rest.routes``, with the ``segment`` converter), answers what is not a call of the
service (404 and 405 with ``Allow``, automatic ``OPTIONS``, CORS preflight, ``/healthz``,
``/readyz``, ``/openapi.json``, the web client and ``/docs``) in a bounded thread pool
through ``a2wsgi``, and turns every error it meets into the JSON error shape. The calls
of the service never take a thread:

- every unary contract route (``:act``, GetGame, ...; ``HEAD`` of a GET route too) goes
  through ``rest.dispatch.Dispatcher``, the one request path, on the facade's one channel
  (``rest.dispatch.facade_channel``: the service's handlers in process under ``tabletop
  serve``, ``grpc.aio`` in the standalone facade);
- every streaming route (``GET`` and ``HEAD``: WatchGame's ``/v1/{name=games/*}:watch``,
  WatchPlayer's ``/v1/players/me:watch``), served by ``rest.watch`` as a coroutine per
  watcher, the one implementation of Server-Sent Events (``rest.cursors`` says how each
  stream resumes);
- POSTs under ``/tabletop.v1.GameService/``: ``rest.connect`` (Connect and gRPC-Web, issue
  13), on the same loop and channel.

Tracing, when on, is a layer here (``RequestTracing``): a SERVER span around every request,
whichever part answers it, and the trace forwarded on the call it makes. Every answer gets
``X-Content-Type-Options: nosniff`` (and ``Vary: Origin`` when CORS is configured).
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import parse_qsl

import grpc
from a2wsgi import WSGIMiddleware
from werkzeug.datastructures import MultiDict

from tabletop_server.rest.connect import PREFIX as CONNECT_PREFIX
from tabletop_server.rest.connect import ConnectApp
from tabletop_server.rest.cursors import CURSORS, Cursor, Position
from tabletop_server.rest.dispatch import Dispatcher, RequestTracing, facade_channel
from tabletop_server.rest.errors import ApiError
from tabletop_server.rest.handlers import cache_control, error_reply, final_headers, metadata, route_regex
from tabletop_server.rest.routes import Route
from tabletop_server.rest.transcode import decode_request
from tabletop_server.rest.watch import Key, WatchCaps, Watches

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]
CHANNEL_OPTIONS = [("grpc.max_receive_message_length", 64 * 1024 * 1024)]


class AsgiApp:
    """``flask_app`` (from ``rest.app.create_app``) behind an ASGI front (see the module docstring)."""

    def __init__(self, flask_app: Any, workers: int, caps: WatchCaps, metrics: Any = None, in_flight: Any = None,
                 channel: Callable[[], Any] | None = None, tracing: RequestTracing | None = None) -> None:
        parts = flask_app.extensions["tabletop.rest"]
        self.parts = parts
        self.wsgi = WSGIMiddleware(flask_app, workers=workers)
        self.metrics, self.in_flight, self.tracing = metrics, in_flight, tracing
        self.watches = Watches(caps, self._refused, parts.heartbeat_seconds)
        self.refusals: dict[str, int] = {}
        self.channel: Any = None
        # () -> the facade's channel (rest.dispatch.facade_channel); default: grpc.aio to the app's target
        self.make_channel = channel or (lambda: facade_channel(
            lambda: grpc.aio.insecure_channel(parts.grpc_target, options=CHANNEL_OPTIONS)))
        self.unary = Dispatcher(parts.handlers, parts.method_path, metrics, in_flight, tracing)
        self._streams: list[tuple[re.Pattern[str], Route, Any, Cursor]] = []
        self.connect = ConnectApp(parts, self.watches, metrics, in_flight)

    async def start(self) -> None:
        """Open the facade's channel on the serving loop (call it there, before serving)."""
        self.channel = self.make_channel()
        self.unary.start(self.channel)
        self._streams = []
        for route in self.parts.stream_routes:
            rpc = self.channel.unary_stream(self.parts.method_path(route),
                                            request_serializer=route.request_class.SerializeToString,
                                            response_deserializer=route.response_class.FromString)
            self._streams.append((route_regex(route.openapi_path), route, rpc, CURSORS[route.name]))
        self.connect.start(self.channel)

    def end_watches(self) -> None:
        """End every watch stream (at shutdown: clients resume elsewhere with Last-Event-ID)."""
        self.watches.close_all()
        self.connect.end_watches()

    async def stop(self) -> None:
        """Close the channel (once the server has finished every request)."""
        if self.channel is not None:
            await self.channel.close(grace=None)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        send = _with_common_headers(send, self.parts.cors is not None and self.parts.cors.configured)
        if self.tracing is not None:
            await self.tracing(scope, receive, send, self._route)
        else:
            await self._route(scope, receive, send)

    async def _route(self, scope: Scope, receive: Receive, send: Send) -> None:
        method, path = scope["method"], scope["path"]
        if method == "POST" and path.startswith(CONNECT_PREFIX):
            await self.connect(scope, receive, send)
            return
        if method in ("GET", "HEAD"):
            for regex, route, rpc, cursor in self._streams:
                if (match := regex.fullmatch(path)) is not None:
                    await self._serve_watch(scope, receive, send, match.groupdict(), (route, rpc, cursor))
                    return
        if (matched := self.unary.match(method, path)) is not None:
            environ = _environ(scope)
            await self.unary.serve(scope, receive, send, environ, matched, self._cors(environ))
            return
        await self.wsgi(scope, receive, send)  # type: ignore[arg-type]

    async def _send_reply(self, send: Send, environ: dict[str, Any], reply: Any) -> None:
        headers = final_headers(environ, reply) + self._cors(environ)
        await send({"type": "http.response.start", "status": reply.status,
                    "headers": [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers]})
        await send({"type": "http.response.body", "body": reply.body})

    # Watch

    async def _serve_watch(self, scope: Scope, receive: Receive, send: Send, params: dict[str, str],
                           stream: tuple[Route, Any, Cursor]) -> None:
        route, rpc, cursor = stream
        started = time.perf_counter()
        environ = _environ(scope)
        parts = self.parts
        token = environ.get("HTTP_AUTHORIZATION", "")
        address = environ.get("REMOTE_ADDR", "")
        try:
            args = MultiDict(parse_qsl(environ.get("QUERY_STRING", ""), keep_blank_values=True))
            message = decode_request(route, params, args, b"", environ.get("CONTENT_TYPE"))
            last_event_id = environ.get("HTTP_LAST_EVENT_ID")
            if last_event_id:
                setattr(message, cursor.field, cursor.value(cursor.parse(last_event_id)))
            call_metadata = metadata(environ, parts.proxy_secret)
            if self.tracing is not None:
                call_metadata = self.tracing.inject(call_metadata)
            self.watches.admit(token, address)
        except ApiError as error:
            self._count(route.openapi_path, "GET", error.http_status, started)
            await self._send_reply(send, environ, error_reply(error))
            return
        try:
            await self._stream(scope, receive, send, environ, message, call_metadata, (route, rpc, cursor))
        finally:
            self.watches.release(token, address)

    async def _stream(self, scope: Scope, receive: Receive, send: Send, environ: dict[str, Any], message: Any,
                      call_metadata: list[tuple[str, str]], stream: tuple[Route, Any, Cursor]) -> None:
        route, rpc, cursor = stream
        parts = self.parts
        label = getattr(message, "name", "") or route.openapi_path
        key: Key | None = (f"{route.name} {label}", environ.get("HTTP_AUTHORIZATION", ""),
                           environ.get("HTTP_X_API_KEY", ""))
        try:
            after = cursor.requested(message)
        except ApiError:  # a position the service refuses in its own words: a call of its own, sent as it came
            after, key = None, None

        def open_call(position: Position) -> Any:
            request = type(message)()
            request.CopyFrom(message)
            if position is not None:
                setattr(request, cursor.field, cursor.value(position))
            return rpc(request, metadata=call_metadata)

        try:
            hub, watcher = await self.watches.subscribe(key, after, open_call, parts.watch_open_seconds, cursor)
        except ApiError as error:
            await self._send_reply(send, environ, error_reply(error))
            return
        try:
            headers = [("Content-Type", "text/event-stream"), ("Cache-Control", cache_control("GET", environ)),
                       ("Vary", "Authorization"), ("X-Accel-Buffering", "no"), *self._cors(environ)]
            request_id = environ.get("HTTP_X_REQUEST_ID")
            if request_id:
                headers.append(("X-Request-Id", request_id))
            await send({"type": "http.response.start", "status": 200,
                        "headers": [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers]})
            if scope["method"] == "HEAD":  # the stream's answer without its body: no event is pumped
                await send({"type": "http.response.body", "body": b""})
                return
            opening = _opening(label, cursor, after, watcher.start)
            await send({"type": "http.response.body", "body": opening, "more_body": True})
            await self._pump(receive, send, watcher)
            await send({"type": "http.response.body", "body": b""})
        finally:
            hub.leave(watcher)

    async def _pump(self, receive: Receive, send: Send, watcher: Any) -> None:
        """Events and heartbeats (``Watches.heartbeats``) until the stream ends or the client goes away."""
        gone = asyncio.ensure_future(_disconnected(receive))
        gone.add_done_callback(lambda _: watcher.gone())
        beats = self.watches.heartbeats
        beats.add(watcher)
        try:
            while (item := await watcher.queue.get()) is not None:
                await send({"type": "http.response.body", "body": item, "more_body": True})
        finally:
            beats.discard(watcher)
            gone.cancel()

    # Helpers

    def _cors(self, environ: dict[str, Any]) -> list[tuple[str, str]]:
        cors = self.parts.cors
        return cors.headers_for(environ.get("HTTP_ORIGIN", "")) if cors is not None else []

    def _count(self, route: str, method: str, status: int, started: float) -> None:
        if self.metrics is not None:
            self.metrics.http_requests.labels(route, method, str(status)).inc()
            self.metrics.http_seconds.labels(route).observe(time.perf_counter() - started)

    def _refused(self, reason: str) -> None:
        self.refusals[reason] = self.refusals.get(reason, 0) + 1
        if self.metrics is not None:
            self.metrics.http_refusals.labels(reason).inc()


def _with_common_headers(send: Send, vary_origin: bool) -> Send:
    """``send`` adding what every answer carries: ``X-Content-Type-Options: nosniff`` (no browser reads a
    JSON error or an event stream as HTML), and ``Vary: Origin`` when CORS is configured (the CORS headers
    differ by origin, so no cache may hand one origin's answer to another, the refusals included)."""
    async def sending(event: dict[str, Any]) -> None:
        if event["type"] == "http.response.start":
            headers = list(event.get("headers", []))
            if not any(name.lower() == b"x-content-type-options" for name, _ in headers):
                headers.append((b"x-content-type-options", b"nosniff"))
            if vary_origin:
                _add_vary_origin(headers)
            event = {**event, "headers": headers}
        await send(event)
    return sending


def _add_vary_origin(headers: list[tuple[bytes, bytes]]) -> None:
    varies = [i for i, (name, _) in enumerate(headers) if name.lower() == b"vary"]
    if any(b"origin" in headers[i][1].lower() or headers[i][1].strip() == b"*" for i in varies):
        return
    if varies:
        name, value = headers[varies[0]]
        headers[varies[0]] = (name, value + b", Origin")
    else:
        headers.append((b"vary", b"Origin"))


def _environ(scope: Scope) -> dict[str, Any]:
    """The WSGI environ keys ``UnaryHandler`` reads, from an ASGI scope."""
    environ: dict[str, Any] = {"REQUEST_METHOD": scope["method"], "PATH_INFO": scope["path"],
                               "QUERY_STRING": scope.get("query_string", b"").decode("latin-1")}
    client = scope.get("client")
    if client:
        environ["REMOTE_ADDR"] = client[0]
    for raw_name, raw_value in scope["headers"]:
        name = raw_name.decode("latin-1").upper().replace("-", "_")
        value = raw_value.decode("latin-1")
        if name in ("CONTENT_TYPE", "CONTENT_LENGTH"):
            environ[name] = value
        else:
            key = "HTTP_" + name
            environ[key] = f"{environ[key]},{value}" if key in environ else value
    return environ


def _opening(label: str, cursor: Cursor, asked: Position, start: Position) -> bytes:
    """The stream's first bytes: a comment saying what is watched, the reconnection delay and, for a
    watch from now on placed in its stream, that place as the ``id`` (an SSE ``id`` without data sets
    the client's Last-Event-ID and dispatches nothing), so reconnecting before any message loses none."""
    where = "from now on" if start is None else f"after {cursor.event_id(start)}"
    text = f": watching {label} {where}\nretry: 1000\n\n"
    if asked is None and start is not None:
        text += f"id: {cursor.event_id(start)}\n\n"
    return text.encode()


async def _disconnected(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass
