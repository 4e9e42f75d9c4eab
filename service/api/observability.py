"""Metrics and structured logs: what operators see of a running service (issue 5).

``Metrics`` holds the Prometheus series in a registry of its own (one per server, so
tests can run several servers in one process); ``serve_metrics`` exposes it on the
separate metrics port. ``TelemetryInterceptor`` times every GameService call, counts
actions and writes one log line per call. Log lines carry only an allowlist of fields
(request id, game, seat, version, ruleset, method, code, reason, duration): never a
hand, a role, a ticket or a token, because those are never put on a record and the
JSON formatter drops every other attribute and scrubs anything shaped like a token.

Series (``/metrics`` on ``TABLETOP_METRICS_PORT``): ``tabletop_actions_total{ruleset,
result=applied|replayed|rejected|failed, reason}``, ``tabletop_action_duration_seconds``,
``tabletop_rpcs_total{method,code}``, ``tabletop_cas_conflicts_total``,
``tabletop_doc_copies_total{result=used|missing|refused}``, ``tabletop_idempotent_replays_total``, ``tabletop_watch_streams_open``,
``tabletop_rate_limited_total{scope}``, ``tabletop_redis_duration_seconds{op}``, and for
the REST facade ``tabletop_http_requests_total{route,method,status}``,
``tabletop_http_request_duration_seconds{route}``, ``tabletop_http_requests_in_flight``,
``tabletop_http_connections_open``, ``tabletop_watches_open{transport=sse|connect|grpc}`` and
``tabletop_http_refusals_total{reason}`` (issue 11: idle load the CPU autoscaler cannot see), and
for Connect and gRPC-Web on the HTTP port ``tabletop_connect_requests_total{method,protocol,code}``
and ``tabletop_connect_request_duration_seconds{method}`` (issue 13).
All counts are per process; Prometheus sums the replicas.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import os
import re
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from typing import Any

import grpc
import orjson
from google.rpc import error_details_pb2
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, start_http_server

from tabletop_server.service.api import tracing
from tabletop_server.service.api.errors import CODES, ServiceError, to_status
from tabletop_server.service.api.interceptors import Context, MethodInterceptor
from tabletop_server.service.engine.errors import RuleError

LOG_FIELDS = ("request_id", "method", "code", "reason", "game", "seat", "version", "ruleset", "duration_ms",
              "replayed", "peer")
# A player token is ``<game id>.<seat>.<secret>``; defence in depth if one ever reaches a message.
TOKEN_SHAPE = re.compile(r"\b[0-9a-f]{8,64}\.\d{1,3}\.[A-Za-z0-9_-]{16,}")
access_log = logging.getLogger("tabletop.access")


@dataclass
class Call:
    """What is known about the call being served; read by logs, metrics and spans."""

    method: str
    request_id: str
    game: str | None = None
    seat: int | None = None
    version: int | None = None
    ruleset: str | None = None
    replayed: bool = False
    started: float = field(default_factory=time.perf_counter)


CURRENT: contextvars.ContextVar[Call | None] = contextvars.ContextVar("tabletop_call", default=None)


class Metrics:
    """The service's Prometheus series, in their own registry."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.actions = Counter("tabletop_actions", "SubmitAction calls by ruleset, result and reason",
                               ("ruleset", "result", "reason"), registry=r)
        self.action_seconds = Histogram("tabletop_action_duration_seconds", "SubmitAction latency", ("ruleset",),
                                        buckets=(.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5),
                                        registry=r)
        self.rpcs = Counter("tabletop_rpcs", "GameService calls by method and status code", ("method", "code"),
                            registry=r)
        self.cas_conflicts = Counter("tabletop_cas_conflicts", "Compare-and-set writes lost to a concurrent change",
                                     registry=r)
        self.replays = Counter("tabletop_idempotent_replays", "Requests answered from a remembered request id",
                               registry=r)
        self.doc_copies = Counter("tabletop_doc_copies", "Changes decided on this process's copy of the game (used), "
                                  "read first for want of one (missing), or read again after failing on it (refused); "
                                  "stale copies show as tabletop_cas_conflicts_total", ("result",), registry=r)
        self.redis_unsafe = Gauge("tabletop_redis_unsafe", "1 while Redis runs with settings that can lose games "
                                  "(eviction policy, no persistence; see the log), else 0", registry=r)
        self.watch_streams = Gauge("tabletop_watch_streams_open", "WatchGame streams open now", registry=r)
        self.rate_limited = Counter("tabletop_rate_limited", "Calls refused by a rate limit", ("scope",),
                                    registry=r)
        self.redis_seconds = Histogram("tabletop_redis_duration_seconds", "Redis round-trip latency by operation",
                                       ("op",), buckets=(.0002, .0005, .001, .0025, .005, .01, .025, .05, .1, .5, 1),
                                       registry=r)
        # The REST facade's own series (``tabletop rest`` / ``serve``), by route template so cardinality stays low.
        self.http_requests = Counter("tabletop_http_requests", "REST requests by route, method and status",
                                     ("route", "method", "status"), registry=r)
        self.http_seconds = Histogram("tabletop_http_request_duration_seconds", "REST request latency by route",
                                      ("route",), registry=r)
        self.http_in_flight = Gauge("tabletop_http_requests_in_flight", "REST requests being answered now",
                                    registry=r)
        # The contract over Connect and gRPC-Web on the HTTP port (rest.connect; issue 13), by method.
        self.connect_requests = Counter("tabletop_connect_requests", "Connect and gRPC-Web calls by method, protocol "
                                        "(connect, connect-stream, grpc-web) and Connect code",
                                        ("method", "protocol", "code"), registry=r)
        self.connect_seconds = Histogram("tabletop_connect_request_duration_seconds",
                                         "Connect and gRPC-Web call latency by method", ("method",), registry=r)
        # The HTTP server's load (issue 11): idle streams cost no CPU, so autoscale on these too.
        self.http_connections = Gauge("tabletop_http_connections_open", "HTTP connections open now", registry=r)
        self.watches = Gauge("tabletop_watches_open", "Watches open now by transport (sse: REST watchers held by "
                             "this facade; connect: its Connect and gRPC-Web WatchGame streams; grpc: WatchGame streams "
                             "of this service)", ("transport",), registry=r)
        self.http_refusals = Counter("tabletop_http_refusals", "HTTP connections and watches refused or cut, by reason",
                                     ("reason",), registry=r)
        # Bot seats and turn timers (timers.py; issue 16).
        self.bot_moves = Counter("tabletop_bot_moves", "Decisions made by bots, by cause (bot_seat, timeout)",
                                 ("cause",), registry=r)
        self.timer_lag = Histogram("tabletop_timer_lag_seconds", "From a decision's due time to its bot move",
                                   buckets=(.01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30), registry=r)
        self.timers_due = Gauge("tabletop_timers_scheduled", "Games with a timed decision in the deadline index "
                                "(all replicas; as this replica saw it at its last sweep)", registry=r)
        self.timer_sweep_errors = Counter("tabletop_timer_sweep_errors", "Sweeps that failed (Redis away); their "
                                          "claims run out and are taken again", registry=r)
        # Quick play (matcher.py; issue 28).
        self.match_wait = Histogram("tabletop_match_wait_seconds", "From a table's oldest ticket to its seating",
                                    buckets=(.1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120, 300), registry=r)
        self.match_tickets = Counter("tabletop_match_tickets_seated", "Tickets seated by this replica's matcher", registry=r)
        self.match_bots = Counter("tabletop_match_bot_seats", "Seats the matcher filled with bots", registry=r)
        self.match_waiting = Gauge("tabletop_match_tickets_waiting", "Tickets waiting in a queue after this "
                                   "replica's last look at it (a queue is a ruleset with its options)",
                                   ("ruleset", "queue"), registry=r)
        # The players' index (indexer.py; issue 27).
        self.index_lag = Histogram("tabletop_player_index_lag_seconds", "From a write's mark to its players' index "
                                   "entries (the staleness of ListMyGames)",
                                   buckets=(.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10), registry=r)
        self.index_errors = Counter("tabletop_player_index_errors", "Drain steps that failed (Redis away); their "
                                    "marks are taken again", registry=r)

    def tickets_seated(self, tickets: int, bots: int, waited: float) -> None:
        """One table seated by the matcher."""
        self.match_tickets.inc(tickets)
        self.match_bots.inc(bots)
        self.match_wait.observe(waited)


class HostObserver:
    """The hook ``GameHost`` and ``GameStore`` call: fills the current call, counts, times Redis."""

    def __init__(self, metrics: Metrics, tracer: Any = None) -> None:
        self.metrics = metrics
        self.tracer = tracer
        self._redis_timers: dict[str, Any] = {}  # labelled children, looked up once per op
        self._copies: dict[str, Any] = {}  # doc_copies' children, by result, looked up once

    def loaded(self, game_id: str, ruleset: str, version: int, seat: int | None) -> None:
        """A game was read (and the caller's seat verified)."""
        call = CURRENT.get()
        if call is not None:
            call.game, call.ruleset, call.version, call.seat = game_id, ruleset, version, seat
        if self.tracer is not None:
            tracing.annotate(game_id=game_id, seat=seat, version=version)

    def written(self, game_id: str, version: int) -> None:
        """A compare-and-set wrote ``version``."""
        call = CURRENT.get()
        if call is not None:
            call.version = version

    def conflict(self, game_id: str) -> None:
        """A compare-and-set lost a race and will be retried on fresh state."""
        self.metrics.cas_conflicts.inc()

    def copy(self, result: str) -> None:
        """How a change found its game: ``used`` (a cached copy), ``missing`` or ``refused`` (read: store/doc_cache.py)."""
        child = self._copies.get(result)
        if child is None:
            child = self._copies[result] = self.metrics.doc_copies.labels(result)
        child.inc()

    def bot_played(self, lag: float, timed_out: bool) -> None:
        """A bot made a due decision ``lag`` seconds after its due time."""
        self.metrics.bot_moves.labels("timeout" if timed_out else "bot_seat").inc()
        self.metrics.timer_lag.observe(max(0.0, lag))

    def replayed(self, game_id: str) -> None:
        """A request id was seen before: its remembered response is returned."""
        self.metrics.replays.inc()
        call = CURRENT.get()
        if call is not None:
            call.replayed = True

    def redis(self, op: str, game_id: str | None = None) -> AbstractContextManager[Any]:
        """Time one Redis round trip (and trace it when tracing is on)."""
        if self.tracer is not None:
            return self._traced_redis(op, game_id)
        return _Timer(self._redis_timers.get(op) or self._redis_timer(op))

    @contextmanager
    def _traced_redis(self, op: str, game_id: str | None) -> Iterator[None]:
        started = time.perf_counter()
        with tracing.redis_span(self.tracer, op, game_id):
            try:
                yield
            finally:
                self.metrics.redis_seconds.labels(op).observe(time.perf_counter() - started)

    def _redis_timer(self, op: str) -> Any:
        child = self._redis_timers[op] = self.metrics.redis_seconds.labels(op)
        return child


class _Timer:
    """A plain context manager (cheaper than a generator one) observing the elapsed time."""

    __slots__ = ("histogram", "started")

    def __init__(self, histogram: Any) -> None:
        self.histogram = histogram

    def __enter__(self) -> None:
        self.started = time.perf_counter()

    def __exit__(self, *exc: object) -> None:
        self.histogram.observe(time.perf_counter() - self.started)


class TelemetryInterceptor(MethodInterceptor):
    """Per call: request id, trace span, timing, action metrics, one structured log line."""

    def __init__(self, metrics: Metrics, tracer: Any = None) -> None:
        super().__init__()
        self.metrics = metrics
        self.tracer = tracer
        self._children: dict[tuple[int, tuple[str, ...]], Any] = {}

    def unary(self, method: str, fn: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
        async def wrapper(request: Any, context: Context) -> Any:
            call = _begin(method, request, context)
            token = CURRENT.set(call)
            try:
                if self.tracer is None:  # the common case, without a no-op span around the call
                    response = await fn(request, context)
                    _learn(call, response)
                else:
                    with tracing.server_span(self.tracer, method, context, call):
                        response = await fn(request, context)
                        _learn(call, response)  # inside: the span takes the game it names
                self._finish(call, None)
                return response
            except (Exception, asyncio.CancelledError) as exc:
                self._finish(call, exc)
                raise
            finally:
                CURRENT.reset(token)
        return wrapper

    def stream(self, method: str, fn: Callable[[Any, Any], AsyncIterator[Any]]) -> Callable[[Any, Any], AsyncIterator[Any]]:
        async def wrapper(request: Any, context: Context) -> AsyncIterator[Any]:
            call = _begin(method, request, context)
            self.metrics.watch_streams.inc()
            self.metrics.watches.labels("grpc").inc()
            try:
                with tracing.server_span(self.tracer, method, context, call, activate=False) as span:
                    async for response in _steps(fn(request, context), call, span):
                        call.version = getattr(response, "version", call.version)
                        yield response
                self._finish(call, None)
            except (Exception, GeneratorExit, asyncio.CancelledError) as exc:  # the last two: the client went away
                self._finish(call, exc)
                raise
            finally:
                self.metrics.watch_streams.dec()
                self.metrics.watches.labels("grpc").dec()
        return wrapper

    def _child(self, metric: Any, *labels: str) -> Any:
        """A labelled series, looked up in prometheus_client once and then from a dict."""
        key = (id(metric), labels)
        child = self._children.get(key)
        if child is None:
            child = self._children[key] = metric.labels(*labels)
        return child

    def _finish(self, call: Call, exc: BaseException | None) -> None:
        code, reason = describe(exc)
        if isinstance(exc, (GeneratorExit, asyncio.CancelledError)):  # grpc.aio cancels a call whose client left
            code, reason = "CANCELLED", "CLIENT_GONE"  # a stream whose client left; not a server fault
        elapsed = time.perf_counter() - call.started
        self._child(self.metrics.rpcs, call.method, code).inc()
        if call.method == "SubmitAction":
            ruleset = call.ruleset or "unknown"
            result = "replayed" if call.replayed else "applied" if exc is None else (
                "failed" if code in ("UNAVAILABLE", "INTERNAL", "ABORTED") else "rejected")
            self._child(self.metrics.actions, ruleset, result, reason or "OK").inc()
            self._child(self.metrics.action_seconds, ruleset).observe(elapsed)
        level = logging.ERROR if code == "INTERNAL" else logging.INFO
        if not access_log.isEnabledFor(level):
            return
        access_log.log(level, "%s %s", call.method, code, extra={
            "request_id": call.request_id, "method": call.method, "code": code, "reason": reason,
            "game": call.game, "seat": call.seat, "version": call.version, "ruleset": call.ruleset,
            "replayed": call.replayed or None, "duration_ms": round(elapsed * 1000, 2)})


def describe(exc: BaseException | None) -> tuple[str, str | None]:
    """The gRPC code name and ErrorInfo reason an exception leaves with (from the one table)."""
    if exc is None:
        return "OK", None
    if isinstance(exc, (grpc.RpcError, grpc.aio.AbortError)):
        return "UNKNOWN", None  # a handler aborted with its own status
    if isinstance(exc, (ServiceError, RuleError)) or any(isinstance(exc, cls) for cls, _ in CODES):
        status = to_status(exc)
        info = error_details_pb2.ErrorInfo()
        status.details[0].Unpack(info)
        return next(c.name for c in grpc.StatusCode if c.value[0] == status.code), info.reason
    return "INTERNAL", "INTERNAL"


def serve_metrics(metrics: Metrics, port: int, addr: str = "0.0.0.0") -> tuple[Any, int]:
    """Serve ``/metrics`` (Prometheus text) on ``port`` (0 picks one); returns (server, bound port)."""
    server, _thread = start_http_server(port, addr, registry=metrics.registry)
    return server, int(server.server_port)


class JsonFormatter(logging.Formatter):
    """One JSON object per line with only allowlisted fields, token-shaped strings scrubbed.

    Only the message, the client-chosen request id and tracebacks are scrubbed: every
    other field is produced by the service itself (ids, codes, numbers).
    """

    _second: tuple[int, str] = (-1, "")

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {"ts": self._timestamp(record), "level": record.levelname, "logger": record.name,
                               "msg": _scrub(record.getMessage())}
        for name in LOG_FIELDS:
            value = record.__dict__.get(name)
            if value is not None:
                out[name] = value
        if "request_id" in out:
            out["request_id"] = _scrub(str(out["request_id"]))
        if record.exc_info:
            out["error"] = _scrub(self.formatException(record.exc_info))
        return orjson.dumps(out, default=str).decode()

    def _timestamp(self, record: logging.LogRecord) -> str:
        second = int(record.created)
        if self._second[0] != second:  # strftime once per second, not per line
            self._second = (second, time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second)))
        return f"{self._second[1]}.{int(record.msecs):03d}Z"


def configure_logging(level: str, fmt: str, stream: Any = None) -> None:
    """Root logging: ``json`` (one object per line) or ``text``."""
    handler = logging.StreamHandler(stream or sys.stderr)
    if fmt == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())


# Helpers

def _begin(method: str, request: Any, context: Context) -> Call:
    """A call record: the request id from ``x-request-id``, the request's ``request_id``, or a new one."""
    given = next((value for key, value in context.invocation_metadata() or () if key == "x-request-id"), None)
    request_id = str(given or getattr(request, "request_id", "") or os.urandom(8).hex())
    name = getattr(request, "name", "")
    game = name.removeprefix("games/") if isinstance(name, str) and name.startswith("games/") else None
    return Call(method, request_id[:128], game=game)


def _learn(call: Call, response: Any) -> None:
    """Game, version and ruleset from a response that carries a game."""
    game = getattr(response, "game", None)
    name = getattr(game, "name", None)
    if game is not None and isinstance(name, str) and name:
        call.game = name.removeprefix("games/")
        call.version = game.version
        call.ruleset = game.ruleset or call.ruleset
    elif isinstance(getattr(response, "version", None), int):
        call.version = response.version


def _scrub(text: str) -> str:
    return TOKEN_SHAPE.sub("[redacted]", text)


async def _steps(responses: AsyncIterator[Any], call: Call, span: Any) -> AsyncIterator[Any]:
    """Run each step of a stream handler with the call (and its span) current.

    A generator's context must not stay attached across a ``yield``, so it is set
    and reset around every step instead of once around the stream.
    """
    while True:
        token = CURRENT.set(call)
        try:
            with tracing.activate(span):
                response = await anext(responses)
        except StopAsyncIteration:
            return
        finally:
            CURRENT.reset(token)
        yield response
