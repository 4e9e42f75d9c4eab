"""Hostile clients beside a playing one (issue 26), in one run against one ``tabletop serve`` process.

Prints, side by side:

1. header flood: the server's memory (VmRSS) before, while and after ``--flood`` connections each
   send a request whose header value runs to 1 MB and never ends (the issue's repro);
2. slow clients: a playing client's p99 (a fresh-connection ``GET /v1/rulesets`` and a play step:
   ``GET :legalActions`` + ``POST :act`` on a kept-alive connection), quiet and then while ``--idle``
   idle sockets, ``--slow`` slowloris sockets (a header byte every 0.5 s) and ``--flood`` header
   flooders all churn (each reopened as soon as the server cuts it), with the server's memory.

Usage: ``.venv/bin/python bench/http_hostile.py [--redis URL] [--idle 10000] [--slow 2500] [--flood 200]``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.http_load import Conn, ServeProcess, get, percentile, raise_fd_limit

FLOOD_HEAD = b"GET /v1/rulesets HTTP/1.1\r\nHost: x\r\nX-Big: "
MEGABYTE = 1_000_000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--redis", default="redis://127.0.0.1:6379")
    parser.add_argument("--idle", type=int, default=10_000)
    parser.add_argument("--slow", type=int, default=2500)
    parser.add_argument("--flood", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=30.0)
    args = parser.parse_args()
    raise_fd_limit()
    print("\n== hostile HTTP clients beside a playing one (one tabletop serve process, loopback) ==")
    server = ServeProcess(args.redis, http_max_connections=args.idle + args.slow + args.flood + 1000)
    try:
        asyncio.run(_run(server, args))
    finally:
        server.close()


async def _run(server: ServeProcess, args: argparse.Namespace) -> None:
    port = server.http_port
    await _flood_memory(server, args.flood)
    game, tokens = await _create(port)
    quiet_get, quiet_play = await _probe(port, game, tokens, 200)
    stop = asyncio.Event()
    counts = {"idle": 0, "slow": 0, "flood": 0, "connect_failed": 0}
    rss_before = server.rss_kib()
    attackers = [asyncio.ensure_future(_churn(port, kind, stop, counts))
                 for kind, n in (("idle", args.idle), ("slow", args.slow), ("flood", args.flood)) for _ in range(n)]
    await asyncio.sleep(min(12.0, args.seconds / 2))  # past one header timeout: the churn is under way
    rss_during = server.rss_kib()
    crowded_get, crowded_play = await _probe(port, game, tokens, 200, args.seconds)
    rss_during = max(rss_during, server.rss_kib())
    stop.set()
    await asyncio.gather(*attackers, return_exceptions=True)
    await asyncio.sleep(3)
    print(f"slow clients: {args.idle} idle + {args.slow} slowloris + {args.flood} header-flood sockets, each "
          f"reopened when cut ({counts['idle'] + counts['slow'] + counts['flood']} connections opened, "
          f"{counts['connect_failed']} connects failed)")
    for label, quiet, crowded in (("fresh GET /v1/rulesets", quiet_get, crowded_get),
                                  ("play step (legalActions + act)", quiet_play, crowded_play)):
        print(f"  {label}: p50 {_ms(quiet, .5)} / p99 {_ms(quiet, .99)} ms quiet; "
              f"p50 {_ms(crowded, .5)} / p99 {_ms(crowded, .99)} ms under attack ({len(crowded)} samples)")
    print(f"  server RSS: {rss_before / 1024:.0f} MiB before, {rss_during / 1024:.0f} MiB during, "
          f"{server.rss_kib() / 1024:.0f} MiB after")


async def _flood_memory(server: ServeProcess, count: int) -> None:
    """The issue's repro: ``count`` connections each sending a 1 MB header value that never ends."""
    await asyncio.sleep(1)
    before = server.rss_kib()
    conns = await asyncio.gather(*(asyncio.open_connection("127.0.0.1", server.http_port) for _ in range(count)))
    peak = before
    for offset in range(0, MEGABYTE, 65536):
        for _, writer in conns:
            if not writer.is_closing():
                writer.write((FLOOD_HEAD if offset == 0 else b"") + b"a" * min(65536, MEGABYTE - offset))
        await asyncio.sleep(0.01)
        peak = max(peak, server.rss_kib())
    await asyncio.sleep(1)
    peak = max(peak, server.rss_kib())
    answered = sum(1 for reader, _ in conns if reader.at_eof() or len(reader._buffer))
    for _, writer in conns:
        writer.close()
    await asyncio.sleep(3)
    print(f"header flood: {count} connections each sending a 1 MB header that never ends: server RSS "
          f"{before / 1024:.0f} MiB before, {peak / 1024:.0f} MiB peak while sending, "
          f"{server.rss_kib() / 1024:.0f} MiB 3 s after they closed ({answered} answered before the end)")


async def _churn(port: int, kind: str, stop: asyncio.Event, counts: dict[str, int]) -> None:
    """One attacker: a connection of ``kind`` held until the server cuts it, then another, until ``stop``."""
    while not stop.is_set():
        try:
            reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), 5)
        except (TimeoutError, OSError):
            counts["connect_failed"] += 1
            await asyncio.sleep(0.5)
            continue
        counts[kind] += 1
        try:
            if kind == "flood":
                writer.write(FLOOD_HEAD)
                for _ in range(16):
                    writer.write(b"a" * 65536)
                    await writer.drain()
            elif kind == "slow":
                writer.write(b"GET /v1/rulesets HTTP/1.1\r\nHost: x\r\n")
                while not stop.is_set() and not reader.at_eof():
                    writer.write(b"X")
                    await writer.drain()
                    await asyncio.sleep(0.5)
            stopped = asyncio.ensure_future(stop.wait())
            await asyncio.wait({asyncio.ensure_future(reader.read()), stopped}, return_when=asyncio.FIRST_COMPLETED)
        except OSError:
            pass
        finally:
            writer.close()


async def _create(port: int) -> tuple[str, dict[int, str]]:
    body = json.dumps({"ruleset": "ttr-europe", "seatCount": 2, "displayNames": ["a", "b"]}).encode()
    status, _, data = await get(port, "/v1/games", headers={"Content-Type": "application/json"}, method="POST",
                                body=body)
    assert status == 200, data
    reply = json.loads(data)
    return reply["game"]["name"], {c.get("seat", 0): c["playerToken"] for c in reply["credentials"]}


async def _probe(port: int, game: str, tokens: dict[int, str], count: int,
                 seconds: float = 0.0) -> tuple[list[float], list[float]]:
    """``count`` fresh-connection GETs and play steps, interleaved (for at least ``seconds``)."""
    gets, plays = [], []
    conn = await asyncio.open_connection("127.0.0.1", port)
    deadline = time.monotonic() + seconds
    while len(gets) < count or time.monotonic() < deadline:
        started = time.perf_counter()
        _status, _, _ = await get(port, "/v1/rulesets")
        gets.append(time.perf_counter() - started)
        started = time.perf_counter()
        try:
            stepped = await _step(port, game, tokens, conn)
        except (OSError, IndexError, asyncio.IncompleteReadError):  # the kept-alive connection was closed
            conn[1].close()
            conn = await asyncio.open_connection("127.0.0.1", port)
            continue
        if not stepped:
            game, tokens = await _create(port)
            continue
        plays.append(time.perf_counter() - started)
    conn[1].close()
    return gets, plays


async def _step(port: int, game: str, tokens: dict[int, str], conn: Conn) -> bool:
    """One play step on the kept-alive ``conn``: the deciding seat's first legal action; False when over."""
    for token in tokens.values():
        auth = {"Authorization": f"Bearer {token}"}
        _, _, data = await get(port, f"/v1/{game}:legalActions", conn, auth)
        actions = json.loads(data).get("actions", [])
        if actions:
            body = json.dumps({"action": actions[0]}).encode()
            status, _, _ = await get(port, f"/v1/{game}:act", conn, {**auth, "Content-Type": "application/json"},
                                     method="POST", body=body)
            return status == 200
    return False


def _ms(values: list[float], fraction: float) -> str:
    return f"{1000 * percentile(values, fraction):.0f}"


if __name__ == "__main__":
    main()
