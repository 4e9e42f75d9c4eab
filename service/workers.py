"""``tabletop serve --workers N``: N serve processes on the same gRPC and HTTP ports (issue 29).

One Python process uses about one core (the event loop and gRPC's poller hold the GIL), so a pod
with two cores served about 1.6x one process's calls only with a second process. This supervisor
starts the embedded Redis once (when there is no ``TABLETOP_REDIS_URL``), then N workers, each a
plain ``tabletop serve`` that binds its ports with SO_REUSEPORT: the kernel spreads new
connections over them. Nothing is shared between workers but Redis: any worker serves any game
(each keeps its own copies of documents, which the compare-and-set checks: ``store/doc_cache.py``).

A worker that exits while the supervisor is not stopping is started again (at most once a second
per slot). SIGTERM (or SIGINT) is passed to every worker, each drains as a single process does
(``TABLETOP_SHUTDOWN_GRACE_SECONDS``), and the embedded Redis stops after the last of them.

Workers are new interpreters (``python -m tabletop_server.service serve``), not forks: the gRPC core
does not survive a fork with its threads running. Each worker's metrics port is the configured one
plus its index (``TABLETOP_METRICS_PORT`` 9464: workers on 9464, 9465, ...).
"""

from __future__ import annotations

import logging
import math
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from tabletop_server.service.signals import Stop

log = logging.getLogger("tabletop")

RESTART_INTERVAL = 1.0  # seconds between two starts of one worker slot (a worker that dies at once)
CGROUP = Path("/sys/fs/cgroup")


def auto_workers(cgroup: Path = CGROUP) -> int:
    """One worker per whole core of the container's CPU limit (cgroup v2 ``cpu.max`` or v1's CFS quota),
    at least one; 1 when there is no limit (a development machine: one process is easier to follow)."""
    quota = period = 0.0
    try:
        text = (cgroup / "cpu.max").read_text().split()
        if text and text[0] != "max":
            quota, period = float(text[0]), float(text[1])
    except (OSError, ValueError, IndexError):
        try:
            quota = float((cgroup / "cpu" / "cpu.cfs_quota_us").read_text())
            period = float((cgroup / "cpu" / "cpu.cfs_period_us").read_text())
        except (OSError, ValueError):
            return 1
    if quota <= 0 or period <= 0:
        return 1
    return max(1, math.floor(quota / period))


@dataclass
class Slot:
    """One worker: its index, its process and when it was last started."""

    index: int
    process: subprocess.Popen[bytes] | None = None
    started: float = 0.0
    restarts: int = 0


@dataclass
class Supervisor:
    """Starts ``count`` workers with ``command(index)``, keeps them running, drains them on ``stop``."""

    count: int
    command: list[str]
    env: dict[str, str]
    metrics_port: int
    grace: float
    slots: list[Slot] = field(default_factory=list)

    def run(self, stop: Stop) -> int:
        """Until ``stop`` is set: start the workers and replace those that die; then drain them all."""
        self.slots = [Slot(i) for i in range(self.count)]
        for slot in self.slots:
            self._start(slot)
        while not stop.wait(0.2):
            for slot in self.slots:
                self._replace_if_dead(slot, stop)
        return self.drain()

    def drain(self) -> int:
        """SIGTERM to every worker, then wait for them (the grace and 5 s more), then SIGKILL what is left."""
        running = [s.process for s in self.slots if s.process is not None and s.process.poll() is None]
        log.info("stopping %d workers: each drains for up to %.0fs", len(running), self.grace)
        for process in running:
            process.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + self.grace + 5
        for process in running:
            try:
                process.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                log.error("worker %d did not stop within the grace: killed", process.pid)
                process.kill()
                process.wait()
        return 0

    def _start(self, slot: Slot) -> None:
        metrics = str(self.metrics_port + slot.index) if self.metrics_port else "0"
        slot.process = subprocess.Popen([*self.command, "--worker-index", str(slot.index), "--metrics-port", metrics],
                                        env=self.env)
        slot.started = time.monotonic()
        log.info("worker %d started (pid %d)", slot.index, slot.process.pid)

    def _replace_if_dead(self, slot: Slot, stop: Stop) -> None:
        process = slot.process
        if process is None or process.poll() is None:
            return
        log.error("worker %d (pid %d) exited with %s: starting another", slot.index, process.pid, process.returncode)
        wait = slot.started + RESTART_INTERVAL - time.monotonic()
        if wait > 0 and stop.wait(wait):
            return
        slot.restarts += 1
        self._start(slot)


def worker_command(argv: list[str]) -> list[str]:
    """The command line of one worker: this ``serve`` command, as one process sharing its ports."""
    kept = _without(argv, ("--workers", "--metrics-port", "--worker-index"))
    return [sys.executable, "-m", "tabletop_server.service", *kept, "--workers", "1", "--reuse-port"]


def worker_env(redis_url: str, proxy_secret: str, data_dir: str) -> dict[str, str]:
    """The workers' environment: the one Redis (embedded or not) and the facade's shared secret."""
    return {**os.environ, "TABLETOP_REDIS_URL": redis_url, "TABLETOP_PROXY_SECRET": proxy_secret,
            **({"TABLETOP_DATA_DIR": data_dir} if data_dir else {})}


# Helpers

def _without(argv: list[str], options: tuple[str, ...]) -> list[str]:
    """``argv`` without ``options`` and their values (``--opt value`` and ``--opt=value``)."""
    kept: list[str] = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
            continue
        if arg in options:
            skip = True
            continue
        if arg.split("=", 1)[0] in options:
            continue
        kept.append(arg)
    return kept
