"""The one request path of a unary REST call, from HTTP to the service's handler (issue 25).

Every unary contract route (``rest.routes.ROUTES``: every non-streaming method of
``GameService`` with an http rule, so a new RPC is served with no code here) is answered
by ``Dispatcher.serve``, a coroutine on the HTTP server's event loop: read the body
(bounded), decode it and bind the headers (``UnaryHandler.prepare``), await the call on
the facade's one ``grpc.aio``-shaped channel, print the reply (``UnaryHandler.finish``)
and send it. What differs between the two deployment shapes is only that channel, and it
is chosen in one place, ``facade_channel``:

- ``tabletop serve``: a ``rest.local.LocalChannel``, which runs the service's own wrapped
  handlers in process on the same loop (no loopback gRPC call);
- ``tabletop rest`` (the facade as its own Deployment): ``grpc.aio`` to the service.

``HEAD`` on a GET route is the GET without its body. Each call is counted into the
facade's metrics and its in-flight count (the SIGTERM drain waits for it), and carries the
caller's trace (``RequestTracing.inject``) when tracing is on.
"""

from __future__ import annotations

import re
import time
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

import grpc

from tabletop_server.rest.aio import rpc_error
from tabletop_server.rest.errors import ApiError, Reason, from_rpc_error, local_error
from tabletop_server.rest.handlers import (
    Reply,
    UnaryHandler,
    error_reply,
    final_headers,
    internal_error,
    log,
    route_regex,
    too_large,
)
from tabletop_server.rest.local import LocalChannel

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]
Metadata = list[tuple[str, str]]


class RequestTracing(Protocol):
    """Tracing of the HTTP layer (``service.api.tracing.AsgiTracing``): a span around each request,
    and the trace forwarded as ``traceparent`` metadata on the call the request makes."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send,
                       app: Callable[[Scope, Receive, Send], Awaitable[None]]) -> None: ...

    def inject(self, metadata: Metadata) -> Metadata: ...


def facade_channel(remote: Callable[[], Any], local_handlers: dict[str, Any] | None = None) -> Any:
    """The facade's channel, the one choice between the deployment shapes: the service's handlers in
    process when they run here (``tabletop serve``: ``local_handlers``, "/pkg.Service/Method" to the
    wrapped handler), else ``remote()`` (a ``grpc.aio`` channel to the service). Streams and methods
    without a local handler go to ``remote()`` in both shapes."""
    channel = remote()
    return LocalChannel(local_handlers, channel) if local_handlers else channel


class Dispatcher:
    """The unary contract routes on one channel (see the module docstring)."""

    def __init__(self, handlers: list[UnaryHandler], method_path: Callable[[Any], str], metrics: Any = None,
                 in_flight: Any = None, tracing: RequestTracing | None = None) -> None:
        self.handlers = handlers
        self.method_path = method_path
        self.metrics, self.in_flight, self.tracing = metrics, in_flight, tracing
        self.routes: list[tuple[str, re.Pattern[str], UnaryHandler, Any]] = []

    def start(self, channel: Any) -> None:
        """One multi-callable per route on ``channel`` (call it on the serving loop, before serving)."""
        self.routes = []
        for handler in self.handlers:
            route = handler.route
            rpc = channel.unary_unary(self.method_path(route), request_serializer=route.request_class.SerializeToString,
                                      response_deserializer=route.response_class.FromString)
            self.routes.append((route.verb, route_regex(route.openapi_path), handler, rpc))

    def match(self, method: str, path: str) -> tuple[UnaryHandler, Any, dict[str, str]] | None:
        """The route ``method path`` calls, with its path variables; None when no unary route does."""
        verb = "GET" if method == "HEAD" else method
        for route_verb, regex, handler, rpc in self.routes:
            if route_verb == verb and (found := regex.fullmatch(path)) is not None:
                return handler, rpc, found.groupdict()
        return None

    async def serve(self, scope: Scope, receive: Receive, send: Send, environ: dict[str, Any],
                    matched: tuple[UnaryHandler, Any, dict[str, str]], extra_headers: list[tuple[str, str]]) -> None:
        """Answer one request of a matched route (errors included, in the JSON error shape)."""
        handler, rpc, params = matched
        started = time.perf_counter()
        in_flight = self.in_flight
        if in_flight is not None:
            in_flight.__enter__()
        reply = Reply(500)
        try:
            try:
                reply = await self._call(receive, environ, handler, rpc, params)
            except ApiError as error:
                reply = error_reply(error)
            except Exception:  # noqa: BLE001 - logged, answered with a 500
                log.exception("REST request failed: %s %s", scope["method"], scope["path"])
                reply = error_reply(internal_error())
            headers = final_headers(environ, reply) + extra_headers
            await send({"type": "http.response.start", "status": reply.status,
                        "headers": [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers]})
            await send({"type": "http.response.body", "body": b"" if scope["method"] == "HEAD" else reply.body})
        finally:
            if in_flight is not None:
                in_flight.__exit__()
            if self.metrics is not None:
                self.metrics.http_requests.labels(handler.route.openapi_path, scope["method"], str(reply.status)).inc()
                self.metrics.http_seconds.labels(handler.route.openapi_path).observe(time.perf_counter() - started)

    async def _call(self, receive: Receive, environ: dict[str, Any], handler: UnaryHandler, rpc: Any,
                    params: dict[str, str]) -> Reply:
        body = await read_body(receive, environ, handler.max_body_bytes)
        message, call_metadata = handler.prepare(environ, params, body)
        if self.tracing is not None:
            call_metadata = self.tracing.inject(call_metadata)
        try:
            response = await rpc(message, timeout=handler.deadline, metadata=call_metadata)
        except grpc.RpcError as error:
            raise from_rpc_error(rpc_error(error)) from None
        return handler.finish(environ, response)


async def read_body(receive: Receive, environ: dict[str, Any], limit: int) -> bytes:
    """The request body, refusing more than ``limit`` bytes with a 413 (declared or received)."""
    length = environ.get("CONTENT_LENGTH")
    if length:
        try:
            declared = int(length)
        except ValueError:
            raise local_error(400, grpc.StatusCode.INVALID_ARGUMENT, Reason.INVALID_HEADER,
                              "Content-Length is not a number") from None
        if declared > limit:
            raise too_large(limit)
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
