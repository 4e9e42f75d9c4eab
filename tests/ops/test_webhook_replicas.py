"""Webhooks survive replicas dying mid-delivery (issue 27's proof).

Three real ``python -m tabletop_server.service grpc`` processes deliver to a real receiver on loopback
that verifies every signature with the ``standardwebhooks`` library, refuses 30% of deliveries, answers
slowly, and is down for a few seconds. Events are queued while replicas are killed (SIGKILL) one at a
time and restarted, and once all three at the same moment while the receiver holds deliveries in
flight. In the end every event was delivered, every delivery verified, and every duplicate carried the
same ``webhook-id`` and body as the first.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import subprocess
import sys
import threading
import time
from collections import defaultdict
from pathlib import Path

import grpc
import redis

from bench.http_load import free_port
from tabletop_server.service.config import Config
from tabletop_server.service.store.redis_store import connect
from tabletop_server.service.webhooks import outbox
from tests.service.webhook_kit import endpoint_name, private_redis, write_endpoints
from tests.webhook_receiver import Receiver

EVENTS = 120


class Replica:
    """One service process with webhooks on."""

    def __init__(self, env: dict[str, str], log_dir: Path, name: str) -> None:
        self.env, self.log_path, self.proc = env, log_dir / f"{name}.log", None
        self.port = 0

    def start(self) -> Replica:
        self.port = free_port()
        with open(self.log_path, "a") as log:
            self.proc = subprocess.Popen([sys.executable, "-m", "tabletop_server.service", "grpc", "--grpc-port",
                                          str(self.port)], env=self.env, stderr=log, stdout=subprocess.DEVNULL)
        return self

    def wait_ready(self) -> None:
        with grpc.insecure_channel(f"127.0.0.1:{self.port}") as channel:
            grpc.channel_ready_future(channel).result(timeout=60)

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


def test_every_event_is_delivered_through_refusals_an_outage_and_killed_replicas(tmp_path: Path) -> None:
    with private_redis(tmp_path) as redis_url:  # no other test's server drains (and forwards) into this one
        _run(redis_url, tmp_path)


def _run(redis_url: str, tmp_path: Path) -> None:
    receiver = Receiver(refuse_share=0.3, delay=0.25, seed=27).start()
    name = endpoint_name()
    path = write_endpoints(tmp_path, [{"name": name, "url": receiver.url, "secret": receiver.secret,
                                       "events": ["*"], "max_in_flight": 6, "rate_per_second": 0}])
    settings = {"webhooks_file": path, "webhook_allowed_hosts": "127.0.0.1", "webhook_allowed_networks": "127.0.0.0/8",
                "webhook_allow_http": "true", "webhook_lease_seconds": "2", "webhook_timeout_seconds": "1.5",
                "webhook_poll_seconds": "0.05", "webhook_backoff_base_seconds": "0.1",
                "webhook_backoff_max_seconds": "1", "redis_url": redis_url, "metrics_port": "0",
                "redis_safety": "warn", "log_format": "json"}
    env = {**os.environ, **{f"TABLETOP_{k.upper()}": v for k, v in settings.items()}}
    config = Config(redis_url=redis_url, webhooks_file=path, webhook_allowed_hosts="127.0.0.1",
                    webhook_allow_http=True)
    replicas = [Replica(env, tmp_path, f"replica-{i}").start() for i in range(3)]
    try:
        for replica in replicas:
            replica.wait_ready()
        producer = threading.Thread(target=lambda: asyncio.run(_produce(config)))
        producer.start()
        rng = random.Random(5)
        time.sleep(1.0)
        receiver.stop()  # down for a while: connections refused
        time.sleep(2.5)
        receiver.start()
        for _ in range(4):  # one replica at a time, killed and started again
            time.sleep(rng.uniform(0.5, 1.2))
            victim = rng.choice(replicas)
            victim.kill()
            victim.start()
        receiver.hold()  # deliveries wait unanswered: some are surely in flight when the replicas die
        # ... and one of them will be accepted on release (answered 204 to a sender that is gone, so only a takeover
        # delivers it again): with any in flight, all of them could be among the 30% refused (seen under load).
        _until(lambda: receiver.in_flight_accepted > 0, 20)
        for replica in replicas:  # all at once, while the receiver holds deliveries in flight
            replica.kill()
        receiver.release()  # answered 204 to senders that are gone: only a takeover delivers them again
        time.sleep(0.5)
        for replica in replicas:
            replica.start()
        producer.join(60)
        assert not producer.is_alive()
        own = redis.Redis.from_url(redis_url)
        _until(lambda: own.hlen("{wh:" + name + "}:msg") == 0, 120)
        own.close()
        time.sleep(0.5)
        _check(receiver, EVENTS)
    finally:
        for replica in replicas:
            replica.kill()
        receiver.stop()


async def _produce(config: Config) -> None:
    client = connect(config.redis_url)
    try:
        for i in range(EVENTS):
            await outbox.enqueue(client, config, "turn.started", f"player-{i % 7}", {"game": f"games/g{i}"}, f"ev{i}")
            await asyncio.sleep(0.05)
    finally:
        await client.close()


def _check(receiver: Receiver, events: int) -> None:
    deliveries = receiver.all()
    wanted = {outbox.message_id(f"ev{i}") for i in range(events)}
    assert {d.id for d in deliveries if d.status == 204} == wanted, "an event was never delivered"
    bad = [(d.id, d.headers, d.body) for d in deliveries if not d.verified]
    assert bad == [], "a delivery failed the standardwebhooks signature check"
    bodies: dict[str, set[bytes]] = defaultdict(set)
    ids_of_body: dict[bytes, set[str]] = defaultdict(set)
    for delivery in deliveries:
        bodies[delivery.id].add(delivery.body)
        ids_of_body[delivery.body].add(delivery.id)
    assert all(len(b) == 1 for b in bodies.values()), "one webhook-id carried different bodies"
    assert all(len(i) == 1 for i in ids_of_body.values()), "one event was sent under two webhook-ids"
    games = {json.loads(b)["data"]["game"] for bs in bodies.values() for b in bs}
    assert games == {f"games/g{i}" for i in range(events)}
    accepted = defaultdict(int)
    for delivery in deliveries:
        accepted[delivery.id] += delivery.status == 204
    # The replicas killed while the receiver held deliveries: those were taken over after the lease
    # and delivered again, with the same id (the receiver's dedupe key).
    assert any(n > 1 for n in accepted.values()), "no delivery was taken over from a killed replica"
    assert any(d.status == 503 for d in deliveries), "the receiver refused nothing"
    print(f"webhooks: {events} events, {len(deliveries)} attempts received, "
          f"{sum(d.status == 503 for d in deliveries)} refused, "
          f"{sum(n - 1 for n in accepted.values() if n > 1)} accepted again (same id), "
          f"{receiver.incomplete} cut off mid-request by a kill")


def _until(condition, timeout: float) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)
