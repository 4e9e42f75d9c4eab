"""The REST facade as one ASGI app: hot routes and ``:watch`` on the event loop, Flask beside them.

Flask stays the REST framework (DESIGN 11): every route it serves (errors, CORS
preflight, ``/readyz``, ``/openapi.json``, unmatched paths) runs in a bounded thread
pool through ``a2wsgi``. Two kinds of request never take a thread:

- the unary contract routes (``:act``, GetGame, ...): the same ``UnaryHandler`` decodes
  and prints them, but the call is awaited on ``grpc.aio``, so a request costs no
  thread hop and no blocking channel (``bench/run.py`` measures the difference);
- ``:watch``, served by ``rest.watch`` as a coroutine per watcher.

Those routes are counted into the same metrics as the WSGI ones (``instrument_rest``)
and into its in-flight count, so the SIGTERM drain waits for them too. When tracing is
on, or the app was built without its fast path, the unary routes go through Flask as
before (tracing instruments the WSGI app and its blocking channel). POSTs under
``/tabletop.v1.GameService/`` go to ``rest.connect`` (Connect and gRPC-Web, issue 13) on the
same loop and channel.
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

from tabletop_server.rest.aio import rpc_error
from tabletop_server.rest.connect import PREFIX as CONNECT_PREFIX
from tabletop_server.rest.connect import ConnectApp
from tabletop_server.rest.errors import ApiError, from_rpc_error
from tabletop_server.rest.handlers import (
    Reply,
    UnaryHandler,
    _regex,
    cache_control,
    error_reply,
    final_headers,
    internal_error,
    log,
    metadata,
    read_body,
    too_large,
)
from tabletop_server.rest.routes import Route
from tabletop_server.rest.transcode import decode_request, parse_last_event_id
from tabletop_server.rest.watch import Key, WatchCaps, Watches

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]
CHANNEL_OPTIONS = [("grpc.max_receive_message_length", 64 * 1024 * 1024)]


class AsgiApp:
    """``flask_app`` (from ``rest.app.create_app``) behind an ASGI front (see the module docstring)."""

    def __init__(self, flask_app: Any, workers: int, caps: WatchCaps, metrics: Any = None, in_flight: Any = None,
                 async_unary: bool = True, aio_channel: Any = None) -> None:
        parts = flask_app.extensions["tabletop.rest"]
        self.parts = parts
        self.wsgi = WSGIMiddleware(flask_app, workers=workers)
        self.metrics, self.in_flight = metrics, in_flight
        self.watches = Watches(caps, self._refused)
        self.refusals: dict[str, int] = {}
        self.channel: Any = None
        self.aio_channel = aio_channel  # () -> grpc.aio.Channel (TLS to the target: service.api.tls)
        self.async_unary = async_unary and parts.fast_path
        self._unary: list[tuple[str, re.Pattern[str], UnaryHandler, Any]] = []
        self._watch: tuple[re.Pattern[str], Route, Any] | None = None
        self.connect = ConnectApp(parts, self.watches, metrics, in_flight)

    async def start(self) -> None:
        """Open the ``grpc.aio`` channel on the serving loop (call it there, before serving)."""
        self.channel = (self.aio_channel() if self.aio_channel is not None
                        else grpc.aio.insecure_channel(self.parts.grpc_target, options=CHANNEL_OPTIONS))
        for handler in self.parts.handlers:
            rpc = self.channel.unary_unary(self.parts.method_path(handler.route),
                                           request_serializer=handler.route.request_class.SerializeToString,
                                           response_deserializer=handler.route.response_class.FromString)
            self._unary.append((handler.route.verb, _regex(handler.route.openapi_path), handler, rpc))
        route = self.parts.watch_route
        if route is not None:
            rpc = self.channel.unary_stream(self.parts.method_path(route),
                                            request_serializer=route.request_class.SerializeToString,
                                            response_deserializer=route.response_class.FromString)
            self._watch = (_regex(route.openapi_path), route, rpc)
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
        method, path = scope["method"], scope["path"]
        if method == "POST" and path.startswith(CONNECT_PREFIX):
            await self.connect(scope, receive, send)
            return
        if self._watch is not None and method == "GET" and self._watch[0].fullmatch(path):
            match = self._watch[0].fullmatch(path)
            assert match is not None
            await self._serve_watch(scope, receive, send, match.groupdict())
            return
        if self.async_unary:
            for verb, regex, handler, rpc in self._unary:
                if verb == method and (match := regex.fullmatch(path)) is not None:
                    await self._serve_unary(scope, receive, send, handler, rpc, match.groupdict())
                    return
        await self.wsgi(scope, receive, send)  # type: ignore[arg-type]

    # Unary routes

    async def _serve_unary(self, scope: Scope, receive: Receive, send: Send, handler: UnaryHandler, rpc: Any,
                           params: dict[str, str]) -> None:
        started = time.perf_counter()
        environ = _environ(scope)
        in_flight = self.in_flight
        if in_flight is not None:
            in_flight.__enter__()
        reply = Reply(500)
        try:
            try:
                body = await _read_body(receive, environ, handler.max_body_bytes)
                message, call_metadata = handler.prepare(environ, params, body)
                try:
                    response = await rpc(message, timeout=handler.deadline, metadata=call_metadata)
                except grpc.RpcError as error:
                    raise from_rpc_error(rpc_error(error)) from None
                reply = handler.finish(environ, response)
            except ApiError as error:
                reply = error_reply(error)
            except Exception:  # noqa: BLE001 - logged, answered with a 500
                log.exception("REST request failed: %s %s", scope["method"], scope["path"])
                reply = error_reply(internal_error())
            await self._send_reply(send, environ, reply)
        finally:
            if in_flight is not None:
                in_flight.__exit__()
            self._count(handler.route.openapi_path, scope["method"], reply.status, started)

    async def _send_reply(self, send: Send, environ: dict[str, Any], reply: Reply) -> None:
        headers = final_headers(environ, reply) + self._cors(environ)
        await send({"type": "http.response.start", "status": reply.status,
                    "headers": [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers]})
        await send({"type": "http.response.body", "body": reply.body})

    # Watch

    async def _serve_watch(self, scope: Scope, receive: Receive, send: Send, params: dict[str, str]) -> None:
        assert self._watch is not None
        _, route, rpc = self._watch
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
                message.from_version = parse_last_event_id(last_event_id)  # type: ignore[attr-defined]
            call_metadata = metadata(environ, parts.proxy_secret)
            self.watches.admit(token, address)
        except ApiError as error:
            self._count(route.openapi_path, "GET", error.http_status, started)
            await self._send_reply(send, environ, error_reply(error))
            return
        try:
            await self._stream(scope, receive, send, environ, message, call_metadata, rpc)
        finally:
            self.watches.release(token, address)

    async def _stream(self, scope: Scope, receive: Receive, send: Send, environ: dict[str, Any], message: Any,
                      call_metadata: list[tuple[str, str]], rpc: Any) -> None:
        parts = self.parts
        after = int(getattr(message, "from_version", 0))
        key: Key = (getattr(message, "name", ""), environ.get("HTTP_AUTHORIZATION", ""),
                    environ.get("HTTP_X_API_KEY", ""))

        def open_call(from_version: int) -> Any:
            request = type(message)()
            request.CopyFrom(message)
            request.from_version = from_version
            return rpc(request, metadata=call_metadata)

        try:
            hub, watcher = await self.watches.subscribe(key, after, open_call, parts.watch_open_seconds)
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
            opening = f": watching {key[0]} after version {after}\nretry: 1000\n\n".encode()
            await send({"type": "http.response.body", "body": opening, "more_body": True})
            await self._pump(receive, send, watcher)
            await send({"type": "http.response.body", "body": b""})
        finally:
            hub.leave(watcher)

    async def _pump(self, receive: Receive, send: Send, watcher: Any) -> None:
        """Events and heartbeats until the stream ends or the client goes away."""
        gone = asyncio.ensure_future(_disconnected(receive))
        heartbeat = self.parts.heartbeat_seconds
        try:
            while True:
                getting = asyncio.ensure_future(watcher.queue.get())
                done, _ = await asyncio.wait({getting, gone}, timeout=heartbeat,
                                             return_when=asyncio.FIRST_COMPLETED)
                if gone in done:
                    getting.cancel()
                    return
                if getting not in done:
                    getting.cancel()
                    await send({"type": "http.response.body", "body": b": heartbeat\n\n", "more_body": True})
                    continue
                item = getting.result()
                if item is None:
                    return
                await send({"type": "http.response.body", "body": item, "more_body": True})
        finally:
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


async def _read_body(receive: Receive, environ: dict[str, Any], limit: int) -> bytes:
    """The request body, refusing more than ``limit`` bytes with a 413 (as ``handlers.read_body``)."""
    length = environ.get("CONTENT_LENGTH")
    if length:
        try:
            if int(length) > limit:
                raise too_large(limit)
        except ValueError:
            read_body(environ, limit)  # raises its 400
    chunks, size = [], 0
    while True:
        event = await receive()
        if event["type"] != "http.request":
            break
        chunk = event.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise too_large(limit)
        chunks.append(chunk)
        if not event.get("more_body"):
            break
    return b"".join(chunks)


async def _disconnected(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass
