"""Players' credentials on the hot path (issue 27): SubmitAction with seat tokens and with player JWTs, side by side.

Starts one gRPC service process on a private Redis with player sessions on (an Ed25519 key, an API
key), creates ``--games`` Ticket to Ride games of two seats twice: anonymous (one seat token per
seat) and by players (a Tabletop session per player: seat 0 by its creator, seat 1 joined). Then
plays them in alternating rounds of ``--seconds`` with ``--threads`` client threads, each move a
ListLegalActions per seat until one decides and a SubmitAction with a request id, and prints per
credential kind the moves a second and the service's CPU per move (every call of the move: the
JWT's Ed25519 check on each, and a player's first request id read twice).

Usage: ``.venv/bin/python bench/players.py [--games 200] [--seconds 10] [--threads 8] [--rounds 2]``
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
Table = tuple[str, dict[int, str]]  # a game's name and each seat's bearer credential


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    key = Path(tempfile.mkdtemp()) / "session.pem"
    key.write_bytes(OKPKey.generate_key("Ed25519").as_pem(private=True))
    port = _free_port()
    env = {**os.environ, "TABLETOP_REDIS_URL": _private_redis(), "TABLETOP_METRICS_PORT": "0",
           "TABLETOP_LOG_LEVEL": "WARNING", "TABLETOP_CREATE_PER_MINUTE_PER_ADDRESS": "0",
           "TABLETOP_MAX_OPEN_GAMES_PER_ADDRESS": "0", "TABLETOP_REDIS_SAFETY": "warn",
           "TABLETOP_SESSION_KEY_FILE": str(key), "TABLETOP_API_KEYS": API_KEY,
           "TABLETOP_SESSION_TTL_SECONDS": "86400"}
    proc = subprocess.Popen([sys.executable, "-m", "tabletop_server.service", "grpc", "--grpc-port", str(port)],
                            env=env, cwd=ROOT)
    try:
        _wait_grpc(f"127.0.0.1:{port}")
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            stub = game_service_pb2_grpc.GameServiceStub(channel)
            tables = {"seat tokens": [_anonymous(stub, i) for i in range(args.games)],
                      "player JWTs": [_by_players(stub, i) for i in range(args.games)]}
            results: dict[str, list[tuple[float, float]]] = {kind: [] for kind in tables}
            for _ in range(args.rounds):
                for kind, games in tables.items():
                    results[kind].append(_round(stub, games, args, proc.pid))
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    print(f"{args.games} games per kind, {args.threads} threads, {args.rounds} rounds of {args.seconds:g} s")
    for kind, rounds in results.items():
        rate, cpu = statistics.median(r[0] for r in rounds), statistics.median(r[1] for r in rounds)
        print(f"{kind:12}  moves/s {rate:8.1f}   service CPU per move {cpu * 1000:6.2f} ms")


# Helpers

def _anonymous(stub: game_service_pb2_grpc.GameServiceStub, i: int) -> Table:
    reply = stub.CreateGame(svc.CreateGameRequest(ruleset="ttr-europe", seat_count=2, display_names=["a", "b"]),
                            metadata=[("x-api-key", API_KEY)])
    return reply.game.name, {c.seat: c.player_token for c in reply.credentials}


def _by_players(stub: game_service_pb2_grpc.GameServiceStub, i: int) -> Table:
    tokens = [stub.CreatePlayerSession(player_pb2.CreatePlayerSessionRequest(player_id=f"bench-{i}-{s}"),
                                       metadata=[("x-api-key", API_KEY)]).session.access_token for s in (0, 1)]
    name = stub.CreateGame(svc.CreateGameRequest(ruleset="ttr-europe", seat_count=2),
                           metadata=[("authorization", f"Bearer {tokens[0]}")]).game.name
    stub.JoinGame(svc.JoinGameRequest(name=name, display_name="b"), metadata=[("authorization", f"Bearer {tokens[1]}")])
    return name, {0: tokens[0], 1: tokens[1]}


def _round(stub: game_service_pb2_grpc.GameServiceStub, games: list[Table], args: argparse.Namespace,
           pid: int) -> tuple[float, float]:
    """(moves a second, service CPU seconds per move) of one timed round."""
    moves = [0] * args.threads
    deadline = time.monotonic() + args.seconds
    shares = [games[t::args.threads] for t in range(args.threads)]

    def play(t: int) -> None:
        for name, seats in itertools.cycle(shares[t]):
            if time.monotonic() >= deadline:
                return
            moves[t] += _move(stub, name, seats)

    threads = [threading.Thread(target=play, args=(t,)) for t in range(args.threads)]
    cpu, started = _cpu(pid), time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed, used = time.monotonic() - started, _cpu(pid) - cpu
    done = max(1, sum(moves))
    return done / elapsed, used / done


def _move(stub: game_service_pb2_grpc.GameServiceStub, name: str, seats: dict[int, str]) -> int:
    for token in seats.values():
        metadata = [("authorization", f"Bearer {token}")]
        actions = stub.ListLegalActions(svc.ListLegalActionsRequest(name=name), metadata=metadata).actions
        if actions:
            stub.SubmitAction(svc.SubmitActionRequest(name=name, action=actions[0], request_id=uuid.uuid4().hex),
                              metadata=metadata)
            return 1
    return 0  # the game is over


if __name__ == "__main__":
    main()
