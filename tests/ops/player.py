"""A client process for the fault tests: plays games through gRPC and reports what was acknowledged.

``python -m tests.ops.player TARGET GAMES ACTIONS SEED`` creates GAMES two-seat games and
submits ACTIONS random legal actions to each, round robin. Every action has its own
request id and is retried with it through UNAVAILABLE (Redis down, restarting, loading)
until acknowledged, so nothing is applied twice and each acknowledgement is counted once.
Prints one JSON object: ``{game name: [acknowledged version, ...]}``.
"""

from __future__ import annotations

import json
import random
import sys
import time
import uuid

import grpc
from tabletop.v1 import game_service_pb2 as svc
from tabletop.v1 import game_service_pb2_grpc

from tests.helpers import bearer, create_game, deciding_seat

RETRYABLE = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.ABORTED)


def retried(call, deadline: float):  # type: ignore[no-untyped-def]
    """``call()`` until it does not fail with a retryable status (or the deadline passes)."""
    while True:
        try:
            return call()
        except grpc.RpcError as err:
            if err.code() not in RETRYABLE or time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def main(target: str, games: int, actions: int, seed: int) -> dict[str, list[int]]:
    rng, deadline = random.Random(seed), time.monotonic() + 120
    with grpc.insecure_channel(target) as channel:
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        played = [retried(lambda: create_game(stub, seats=2, seed=rng.randrange(1 << 30)), deadline)
                  for _ in range(games)]
        acked: dict[str, list[int]] = {game.name: [] for game, _ in played}
        for _ in range(actions):
            for game, tokens in played:
                seat, options = retried(lambda g=game, t=tokens: deciding_seat(stub, g.name, t), deadline)
                if seat is None:
                    continue
                request = svc.SubmitActionRequest(name=game.name, action=rng.choice(options),
                                                  request_id=uuid.uuid4().hex)
                reply = retried(lambda r=request, s=seat, t=tokens: stub.SubmitAction(
                    r, metadata=bearer(t[s]), timeout=5), deadline)
                acked[game.name].append(int(reply.game.version))
    return acked


if __name__ == "__main__":
    target, games, actions, seed = sys.argv[1], *map(int, sys.argv[2:5])
    print(json.dumps(main(target, games, actions, seed)))
