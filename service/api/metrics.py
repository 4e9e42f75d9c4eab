"""The service's Prometheus series, in a registry of its own (issue 5).

``Metrics`` holds them (one registry per server, so tests can run several servers in one
process); ``serve_metrics`` exposes it on the separate metrics port. This module only declares
the series, so their names, labels and buckets are in one place (the webhooks' own are in
``webhooks/metrics.py``, in the same registry); the code that counts is where the
thing happens (``observability.py``: calls, actions, Redis; ``server.py`` hands the timers, quick
play, the players' index and the rate limits theirs; ``rest_metrics.py`` and ``rest/``: the HTTP port).

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

from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, start_http_server


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


def serve_metrics(metrics: Metrics, port: int, addr: str = "0.0.0.0") -> tuple[Any, int]:
    """Serve ``/metrics`` (Prometheus text) on ``port`` (0 picks one); returns (server, bound port)."""
    server, _thread = start_http_server(port, addr, registry=metrics.registry)
    return server, int(server.server_port)
