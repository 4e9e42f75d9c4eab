"""Matchmaking benchmark (issue 28): time to match with 10,000 waiting tickets, and matcher CPU per seated ticket.

Files ``--tickets`` tickets at once (a backlog: all waiting before the matcher starts) over three queues
with mixed seat ranges (Ticket to Ride 2 to 5, BANG! 4 to 7; full tables start at once), then runs one
matcher in process (the ``Matcher`` every replica runs, on a private Redis) until nothing more can be
seated. Prints: tickets seated and games made, the drain's wall time, the time to match of each seated
ticket from the matcher's start (p50/p99: a ticket's wait behind the backlog, oldest first), and the
matcher process's CPU per seated ticket (grouping, the seating script, dealing and writing the game).

Usage: ``.venv/bin/python bench/matchmaking.py [--tickets 10000]``
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

from tabletop.v1 import bang_pb2, game_pb2, matchmaking_pb2

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from run import _private_redis

from tabletop_server.service.api.host import GameHost
from tabletop_server.service.api.identity import Player
from tabletop_server.service.api.matcher import Matcher
from tabletop_server.service.api.quickplay import Quickplay
from tabletop_server.service.config import Config
from tabletop_server.service.store.redis_store import GameStore, connect

MIX = [("ttr-europe", None, 2, 5), ("ttr-europe", None, 2, 2), ("bang", None, 4, 7), ("bang", None, 4, 4),
       ("bang", game_pb2.GameOptions(bang=bang_pb2.BangOptions(sheriff_extra_card=True)), 5, 5)]


async def bench(url: str, count: int) -> None:
    client = connect(url)
    play = Quickplay(client)
    names = []
    for i in range(count):
        ruleset, options, low, high = MIX[i % len(MIX)]
        req = matchmaking_pb2.FindGameRequest(ruleset=ruleset, options=options, min_seats=low, max_seats=high)
        names.append((await play.find(Player(f"b{i}", f"b{i}", "bench"), req)).ticket.name)
    queues = sorted({n.removeprefix("tickets/").split(".")[0] for n in names})
    matcher = Matcher(GameHost(GameStore(client), Config(redis_url=url, player_index=False, bot_delay_seconds=3600)),
                      play.tickets)
    start, cpu = time.time(), time.process_time()
    while True:
        before = sum([await play.tickets.count(q) for q in queues])
        for q in queues:
            await matcher.match(q)
        if sum([await play.tickets.count(q) for q in queues]) == before:
            break
    wall, used = time.time() - start, time.process_time() - cpu
    tickets = [await play.tickets.get(*n.removeprefix("tickets/").split(".")) for n in names]
    seated = [t for t in tickets if t and t["state"] == "SEATED"]
    waits = sorted(t["updated"] / 1000 - start for t in seated)
    games = len({t["game"] for t in seated})
    print(f"{count} waiting tickets, {len(queues)} queues: {len(seated)} seated in {games} games in {wall:.2f} s "
          f"({len(seated) / wall:.0f} tickets/s); time to match from the matcher's start p50 "
          f"{statistics.median(waits):.2f} s, p99 {waits[int(len(waits) * 0.99)]:.2f} s; matcher CPU "
          f"{used / len(seated) * 1000:.2f} ms per seated ticket")
    await client.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tickets", type=int, default=10_000)
    args = parser.parse_args()
    asyncio.run(bench(_private_redis(), args.tickets))


if __name__ == "__main__":
    main()
