"""OpenTelemetry tracing: off by default, on through the standard ``OTEL_*`` variables.

One trace runs from the REST request through gRPC to Redis: the REST facade starts a
server span per HTTP request at its ASGI layer (``AsgiTracing``) and puts a W3C
``traceparent`` into the metadata of the call the request makes (``AsgiTracing.inject``;
``traced_channel`` for the blocking channel of ``/readyz``); the gRPC service
continues that trace (``server_span``) and every Redis round trip is a child span
(``redis_span``). Game id and request id are span attributes. Everything here is a
no-op when tracing is off or OpenTelemetry is not installed, so the hot path pays
one ``is None`` check.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any, NamedTuple

import grpc

log = logging.getLogger("tabletop.tracing")
GAME_IN_PATH = re.compile(r"/games/([^/:]+)")
_TRACER: Any = None  # set once by setup_from_env


def enabled(env: Mapping[str, str]) -> bool:
    """Tracing is on when an OTLP endpoint or a traces exporter other than ``none`` is named."""
    exporter = env.get("OTEL_TRACES_EXPORTER", "").strip().lower()
    if exporter == "none" or env.get("OTEL_SDK_DISABLED", "").lower() == "true":
        return False
    return bool(exporter or env.get("OTEL_EXPORTER_OTLP_ENDPOINT") or env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"))


def setup_from_env(service_name: str, env: Mapping[str, str] | None = None) -> Any:
    """The process's tracer when the ``OTEL_*`` variables turn tracing on, else None (idempotent)."""
    global _TRACER
    env = os.environ if env is None else env
    if _TRACER is not None or not enabled(env):
        return _TRACER
    try:
        from opentelemetry import trace
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
    except ImportError:
        log.warning("OTEL_* variables are set but opentelemetry-sdk is not installed: tracing stays off")
        return None
    provider = TracerProvider(resource=Resource.create({"service.name": env.get("OTEL_SERVICE_NAME", service_name)}))
    for name in (env.get("OTEL_TRACES_EXPORTER") or "otlp").split(","):
        provider.add_span_processor(BatchSpanProcessor(_exporter(name.strip().lower(), env)))
    trace.set_tracer_provider(provider)
    _TRACER = trace.get_tracer("tabletop")
    log.info("tracing on: exporter %s", env.get("OTEL_TRACES_EXPORTER") or "otlp")
    return _TRACER


def current_tracer() -> Any:
    """The tracer ``setup_from_env`` made, or None when tracing is off."""
    return _TRACER


@contextlib.contextmanager
def server_span(tracer: Any, method: str, context: Any, call: Any,
                activate: bool = True) -> Iterator[Any]:
    """A SERVER span for one gRPC call, continuing the caller's ``traceparent``."""
    if tracer is None:
        yield None
        return
    from opentelemetry import trace
    from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

    parent = TraceContextTextMapPropagator().extract(dict(context.invocation_metadata() or ()))
    attributes = {"rpc.system": "grpc", "rpc.service": "tabletop.v1.GameService", "rpc.method": method,
                  "tabletop.request_id": call.request_id}
    span = tracer.start_span(f"tabletop.v1.GameService/{method}", context=parent, kind=trace.SpanKind.SERVER,
                             attributes=attributes)
    try:
        with trace.use_span(span, end_on_exit=False) if activate else contextlib.nullcontext():
            yield span
    except BaseException as exc:
        span.record_exception(exc)
        span.set_status(trace.Status(trace.StatusCode.ERROR, type(exc).__name__))
        raise
    finally:
        for key, value in (("tabletop.game_id", call.game), ("tabletop.seat", call.seat),
                           ("tabletop.version", call.version), ("tabletop.ruleset", call.ruleset)):
            if value is not None:
                span.set_attribute(key, value)
        span.end()


def activate(span: Any) -> Any:
    """Make ``span`` current for a block (a no-op for None)."""
    if span is None:
        return contextlib.nullcontext()
    from opentelemetry import trace
    return trace.use_span(span, end_on_exit=False)


@contextlib.contextmanager
def redis_span(tracer: Any, op: str, game_id: str | None) -> Iterator[None]:
    """A CLIENT span for one Redis round trip, child of the current span."""
    if tracer is None:
        yield
        return
    from opentelemetry import trace
    attributes: dict[str, str] = {"db.system": "redis", "db.operation": op}
    if game_id:
        attributes["tabletop.game_id"] = game_id
    with tracer.start_as_current_span(f"redis {op}", kind=trace.SpanKind.CLIENT, attributes=attributes):
        yield


def annotate(**attributes: Any) -> None:
    """Add ``tabletop.*`` attributes to the current span, if one is recording."""
    if not _otel_loaded():
        return
    from opentelemetry import trace
    span = trace.get_current_span()
    if span.is_recording():
        for key, value in attributes.items():
            if value is not None:
                span.set_attribute(f"tabletop.{key}", value)


def inject(metadata: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """``metadata`` plus the current trace's ``traceparent`` (unchanged when there is none)."""
    if not _otel_loaded():
        return metadata
    from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator
    carrier: dict[str, str] = {}
    TraceContextTextMapPropagator().inject(carrier)
    return [*[(k, v) for k, v in metadata if k not in carrier], *carrier.items()]


def traced_channel(channel: grpc.Channel, tracer: Any) -> grpc.Channel:
    """``channel`` that forwards the current trace as ``traceparent`` metadata (as is when off)."""
    return channel if tracer is None else grpc.intercept_channel(channel, _TraceParentInterceptor())


class AsgiTracing:
    """A SERVER span per REST request, continuing an incoming ``traceparent`` (``rest.dispatch.RequestTracing``).

    ``rest.asgi.AsgiApp`` runs every request inside ``__call__``, whichever part answers it
    (the unary dispatcher, ``:watch``, Connect, or Flask in its thread pool), so all are traced
    alike; the dispatcher forwards the span as the parent of its call (``inject``), in process
    or over gRPC. ``for_tracer`` gives None when tracing is off, so an untraced facade pays one
    ``is None`` check per request.
    """

    def __init__(self, tracer: Any) -> None:
        from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator
        self.tracer = tracer
        self.propagator = TraceContextTextMapPropagator()

    @classmethod
    def for_tracer(cls, tracer: Any) -> AsgiTracing | None:
        return None if tracer is None else cls(tracer)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any, app: Any) -> None:
        from opentelemetry import context as otel_context
        from opentelemetry import trace
        headers = {name.decode("latin-1").lower(): value.decode("latin-1") for name, value in scope["headers"]}
        method, path = scope["method"], scope["path"]
        carrier = {"traceparent": headers.get("traceparent", ""), "tracestate": headers.get("tracestate", "")}
        attributes: dict[str, Any] = {"http.request.method": method, "url.path": path}
        if headers.get("x-request-id"):
            attributes["tabletop.request_id"] = headers["x-request-id"]
        if (game := GAME_IN_PATH.search(path)) is not None:
            attributes["tabletop.game_id"] = game.group(1)
        span = self.tracer.start_span(f"{method} {route_template(path)}", context=self.propagator.extract(carrier),
                                      kind=trace.SpanKind.SERVER, attributes=attributes)

        async def recording_send(event: dict[str, Any]) -> None:
            if event["type"] == "http.response.start":
                span.set_attribute("http.response.status_code", int(event["status"]))
            await send(event)

        token = otel_context.attach(trace.set_span_in_context(span))
        try:
            await app(scope, receive, recording_send)
        finally:
            otel_context.detach(token)
            span.end()

    @staticmethod
    def inject(metadata: list[tuple[str, str]]) -> list[tuple[str, str]]:
        return inject(metadata)


def route_template(path: str) -> str:
    """A REST path with its game id replaced by ``{game}`` (a low-cardinality name)."""
    return GAME_IN_PATH.sub("/games/{game}", path)


# Helpers

class _Details(NamedTuple):
    method: str
    timeout: float | None
    metadata: Any
    credentials: Any
    wait_for_ready: Any
    compression: Any


class _CallDetails(_Details, grpc.ClientCallDetails):
    """A ``grpc.ClientCallDetails`` with new metadata."""


class _TraceParentInterceptor(grpc.UnaryUnaryClientInterceptor, grpc.UnaryStreamClientInterceptor):
    def _with_trace(self, details: Any) -> Any:
        metadata = inject(list(details.metadata or ()))
        return _CallDetails(details.method, details.timeout, metadata, details.credentials,
                            getattr(details, "wait_for_ready", None), getattr(details, "compression", None))

    def intercept_unary_unary(self, continuation: Callable[..., Any], details: Any, request: Any) -> Any:
        return continuation(self._with_trace(details), request)

    def intercept_unary_stream(self, continuation: Callable[..., Any], details: Any, request: Any) -> Any:
        return continuation(self._with_trace(details), request)


def _otel_loaded() -> bool:
    import sys
    return "opentelemetry.trace" in sys.modules


def _exporter(name: str, env: Mapping[str, str]) -> Any:
    if name == "console":
        from opentelemetry.sdk.trace.export import ConsoleSpanExporter
        return ConsoleSpanExporter()
    if name != "otlp":
        raise SystemExit(f"OTEL_TRACES_EXPORTER={name!r}: this service supports otlp, console and none")
    if env.get("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", env.get("OTEL_EXPORTER_OTLP_PROTOCOL", "")) == "grpc":
        try:
            from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
            return OTLPSpanExporter()
        except ImportError:
            log.warning("OTLP over gRPC needs opentelemetry-exporter-otlp-proto-grpc; using http/protobuf")
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter as HttpExporter
    return HttpExporter()
