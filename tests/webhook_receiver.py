"""A real webhook receiver on loopback for the webhook tests: it verifies every delivery's signature with
the ``standardwebhooks`` library (as a studio's receiver would), and can refuse a share of deliveries,
answer slowly, redirect, or be down for a while (its port closed, then opened again)."""

from __future__ import annotations

import base64
import os
import random
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from standardwebhooks.webhooks import Webhook, WebhookVerificationError


def new_secret() -> str:
    return "whsec_" + base64.b64encode(os.urandom(32)).decode()


@dataclass
class Delivery:
    id: str
    body: bytes
    status: int
    verified: bool
    at: float
    headers: dict[str, str]


@dataclass
class Receiver:
    """Start with :meth:`start`; ``url`` is where it listens."""

    secret: str = field(default_factory=new_secret)
    refuse_share: float = 0.0  # this share of deliveries is answered 503
    delay: float = 0.0  # seconds before answering
    redirect_to: str = ""  # answer 302 to this location
    refuse_first: int = 0  # the first this many deliveries are answered 503
    retry_after: str = ""  # a Retry-After header on every 503
    seed: int = 1
    deliveries: list[Delivery] = field(default_factory=list)
    in_flight: int = 0
    in_flight_accepted: int = 0  # of those, the ones that will be answered 204 (when held: on release)
    incomplete: int = 0  # requests cut off before their body ended (a sender killed mid-send)
    max_in_flight: int = 0
    port: int = 0

    def __post_init__(self) -> None:
        self.lock = threading.Lock()
        self.rng = random.Random(self.seed)
        self.server: ThreadingHTTPServer | None = None
        self.verifier = Webhook(self.secret)
        self.gate = threading.Event()  # cleared by hold(): deliveries wait, unanswered, until release()
        self.gate.set()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hook"

    def start(self) -> Receiver:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                receiver.handle(self)

            def log_message(self, *args: Any) -> None:
                pass

        server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        server.daemon_threads = True
        self.port = server.server_address[1]
        self.server = server
        threading.Thread(target=server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        """Down: the port closes (connections are refused) until :meth:`start` again."""
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()
            self.server = None

    def handle(self, request: BaseHTTPRequestHandler) -> None:
        arrived = time.time()
        length = int(request.headers.get("content-length", "0"))
        body = request.rfile.read(length)
        headers = {k.lower(): v for k, v in request.headers.items()}
        if len(body) < length:  # the sender died mid-request: a web framework would never hand this on
            with self.lock:
                self.incomplete += 1
            return
        try:
            self.verifier.verify(body, headers)
            verified = True
        except WebhookVerificationError:
            verified = False
        with self.lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            refuse = self.rng.random() < self.refuse_share or len(self.deliveries) + self.in_flight <= self.refuse_first
            accepting = not (refuse or not verified or self.redirect_to)
            self.in_flight_accepted += accepting
        status = 0  # not answered (the sender went away first)
        try:
            if self.delay:
                time.sleep(self.delay)
            self.gate.wait(60)
            status = 302 if self.redirect_to else (503 if refuse or not verified else 204)
            request.send_response(status)
            if self.redirect_to:
                request.send_header("location", self.redirect_to)
            if status == 503 and self.retry_after:
                request.send_header("retry-after", self.retry_after)
            request.send_header("content-length", "0")
            request.end_headers()
        finally:
            with self.lock:
                self.in_flight -= 1
                self.in_flight_accepted -= accepting
                self.deliveries.append(Delivery(headers.get("webhook-id", ""), body, status, verified, arrived,
                                                headers))

    def hold(self) -> None:
        """Deliveries arriving from now on wait unanswered until :meth:`release` (at most a minute): a test
        can then act while a delivery is surely in flight, whatever the machine's load."""
        self.gate.clear()

    def release(self) -> None:
        """Answer the held deliveries (each as it would have been), and every later one at once."""
        self.gate.set()

    def accepted(self) -> list[Delivery]:
        with self.lock:
            return [d for d in self.deliveries if d.status == 204]

    def all(self) -> list[Delivery]:
        with self.lock:
            return list(self.deliveries)
