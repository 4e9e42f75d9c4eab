"""The REST facade in its own process, next to the gRPC service in the same container.

CPython runs one thread at a time per process. In one process with the gRPC service,
every REST request's HTTP parsing, JSON printing and gRPC client work waits for the
same interpreter lock as the rules themselves; measured on two cores, REST ``:act``
then reaches about 0.45-0.5x the gRPC ``SubmitAction`` rate at 16 concurrent clients,
against about 0.6x when the facade has its own process. ``spawn`` starts
``python -m tabletop_server.rest`` (this package's ``__main__``) and returns a handle with ``close()``,
so ``tabletop serve`` can use it in place of ``rest.app.serve``.

The child reads its stdin until end of file: when the parent dies, even by SIGKILL,
the pipe closes and the child drains and exits, so no orphan keeps the port.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.request

READY_TIMEOUT_SECONDS = 15.0


class SpawnedRest:
    """A REST facade child process; ``close()`` drains and stops it."""

    def __init__(self, process: subprocess.Popen[bytes], port: int) -> None:
        self.process = process
        self.port = port

    def close(self, grace: float = 5.0) -> None:
        """SIGTERM (the child drains for ``grace`` seconds), then SIGKILL if it lingers."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(grace + 3)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
        if self.process.stdin is not None:
            self.process.stdin.close()


def spawn(
    grpc_target: str, host: str, port: int, *, max_body_bytes: int = 65536, threads: int = 32, setup: str = ""
) -> SpawnedRest:
    """Start the facade in a child process and wait until it answers ``/healthz``.

    ``setup`` ("module:callable") is called with the child's app before it serves, for
    the instrumentation a parent would otherwise apply in-process (metrics, tracing).
    """
    command = [
        sys.executable, "-m", "tabletop_server.rest", "--grpc-target", grpc_target, "--host", host, "--port", str(port),
        "--max-body-bytes", str(max_body_bytes), "--threads", str(threads), "--exit-with-parent",
    ]  # fmt: skip
    if setup:
        command += ["--setup", setup]
    process = subprocess.Popen(command, stdin=subprocess.PIPE, env=dict(os.environ))
    spawned = SpawnedRest(process, port)
    _wait_ready(spawned, "127.0.0.1" if host in ("0.0.0.0", "::", "") else host)
    return spawned


# Helpers


def _wait_ready(spawned: SpawnedRest, host: str) -> None:
    deadline = time.monotonic() + READY_TIMEOUT_SECONDS
    url = f"http://{host}:{spawned.port}/healthz"
    while time.monotonic() < deadline:
        if spawned.process.poll() is not None:
            raise RuntimeError(f"the REST facade exited with status {spawned.process.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=1) as reply:
                if reply.status == 200:
                    return
        except OSError:
            time.sleep(0.05)
    spawned.close()
    raise RuntimeError(f"the REST facade did not answer {url} within {READY_TIMEOUT_SECONDS} s")
