"""Hostile clients beside a playing one (issue 26), in one run against one ``tabletop serve`` process.

Prints, side by side:

1. header flood: the server's memory (VmRSS) before, while and after ``--flood`` connections each
   send a request whose header value runs to 1 MB and never ends (the issue's repro);
2. slow clients: a playing client's p99 (a fresh-connection ``GET /v1/rulesets`` and a play step:
   ``GET :legalActions`` + ``POST :act`` on a kept-alive connection), quiet and then while ``--idle``
   idle sockets, ``--slow`` slowloris sockets (a header byte every 0.5 s) and ``--flood`` header
   flooders all churn (each reopened as soon as the server cuts it or refuses it, never waiting), with the
   server's memory and CPU.

The attackers connect from ``--attackers`` loopback addresses of their own (127.0.0.2 on: one attacking
address by default), the playing client from 127.0.0.1, so the server's per-address connection cap
(``--per-address``, ``TABLETOP_HTTP_MAX_CONNECTIONS_PER_ADDRESS``; 0 = off) sees them as the clients they are.
Each figure is printed with the machine's load average (the benches run on shared machines).

Usage: ``.venv/bin/python bench/http_hostile.py [--redis URL] [--idle 10000] [--slow 2500] [--flood 200]
[--attackers 1] [--per-address N]``
"""

from __future__ import annotations

import argparse
import asyncio
import errno
import json
import multiprocessing
import os
import sys
import time
from pathlib import Path
from typing import Any

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
    parser.add_argument("--procs", type=int, default=2, help="processes the attackers run in")
    parser.add_argument("--attackers", type=int, default=1, help="loopback addresses the attackers connect from")
    parser.add_argument("--per-address", type=int, default=None,
                        help="the server's per-address connection cap (default: the server's own; 0 = off)")
    args = parser.parse_args()
    raise_fd_limit()
    print("\n== hostile HTTP clients beside a playing one (one tabletop serve process, loopback) ==")
    settings: dict[str, int] = {"http_max_connections": args.idle + args.slow + args.flood + 1000}
    if args.per_address is not None:
        settings["http_max_connections_per_address"] = args.per_address
    server, decoy = ServeProcess(args.redis, **settings), ServeProcess(args.redis, **settings)
    try:
        asyncio.run(_run(server, decoy, args))
    finally:
        server.close()
        decoy.close()


async def _run(server: ServeProcess, decoy: ServeProcess, args: argparse.Namespace) -> None:
    """Quiet; then the attackers on a decoy server (the same load on the machine, none on this server); then the
    attackers on this server. On one shared host the attackers' own CPU delays everyone, the playing client
    included: the decoy phase measures that, so what this server's handling of them adds is the difference."""
    port = server.http_port
    await _flood_memory(server, args.flood)
    game, tokens = await _create(port)
    quiet_load = _load()
    quiet_get, quiet_play = await _probe(port, game, tokens, 200)
    quiet_load = f"{quiet_load}-{_load()}"
    rss_before = server.rss_kib()
    sources = [f"127.0.0.{2 + i}" for i in range(max(1, args.attackers))]
    cap = "the server's default" if args.per_address is None else args.per_address or "off"
    print(f"slow clients: {args.idle} idle + {args.slow} slowloris + {args.flood} header-flood sockets from "
          f"{len(sources)} address(es) in {args.procs} process(es), each reopened at once when cut or refused "
          f"(per-address cap: {cap}); a playing client beside them:")
    print(f"  quiet (load {quiet_load}): fresh GET /v1/rulesets p50 {_ms(quiet_get, .5)} / p99 {_ms(quiet_get, .99)}"
          f" ms; play step (legalActions + act) p50 {_ms(quiet_play, .5)} / p99 {_ms(quiet_play, .99)} ms")
    for label, target in (("attackers on a decoy server", decoy), ("attackers on this server", server)):
        gets, plays, line = await _under_attack(target, server, game, tokens, sources, args)
        print(f"  {label} ({line}): fresh GET p50 {_ms(gets, .5)} / p99 {_ms(gets, .99)} ms; play step p50 "
              f"{_ms(plays, .5)} / p99 {_ms(plays, .99)} ms ({len(plays)} samples)")
        await asyncio.sleep(3)
    print(f"  server RSS {rss_before / 1024:.0f} MiB before, {server.rss_kib() / 1024:.0f} MiB after (load {_load()})")


async def _under_attack(target: ServeProcess, server: ServeProcess, game: str, tokens: dict[int, str],
                        sources: list[str], args: argparse.Namespace) -> tuple[list[float], list[float], str]:
    """The playing client's latencies on ``server`` while the attackers churn against ``target``, and a line
    describing the attack (its rate, refusals, failed connects, the target's CPU and memory, the load)."""
    # The attackers run in processes of their own: in the prober's event loop they delayed the prober itself,
    # and its figures were the attackers' loop lag as much as the server's.
    context = multiprocessing.get_context("spawn")
    stop, results = context.Event(), context.Queue()
    warmup = min(12.0, args.seconds / 2)  # past one header timeout: the churn is under way
    procs = max(1, args.procs)
    swarms = [context.Process(target=_swarm, args=(target.http_port, _share(args.idle, procs, i),
                                                   _share(args.slow, procs, i), _share(args.flood, procs, i),
                                                   sources, warmup, stop, results))
              for i in range(procs)]
    overflows = _listen_overflows()
    for swarm in swarms:
        swarm.start()
    await asyncio.sleep(warmup)
    rss_during, load = target.rss_kib(), _load()
    cpu, started = target.cpu_seconds(), time.monotonic()
    gets, plays = await _probe(server.http_port, game, tokens, 200, args.seconds)
    elapsed = time.monotonic() - started
    cpu_share = (target.cpu_seconds() - cpu) / elapsed
    rss_during, load = max(rss_during, target.rss_kib()), f"{load}-{_load()}"
    stop.set()
    counts: dict[str, int] = {}
    for _ in swarms:
        for key, n in (await asyncio.get_running_loop().run_in_executor(None, results.get, True, 120)).items():
            counts[key] = counts.get(key, 0) + n
    for swarm in swarms:
        swarm.join(30)
    overflows = _listen_overflows() - overflows
    opened = counts["idle"] + counts["slow"] + counts["flood"]
    return gets, plays, (f"load {load}; {opened} connections, {counts['measured'] / elapsed:.0f}/s while measured, "
                         f"{counts['refused']} refused with 503, {counts['connect_failed']} connects failed"
                         f"{_why(counts)}, listen-queue overflows {overflows} machine-wide; the attacked server "
                         f"{100 * cpu_share:.0f}% of a core, {rss_during / 1024:.0f} MiB")


def _swarm(port: int, idle: int, slow: int, flood: int, sources: list[str], warmup: float, stop: Any,
           results: Any) -> None:
    """The attackers' process: every attacker churns until ``stop``; then its counts go to ``results``."""
    raise_fd_limit()

    async def run() -> dict[str, int]:
        done = asyncio.Event()
        counts = {"idle": 0, "slow": 0, "flood": 0, "connect_failed": 0, "refused": 0, "measured": 0}
        kinds = [kind for kind, n in (("idle", idle), ("slow", slow), ("flood", flood)) for _ in range(n)]
        attackers = [asyncio.ensure_future(_churn(port, kind, sources[i % len(sources)], done, counts))
                     for i, kind in enumerate(kinds)]
        await asyncio.sleep(warmup)
        opened = counts["idle"] + counts["slow"] + counts["flood"]
        while not stop.is_set():
            await asyncio.sleep(0.2)
        counts["measured"] = counts["idle"] + counts["slow"] + counts["flood"] - opened
        done.set()
        await asyncio.gather(*attackers, return_exceptions=True)
        return counts

    results.put(asyncio.run(run()))


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


async def _churn(port: int, kind: str, source: str, stop: asyncio.Event, counts: dict[str, int]) -> None:
    """One attacker from ``source``: a connection of ``kind`` held until the server cuts (or refuses) it, then
    another at once, until ``stop``."""
    while not stop.is_set():
        try:
            reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port,
                                                                            local_addr=(source, 0)), 5)
        except (TimeoutError, OSError) as error:
            counts["connect_failed"] += 1
            why = "timed out" if isinstance(error, TimeoutError) else errno.errorcode.get(error.errno or 0, "error")
            counts[f"connect {why}"] = counts.get(f"connect {why}", 0) + 1
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
            stopped, reply = asyncio.ensure_future(stop.wait()), asyncio.ensure_future(reader.read(12))
            await asyncio.wait({reply, stopped}, return_when=asyncio.FIRST_COMPLETED)
            if reply.done() and not reply.exception() and reply.result().startswith(b"HTTP/1.1 503"):
                counts["refused"] += 1
            if not reply.done():
                reply.cancel()
            stopped.cancel()
            if not stop.is_set() and not reader.at_eof():
                await asyncio.wait_for(reader.read(), 5)  # the rest of the reply, until the server closes
        except (OSError, TimeoutError):
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


def _share(total: int, parts: int, index: int) -> int:
    """Part ``index`` of ``total`` split over ``parts`` as evenly as whole numbers go."""
    return total // parts + (1 if index < total % parts else 0)


def _listen_overflows() -> int:
    """The kernel's count of connections dropped on a full accept queue (TcpExt ListenOverflows, every socket)."""
    try:
        names, values = [line.split() for line in Path("/proc/net/netstat").read_text().splitlines()
                         if line.startswith("TcpExt:")][:2]
        return int(values[names.index("ListenOverflows")])
    except (OSError, ValueError):
        return 0


def _why(counts: dict[str, int]) -> str:
    """Why connects failed: ": 12 timed out, 3 ECONNREFUSED" (empty when none did)."""
    reasons = [f"{n} {key.removeprefix('connect ')}" for key, n in sorted(counts.items()) if key.startswith("connect ")]
    return f": {', '.join(reasons)}" if reasons else ""


def _load() -> str:
    """The machine's one-minute load average now."""
    return f"{os.getloadavg()[0]:.1f}"


def _ms(values: list[float], fraction: float) -> str:
    return f"{1000 * percentile(values, fraction):.0f}"


if __name__ == "__main__":
    main()
