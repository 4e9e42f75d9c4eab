"""What a connection costs the HTTP server's event loop (issue 26, item 4), one figure per kind.

The server (``rest.server.HttpServer`` with a one-line ASGI app) runs in a process of its own; a client
process opens connections from 127.0.0.2 and the server's CPU time is divided by their count:

- refused: each past the per-address cap (1 here, held by one idle connection): a 503 before any parsing;
- cut: each sends nothing and is cut at the header deadline (0.2 s here) with a 408;
- served: each is served one ``GET`` and closed;
- trickled byte: 1,000 slowloris connections each send a header one byte at a time (the figure is per byte).

So a churn of R new connections a second costs the server about R times these of its one core, and slowloris
clients their bytes a second times the last.

Usage: ``.venv/bin/python bench/http_churn_cost.py [--count 20000]``
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.http_load import raise_fd_limit

SOURCE = ("127.0.0.2", 0)
TRICKLERS = 1000  # slowloris connections
TRICKLE = b"GET / HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 40  # what each sends, one byte at a time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=20_000)
    args = parser.parse_args()
    raise_fd_limit()
    print("\n== what a connection costs the HTTP server's event loop (server CPU per connection) ==")
    context = multiprocessing.get_context("spawn")
    for kind, count, concurrency in (("refused", args.count, 200), ("cut", args.count // 4, 2000),
                                     ("served", args.count, 200), ("trickled byte", TRICKLERS * len(TRICKLE), TRICKLERS)):
        ports: Any = context.Queue()
        process = context.Process(target=_server, args=(kind, ports), daemon=True)
        process.start()
        port = ports.get(True, 60)
        time.sleep(0.5)
        cpu, started = _cpu_seconds(process.pid), time.monotonic()
        asyncio.run(_clients(port, kind, count, concurrency))
        time.sleep(0.3)
        spent = _cpu_seconds(process.pid) - cpu
        unit = "bytes from 1,000 connections" if kind == "trickled byte" else "connections"
        print(f"  {kind}: {1e6 * spent / count:.0f} µs each ({count} {unit} in "
              f"{time.monotonic() - started:.1f} s, load {os.getloadavg()[0]:.1f})")
        process.terminate()
        process.join(10)


def _server(kind: str, ports: Any) -> None:
    from tabletop_server.rest.server import HttpLimits, HttpServer, bind

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]})
        await send({"type": "http.response.body", "body": b"ok"})

    raise_fd_limit()
    limits = HttpLimits(max_connections_per_address=1 if kind == "refused" else 0,
                        header_timeout=60 if kind == "trickled byte" else 0.2)
    server = HttpServer(app, bind("127.0.0.1", 0), limits)
    ports.put(server.port)
    time.sleep(3600)


async def _clients(port: int, kind: str, count: int, concurrency: int) -> None:
    held = None
    if kind == "refused":  # the one connection the cap allows
        held = await asyncio.open_connection("127.0.0.1", port, local_addr=SOURCE)
        await asyncio.sleep(0.1)
    slots = asyncio.Semaphore(concurrency)

    async def one() -> None:
        async with slots:
            reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=SOURCE)
            if kind == "trickled byte":
                for byte in TRICKLE:
                    writer.write(bytes([byte]))
                    await asyncio.sleep(0.05)  # each byte its own segment, as a slowloris client sends them
                writer.close()
                return
            if kind == "served":
                writer.write(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            await reader.read()
            writer.close()

    await asyncio.gather(*(one() for _ in range(TRICKLERS if kind == "trickled byte" else count)))
    if held is not None:
        held[1].close()


def _cpu_seconds(pid: int | None) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


if __name__ == "__main__":
    main()
