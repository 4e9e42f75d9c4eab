"""Quick play across real replica processes, one killed mid-run and one started again (issue 28's proof,
slow tier).

Three ``python -m tabletop_server.service grpc`` processes share one Redis. 2,000 signed-in players file
tickets over three queues (Ticket to Ride, BANG!, BANG! with the Sheriff's extra card; mixed seat ranges)
through ``FindGame`` over gRPC, spread over the live replicas while every replica's matcher races over
the queues. A third of the way in one replica is SIGKILLed (holding whatever queue leases it held); two
thirds in a new replica starts on the same Redis (a restart forgets no ticket: it matches what the others
left). A call that the kill broke is sent again to another replica. Once nothing left waiting can make a
table, everything is counted from Redis: every ticket (every one in Redis, and every one a call answered)
is seated exactly once or still waiting, every seating was created, no game holds a player twice, no seat
is given twice, and every seat of a game is a ticket's. Prints the figures (time to match p50/p99 from the
tickets' own times).
"""

from __future__ import annotations

import asyncio
import itertools
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import grpc
import orjson
import pytest
import redis
from joserfc import jwt
from joserfc.jwk import OKPKey
from tabletop.v1 import bang_pb2, game_pb2, game_service_pb2_grpc, matchmaking_pb2

from tabletop_server.service.api.matcher import plan_table
from tests.jwks import session_key_pem
from tests.service.webhook_kit import private_redis

TICKETS = 2000
KILL_AT, RESTART_AT = TICKETS // 3, 2 * TICKETS // 3  # tickets answered before the kill, and the new replica
CONCURRENCY = 12
BANG_EXTRA = game_pb2.GameOptions(bang=bang_pb2.BangOptions(sheriff_extra_card=True))
# (ruleset, options, min, max): full tables start at once, the ranges' leftovers at their minimum after 1 s
MIX = [("ttr-europe", None, 2, 2), ("ttr-europe", None, 3, 5), ("bang", None, 4, 4), ("bang", None, 5, 7),
       ("bang", BANG_EXTRA, 4, 5), ("ttr-europe", None, 2, 4)]
LISTENING = re.compile(r"gRPC service listening on port (\d+)")


class Replica:
    """One service process; it binds port 0 and its log says which port it got."""

    def __init__(self, env: dict[str, str], log: Path) -> None:
        self.log = log
        with open(log, "a") as out:
            self.proc = subprocess.Popen([sys.executable, "-m", "tabletop_server.service", "grpc", "--grpc-port", "0"],
                                         env=env, stderr=out, stdout=subprocess.DEVNULL)
        self.target = ""

    def wait_ready(self, bound: float = 90.0) -> Replica:
        deadline = time.monotonic() + bound
        while not (found := LISTENING.search(self.log.read_text())):
            assert self.proc.poll() is None, f"replica exited: {self.log.read_text()[-2000:]}"
            assert time.monotonic() < deadline, f"replica not listening after {bound} s"
            time.sleep(0.05)
        self.target = f"127.0.0.1:{found.group(1)}"
        return self

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_two_thousand_tickets_over_grpc_replicas_one_killed_one_restarted(tmp_path: Path) -> None:
    key = tmp_path / "session.pem"
    key.write_bytes(session_key_pem())
    with private_redis(tmp_path) as url:  # no other test's matcher seats these queues
        settings = {"redis_url": url, "metrics_port": "0", "redis_safety": "warn", "timer_poll_seconds": "0.05",
                    "timer_lease_seconds": "2", "player_index": "false", "bot_delay_seconds": "3600",
                    "match_start_at_min_seconds": "1", "session_key_file": str(key),
                    "create_per_minute_per_address": "0", "max_open_games_per_address": "0"}
        env = {**os.environ, **{f"TABLETOP_{k.upper()}": v for k, v in settings.items()}}
        replicas = [Replica(env, tmp_path / f"replica-{i}.log") for i in range(3)]
        try:
            for replica in replicas:
                replica.wait_ready()
            started = time.monotonic()
            names, retried = asyncio.run(_produce(replicas, env, tmp_path, OKPKey.import_key(key.read_bytes())))
            produced = time.monotonic() - started
            assert replicas[0].proc.poll() is not None and replicas[3].proc.poll() is None
            counted = _settled(url)
        finally:
            for replica in replicas:
                replica.kill()
    _check(counted, names, produced, retried)


async def _produce(replicas: list[Replica], env: dict[str, str], tmp_path: Path,
                   key: OKPKey) -> tuple[list[str], int]:
    """File every ticket over gRPC, killing replica 0 at KILL_AT answers and starting replica 3 at RESTART_AT."""
    live = [r.target for r in replicas]
    channels = {t: grpc.aio.insecure_channel(t) for t in live}
    names: list[str] = []
    retried = 0
    todo = iter(range(TICKETS))
    turn = itertools.count()

    async def file_one(i: int) -> str:
        nonlocal retried
        ruleset, options, low, high = MIX[i % len(MIX)]
        request = matchmaking_pb2.FindGameRequest(ruleset=ruleset, options=options, min_seats=low, max_seats=high)
        auth = [("authorization", f"Bearer {_token(key, f'q{i}')}")]
        for attempt in range(20):
            target = live[next(turn) % len(live)]
            try:
                reply = await game_service_pb2_grpc.GameServiceStub(channels[target]).FindGame(
                    request, metadata=auth, timeout=30)
                return str(reply.ticket.name)
            except grpc.aio.AioRpcError as err:
                # A call the kill broke may end UNAVAILABLE, CANCELLED or UNKNOWN ("Stream removed"): any error
                # of the killed replica's is a broken call; from a live one only UNAVAILABLE is.
                if (target in live and err.code() != grpc.StatusCode.UNAVAILABLE) or attempt == 19:
                    raise
                retried += 1  # ask another replica (the same ticket if it still waits)
                await asyncio.sleep(0.05)
        raise AssertionError("unreachable")

    async def worker() -> None:
        for i in todo:
            names.append(await file_one(i))
            if len(names) == KILL_AT:
                replicas[0].kill()  # mid-run, holding whatever queue leases it held
                live.remove(replicas[0].target)
            elif len(names) == RESTART_AT:
                fresh = await asyncio.to_thread(lambda: Replica(env, tmp_path / "replica-3.log").wait_ready())
                replicas.append(fresh)
                channels[fresh.target] = grpc.aio.insecure_channel(fresh.target)
                live.append(fresh.target)

    try:
        await asyncio.gather(*(worker() for _ in range(CONCURRENCY)))
    finally:
        for channel in channels.values():
            await channel.close()
    return names, retried


def _settled(url: str, bound: float = 120.0) -> dict[str, Any]:
    """Redis's tickets and games once every seating is created and nothing waiting can make a table.

    The count reads many keys one after another, not at one instant: a matcher seating a table between its
    reads of the tickets and of the waiting sets gives a count that looks settled but is half before and half
    after. So it is taken again until two counts in a row agree (and each is settled)."""
    own = redis.Redis.from_url(url)
    deadline = time.monotonic() + bound
    last: dict[str, Any] | None = None
    try:
        while True:
            counted = _count(own)
            if counted["unmade"] == 0 and not any(_table_left(q) for q in counted["waiting"].values()):
                if counted == last:
                    return counted
                last = counted
                time.sleep(0.5)
                continue
            last = None
            assert time.monotonic() < deadline, f"still matching after {bound} s: {counted['unmade']} unmade"
            time.sleep(0.2)
    finally:
        own.close()


def _count(own: redis.Redis) -> dict[str, Any]:
    tickets: dict[str, dict[str, Any]] = {}
    waiting: dict[str, list[dict[str, Any]]] = {}
    unmade = 0
    for key in own.scan_iter(match="{mq:*}:t:*", count=1000):
        raw = own.get(key)
        if raw:
            ticket = orjson.loads(raw)
            tickets[f"tickets/{ticket['queue']}.{ticket['id']}"] = ticket
    for key in own.scan_iter(match="{mq:*}:waiting", count=1000):
        queue = key.decode()[4:].split("}")[0]
        ids = [i.decode() for i in own.zrange(key, 0, -1)]
        waiting[queue] = [tickets.get(f"tickets/{queue}.{i}", {"id": i, "missing": True}) for i in ids]
        unmade += int(own.hlen(f"{{mq:{queue}}}:games"))
    docs = {}
    for key in own.scan_iter(match="{g:*}", count=1000):
        name = key.decode()
        if name.endswith("}") and (raw := own.hget(key, "doc")):
            docs[name[3:-1]] = orjson.loads(raw)
    return {"tickets": tickets, "waiting": waiting, "unmade": unmade, "docs": docs}


def _table_left(waiting: list[dict[str, Any]]) -> bool:
    """Could the matcher still seat some of these (seen from far in the future: every wait is over)?"""
    later = time.time() + 3600
    return any(plan_table(t, waiting, later, 1.0)[1] for t in waiting if "missing" not in t)


def _check(counted: dict[str, Any], names: list[str], produced: float, retried: int) -> None:
    tickets, docs = counted["tickets"], counted["docs"]
    assert len(names) == TICKETS and set(names) <= set(tickets), "an answered ticket is not in Redis"
    in_queue = {f"tickets/{t['queue']}.{t['id']}" for q in counted["waiting"].values() for t in q}
    seated = {n: t for n, t in tickets.items() if t["state"] == "SEATED"}
    waiting = {n: t for n, t in tickets.items() if t["state"] == "WAITING"}
    assert set(seated) | set(waiting) == set(tickets), "a ticket neither seated nor waiting"
    assert in_queue == set(waiting), "the waiting set and the waiting tickets differ"
    by_game: dict[str, list[dict[str, Any]]] = {}
    for t in seated.values():
        by_game.setdefault(t["game"], []).append(t)
    assert set(by_game) == set(docs), "a game nobody was seated in, or a seating never created"
    for game, group in by_game.items():
        seats = docs[game]["seats"]
        players = [s["player"] for s in seats if s.get("player")]
        assert len(players) == len(set(players)), f"a player twice in {game}"
        assert len({t["seat"] for t in group}) == len(group), f"a seat given twice in {game}"
        assert sorted(players) == sorted(t["player"] for t in group), f"a seat of {game} is no ticket's"
        assert all(seats[t["seat"]].get("player") == t["player"] for t in group)
    bound_seats = sum(len([s for s in d["seats"] if s.get("player")]) for d in docs.values())
    assert bound_seats == len(seated), "a ticket seated twice"
    waits = sorted((t["updated"] - t["created"]) / 1000 for t in seated.values())
    print(f"\n{TICKETS} tickets over gRPC, {len({t['queue'] for t in tickets.values()})} queues, 3 replicas, one killed at {KILL_AT} "
          f"and one started at {RESTART_AT} ({retried} calls sent again): {len(tickets)} tickets in Redis, "
          f"{len(seated)} seated in {len(by_game)} games, {len(waiting)} waiting; filed in {produced:.1f} s; time "
          f"to match p50 {statistics.median(waits):.2f} s, p99 {waits[int(len(waits) * 0.99)]:.2f} s")
    assert len(waiting) < 30  # only each queue's tail that makes no table


def _token(key: OKPKey, player: str) -> str:
    """A player session as ``sessions.Sessions`` signs it (the replicas share its key file)."""
    now = int(time.time())
    claims = {"iss": "tabletop", "aud": "tabletop", "sub": player, "name": player, "iat": now, "exp": now + 900}
    return jwt.encode({"alg": "EdDSA", "typ": "JWT", "kid": key.thumbprint()}, claims, key, algorithms=["EdDSA"])
