"""Every replica's webhook loop: claim due deliveries, sign, POST, settle (issue 27; DESIGN 19-20).

For each endpoint a loop claims what is due within the endpoint's limits (``claim.lua``: in-flight
deliveries over all replicas, and a rate bucket), delivers each claim in a task of its own, and looks
again at once while it finds work, else after ``TABLETOP_WEBHOOK_POLL_SECONDS``.

A delivery is signed per Standard Webhooks by the ``standardwebhooks`` library (``webhook-id``,
``webhook-timestamp`` of this attempt, ``webhook-signature`` = ``v1,`` base64 HMAC-SHA256 of
``id.timestamp.body``). A 2xx settles it. Anything else (another status, a redirect, a timeout, a
refused address) is retried after an exponential backoff with jitter: the n-th retry waits between half
and all of ``min(max, base * 2^(n-1))`` (equal jitter: retries of many deliveries spread out, and none
comes back at once to an endpoint that is down). A retry that would fall after the retry horizon (from
the event's enqueue) puts the delivery on the dead-letter list instead; ``tabletop webhooks`` lists and
redelivers those. A replica that dies mid-delivery leaves its claim to run out (``queue.py``).
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import httpcore
from standardwebhooks.webhooks import Webhook

from tabletop_server.service.config import Config
from tabletop_server.service.webhooks import endpoints, outbox, transport
from tabletop_server.service.webhooks.endpoints import Endpoint
from tabletop_server.service.webhooks.metrics import WebhookMetrics
from tabletop_server.service.webhooks.queue import Message, Queue

log = logging.getLogger("tabletop.webhooks")
GAUGE_SECONDS = 5.0
USER_AGENT = "Tabletop-Webhooks/1"


def backoff(attempts: int, base: float, cap: float, rng: Callable[[], float] = random.random) -> float:
    """Seconds before the retry after ``attempts`` failed attempts (equal jitter, see above)."""
    ceiling = min(cap, base * 2.0 ** min(attempts - 1, 62))
    return ceiling / 2 + rng() * ceiling / 2


def signed_headers(signer: Webhook, message: Message, now: float) -> list[tuple[str, str]]:
    """The headers of one attempt: the Standard Webhooks three, signed over this attempt's timestamp."""
    stamp = datetime.fromtimestamp(int(now), UTC)
    return [("content-type", "application/json"), ("user-agent", USER_AGENT), ("webhook-id", message.id),
            ("webhook-timestamp", str(int(now))), ("webhook-signature", signer.sign(message.id, stamp, message.body))]


class Dispatcher:
    """The delivery loops of this replica, one per configured endpoint."""

    def __init__(self, client: Any, config: Config, metrics: WebhookMetrics,
                 clock: Callable[[], float] = time.time) -> None:
        self.config, self.metrics, self.clock = config, metrics, clock
        self.endpoints = endpoints.configured(config)
        allowed = transport.networks(config.webhook_allowed_networks)
        self.queues = {e.name: Queue(client, e.name) for e in self.endpoints}
        self.signers = {e.name: Webhook(e.secret) for e in self.endpoints}
        self.posters = {e.name: transport.Poster(e.url, config.webhook_allowed_hosts, allowed, e.max_in_flight,
                                                 config.webhook_timeout_seconds) for e in self.endpoints}
        self.in_flight: dict[str, set[asyncio.Task[None]]] = {e.name: set() for e in self.endpoints}

    async def run(self) -> None:
        """Deliver until cancelled; in-flight attempts are cancelled with it (their claims run out)."""
        loops = [asyncio.ensure_future(self._loop(e)) for e in self.endpoints]
        loops.append(asyncio.ensure_future(self._gauges()))
        try:
            await asyncio.gather(*loops)
        finally:
            for task in loops + [t for tasks in self.in_flight.values() for t in tasks]:
                task.cancel()
            await asyncio.gather(*loops, *(t for tasks in self.in_flight.values() for t in tasks),
                                 return_exceptions=True)
            for poster in self.posters.values():
                await poster.close()

    async def tick(self, endpoint: Endpoint) -> int:
        """One claim for ``endpoint``: how many deliveries it started."""
        running = self.in_flight[endpoint.name]
        room = endpoint.max_in_flight - len(running)
        if room <= 0:
            return 0
        now = self.clock()
        lease = int((now + self.config.webhook_lease_seconds) * 1000)
        claimed = await self.queues[endpoint.name].claim(now, lease, room, endpoint.max_in_flight,
                                                         endpoint.rate_per_second)
        for message in claimed:
            task = asyncio.ensure_future(self.deliver(endpoint, message, lease))
            running.add(task)
            task.add_done_callback(running.discard)
        return len(claimed)

    async def deliver(self, endpoint: Endpoint, message: Message, lease: int) -> None:
        """One attempt, then settle it: sent, retried later, or dead."""
        queue = self.queues[endpoint.name]
        try:
            reason, wait = await self._attempt(endpoint, message)
        except asyncio.CancelledError:
            raise
        except Exception:  # a bug must not lose the delivery: it is retried as a failure
            log.exception("webhook attempt to %s failed unexpectedly", endpoint.name)
            reason, wait = "error", 0.0
        now = self.clock()
        if reason is None:
            if await queue.ack(message.id, now):
                self.metrics.sent.labels(endpoint.name).inc()
                self.metrics.lag.labels(endpoint.name).observe(max(0.0, now - message.queued))
            return
        self.metrics.failed.labels(endpoint.name, reason).inc()
        failed = Message(message.id, message.type, message.player, message.body, message.queued,
                         message.attempts + 1, reason)
        # A receiver's Retry-After (a 429 or 503) is honoured up to the longest backoff.
        due = now + max(backoff(failed.attempts, self.config.webhook_backoff_base_seconds,
                                self.config.webhook_backoff_max_seconds),
                        min(wait, self.config.webhook_backoff_max_seconds))
        if due > message.queued + self.config.webhook_retry_horizon_seconds:
            if await queue.bury(failed, lease, now, self.config.webhook_dead_letter_max):
                self.metrics.dead.labels(endpoint.name).inc()
                log.warning("webhook %s to %s is dead after %d attempts (%s)", message.id, endpoint.name,
                            failed.attempts, reason)
        elif await queue.retry(failed, lease, due):
            self.metrics.retried.labels(endpoint.name).inc()

    async def _attempt(self, endpoint: Endpoint, message: Message) -> tuple[str | None, float]:
        """POST once: (None when answered 2xx, else the failure's reason (the metric label); the answer's
        Retry-After in seconds, 0 when none)."""
        headers = signed_headers(self.signers[endpoint.name], message, self.clock())
        try:
            status, wait = await self.posters[endpoint.name].post(headers, message.body.encode())
        except transport.AddressRefused as exc:
            log.error("webhook endpoint %s refused: %s", endpoint.name, exc)
            return "address_refused", 0.0
        except (TimeoutError, httpcore.TimeoutException):
            return "timeout", 0.0
        except (httpcore.NetworkError, httpcore.ProtocolError, OSError):
            return "connect", 0.0
        if 200 <= status < 300:
            return None, 0.0
        return (f"http_{status // 100}xx" if status >= 300 else "http_1xx"), wait

    async def _loop(self, endpoint: Endpoint) -> None:
        while True:
            started = 0
            try:
                started = await self.tick(endpoint)
            except asyncio.CancelledError:
                raise
            except Exception:  # logged; claims run out and are taken again
                log.exception("webhook claim for %s failed; retrying", endpoint.name)
            if not started:
                await asyncio.sleep(self.config.webhook_poll_seconds)

    async def _gauges(self) -> None:
        while True:
            for endpoint in self.endpoints:
                name = endpoint.name
                try:
                    pending, dead, oldest = await self.queues[name].counts(self.clock())
                except asyncio.CancelledError:
                    raise
                except Exception:  # a gauge is not worth an error; the next look retries
                    log.debug("webhook gauges of %s not read", name, exc_info=True)
                    continue
                self.metrics.pending.labels(name).set(pending)
                self.metrics.dead_letters.labels(name).set(dead)
                self.metrics.oldest_due.labels(name).set(oldest)
                dropped = outbox.DROPPED.pop(name, 0)
                if dropped:
                    self.metrics.dropped.labels(name).inc(dropped)
            await asyncio.sleep(GAUGE_SECONDS)
