"""Move-to-webhook latency (issue 27): from a SubmitAction's answer to the other player's signed
``turn.started`` webhook arriving at the studio's receiver.

Starts ``--replicas`` gRPC service processes on one private Redis with player sessions and one webhook
endpoint: a receiver on loopback in this process (``bench/webhooks.py``: it verifies every signature with
``standardwebhooks``). ``--games`` Ticket to Ride games of two players are created, then played by
``--threads`` client threads for ``--seconds``; for each move that hands the turn to the other player, the
time from the SubmitAction's answer to that player's ``turn.started`` webhook for that game is one sample.
The path measured is the whole one: the move's mark, the player index's drain (``indexer.py``), the
notification, the webhook queue, the dispatcher's claim (``TABLETOP_WEBHOOK_POLL_SECONDS``) and the POST.

``--off`` runs the same without an endpoint, for the webhooks' share of the service CPU per move.

Usage: ``.venv/bin/python bench/webhook_moves.py [--games 1000] [--seconds 10] [--threads 8] [--replicas 2] [--off]``
"""

from __future__ import annotations

import argparse
import base64
import itertools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import grpc
from joserfc.jwk import OKPKey
from tabletop.v1 import game_service_pb2_grpc

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from player_index import API_KEY, Table, _by_players, _legal, _move  # the players' bench's helpers
from run import _cpu, _free_port, _private_redis, _wait_grpc  # the platform bench's helpers
from webhooks import Receiver  # the signature-verifying receiver


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--replicas", type=int, default=2)
    parser.add_argument("--poll", type=float, default=0.25, help="TABLETOP_WEBHOOK_POLL_SECONDS")
    parser.add_argument("--off", action="store_true", help="no webhook endpoint: the same run's cost without them")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp())
    key = folder / "session.pem"
    key.write_bytes(OKPKey.generate_key("Ed25519").as_pem(private=True))
    secret = "whsec_" + base64.b64encode(os.urandom(32)).decode()
    receiver = Receiver(secret)
    endpoints = folder / "webhooks.json"
    endpoints.write_text(json.dumps([{"name": "bench", "url": f"http://127.0.0.1:{receiver.port}/hook",
                                      "secret": secret, "events": ["turn.started"], "max_in_flight": 32,
                                      "rate_per_second": 0}]))
    redis_url = _private_redis()
    env = {**os.environ, "TABLETOP_REDIS_URL": redis_url, "TABLETOP_METRICS_PORT": "0", "TABLETOP_LOG_LEVEL": "WARNING",
           "TABLETOP_CREATE_PER_MINUTE_PER_ADDRESS": "0", "TABLETOP_MAX_OPEN_GAMES_PER_ADDRESS": "0",
           "TABLETOP_REDIS_SAFETY": "warn", "TABLETOP_SESSION_KEY_FILE": str(key), "TABLETOP_API_KEYS": API_KEY,
           "TABLETOP_SESSION_TTL_SECONDS": "86400", "TABLETOP_WEBHOOKS_FILE": str(endpoints),
           "TABLETOP_WEBHOOK_ALLOWED_HOSTS": "127.0.0.1", "TABLETOP_WEBHOOK_ALLOWED_NETWORKS": "127.0.0.0/8",
           "TABLETOP_WEBHOOK_ALLOW_HTTP": "true", "TABLETOP_WEBHOOK_POLL_SECONDS": str(args.poll)}
    if args.off:
        env.pop("TABLETOP_WEBHOOKS_FILE")
    ports = [_free_port() for _ in range(args.replicas)]
    procs = [subprocess.Popen([sys.executable, "-m", "tabletop_server.service", "grpc", "--grpc-port", str(p)],
                              env=env, cwd=ROOT) for p in ports]
    try:
        for port in ports:
            _wait_grpc(f"127.0.0.1:{port}")
        stubs = [game_service_pb2_grpc.GameServiceStub(grpc.insecure_channel(f"127.0.0.1:{p}")) for p in ports]
        started = time.monotonic()
        games = [_by_players(stubs[i % len(stubs)], "wh", i) for i in range(args.games)]
        created = time.monotonic() - started
        time.sleep(2.0)  # the creations' own webhooks (invitations are not subscribed; first turns are) go out
        cpu = _cpu(tuple(p.pid for p in procs))
        sent, moves = _play(stubs, games, args)
        time.sleep(3.0)
        cpu = _cpu(tuple(p.pid for p in procs)) - cpu
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(30)
    lags = _lags(sent, receiver)
    print(f"== Move to webhook: {args.games} active games of two players ({created:.0f} s to create), "
          f"{args.replicas} replica(s), {args.threads} threads, {args.seconds:g} s, poll {args.poll} s ==")
    print(f"moves {moves} ({moves / args.seconds:.0f}/s); turns handed over {len(sent)}, their webhooks "
          f"arrived {len(lags)}; signatures refused {receiver.bad}")
    if lags:
        print(f"move -> webhook p50 {1000 * statistics.median(lags):.0f} ms, "
              f"p99 {1000 * lags[int(len(lags) * 0.99)]:.0f} ms, max {1000 * lags[-1]:.0f} ms")
    print(f"service CPU per move (everything: the move, the index, the webhook) {1000 * cpu / max(moves, 1):.2f} ms")


def _play(stubs: list[game_service_pb2_grpc.GameServiceStub], games: list[Table],
          args: argparse.Namespace) -> tuple[list[tuple[str, str, float]], int]:
    """Play for ``--seconds``: (player told, game, answered at) per turn handed over, and the moves made."""
    sent: list[tuple[str, str, float]] = []
    moves = [0] * args.threads
    lock = threading.Lock()
    deadline = time.monotonic() + args.seconds
    shares = [games[t::args.threads] for t in range(args.threads)]

    def play(t: int) -> None:
        stub = stubs[t % len(stubs)]
        for table in itertools.cycle(shares[t]):
            if time.monotonic() >= deadline:
                return
            before = {s: _legal(stub, table, s) for s in table[1]}
            moved = _move(stub, table)
            if moved is None:
                continue
            moves[t] += 1
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
    return sent, sum(moves)


def _lags(sent: list[tuple[str, str, float]], receiver: Receiver) -> list[float]:
    arrived: dict[tuple[str, str], list[float]] = {}
    for at, body in receiver.events:
        data = body["data"]
        arrived.setdefault((data["player_id"], data["game"]), []).append(at)
    out = []
    for player, game, at in sent:
        later = [t for t in arrived.get((player, game), []) if t >= at - 0.02]  # not an earlier turn's
        if later:
            out.append(max(0.0, min(later) - at))
    return sorted(out)


if __name__ == "__main__":
    main()
