"""Which ASGI server: uvicorn, hypercorn and granian on the issue-11 figures, one small app each.

Each server runs a minimal ASGI app (a 200 with a small JSON body) in its own process,
one worker, on loopback. Printed per server: requests/s and p99 at 16 concurrent
keep-alive clients, server memory per idle connection (2,000 of them), and whether a
connection that sends nothing, or a header byte a second, is closed by the server's
defaults within 15 s. (``rest.server`` adds its own deadlines to uvicorn either way.)

Not a test and not run by CI: the servers other than uvicorn are optional installs
(``pip install hypercorn granian``); a missing one is reported and skipped.

Usage: ``.venv/bin/python bench/http_servers.py [--seconds 3]``
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import importlib.util
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.http_load import free_port, open_idle, percentile, raise_fd_limit

APP = '''
async def app(scope, receive, send):
    if scope["type"] != "http":
        return
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"application/json"), (b"content-length", b"11")]})
    await send({"type": "http.response.body", "body": b'{"ok":true}'})
'''

SERVERS = {
    "uvicorn": ["-m", "uvicorn", "--host", "127.0.0.1", "--port", "{port}", "--http", "httptools", "--loop", "uvloop",
                "--no-access-log", "--log-level", "warning", "asgi_app:app"],
    "hypercorn": ["-m", "hypercorn", "--bind", "127.0.0.1:{port}", "--log-level", "warning", "asgi_app:app"],
    "granian": ["-m", "granian", "--interface", "asgi", "--host", "127.0.0.1", "--port", "{port}", "--workers", "1",
                "--log-level", "warning", "asgi_app:app"],
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--idle", type=int, default=2000)
    args = parser.parse_args()
    raise_fd_limit()
    folder = Path(tempfile.mkdtemp(prefix="asgi-bench-"))
    (folder / "asgi_app.py").write_text(APP)
    print(f"{'server':10} {'req/s c16':>10} {'p99 ms':>8} {'KiB/idle conn':>14} {'idle closed':>12} {'slow closed':>12}")
    for name, command in SERVERS.items():
        if importlib.util.find_spec(name) is None:
            print(f"{name:10} not installed (pip install {name})")
            continue
        port = free_port()
        process = subprocess.Popen([sys.executable, *[part.format(port=port) for part in command]], cwd=folder)
        try:
            _wait(port)
            rate, p99 = _throughput(port, 16, args.seconds)
            per_conn, idle_closed, slow_closed = asyncio.run(_connections(port, process.pid, args.idle))
            print(f"{name:10} {rate:10.0f} {p99:8.2f} {per_conn:14.1f} {idle_closed:>12} {slow_closed:>12}")
        finally:
            process.terminate()
            process.wait(10)


def _wait(port: int) -> None:
    for _ in range(200):
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
            connection.request("GET", "/")
            connection.getresponse().read()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"no server on port {port}")


def _throughput(port: int, concurrency: int, seconds: float) -> tuple[float, float]:
    latencies: list[float] = []
    end = time.perf_counter() + seconds

    def client() -> None:
        connection = http.client.HTTPConnection("127.0.0.1", port)
        while time.perf_counter() < end:
            started = time.perf_counter()
            connection.request("GET", "/")
            connection.getresponse().read()
            latencies.append(time.perf_counter() - started)

    threads = [threading.Thread(target=client) for _ in range(concurrency)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return len(latencies) / seconds, 1000 * percentile(latencies, 0.99)


async def _connections(port: int, pid: int, count: int) -> tuple[float, str, str]:
    before = _rss_kib(pid)
    idle = await open_idle(port, count)
    await asyncio.sleep(1)
    per_conn = (_rss_kib(pid) - before) / count
    for _, writer in idle[1:]:
        writer.close()
    quiet_reader = idle[0][0]
    slow_reader, slow_writer = await asyncio.open_connection("127.0.0.1", port)

    async def trickle() -> None:
        for byte in b"GET / HTTP/1.1\r\nX-Slow: " + b"a" * 100:
            slow_writer.write(bytes([byte]))
            await asyncio.sleep(1)

    task = asyncio.ensure_future(trickle())
    results = await asyncio.gather(_closed_within(quiet_reader, 15), _closed_within(slow_reader, 15))
    task.cancel()
    return per_conn, *results


async def _closed_within(reader: asyncio.StreamReader, seconds: float) -> str:
    started = time.monotonic()
    try:
        await asyncio.wait_for(reader.read(), seconds)
    except (TimeoutError, OSError):
        return "no (15 s)"
    return f"{time.monotonic() - started:.0f} s"


def _rss_kib(pid: int) -> int:
    """RSS of ``pid`` and its children (granian serves from a worker process)."""
    total = 0
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            total += int(line.split()[1])
    children = Path(f"/proc/{pid}/task/{pid}/children")
    for child in (children.read_text().split() if children.exists() else []):
        total += _rss_kib(int(child))
    return total


if __name__ == "__main__":
    main()
