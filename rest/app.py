"""The Flask REST facade: ``create_app(grpc_target)`` and ``serve`` (uvicorn, see ``rest.server``).

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
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any

import grpc
from flask import Flask, Response, request
from grpc_health.v1 import health_pb2, health_pb2_grpc
from werkzeug.exceptions import HTTPException
from werkzeug.routing import BaseConverter

from tabletop_server.rest.asgi import AsgiApp
from tabletop_server.rest.cors import Cors
from tabletop_server.rest.errors import HTTP_STATUS, ApiError, Reason, from_rpc_error, local_error
from tabletop_server.rest.handlers import (
    FastPath,
    Reply,
    UnaryHandler,
    cache_control,
    error_reply,
    internal_error,
    log,
    metadata,
)
from tabletop_server.rest.openapi import build_openapi
from tabletop_server.rest.routes import ROUTES, SEGMENT_PATTERN, SERVICE, Route
from tabletop_server.rest.server import HttpLimits, HttpServer, bind
from tabletop_server.rest.sse import EventStream, WatchSlots
from tabletop_server.rest.static import add_web_routes
from tabletop_server.rest.transcode import decode_request, parse_last_event_id
from tabletop_server.rest.watch import WatchCaps

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
    ahead of Flask's routing (and on the event loop under ``serve``); off, the same handlers
    run as ordinary Flask views. ``max_watch_streams`` caps open SSE streams of the server
    (None: ``serve``'s ``WatchCaps``). ``cors_origins`` lets browser frontends of
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
    add_web_routes(app)  # the reference web client at / and the API explorer at /docs
    _add_error_handlers(app)
    if fast_path:
        app.wsgi_app = FastPath(app.wsgi_app, handlers)  # type: ignore[method-assign]
    cors = Cors(app.wsgi_app, cors_origins)  # with no origins it only refuses preflights, clearly
    app.wsgi_app = cors  # type: ignore[method-assign]
    watch = next((route for route in ROUTES if route.streaming), None)
    app.extensions["tabletop.rest"] = RestParts(grpc_target, handlers, watch, heartbeat_seconds, watch_open_seconds,
                                                proxy_secret, fast_path, cors, max_watch_streams, max_body_bytes,
                                                deadline_seconds)
    return app


@dataclass
class RestParts:
    """What ``rest.asgi`` needs of an app ``create_app`` built (its own routes share the handlers)."""

    grpc_target: str
    handlers: list[UnaryHandler]
    watch_route: Route | None
    heartbeat_seconds: float
    watch_open_seconds: float
    proxy_secret: str
    fast_path: bool
    cors: Cors | None
    max_watch_streams: int | None
    max_body_bytes: int = 65536
    deadline_seconds: float = 10.0

    @staticmethod
    def method_path(route: Route) -> str:
        return f"/{SERVICE.full_name}/{route.name}"


def serve(app: Flask, host: str, port: int, threads: int = 16, *, limits: HttpLimits | None = None,
          caps: WatchCaps | None = None, metrics: Any = None, in_flight: Any = None, async_unary: bool = True,
          loop: Any = None, forwarded_allow_ips: str = "", aio_channel: Any = None) -> HttpServer:
    """Serve ``app`` (from ``create_app``) over HTTP on ``host:port``; ``.close()`` drains and stops.

    One uvicorn server on ``loop`` (a private loop thread when None) runs the ASGI front of
    ``rest.asgi``: the unary routes and ``:watch`` on the loop, the rest of Flask on a pool of
    ``threads``. Raises ``PortBusy`` (one line) when the port is taken. ``aio_channel`` makes the
    ``grpc.aio`` channel of the loop's routes (default: plaintext to the app's gRPC target).
    """
    caps = caps or WatchCaps()
    parts = app.extensions["tabletop.rest"]
    if parts.max_watch_streams is not None:
        caps = replace(caps, total=parts.max_watch_streams)
    async_unary = async_unary and not app.extensions.get("tabletop.traced")  # tracing wraps the WSGI app
    if metrics is None and "tabletop.metrics" in app.extensions:  # service.api.rest_metrics.instrument_rest
        metrics, in_flight = app.extensions["tabletop.metrics"]
    front = AsgiApp(app, threads, caps, metrics, in_flight, async_unary, aio_channel)
    if metrics is not None and hasattr(metrics, "http_connections"):
        # Connect watches are admitted under the same caps (rest.connect) but counted apart.
        metrics.watches.labels("sse").set_function(lambda: front.watches.open - front.connect.open)
        metrics.watches.labels("connect").set_function(lambda: front.connect.open)
    sock = bind(host, port)
    server = HttpServer(front, sock, limits or HttpLimits(), loop, front._refused, forwarded_allow_ips)
    if metrics is not None and hasattr(metrics, "http_connections"):
        metrics.http_connections.set_function(lambda: server.connections)
    return server


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
            message.from_version = parse_last_event_id(last_event_id)  # type: ignore[attr-defined]
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
