"""The Flask REST facade: ``create_app(grpc_target)`` and ``serve`` (uvicorn, see ``rest.server``).

A thin gRPC client (DESIGN 1 and 11). Its routes come from the contract
(``rest.routes``) and live in the Flask app's URL map; ``serve`` puts the app behind
``rest.asgi.AsgiApp``, where each unary call takes the one request path of
``rest.dispatch`` (decoded once by ``rest.transcode``, sent on the facade's one channel
with the caller's ``authorization``, ``x-api-key`` and ``x-request-id`` as metadata and a
deadline, printed once) and every streaming route (WatchGame, WatchPlayer) is served as
Server-Sent Events by ``rest.watch``.
Rules, authorization and errors live in the gRPC service; the facade maps its status
codes generically (``rest.errors``).
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
from tabletop_server.rest.cursors import CURSORS
from tabletop_server.rest.dispatch import RequestTracing
from tabletop_server.rest.errors import HTTP_STATUS, ApiError, Reason, from_rpc_error, local_error
from tabletop_server.rest.handlers import Reply, UnaryHandler, error_reply, internal_error, log
from tabletop_server.rest.openapi import build_openapi
from tabletop_server.rest.routes import INNER_SEGMENT_PATTERN, ROUTES, SEGMENT_PATTERN, SERVICE, Route
from tabletop_server.rest.server import HttpLimits, HttpServer, bind
from tabletop_server.rest.static import add_web_routes
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
    max_watch_streams: int | None = None,
    cors_origins: Iterable[str] = (),
    proxy_secret: str = "",
) -> Flask:
    """The REST app for the gRPC service at ``grpc_target``, to be served by ``serve``.

    The app holds the routes and the operational endpoints; the calls of the service are
    made by ``serve``'s ASGI front on its channel (``rest.dispatch``). ``channel`` is the
    blocking channel of ``/readyz``'s health check. ``max_watch_streams`` caps open SSE
    streams of the server (None: ``serve``'s ``WatchCaps``). ``cors_origins`` lets browser
    frontends of those origins call the facade (``rest.cors``). ``proxy_secret``
    (TABLETOP_PROXY_SECRET) goes with every call, so the service believes the client
    address the facade forwards.
    """
    app = Flask("tabletop.rest", static_folder=None)
    app.config["MAX_CONTENT_LENGTH"] = max_body_bytes
    channel = channel or grpc.insecure_channel(grpc_target, options=CHANNEL_OPTIONS)
    app.extensions["tabletop.channel"] = channel
    app.url_map.converters["segment"] = _SegmentConverter
    app.url_map.converters["inner"] = _InnerSegmentConverter
    handlers = []
    streams = [route for route in ROUTES if route.streaming]
    unplaced = [route.name for route in streams if route.name not in CURSORS]
    if unplaced:  # a stream rest.watch cannot resume would go unserved: say so at once
        raise RuntimeError(f"no rest.cursors.Cursor for the streaming method(s) {', '.join(unplaced)}")
    for route in ROUTES:
        if not route.streaming:
            handlers.append(UnaryHandler(route, deadline_seconds, max_body_bytes, proxy_secret))
        # In the URL map for 404/405/Allow and OPTIONS; the requests themselves are the ASGI front's.
        app.add_url_rule(route.rule, endpoint=route.name, view_func=_dispatched, methods=[route.verb])
    _add_operational_routes(app, health_pb2_grpc.HealthStub(channel), health_service)
    add_web_routes(app)  # the reference web client at / and the API explorer at /docs
    _add_error_handlers(app)
    cors = Cors(app.wsgi_app, cors_origins)  # with no origins it only refuses preflights, clearly
    app.wsgi_app = cors  # type: ignore[method-assign]
    app.extensions["tabletop.rest"] = RestParts(grpc_target, handlers, streams, heartbeat_seconds, watch_open_seconds,
                                                proxy_secret, cors, max_watch_streams, max_body_bytes,
                                                deadline_seconds)
    return app


@dataclass
class RestParts:
    """What ``rest.asgi`` needs of an app ``create_app`` built (its own routes share the handlers)."""

    grpc_target: str
    handlers: list[UnaryHandler]
    stream_routes: list[Route]  # every streaming route, served as SSE (rest.watch, rest.cursors)
    heartbeat_seconds: float
    watch_open_seconds: float
    proxy_secret: str
    cors: Cors | None
    max_watch_streams: int | None
    max_body_bytes: int = 65536
    deadline_seconds: float = 10.0

    @staticmethod
    def method_path(route: Route) -> str:
        return f"/{SERVICE.full_name}/{route.name}"


def serve(app: Flask, host: str, port: int, threads: int = 16, *, limits: HttpLimits | None = None,
          caps: WatchCaps | None = None, metrics: Any = None, in_flight: Any = None, loop: Any = None,
          forwarded_allow_ips: str = "", channel: Callable[[], Any] | None = None,
          tracing: RequestTracing | None = None, reuse_port: bool = False) -> HttpServer:
    """Serve ``app`` (from ``create_app``) over HTTP on ``host:port``; ``.close()`` drains and stops.

    One uvicorn server on ``loop`` (a private loop thread when None) runs the ASGI front of
    ``rest.asgi``: the unary routes and the streams on the loop, the rest of Flask on a pool of
    ``threads``. Raises ``PortBusy`` (one line) when the port is taken. ``channel`` makes the
    facade's channel on the loop (``rest.dispatch.facade_channel``; default: ``grpc.aio``,
    plaintext, to the app's gRPC target). ``tracing`` traces every request at the HTTP layer.
    ``reuse_port`` shares the port with the other workers of ``tabletop serve --workers`` (SO_REUSEPORT).
    """
    caps = caps or WatchCaps()
    parts = app.extensions["tabletop.rest"]
    if parts.max_watch_streams is not None:
        caps = replace(caps, total=parts.max_watch_streams)
    if metrics is None and "tabletop.metrics" in app.extensions:  # service.api.rest_metrics.instrument_rest
        metrics, in_flight = app.extensions["tabletop.metrics"]
    front = AsgiApp(app, threads, caps, metrics, in_flight, channel, tracing)
    if metrics is not None and hasattr(metrics, "http_connections"):
        # Connect watches are admitted under the same caps (rest.connect) but counted apart.
        metrics.watches.labels("sse").set_function(lambda: front.watches.open - front.connect.open)
        metrics.watches.labels("connect").set_function(lambda: front.connect.open)
    sock = bind(host, port, reuse_port=reuse_port)
    server = HttpServer(front, sock, limits or HttpLimits(), loop, front._refused, forwarded_allow_ips)
    if metrics is not None and hasattr(metrics, "http_connections"):
        metrics.http_connections.set_function(lambda: server.connections)
    return server


# Helpers


class _SegmentConverter(BaseConverter):
    """One resource-id path segment: no "/" and no ":" (see ``rest.routes``)."""

    regex = SEGMENT_PATTERN


class _InnerSegmentConverter(BaseConverter):
    """A segment more of the path follows: ":" allowed, as no verb can come there (see ``rest.routes``)."""

    regex = INNER_SEGMENT_PATTERN


def _add_error_handlers(app: Flask) -> None:
    """Every error Flask sees leaves in the JSON error shape, with X-Request-Id echoed."""
    app.register_error_handler(ApiError, _api_error_response)
    app.register_error_handler(grpc.RpcError, lambda e: _api_error_response(from_rpc_error(e)))
    app.register_error_handler(HTTPException, _http_error_response)
    app.register_error_handler(Exception, _unexpected_error_response)
    app.after_request(_echo_request_id)


def _dispatched(**_path_params: str) -> Response:
    """A contract route reached through Flask: only when the app is served without ``serve``'s ASGI
    front (which answers every method of these routes itself), so say so instead of calling nothing."""
    log.error("a contract route reached Flask: serve the app with rest.app.serve (its ASGI front answers them)")
    raise local_error(500, grpc.StatusCode.INTERNAL, Reason.INTERNAL,
                      "This server is misconfigured: the contract routes are answered by rest.app.serve's front.")


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
