"""Webhooks through real Redis to a real loopback receiver that verifies every signature with the
``standardwebhooks`` library: delivered at least once through refusals, retried with backoff, dead at the
retry horizon and redelivered by the operator with the same ``webhook-id``; limited per endpoint over
replicas; a claim left by a dead replica taken over; a producer's repeat changing nothing."""

from __future__ import annotations

import asyncio
import json
import time
from collections import defaultdict
from pathlib import Path

import pytest

from tabletop_server.service import cli
from tabletop_server.service.config import Config
from tabletop_server.service.store.redis_store import connect
from tabletop_server.service.webhooks import outbox
from tabletop_server.service.webhooks.dispatcher import backoff
from tabletop_server.service.webhooks.endpoints import EndpointsInvalid
from tabletop_server.service.webhooks.queue import Queue
from tests.conftest import start_grpc
from tests.service.webhook_kit import (
    LOOPBACK,
    drained,
    endpoint_name,
    loopback_config,
    private_redis,
    run_until,
    sweep,
    value,
)
from tests.webhook_receiver import Receiver


def entry(name: str, receiver: Receiver, **extra: object) -> dict[str, object]:
    return {"name": name, "url": receiver.url, "secret": receiver.secret, "events": ["turn.started"], **extra}


async def enqueue_many(config, count: int, prefix: str = "e") -> list[str]:  # type: ignore[no-untyped-def]
    client = connect(config.redis_url)
    try:
        ids = []
        for i in range(count):
            assert await outbox.enqueue(client, config, "turn.started", f"p{i % 5}", {"game": f"games/g{i}",
                                        "seat": i % 3}, f"{prefix}{i}") == 1
            ids.append(outbox.message_id(f"{prefix}{i}"))
        return ids
    finally:
        await client.close()


def test_every_event_is_delivered_signed_through_refusals_with_one_body_per_id(redis_url: str, tmp_path: Path) -> None:
    receiver = Receiver(refuse_share=0.4).start()
    name = endpoint_name()
    config = loopback_config(redis_url, tmp_path, [entry(name, receiver)])
    try:
        ids = asyncio.run(enqueue_many(config, 30))
        metrics = asyncio.run(run_until(config, lambda: drained(redis_url, name), 30))
        assert {d.id for d in receiver.accepted()} == set(ids)
        assert all(d.verified for d in receiver.all()), "a delivery failed the standardwebhooks check"
        bodies = defaultdict(set)
        for delivery in receiver.all():
            bodies[delivery.id].add(delivery.body)
        assert all(len(b) == 1 for b in bodies.values()), "a retry sent different bytes"
        body = json.loads(next(iter(bodies[ids[7]])))
        assert body["type"] == "turn.started" and body["data"] == {"game": "games/g7", "seat": 1, "player_id": "p2"}
        refused = sum(1 for d in receiver.all() if d.status == 503)
        assert refused > 0
        assert value(metrics, "tabletop_webhooks_sent_total", endpoint=name) == 30
        assert value(metrics, "tabletop_webhooks_failed_total", endpoint=name, reason="http_5xx") == refused
        assert value(metrics, "tabletop_webhooks_retried_total", endpoint=name) == refused
        assert value(metrics, "tabletop_webhook_lag_seconds_count", endpoint=name) == 30
    finally:
        receiver.stop()
        sweep(redis_url, name)


def test_a_producer_repeating_an_event_changes_nothing(redis_url: str, tmp_path: Path) -> None:
    receiver = Receiver().start()
    name = endpoint_name()
    config = loopback_config(redis_url, tmp_path, [entry(name, receiver)])

    async def twice() -> tuple[int, int]:
        client = connect(redis_url)
        try:
            first = await outbox.enqueue(client, config, "turn.started", "p1", {"x": 1}, "same")
            again = await outbox.enqueue(client, config, "turn.started", "p1", {"x": 2}, "same")
            return first, again
        finally:
            await client.close()

    async def after() -> int:
        client = connect(redis_url)
        try:
            return await outbox.enqueue(client, config, "turn.started", "p1", {"x": 3}, "same")
        finally:
            await client.close()

    try:
        assert asyncio.run(twice()) == (1, 0)
        asyncio.run(run_until(config, lambda: drained(redis_url, name), 10))
        assert asyncio.run(after()) == 0, "a delivered event was queued again"
        time.sleep(0.2)
        assert [json.loads(d.body)["data"]["x"] for d in receiver.all()] == [1]
        assert receiver.all()[0].id == outbox.message_id("same")
    finally:
        receiver.stop()
        sweep(redis_url, name)


def test_an_endpoint_not_subscribed_or_none_configured_gets_nothing(redis_url: str, tmp_path: Path) -> None:
    receiver = Receiver()
    name = endpoint_name()
    config = loopback_config(redis_url, tmp_path, [{**entry(name, receiver), "events": ["game.finished"]}])

    async def go() -> tuple[int, int]:
        client = connect(redis_url)
        try:
            return (await outbox.enqueue(client, config, "turn.started", "p", {}, "a"),
                    await outbox.enqueue(client, config, "game.finished", "p", {}, "b"))
        finally:
            await client.close()

    try:
        assert asyncio.run(go()) == (0, 1)
    finally:
        sweep(redis_url, name)


def test_malformed_events_are_refused_and_queue_nothing(redis_url: str, tmp_path: Path) -> None:
    receiver = Receiver()
    name = endpoint_name()
    config = loopback_config(redis_url, tmp_path, [{**entry(name, receiver), "events": ["*"]}])

    async def go() -> None:
        client = connect(redis_url)
        try:
            for event_type, player, payload, event_id in (("Turn Started", "p", {}, "a"), ("turn.started", "", {}, "a"),
                                                          ("turn.started", "p", {"x": "y" * 70000}, "a"),
                                                          ("turn.started", "p", {"x": object()}, "a"),
                                                          ("turn.started", "p", {}, "")):
                with pytest.raises(outbox.PayloadRefused):
                    await outbox.enqueue(client, config, event_type, player, payload, event_id)
            assert await client.execute("EXISTS", "{wh:" + name + "}:msg") == 0
        finally:
            await client.close()

    try:
        asyncio.run(go())
    finally:
        sweep(redis_url, name)


def test_backoff_doubles_with_jitter_up_to_the_cap() -> None:
    assert [backoff(n, 1.0, 600, lambda: 0.0) for n in (1, 2, 3, 4)] == [0.5, 1.0, 2.0, 4.0]
    assert [backoff(n, 1.0, 600, lambda: 1.0) for n in (1, 2, 3, 4)] == [1.0, 2.0, 4.0, 8.0]
    assert backoff(40, 1.0, 600, lambda: 1.0) == 600 and backoff(40, 1.0, 600, lambda: 0.0) == 300


def test_at_the_horizon_a_delivery_is_dead_and_the_operator_redelivers_it_with_the_same_id(
        redis_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    receiver = Receiver().start()
    receiver.stop()  # down: its port refuses connections
    name = endpoint_name()
    config = loopback_config(redis_url, tmp_path, [entry(name, receiver)], webhook_retry_horizon_seconds=0.5)
    monkeypatch.setenv("TABLETOP_REDIS_URL", redis_url)
    try:
        [message_id] = asyncio.run(enqueue_many(config, 1, prefix="dead"))
        dead_key = "{wh:" + name + "}:dead"

        async def is_dead() -> bool:
            client = connect(redis_url)
            try:
                return bool(await client.execute("ZSCORE", dead_key, message_id))
            finally:
                await client.close()

        state: dict[str, bool] = {"dead": False}

        async def watch_and_run() -> list:  # type: ignore[type-arg]
            async def poll() -> None:
                while not state["dead"]:
                    state["dead"] = await is_dead()
                    await asyncio.sleep(0.05)
            poller = asyncio.ensure_future(poll())
            metrics = await run_until(config, lambda: state["dead"], 15)
            poller.cancel()
            return metrics

        metrics = asyncio.run(watch_and_run())
        assert state["dead"]
        assert value(metrics, "tabletop_webhooks_dead_total", endpoint=name) == 1
        assert value(metrics, "tabletop_webhooks_failed_total", endpoint=name, reason="connect") >= 1
        assert cli.main(["webhooks", "dead", "--endpoint", name]) == 0
        [line] = capsys.readouterr().out.splitlines()
        listed = json.loads(line)
        assert listed["id"] == message_id and listed["error"] == "connect" and listed["attempts"] >= 1
        assert cli.main(["webhooks", "redeliver", "--endpoint", name, "msg_unknown"]) == 3
        receiver.start()  # the same port again
        assert cli.main(["webhooks", "redeliver", "--endpoint", name, "--all"]) == 0
        assert "queued 1 dead deliveries again" in capsys.readouterr().err
        asyncio.run(run_until(config, lambda: drained(redis_url, name), 10))
        assert [d.id for d in receiver.accepted()] == [message_id]
        assert cli.main(["webhooks", "status", "--endpoint", name]) == 0
        assert json.loads(capsys.readouterr().out) == {"endpoint": name, "pending": 0, "dead": 0,
                                                       "oldest_due_seconds": 0}
    finally:
        receiver.stop()
        sweep(redis_url, name)


def test_in_flight_limit_holds_over_replicas(redis_url: str, tmp_path: Path) -> None:
    receiver = Receiver(delay=0.2).start()
    name = endpoint_name()
    config = loopback_config(redis_url, tmp_path, [entry(name, receiver, max_in_flight=2, rate_per_second=0)])
    try:
        ids = asyncio.run(enqueue_many(config, 12))
        asyncio.run(run_until(config, lambda: drained(redis_url, name), 30, replicas=3))
        assert {d.id for d in receiver.accepted()} == set(ids)
        assert receiver.max_in_flight <= 2  # 3 replicas, each would run 2 at once without the shared limit
    finally:
        receiver.stop()
        sweep(redis_url, name)


def test_rate_limit_holds_over_replicas(redis_url: str, tmp_path: Path) -> None:
    receiver = Receiver().start()
    name = endpoint_name()
    config = loopback_config(redis_url, tmp_path, [entry(name, receiver, max_in_flight=50, rate_per_second=5)])
    try:
        asyncio.run(enqueue_many(config, 15))
        started = time.time()
        asyncio.run(run_until(config, lambda: drained(redis_url, name), 30, replicas=2))
        times = sorted(d.at for d in receiver.accepted())
        assert len(times) == 15
        # A burst of 5 at once, then 5 a second: the 15th is claimed 2 s after the first at the earliest
        # (a loaded machine only makes it later).
        assert times[-1] - started >= 1.95
    finally:
        receiver.stop()
        sweep(redis_url, name)


def test_the_claim_script_keeps_the_rate_and_in_flight_limits(redis_url: str) -> None:
    name = endpoint_name()
    config = Config(webhooks_file="", redis_url=redis_url)

    async def go() -> list[int]:
        client = connect(redis_url)
        queue = Queue(client, name)
        try:
            for i in range(30):
                await queue.enqueue(outbox.build("turn.started", "p", {}, f"r{i}", 1000.0), config.webhook_max_pending)
            taken = []
            for now, in_flight in ((1000.0, 50), (1000.0, 50), (1000.5, 50), (1001.0, 50), (1031.5, 3),
                                   (1031.5, 3)):
                claimed = await queue.claim(now, int((now + 30) * 1000), 100, in_flight, 4)
                taken.append(len(claimed))
            return taken
        finally:
            await client.close()

    try:
        # A full bucket of 4, then none at the same instant, 2 after half a second, 2 more after another
        # half. At 1031.5 every lease (to 1030-1031) has run out: the bucket is full again (4) but only 3
        # may be in flight, so 3 of the 8 abandoned claims are taken over, and then none while they run.
        assert asyncio.run(go()) == [4, 0, 2, 2, 3, 0]
    finally:
        sweep(redis_url, name)


def test_a_claim_left_by_a_dead_replica_is_taken_over_and_its_late_settle_is_ignored(
        redis_url: str, tmp_path: Path) -> None:
    receiver = Receiver().start()
    name = endpoint_name()
    config = loopback_config(redis_url, tmp_path, [entry(name, receiver)])
    try:
        [message_id] = asyncio.run(enqueue_many(config, 1, prefix="left"))

        async def dead_replica_claims() -> tuple[Queue, int]:
            client = connect(redis_url)
            queue = Queue(client, name)
            lease = int((time.time() + 0.5) * 1000)
            [claimed] = await queue.claim(time.time(), lease, 10, 8, 0)
            assert claimed.id == message_id
            assert await queue.claim(time.time(), lease, 10, 8, 0) == []  # claimed: nobody else gets it
            await client.close()
            return queue, lease

        _, lease = asyncio.run(dead_replica_claims())
        asyncio.run(run_until(config, lambda: drained(redis_url, name), 10))
        assert [d.id for d in receiver.accepted()] == [message_id]

        async def late_settle() -> bool:
            client = connect(redis_url)
            try:
                queue = Queue(client, name)
                raw = await client.execute("HGET", queue.msg, message_id)
                return raw is None and not await queue.retry(outbox.build("turn.started", "p0", {}, "left0", 0),
                                                             lease, time.time())
            finally:
                await client.close()

        assert asyncio.run(late_settle()), "a stale claim's retry brought a delivered message back"
    finally:
        receiver.stop()
        sweep(redis_url, name)


def test_a_server_with_endpoints_delivers_and_counts_in_its_metrics(tmp_path: Path) -> None:
    with private_redis(tmp_path) as redis_url:  # its player-index drain must not forward other tests' notifications
        _server_delivers(redis_url, tmp_path)


def _server_delivers(redis_url: str, tmp_path: Path) -> None:
    receiver = Receiver().start()
    name = endpoint_name()
    config = loopback_config(redis_url, tmp_path, [entry(name, receiver)])
    overrides = {k: getattr(config, k) for k in LOOPBACK} | {"webhooks_file": config.webhooks_file}
    server = start_grpc(redis_url, **overrides)
    try:
        [message_id] = asyncio.run(enqueue_many(config, 1, prefix="server"))
        registry = server.running.metrics.registry
        deadline = time.monotonic() + 15
        while not registry.get_sample_value("tabletop_webhooks_sent_total", {"endpoint": name}) and \
                time.monotonic() < deadline:
            time.sleep(0.05)
        assert [d.id for d in receiver.accepted()] == [message_id]
        assert registry.get_sample_value("tabletop_webhooks_sent_total", {"endpoint": name}) == 1
        assert drained(redis_url, name)
    finally:
        server.running.stop(0)
        receiver.stop()
        sweep(redis_url, name)


def test_a_server_refuses_to_start_with_a_broken_endpoints_file(redis_url: str, tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text(json.dumps([{"name": "x", "url": "https://elsewhere.example/", "secret": "whsec_", "events": ["*"]}]))
    with pytest.raises(EndpointsInvalid, match="not in TABLETOP_WEBHOOK_ALLOWED_HOSTS"):
        start_grpc(redis_url, webhooks_file=str(path), webhook_allowed_hosts="push.studio.example")


def test_a_receivers_retry_after_is_honoured_up_to_the_longest_backoff(redis_url: str, tmp_path: Path) -> None:
    receiver = Receiver(refuse_first=1, retry_after="1").start()
    name = endpoint_name()
    config = loopback_config(redis_url, tmp_path, [entry(name, receiver)], webhook_backoff_max_seconds=5.0)
    try:
        asyncio.run(enqueue_many(config, 1, prefix="later"))
        asyncio.run(run_until(config, lambda: drained(redis_url, name), 15))
        first, second = receiver.all()
        assert (first.status, second.status) == (503, 204)
        # The backoff alone would retry within 0.05-0.1 s; the receiver asked for 1 s.
        assert second.at - first.at >= 0.95
    finally:
        receiver.stop()
        sweep(redis_url, name)
