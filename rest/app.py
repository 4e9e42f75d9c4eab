"""The Flask REST facade: ``create_app(grpc_target)`` and a waitress ``serve`` helper.

A thin gRPC client (DESIGN 1 and 11). Its routes come from the contract
(``rest.routes``); each request is decoded once (``rest.transcode``), sent over the
app's one channel with the caller's ``authorization``, ``x-api-key`` and
``x-request-id`` as metadata and a deadline, and the response printed once. Rules,
authorization and errors live in the gRPC service; the facade maps its status codes
generically (``rest.errors``). The server-streaming WatchGame is served as
Server-Sent Events (``rest.sse``).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

import grpc
from flask import Flask, Response, request
from grpc_health.v1 import health_pb2, health_pb2_grpc
from waitress import wasyncore
from waitress.server import create_server
from werkzeug.exceptions import HTTPException
from werkzeug.routing import BaseConverter

from rest.cors import Cors
from rest.errors import HTTP_STATUS, ApiError, Reason, from_rpc_error, local_error
from rest.handlers import (
    FastPath,
    Reply,
    UnaryHandler,
    cache_control,
    error_reply,
    internal_error,
    log,
    metadata,
)
from rest.openapi import build_openapi
from rest.routes import ROUTES, SEGMENT_PATTERN, SERVICE, Route
from rest.sse import EventStream, WatchSlots
from rest.transcode import decode_request, parse_etag

JSON = "application/json"
# Logs of long games outgrow gRPC's default 4 MiB receive limit before anything else does.
CHANNEL_OPTIONS = [("grpc.max_receive_message_length", 64 * 1024 * 1024)]
OPENAPI_JSON = json.dumps(build_openapi(ROUTES), separators=(",", ":")).encode()


def create_app(
    grpc_target: str,
    *,
    max_body_bytes: int = 65536,
    deadline_seconds: float = 10.0,
    heartbeat_seconds: float = 15.0,
    watch_open_seconds: float = 1.0,
    health_service: str = "",
    channel: grpc.Channel | None = None,
    fast_path: bool = True,
    max_watch_streams: int | None = None,
    cors_origins: Iterable[str] = (),
    proxy_secret: str = "",
) -> Flask:
    """The REST app for the gRPC service at ``grpc_target`` (one channel, reused).

    ``fast_path`` serves the unary contract routes through ``rest.handlers.FastPath``
    ahead of Flask's routing; off, the same handlers run as ordinary Flask views.
    ``max_watch_streams`` caps open SSE streams (each holds a server thread); left None,
    ``serve`` sets it to half its threads. ``cors_origins`` lets browser frontends of
    those origins call the facade (``rest.cors``). ``proxy_secret`` (TABLETOP_PROXY_SECRET)
    goes with every call, so the service believes the client address the facade forwards.
    """
    app = Flask("tabletop.rest", static_folder=None)
    app.config["MAX_CONTENT_LENGTH"] = max_body_bytes
    channel = channel or grpc.insecure_channel(grpc_target, options=CHANNEL_OPTIONS)
    app.extensions["tabletop.channel"] = channel
    app.url_map.converters["segment"] = _SegmentConverter
    handlers = []
    slots = app.extensions["tabletop.watch_slots"] = WatchSlots(max_watch_streams)
    for route in ROUTES:
        rpc = _rpc(channel, route)
        if route.streaming:
            view = _watch_view(route, rpc, heartbeat_seconds, watch_open_seconds, slots, proxy_secret)
        else:
            handlers.append(UnaryHandler(route, rpc, deadline_seconds, max_body_bytes, proxy_secret))
            view = _unary_view(handlers[-1])
        app.add_url_rule(route.rule, endpoint=route.name, view_func=view, methods=[route.verb])
    _add_operational_routes(app, health_pb2_grpc.HealthStub(channel), health_service)
    _add_error_handlers(app)
    if fast_path:
        app.wsgi_app = FastPath(app.wsgi_app, handlers)  # type: ignore[method-assign]
    if cors_origins:
        app.wsgi_app = Cors(app.wsgi_app, cors_origins)  # type: ignore[method-assign]
    return app


class RestServer:
    """A waitress server running ``app`` in a background thread (for tests and tools)."""

    def __init__(self, app: Flask, host: str = "127.0.0.1", port: int = 0, threads: int = 32) -> None:
        self._server: Any = create_server(app, host=host, port=port, threads=threads, ident="tabletop")
        slots = app.extensions.get("tabletop.watch_slots") if isinstance(app, Flask) else None
        self._slots = slots if isinstance(slots, WatchSlots) else None
        self._thread = threading.Thread(target=self._server.run, name="rest-server", daemon=True)
        self._thread.start()

    @property
    def port(self) -> int:
        """The bound port (useful with port 0)."""
        return int(self._server.effective_port)

    @property
    def url(self) -> str:
        """``http://host:port``."""
        return f"http://{self._server.effective_host}:{self.port}"

    def close(self, grace: float = 5.0) -> None:
        """Drain, then stop: no new connections, watch streams ended (clients resume with
        Last-Event-ID), in-flight requests finished and written for up to ``grace`` seconds,
        then every connection closed and the worker threads stopped."""
        self._in_loop(lambda: wasyncore.dispatcher.close(self._server))  # the listener only
        if self._slots is not None:
            self._slots.close_all()
        dispatcher = self._server.task_dispatcher
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline and (dispatcher.active_count or dispatcher.queue or self._unsent()):
            time.sleep(0.02)
        self._in_loop(self._close_channels)  # the loop ends once its map is empty
        dispatcher.shutdown(timeout=2)
        self._thread.join(2)

    def _in_loop(self, work: Callable[[], None]) -> None:
        """Run ``work`` in the server's event-loop thread (waitress is not thread-safe)."""
        done = threading.Event()

        def run() -> None:
            try:
                work()
            finally:
                done.set()

        self._server.trigger.pull_trigger(run)
        done.wait(2)

    def _close_channels(self) -> None:
        trigger = self._server.trigger
        for channel in list(self._server._map.values()):
            if channel is not trigger:
                channel.close()
        trigger.close()  # last: this runs inside the trigger's own handler

    def _unsent(self) -> bool:
        return any(getattr(channel, "total_outbufs_len", 0) for channel in list(self._server._map.values()))


def serve(app: Flask, host: str, port: int, threads: int = 32) -> RestServer:
    """Serve ``app`` with waitress in a background thread; ``.close()`` stops it.

    Each SSE watch holds one of the ``threads`` for its life, so unless the app set its
    own cap, at most half of them may watch and the rest always serve the unary routes.
    """
    slots = app.extensions.get("tabletop.watch_slots")
    if isinstance(slots, WatchSlots) and slots.limit is None:
        slots.limit = max(1, threads // 2)
    return RestServer(app, host, port, threads)


# Helpers


class _SegmentConverter(BaseConverter):
    """One resource-id path segment: no "/" and no ":" (see ``rest.routes``)."""

    regex = SEGMENT_PATTERN


def _rpc(channel: grpc.Channel, route: Route) -> Any:
    """The route's multi-callable on ``channel``: the app's one stub, built once."""
    call: Any = channel.unary_stream if route.streaming else channel.unary_unary  # stubs lack the kwarg
    return call(
        f"/{SERVICE.full_name}/{route.name}",
        request_serializer=route.request_class.SerializeToString,
        response_deserializer=route.response_class.FromString,
        _registered_method=True,  # as generated stubs do: the method path is interned once
    )


def _add_error_handlers(app: Flask) -> None:
    """Every error Flask sees leaves in the JSON error shape, with X-Request-Id echoed."""
    app.register_error_handler(ApiError, _api_error_response)
    app.register_error_handler(grpc.RpcError, lambda e: _api_error_response(from_rpc_error(e)))
    app.register_error_handler(HTTPException, _http_error_response)
    app.register_error_handler(Exception, _unexpected_error_response)
    app.after_request(_echo_request_id)


def _unary_view(handler: UnaryHandler) -> Callable[..., Response]:
    def view(**path_params: str) -> Response:
        reply = handler(request.environ, path_params)
        return _response(reply)

    view.__name__ = handler.route.name
    return view


def _watch_view(
    route: Route, rpc: Any, heartbeat: float, open_wait: float, slots: WatchSlots, proxy_secret: str
) -> Callable[..., Response]:
    def view(**path_params: str) -> Response:
        message = decode_request(route, path_params, request.args, request.get_data(), request.content_type)
        last_event_id = request.headers.get("Last-Event-ID")
        if last_event_id:
            message.from_version = parse_etag(last_event_id)  # type: ignore[attr-defined]
        call_metadata = metadata(request.environ, proxy_secret)
        stream = EventStream(lambda: rpc(message, metadata=call_metadata), "version", heartbeat, slots)
        first = stream.first(open_wait)
        opening = (
            f"watching {getattr(message, 'name', '')} after version {getattr(message, 'from_version', 0)}"
        )
        headers = {"Cache-Control": cache_control("GET", request.environ), "Vary": "Authorization",
                   "X-Accel-Buffering": "no"}
        response = Response(stream.body(first, opening), 200, headers, content_type="text/event-stream")
        # The server closes the body even when it never iterates it (HEAD, an early disconnect);
        # an unstarted generator's ``finally`` would not run, so the stream is closed from here.
        response.call_on_close(stream.close)
        return response

    view.__name__ = route.name
    return view


def _add_operational_routes(app: Flask, health: Any, service: str) -> None:
    @app.get("/healthz")
    def healthz() -> Response:
        return Response(b'{"status":"ok"}', 200, content_type=JSON)

    @app.get("/readyz")
    def readyz() -> Response:
        try:
            reply = health.Check(health_pb2.HealthCheckRequest(service=service), timeout=1.0)
        except grpc.RpcError as error:
            if error.code() == grpc.StatusCode.DEADLINE_EXCEEDED:
                raise _not_ready("the gRPC health check timed out") from None
            raise from_rpc_error(error) from None
        status = health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)
        if reply.status != health_pb2.HealthCheckResponse.SERVING:
            raise _not_ready(f"the gRPC service is {status}")
        return Response(json.dumps({"status": status}).encode(), 200, content_type=JSON)

    @app.get("/openapi.json")
    def openapi() -> Response:
        return Response(OPENAPI_JSON, 200, content_type=JSON)


def _not_ready(message: str) -> ApiError:
    return local_error(503, grpc.StatusCode.UNAVAILABLE, Reason.NOT_SERVING, message)


def _echo_request_id(response: Response) -> Response:
    request_id = request.headers.get("X-Request-Id")
    if request_id:
        response.headers["X-Request-Id"] = request_id
    return response


def _response(reply: Reply) -> Response:
    return Response(reply.body, reply.status, reply.headers, content_type=reply.content_type)


def _api_error_response(error: ApiError) -> Response:
    return _response(error_reply(error))


def _unexpected_error_response(error: Exception) -> Response:
    if isinstance(error, HTTPException):
        return _http_error_response(error)
    log.exception("REST request failed", exc_info=error)
    return _api_error_response(internal_error())


def _http_error_response(error: HTTPException) -> Response:
    """Werkzeug's own errors (unknown route, wrong method, body too large) in the JSON shape."""
    status = error.code or 500
    code, reason = _HTTP_ERRORS.get(status, (_CODE_BY_HTTP.get(status, grpc.StatusCode.UNKNOWN), error.name))
    message = error.description or error.name
    if status == 413:
        message = f"the body is larger than the limit of {request.max_content_length} bytes"
    api_error = local_error(status, code, reason.upper().replace(" ", "_"), message)
    response = _api_error_response(api_error)
    if "Allow" in (allow := dict(error.get_headers())):
        response.headers["Allow"] = allow["Allow"]
    return response


_HTTP_ERRORS: dict[int, tuple[grpc.StatusCode, str]] = {
    404: (grpc.StatusCode.NOT_FOUND, Reason.ROUTE_NOT_FOUND),
    405: (grpc.StatusCode.UNIMPLEMENTED, Reason.METHOD_NOT_ALLOWED),
    413: (grpc.StatusCode.INVALID_ARGUMENT, Reason.BODY_TOO_LARGE),
    415: (grpc.StatusCode.INVALID_ARGUMENT, Reason.UNSUPPORTED_MEDIA_TYPE),
}
_CODE_BY_HTTP: dict[int, grpc.StatusCode] = {}
for _code, _status in HTTP_STATUS.items():
    _CODE_BY_HTTP.setdefault(_status, _code)
