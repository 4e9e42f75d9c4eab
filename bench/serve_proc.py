"""``tabletop serve`` in a process of the bench's own, and the small helpers the benches share to start it.

``Serve`` starts ``serve --workers N`` on ports of its own against a given Redis, with what a bench
needs set (no persistence check, no creation limits, metrics off), waits until it is ready and every
worker has started, and gives the gRPC port and the pids whose CPU is the server's (the supervisor
and its workers).
"""

from __future__ import annotations

import http.client
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# What every bench's server needs: its own Redis keeps nothing on disk (persistence is not what it
# measures), which the service refuses by default (not ready, service/store/safety.py): serve it and
# say so once; no per-address creation limits (the bench creates games fast from one address).
BENCH_ENV = {"TABLETOP_METRICS_PORT": "0", "TABLETOP_LOG_LEVEL": "WARNING",
             "TABLETOP_CREATE_PER_MINUTE_PER_ADDRESS": "0", "TABLETOP_MAX_OPEN_GAMES_PER_ADDRESS": "0",
             "TABLETOP_REDIS_SAFETY": "warn"}


class Serve:
    """``tabletop serve --workers N`` (``env``: more settings); a context giving (gRPC port, server pids)."""

    def __init__(self, redis_url: str, workers: int = 1, env: dict[str, str] | None = None,
                 prefix: tuple[str, ...] = ()) -> None:
        self.grpc_port, self.http_port = free_port(), free_port()
        self.workers = workers
        self.proc = subprocess.Popen([*prefix, sys.executable, "-m", "tabletop_server.service", "serve",
                                      "--workers", str(workers), "--grpc-port", str(self.grpc_port),
                                      "--http-port", str(self.http_port)],
                                     env={**os.environ, **BENCH_ENV, "TABLETOP_REDIS_URL": redis_url, **(env or {})},
                                     cwd=ROOT)

    def __enter__(self) -> tuple[int, tuple[int, ...]]:
        return self.grpc_port, self.start()

    def start(self) -> tuple[int, ...]:
        """Wait until it is ready and all its workers run; the pids to measure."""
        wait_http(self.http_port)
        deadline = time.monotonic() + 60
        while len(pids := tree(self.proc.pid)) < self.workers + (self.workers > 1) and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(1.0 if self.workers > 1 else 0)  # the other workers ready too
        return pids

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(30)


def tree(pid: int) -> tuple[int, ...]:
    """``pid`` and its child processes (the workers of ``serve --workers``)."""
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        children = []
    return (pid, *(int(c) for c in children))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_http(port: int) -> None:
    """Wait until the server is ready (``/readyz``: its Redis answers and is judged safe), not only alive."""
    for _ in range(300):
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
            conn.request("GET", "/readyz")
            if conn.getresponse().status == 200:
                return
        except OSError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"the server on port {port} did not become ready (GET /readyz) in 30 s")
