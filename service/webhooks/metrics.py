"""The webhooks' Prometheus series, in the server's registry (``service/api/metrics.py``: ``Metrics.registry``).

- ``tabletop_webhooks_sent_total{endpoint}``: deliveries answered 2xx (each counted once, even when a
  replica that took over a claim delivered it again);
- ``tabletop_webhooks_failed_total{endpoint,reason}``: failed attempts, by ``http_3xx`` (a redirect, not
  followed), ``http_4xx``, ``http_5xx``, ``timeout``, ``connect``, ``address_refused``;
- ``tabletop_webhooks_retried_total{endpoint}``: failed attempts scheduled again;
- ``tabletop_webhooks_dead_total{endpoint}``: deliveries given up at the retry horizon;
- ``tabletop_webhooks_dropped_total{endpoint}``: events not queued because the queue was full;
- ``tabletop_webhook_lag_seconds{endpoint}``: from an event's enqueue to its 2xx;
- ``tabletop_webhooks_pending{endpoint}``, ``tabletop_webhooks_dead_letters{endpoint}``,
  ``tabletop_webhook_oldest_due_seconds{endpoint}``: the queue as this replica last looked (every replica
  reports the same shared queue; take the max, not the sum).
"""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

LAG_BUCKETS = (.025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 7200, 86400)


class WebhookMetrics:
    """The series above."""

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        r = registry if registry is not None else CollectorRegistry(auto_describe=True)
        self.sent = Counter("tabletop_webhooks_sent", "Webhook deliveries answered 2xx", ("endpoint",), registry=r)
        self.failed = Counter("tabletop_webhooks_failed", "Failed webhook delivery attempts by reason",
                              ("endpoint", "reason"), registry=r)
        self.retried = Counter("tabletop_webhooks_retried", "Failed webhook attempts scheduled again",
                               ("endpoint",), registry=r)
        self.dead = Counter("tabletop_webhooks_dead", "Webhook deliveries given up at the retry horizon",
                            ("endpoint",), registry=r)
        self.dropped = Counter("tabletop_webhooks_dropped", "Webhook events not queued: the endpoint's queue "
                               "was full (TABLETOP_WEBHOOK_MAX_PENDING)", ("endpoint",), registry=r)
        self.lag = Histogram("tabletop_webhook_lag_seconds", "From a webhook event's enqueue to its 2xx",
                             ("endpoint",), buckets=LAG_BUCKETS, registry=r)
        self.pending = Gauge("tabletop_webhooks_pending", "Webhook deliveries queued or in flight (shared by "
                             "all replicas)", ("endpoint",), registry=r)
        self.dead_letters = Gauge("tabletop_webhooks_dead_letters", "Dead webhook deliveries kept for "
                                  "redelivery (shared by all replicas)", ("endpoint",), registry=r)
        self.oldest_due = Gauge("tabletop_webhook_oldest_due_seconds", "How long the most overdue webhook "
                                "delivery has been due", ("endpoint",), registry=r)
        self.registry = r
