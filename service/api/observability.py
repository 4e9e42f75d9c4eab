"""Per-call telemetry: what operators see of each GameService call (issue 5).

``TelemetryInterceptor`` times every GameService call, counts actions and writes one
access-log line per call; ``HostObserver`` is the hook ``GameHost`` and ``GameStore`` call to
fill in the current call (game, seat, version), count compare-and-set conflicts and replays and
time Redis. Both keep what they learn in ``CURRENT``, the ``Call`` being served, which spans
(``tracing.py``) read too. The series they count are declared in ``metrics.py``; the access
log's fields are an allowlist that ``log_format.py`` enforces when it writes them.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import os
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from typing import Any

import grpc
from google.rpc import error_details_pb2

from tabletop_server.service.api import tracing
from tabletop_server.service.api.errors import CODES, ServiceError, to_status
from tabletop_server.service.api.interceptors import Context, MethodInterceptor
from tabletop_server.service.api.metrics import Metrics
from tabletop_server.service.engine.errors import RuleError

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
