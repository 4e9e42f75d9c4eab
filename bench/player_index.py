"""The players' index on the hot path (issue 27): SubmitAction without and with it, and move-to-WatchPlayer latency.

Starts two gRPC service processes on one private Redis with player sessions on: ``before`` with
``TABLETOP_PLAYER_INDEX=false`` (no marks, no drain: what a write cost before the index) and ``after``
with the index on (each write of a player game marks a stream first; the process drains the marks).
Each gets ``--games`` Ticket to Ride games of two players, played in alternating rounds of ``--seconds``
with ``--threads`` client threads (a ListLegalActions per seat until one decides, then a SubmitAction);
printed per process: moves a second and the service's CPU per move (the drain's work included).

Then, on ``after``, every player of ``--watched`` games holds a WatchPlayer stream while all games are
played; for each move that hands the turn to the other player, the time from the SubmitAction's answer
to that player's TURN_STARTED notification is the move-to-WatchPlayer latency (p50, p99).

Usage: ``.venv/bin/python bench/player_index.py [--games 1000] [--seconds 10] [--threads 8] [--rounds 2]``
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

import grpc
from joserfc.jwk import OKPKey
from tabletop.v1 import game_service_pb2 as svc
from tabletop.v1 import game_service_pb2_grpc, player_pb2

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from run import _cpu, _free_port, _private_redis, _wait_grpc  # the platform bench's helpers

API_KEY = "bench-key"
Stub = game_service_pb2_grpc.GameServiceStub
Table = tuple[str, dict[int, str], dict[int, str]]  # name, seat -> bearer token, seat -> player id


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--watched", type=int, default=200)
    args = parser.parse_args()
    key = Path(tempfile.mkdtemp()) / "session.pem"
    key.write_bytes(OKPKey.generate_key("Ed25519").as_pem(private=True))
    redis_url = _private_redis()
    procs = {kind: _serve(redis_url, key, index) for kind, index in (("before", "false"), ("after", "true"))}
    try:
        stubs = {}
        for kind, (proc, port) in procs.items():
            _wait_grpc(f"127.0.0.1:{port}")
            stubs[kind] = game_service_pb2_grpc.GameServiceStub(grpc.insecure_channel(f"127.0.0.1:{port}"))
        tables = {kind: [_by_players(stub, kind, i) for i in range(args.games)] for kind, stub in stubs.items()}
        results: dict[str, list[tuple[float, float]]] = {kind: [] for kind in stubs}
        for _ in range(args.rounds):
            for kind, stub in stubs.items():
                results[kind].append(_round(stub, tables[kind], args, procs[kind][0].pid))
        latencies = _latency(stubs["after"], tables["after"], args)
    finally:
        for proc, _ in procs.values():
            proc.terminate()
            proc.wait(timeout=30)
    print(f"{args.games} player games per process, {args.threads} threads, {args.rounds} rounds of {args.seconds:g} s")
    summary = {}
    for kind, rounds in results.items():
        rate, cpu = statistics.median(r[0] for r in rounds), statistics.median(r[1] for r in rounds)
        summary[kind] = (rate, cpu)
        print(f"{kind:7} moves/s {rate:8.1f}   service CPU per move {cpu * 1000:6.2f} ms")
    print(f"index cost: moves/s {100 * (summary['after'][0] / summary['before'][0] - 1):+.1f}%, "
          f"CPU per move {100 * (summary['after'][1] / summary['before'][1] - 1):+.1f}%")
    if latencies:
        latencies.sort()
        print(f"move-to-WatchPlayer ({len(latencies)} turns, {args.watched * 2} streams open): "
              f"p50 {latencies[len(latencies) // 2] * 1000:.1f} ms, p99 {latencies[int(len(latencies) * 0.99)] * 1000:.1f} ms")


# Helpers

def _serve(redis_url: str, key: Path, index: str) -> tuple[subprocess.Popen[bytes], int]:
    port = _free_port()
    env = {**os.environ, "TABLETOP_REDIS_URL": redis_url, "TABLETOP_METRICS_PORT": "0",
           "TABLETOP_LOG_LEVEL": "WARNING", "TABLETOP_CREATE_PER_MINUTE_PER_ADDRESS": "0",
           "TABLETOP_MAX_OPEN_GAMES_PER_ADDRESS": "0", "TABLETOP_REDIS_SAFETY": "warn",
           "TABLETOP_SESSION_KEY_FILE": str(key), "TABLETOP_API_KEYS": API_KEY,
           "TABLETOP_SESSION_TTL_SECONDS": "86400", "TABLETOP_PLAYER_INDEX": index}
    proc = subprocess.Popen([sys.executable, "-m", "tabletop_server.service", "grpc", "--grpc-port", str(port)],
                            env=env, cwd=ROOT)
    return proc, port


def _by_players(stub: Stub, kind: str, i: int) -> Table:
    ids = {s: f"{kind}-{i}-{s}-{uuid.uuid4().hex[:6]}" for s in (0, 1)}
    tokens = {s: stub.CreatePlayerSession(player_pb2.CreatePlayerSessionRequest(player_id=ids[s]),
                                          metadata=[("x-api-key", API_KEY)]).session.access_token for s in (0, 1)}
    name = stub.CreateGame(svc.CreateGameRequest(ruleset="ttr-europe", seat_count=2),
                           metadata=[("authorization", f"Bearer {tokens[0]}")]).game.name
    stub.JoinGame(svc.JoinGameRequest(name=name, display_name="b"), metadata=[("authorization", f"Bearer {tokens[1]}")])
    return name, tokens, ids


def _round(stub: Stub, games: list[Table], args: argparse.Namespace, pid: int) -> tuple[float, float]:
    """(moves a second, service CPU seconds per move) of one timed round."""
    moves = [0] * args.threads
    deadline = time.monotonic() + args.seconds
    shares = [games[t::args.threads] for t in range(args.threads)]

    def play(t: int) -> None:
        for table in itertools.cycle(shares[t]):
            if time.monotonic() >= deadline:
                return
            moves[t] += _move(stub, table) is not None

    threads = [threading.Thread(target=play, args=(t,)) for t in range(args.threads)]
    cpu, started = _cpu(pid), time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed, used = time.monotonic() - started, _cpu(pid) - cpu
    done = max(1, sum(moves))
    return done / elapsed, used / done


def _move(stub: Stub, table: Table) -> tuple[int, float] | None:
    """One move: (the seat that moved, when its SubmitAction was answered), None when the game is over."""
    name, tokens, _ = table
    for seat, token in tokens.items():
        metadata = [("authorization", f"Bearer {token}")]
        actions = stub.ListLegalActions(svc.ListLegalActionsRequest(name=name), metadata=metadata).actions
        if actions:
            stub.SubmitAction(svc.SubmitActionRequest(name=name, action=actions[0], request_id=uuid.uuid4().hex),
                              metadata=metadata)
            return seat, time.monotonic()
    return None


def _latency(stub: Stub, games: list[Table], args: argparse.Namespace) -> list[float]:
    """Move-to-WatchPlayer: each watched game's players watch; the games are played one move at a time
    by ``--threads`` threads; a TURN_STARTED for the seat that did not move closes the measurement."""
    watched = games[:args.watched]
    arrived: dict[tuple[str, str], list[float]] = {}  # (player, game) -> arrival times of TURN_STARTED
    lock = threading.Lock()
    calls = []

    def listen(player: str, token: str) -> None:
        call = stub.WatchPlayer(player_pb2.WatchPlayerRequest(), metadata=[("authorization", f"Bearer {token}")])
        calls.append(call)
        try:
            for reply in call:
                if reply.notification.kind == player_pb2.NOTIFICATION_KIND_TURN_STARTED:
                    with lock:
                        arrived.setdefault((player, reply.notification.game), []).append(time.monotonic())
        except grpc.RpcError:
            return

    for name, tokens, ids in watched:
        for seat in tokens:
            threading.Thread(target=listen, args=(ids[seat], tokens[seat]), daemon=True).start()
    time.sleep(2.0)
    sent: list[tuple[str, str, float]] = []  # (player told, game, answered at)
    deadline = time.monotonic() + args.seconds
    shares = [watched[t::args.threads] for t in range(args.threads)]

    def play(t: int) -> None:
        for table in itertools.cycle(shares[t]):
            if time.monotonic() >= deadline:
                return
            before = {s: _legal(stub, table, s) for s in table[1]}
            moved = _move(stub, table)
            if moved is None:
                continue
            after = {s: _legal(stub, table, s) for s in table[1]}
            for seat in table[1]:
                if after[seat] and not before[seat]:  # a new turn for this seat
                    with lock:
                        sent.append((table[2][seat], table[0], moved[1]))

    threads = [threading.Thread(target=play, args=(t,)) for t in range(args.threads)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    time.sleep(2.0)
    for call in calls:
        call.cancel()
    out = []
    for player, game, at in sent:
        later = [t for t in arrived.get((player, game), []) if t >= at - 0.02]  # not an earlier turn's
        if later:
            out.append(max(0.0, min(later) - at))
    return out


def _legal(stub: Stub, table: Table, seat: int) -> bool:
    metadata = [("authorization", f"Bearer {table[1][seat]}")]
    return bool(stub.ListLegalActions(svc.ListLegalActionsRequest(name=table[0]), metadata=metadata).actions)


if __name__ == "__main__":
    main()
