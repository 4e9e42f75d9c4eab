"""Webhook benchmark (issue 27): latency from an event's enqueue to its arrival at the receiver.

Starts ``--replicas`` gRPC service processes on one private Redis with one webhook endpoint: a receiver
on loopback (this process, threaded) that verifies every signature with ``standardwebhooks`` and answers
204. A producer enqueues events through ``outbox.enqueue`` (the producers' entry point) at ``--rate`` a
second for ``--seconds`` (``--games`` active games, each told once per ``games / rate`` seconds on
average: 1,000 games moving every 10 s is 100 events/s). Prints enqueue -> arrival p50/p99/max, deliveries
per second, and the service processes' CPU per delivery.

What is measured is *enqueue* to delivery: the move -> notification step before it is the player index's
(issue 27's ListMyGames drain) and is measured there.

Usage: ``.venv/bin/python bench/webhooks.py [--rate 100] [--seconds 10] [--replicas 2] [--poll 0.25]``
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from standardwebhooks.webhooks import Webhook, WebhookVerificationError

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from run import _cpu, _free_port, _private_redis, _wait_grpc  # the platform bench's helpers

from tabletop_server.service.config import Config
from tabletop_server.service.store.redis_store import connect
from tabletop_server.service.webhooks import outbox


class Receiver:
    """Arrival time of each webhook id (first arrival), after its signature verified."""

    def __init__(self, secret: str) -> None:
        self.hook, self.arrived, self.bad, self.lock = Webhook(secret), {}, 0, threading.Lock()
        self.events: list[tuple[float, dict[str, Any]]] = []  # (monotonic arrival, body) of every first arrival
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                at = time.time()
                body = self.rfile.read(int(self.headers.get("content-length", "0")))
                try:
                    event = receiver.hook.verify(body, {k.lower(): v for k, v in self.headers.items()})
                    with receiver.lock:
                        if self.headers["webhook-id"] not in receiver.arrived:
                            receiver.events.append((time.monotonic(), event))
                        receiver.arrived.setdefault(self.headers["webhook-id"], (at, event["timestamp"]))
                except WebhookVerificationError:
                    with receiver.lock:
                        receiver.bad += 1
                self.send_response(204)
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        ThreadingHTTPServer.request_queue_size = 256  # the default backlog (5) resets connections under load
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rate", type=float, default=100.0, help="events a second")
    parser.add_argument("--games", type=int, default=1000, help="active games the rate stands for (printed)")
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--replicas", type=int, default=2)
    parser.add_argument("--poll", type=float, default=0.25, help="TABLETOP_WEBHOOK_POLL_SECONDS")
    args = parser.parse_args()
    secret = "whsec_" + base64.b64encode(os.urandom(32)).decode()
    receiver = Receiver(secret)
    redis_url = _private_redis()
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as file:
        json.dump([{"name": "bench", "url": f"http://127.0.0.1:{receiver.port}/hook", "secret": secret,
                    "events": ["*"], "max_in_flight": 32, "rate_per_second": 0}], file)
    settings = {"webhooks_file": file.name, "webhook_allowed_hosts": "127.0.0.1", "webhook_allow_http": "true",
                "webhook_allowed_networks": "127.0.0.0/8", "webhook_poll_seconds": str(args.poll)}
    env = {**os.environ, "TABLETOP_REDIS_URL": redis_url, "TABLETOP_METRICS_PORT": "0", "TABLETOP_LOG_LEVEL": "WARNING",
           "TABLETOP_REDIS_SAFETY": "warn", **{f"TABLETOP_{k.upper()}": v for k, v in settings.items()}}
    config = Config(redis_url=redis_url, webhook_allow_http=True, webhook_allowed_hosts="127.0.0.1",
                    webhooks_file=file.name)
    ports = [_free_port() for _ in range(args.replicas)]
    procs = [subprocess.Popen([sys.executable, "-m", "tabletop_server.service", "grpc", "--grpc-port", str(p)],
                              env=env, cwd=ROOT) for p in ports]
    try:
        for port in ports:
            _wait_grpc(f"127.0.0.1:{port}")
        cpu_start = _cpu(tuple(p.pid for p in procs))
        sent = asyncio.run(_produce(config, args.rate, args.seconds))
        deadline = time.time() + 30
        while len(receiver.arrived) < sent and time.time() < deadline:
            time.sleep(0.05)
        cpu = _cpu(tuple(p.pid for p in procs)) - cpu_start
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(30)
        os.unlink(file.name)
    lags = sorted(at - datetime.fromisoformat(stamp).timestamp()
                  for at, stamp in receiver.arrived.values())
    print(f"== Webhooks: {sent} events at {args.rate:.0f}/s (~{args.games} active games), {args.replicas} "
          f"replica(s), poll {args.poll} s ==")
    print(f"delivered {len(lags)} of {sent}, signatures refused {receiver.bad}")
    if lags:
        print(f"enqueue -> delivery p50 {1000 * statistics.median(lags):.0f} ms, "
              f"p99 {1000 * lags[int(len(lags) * 0.99)]:.0f} ms, max {1000 * lags[-1]:.0f} ms")
    print(f"service CPU per delivery {1000 * cpu / max(len(lags), 1):.2f} ms")


async def _produce(config: Config, rate: float, seconds: float) -> int:
    client = connect(config.redis_url)
    started, count = time.time(), 0
    try:
        while time.time() - started < seconds:
            await outbox.enqueue(client, config, "turn.started", f"player-{count % 997}",
                                 {"game": f"games/g{count % 1000}", "seat": count % 4}, f"bench-{started}-{count}")
            count += 1
            await asyncio.sleep(max(0.0, started + count / rate - time.time()))
        return count
    finally:
        await client.close()


if __name__ == "__main__":
    main()
