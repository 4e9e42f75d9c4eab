"""The service's own share of a SubmitAction's CPU (issue 29), without gRPC's ingress, steady enough to
compare one change.

``bench/run.py`` measures a whole call against the storage floor, but on a shared machine its CPU
figures move by 20% from one round to the next. This calls the wrapped SubmitAction handler (every
interceptor layer, the host, the store, the answer) in this process, on the server's own loop, as the
REST facade in ``serve`` does (``rest/local.py``), one call at a time against a private redis-server,
and counts the loop thread's CPU time per call (``time.thread_time``: time the machine's other
processes take is not counted). The Redis round trip's system time is in it; gRPC's C core, its poller
and HTTP/2 are not.

Usage: ``.venv/bin/python bench/handler_cpu.py [--actions 3000] [--rounds 5]``: prints each round's
microseconds per action and their median and minimum (the minimum is the steadiest under load).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from tabletop.v1 import game_service_pb2 as svc

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import run as base
from tabletop_server.rest.local import LocalContext
from tabletop_server.service.api.server import create_server
from tabletop_server.service.config import from_env

SUBMIT, CREATE = "/tabletop.v1.GameService/SubmitAction", "/tabletop.v1.GameService/CreateGame"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actions", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    redis_url = base._private_redis()
    scripts = base._prepare("ttr-europe", 20)
    config = from_env(redis_url=redis_url, redis_safety="warn", create_per_minute_per_address=0,
                      max_open_games_per_address=0, log_level="WARNING")
    running = create_server(config, host="127.0.0.1", port=0)
    try:
        per_round = [running.call(_round(running.handlers, scripts, args.actions), timeout=600)
                     for _ in range(args.rounds)]
    finally:
        running.stop(0)
    print(f"SubmitAction in-process handler CPU per action, us (ttr-europe, the document cache on): "
          f"rounds {' '.join(f'{r:.1f}' for r in per_round)}; median {statistics.median(per_round):.1f}, "
          f"min {min(per_round):.1f}; load average {os.getloadavg()[0]:.1f}")


# Helpers

async def _round(handlers: dict[str, Any], scripts: Any, actions: int) -> float:
    submit, create = handlers[SUBMIT], handlers[CREATE]
    spent, done = 0.0, 0
    while done < actions:
        for seed, steps in scripts:
            reply = svc.CreateGameResponse.FromString(await _call(create, svc.CreateGameRequest(
                ruleset="ttr-europe", seat_count=3, seed=seed, display_names=["a", "b", "c"]), ()))
            metas = {c.seat: (("authorization", f"Bearer {c.player_token}"),) for c in reply.credentials}
            for seat, action in steps:
                raw = svc.SubmitActionRequest(name=reply.game.name, action=action).SerializeToString()
                started = time.thread_time()
                await submit.unary_unary(raw, LocalContext(metas[seat]))
                spent += time.thread_time() - started
                done += 1
                if done >= actions:
                    return spent / done * 1e6
    return spent / done * 1e6


async def _call(handler: Any, request: Any, metadata: Any) -> bytes:
    result = await handler.unary_unary(request.SerializeToString(), LocalContext(metadata))
    return result if isinstance(result, bytes) else handler.response_serializer(result)


if __name__ == "__main__":
    asyncio.set_event_loop_policy(None)
    main()
