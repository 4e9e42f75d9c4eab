"""Hostile and crowded HTTP clients against one ``tabletop serve`` process (issue 11).

Shared by the proof tests (tests/rest/test_http_scale.py) and the benchmark
(bench/http_scale.py): a ``serve`` child process on free loopback ports, and asyncio
clients that cost the test process little: idle connections, byte-by-byte slow clients,
SSE watchers that record every version they receive, gRPC watchers, unary probes, and
an abrupt cut (RST, no FIN) of a connection.
"""

from __future__ import annotations

import asyncio
import inspect
import math
import os
import random
import resource
import socket
import struct
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def raise_fd_limit() -> int:
    """Lift this process's open-file soft limit to its hard limit; the new soft limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def _below_ephemeral() -> range:
    """Ports below the kernel's ephemeral range: the kernel never hands them to a ``bind(port 0)`` or to the
    client end of a connection, so on a busy machine (10,000 test connections) none of those takes them."""
    try:
        low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        low = 32768
    return range(max(1024, low - 12_000), low) if low > 2048 else range(20_000, 32_000)


_PICK = random.SystemRandom()  # never the tests' seeded ``random``: every worker would pick the same ports


def free_port() -> int:
    """A TCP port free right now on 127.0.0.1, for a server process that must be told a number (it cannot be
    handed a bound socket). Drawn at random below the ephemeral range, so only another such pick can collide;
    servers started on one retry with new ports when they exit at once (``ServeProcess``)."""
    ports = _below_ephemeral()
    for _ in range(200):
        port = _PICK.choice(ports)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port in {ports}")


class ServeProcess:
    """``python -m tabletop_server.service serve`` on free loopback ports, with ``TABLETOP_*`` overrides."""

    def __init__(self, redis_url: str, **settings: Any) -> None:
        env = {**os.environ, "TABLETOP_REDIS_URL": redis_url, "TABLETOP_LOG_LEVEL": "WARNING",
               "TABLETOP_CREATE_PER_MINUTE_PER_ADDRESS": "0", "TABLETOP_MAX_OPEN_GAMES_PER_ADDRESS": "0",
               # The benches' private Redis keeps nothing on disk on purpose: serve (and be ready) anyway.
               "TABLETOP_REDIS_SAFETY": "warn",
               **{f"TABLETOP_{k.upper()}": str(v) for k, v in settings.items()}}
        for _ in range(3):  # a port taken between the pick and the server's bind: the server exits, pick again
            if self._start(env):
                return
        raise RuntimeError("tabletop serve exited at once three times (ports taken?)")

    def _start(self, env: dict[str, str]) -> bool:
        """Start on new ports; whether it is ready (False: it exited at once). Raises if it hangs unready."""
        self.grpc_port, self.http_port, self.metrics_port = free_port(), free_port(), free_port()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tabletop_server.service", "serve", "--host", "127.0.0.1", "--grpc-port", str(self.grpc_port),
             "--http-port", str(self.http_port), "--metrics-port", str(self.metrics_port)], env=env, cwd=ROOT)
        deadline = time.monotonic() + 120  # sized for a loaded 2-core machine
        while time.monotonic() < deadline and self.process.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.http_port}/readyz", timeout=1) as r:
                    if r.status == 200:
                        return True
            except OSError:
                time.sleep(0.1)
        if self.process.poll() is not None:
            return False
        self.close()
        raise RuntimeError("tabletop serve did not become ready")

    @property
    def grpc_target(self) -> str:
        return f"127.0.0.1:{self.grpc_port}"

    def rss_kib(self) -> int:
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        return 0

    def cpu_seconds(self) -> float:
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def metric(self, name: str) -> float:
        """The sum of a Prometheus series' samples (every label set)."""
        with urllib.request.urlopen(f"http://127.0.0.1:{self.metrics_port}/metrics", timeout=5) as r:
            text = r.read().decode()
        total = 0.0
        for line in text.splitlines():
            if line.startswith(name) and (line[len(name)] in " {"):
                total += float(line.rsplit(" ", 1)[1])
        return total

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)


# Clients (asyncio)

Conn = tuple[asyncio.StreamReader, asyncio.StreamWriter]


async def open_idle(port: int, count: int, batch: int = 500) -> list[Conn]:
    """``count`` connections that never send a byte."""
    conns: list[Conn] = []
    for start in range(0, count, batch):
        conns += await asyncio.gather(*(asyncio.open_connection("127.0.0.1", port)
                                        for _ in range(min(batch, count - start))))
    return conns


async def slow_clients(port: int, count: int, stop: asyncio.Event, interval: float = 0.5) -> list[Conn]:
    """``count`` clients each sending a request's header one byte per ``interval`` until ``stop``."""
    conns = await open_idle(port, count)
    request = b"GET /v1/rulesets HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 10_000

    async def trickle(writer: asyncio.StreamWriter) -> None:
        for byte in request:
            if stop.is_set() or writer.is_closing():
                return
            try:
                writer.write(bytes([byte]))
                await writer.drain()
            except OSError:
                return
            await asyncio.sleep(interval)

    for _, writer in conns:
        asyncio.ensure_future(trickle(writer))
    return conns


async def get(port: int, path: str, conn: Conn | None = None, headers: dict[str, str] | None = None,
              method: str = "GET", body: bytes = b"") -> tuple[int, dict[str, str], bytes]:
    """One HTTP/1.1 request (on ``conn`` when given, kept alive); (status, headers, body)."""
    reader, writer = conn or await asyncio.open_connection("127.0.0.1", port)
    head = f"{method} {path} HTTP/1.1\r\nHost: x\r\nContent-Length: {len(body)}\r\n"
    head += "".join(f"{k}: {v}\r\n" for k, v in (headers or {}).items())
    writer.write(head.encode() + b"\r\n" + body)
    await writer.drain()
    status_line = await reader.readline()
    status = int(status_line.split()[1])
    reply_headers: dict[str, str] = {}
    while (line := await reader.readline()) not in (b"\r\n", b""):
        key, _, value = line.decode().partition(":")
        reply_headers[key.strip().lower()] = value.strip()
    data = await reader.readexactly(int(reply_headers.get("content-length", "0")))
    if conn is None:
        writer.close()
    return status, reply_headers, data


async def probe(port: int, count: int, timeout: float) -> list[float]:
    """``count`` sequential GET /v1/rulesets on fresh connections; each latency (raises past ``timeout``)."""
    latencies = []
    for _ in range(count):
        started = time.perf_counter()
        status, _, _ = await asyncio.wait_for(get(port, "/v1/rulesets"), timeout)
        assert status == 200, status
        latencies.append(time.perf_counter() - started)
    return latencies


@dataclass
class SseWatcher:
    """One SSE client of ``/v1/{game}:watch``: every ``id`` it received, in order."""

    ids: list[int] = field(default_factory=list)
    times: list[float] = field(default_factory=list)  # time.perf_counter() when each id arrived
    status: int = 0
    headers: dict[str, str] = field(default_factory=dict)
    conn: Conn | None = None
    task: asyncio.Future[None] | None = None
    opened: asyncio.Event = field(default_factory=asyncio.Event)
    error: str = ""  # the data of an ``event: error`` the stream ended with

    async def run(self, port: int, game: str, token: str | None = None) -> None:
        self.conn = reader, writer = await asyncio.open_connection("127.0.0.1", port)
        auth = f"Authorization: Bearer {token}\r\n" if token else ""
        writer.write(f"GET /v1/{game}:watch HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n{auth}\r\n".encode())
        await writer.drain()
        self.status = int((await reader.readline()).split()[1])
        while (line := await reader.readline()) not in (b"\r\n", b""):
            key, _, value = line.decode().partition(":")
            self.headers[key.strip().lower()] = value.strip()
        self.opened.set()
        if self.status != 200:
            return
        erring = False
        while line := await reader.readline():
            if line.startswith(b"id: "):  # chunk-size lines of the chunked body fall between, unread
                self.ids.append(int(line[4:]))
                self.times.append(time.perf_counter())
            elif line.startswith(b"event: error"):
                erring = True
            elif erring and line.startswith(b"data: "):
                self.error = line[6:].decode().strip()  # the stream's last event: why the server ended it

    def start(self, port: int, game: str, token: str | None = None) -> SseWatcher:
        self.task = asyncio.ensure_future(self.run(port, game, token))
        return self

    def cut(self) -> None:
        """Close abruptly: an RST, no FIN (SO_LINGER 0)."""
        assert self.conn is not None
        if self.conn[1].transport.is_closing():  # its stream already ended (the server closed it): nothing to cut
            return
        sock = self.conn[1].get_extra_info("socket")
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.conn[1].transport.abort()
        if self.task is not None:
            self.task.cancel()


async def until(check: Any, timeout: float, interval: float = 0.1) -> bool:
    """Poll ``check()`` (a plain function, or one returning an awaitable) until true or ``timeout``; whether it
    came true."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if await _result(check()):
            return True
        await asyncio.sleep(interval)
    return bool(await _result(check()))


async def read_metric(server: ServeProcess, name: str) -> float:
    """``server.metric(name)`` read in a thread, so this loop keeps reading its streams meanwhile (a read takes
    seconds on a starved machine); NaN when the read times out (every comparison with NaN is false: not yet)."""
    try:
        return await asyncio.to_thread(server.metric, name)
    except OSError:
        return math.nan


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))] if ordered else 0.0


# Helpers

async def _result(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value
