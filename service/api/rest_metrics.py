"""The REST facade's share of operations: request metrics and the SIGTERM drain (issue 5).

``instrument_rest`` wraps the facade's WSGI app (outermost, so the routes it answers
ahead of Flask are covered too): it counts and times every request into the same
``Metrics`` as the gRPC service, and tracks the requests in flight so that on SIGTERM
``tabletop rest`` can answer ``/readyz`` with 503 and wait for them before closing.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from prometheus_client import Gauge

from tabletop_server.service.api import tracing
from tabletop_server.service.api.metrics import Metrics


class InFlight:
    """REST requests being answered now, so a shutdown can wait for them (SIGTERM drain)."""

    def __init__(self, gauge: Gauge | None = None) -> None:
        self.draining = False
        self.gauge = gauge
        self._count = 0
        self._idle = threading.Condition()

    def __enter__(self) -> None:
        with self._idle:
            self._count += 1
        if self.gauge is not None:
            self.gauge.inc()

    def __exit__(self, *_exc: object) -> None:
        if self.gauge is not None:
            self.gauge.dec()
        with self._idle:
            self._count -= 1
            if self._count == 0:
                self._idle.notify_all()

    def drain(self, timeout: float) -> bool:
        """Report not ready and wait up to ``timeout`` for the requests in flight; True when none is left."""
        self.draining = True
        with self._idle:
            return self._idle.wait_for(lambda: self._count == 0, timeout)


def instrument_rest(app: Any, metrics: Metrics, routes: Iterable[str] = ()) -> InFlight:
    """Count and time every request of the REST facade by route template, method and status.

    It wraps ``app.wsgi_app`` (outermost), so requests answered ahead of Flask's
    routing are counted too. ``routes`` are the facade's path templates
    (``/v1/games/{game}:act``); any other path is counted as ``other`` so scanners
    cannot grow the label set. The returned ``InFlight`` tracks open requests; once it
    drains, ``/readyz`` answers 503 so the load balancer stops sending new ones.
    """
    inner = app.wsgi_app
    known = frozenset(routes) | {"/healthz", "/readyz", "/openapi.json"}
    in_flight = InFlight(metrics.http_in_flight)

    def counted(environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        started = time.perf_counter()
        status = ["500"]

        def recording_start_response(line: str, headers: Any, *exc_info: Any) -> Any:
            status[0] = line.split(" ", 1)[0]
            return start_response(line, headers, *exc_info)

        path = environ.get("PATH_INFO", "")
        try:
            if in_flight.draining and path == "/readyz":
                recording_start_response("503 Service Unavailable", [("Content-Type", "application/json"),
                                                                     ("Retry-After", "1")])
                return [b'{"status":"DRAINING"}']
            if path.endswith(":watch"):  # event streams resume with Last-Event-ID; shutdown does not wait
                return inner(environ, recording_start_response)
            in_flight.__enter__()
            try:
                body = inner(environ, recording_start_response)
            except BaseException:
                in_flight.__exit__()
                raise
            return _Closing(body, in_flight.__exit__)  # in flight until the server has written the body
        finally:
            route = tracing.route_template(path)
            route = route if route in known else "other"
            metrics.http_requests.labels(route, environ.get("REQUEST_METHOD", ""), status[0]).inc()
            metrics.http_seconds.labels(route).observe(time.perf_counter() - started)

    app.wsgi_app = counted
    if hasattr(app, "extensions"):  # rest.app.serve counts the routes it answers on the event loop here too
        app.extensions["tabletop.metrics"] = (metrics, in_flight)
    return in_flight


# Helpers

class _Closing:
    """A WSGI body that calls ``on_close`` once the server closes it (after writing it)."""

    def __init__(self, body: Iterable[bytes], on_close: Callable[[], None]) -> None:
        self.body = body
        self.on_close = on_close

    def __iter__(self) -> Iterator[bytes]:
        return iter(self.body)

    def close(self) -> None:
        try:
            close = getattr(self.body, "close", None)
            if close is not None:
                close()
        finally:
            self.on_close()
