"""The cost of waiting for a replica: store writes (one action each) with WAIT 0 vs WAIT 1.

Starts its own primary and replica (redis-server on free loopback ports), then runs
the store's compare-and-set write path (``GameStore.write``, as each action does) from
``--writers`` concurrent writers, each on its own game, for ``--seconds`` per mode, and
prints actions/s and p50/p99 latency side by side.

    .venv/bin/python bench/replica_wait.py [--seconds 5] [--writers 32]
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import socket
import subprocess
import tempfile
import time

import redis

from tabletop_server.service.store.redis_store import GameStore, connect


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _server(*args: str) -> tuple[subprocess.Popen[bytes], int]:
    port = _port()
    proc = subprocess.Popen([shutil.which("redis-server") or "redis-server", "--port", str(port), "--bind", "127.0.0.1",
                             "--dir", tempfile.mkdtemp(), "--save", "", "--appendonly", "yes", *args],
                            stdout=subprocess.DEVNULL)
    client = redis.Redis(port=port)
    for _ in range(200):
        try:
            client.ping()
            break
        except redis.ConnectionError:
            time.sleep(0.05)
    return proc, port


async def _run(url: str, replicas: int, seconds: float, writers: int) -> tuple[float, float, float]:
    store = GameStore(connect(url), replicas=(replicas, 1000))
    latencies: list[float] = []
    stop = time.perf_counter() + seconds
    doc, entry = b"x" * 2000, b"y" * 200  # about the size of a game document and log entry

    async def writer(n: int) -> None:
        game, version = f"bench{replicas}-{n}", 0
        while time.perf_counter() < stop:
            start = time.perf_counter()
            ok, version = await store.write(game, version, doc, entry, 3600)
            latencies.append(time.perf_counter() - start)
            assert ok

    began = time.perf_counter()
    await asyncio.gather(*(writer(n) for n in range(writers)))
    elapsed = time.perf_counter() - began
    await store.close()
    latencies.sort()
    return len(latencies) / elapsed, latencies[len(latencies) // 2] * 1e3, latencies[int(len(latencies) * 0.99)] * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--writers", type=int, default=32)
    args = parser.parse_args()
    primary, port = _server()
    replica, replica_port = _server("--replicaof", "127.0.0.1", str(port))
    try:
        while redis.Redis(port=replica_port).info("replication")["master_link_status"] != "up":
            time.sleep(0.05)
        url = f"redis://127.0.0.1:{port}"
        results = {n: asyncio.run(_run(url, n, args.seconds, args.writers)) for n in (0, 1)}
    finally:
        for proc in (replica, primary):
            proc.kill()
            proc.wait()
    print(f"{'':<14}{'WAIT 0':>12}{'WAIT 1':>12}")
    for i, label in enumerate(("actions/s", "p50 ms", "p99 ms")):
        print(f"{label:<14}{results[0][i]:>12.1f}{results[1][i]:>12.1f}")


if __name__ == "__main__":
    main()
