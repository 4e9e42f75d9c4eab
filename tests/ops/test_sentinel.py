"""Redis Sentinel: games played through the real gRPC server survive a real failover.

One primary, one replica and one sentinel (quorum 1, short timeouts) on free loopback
ports. The primary is killed with SIGKILL mid-play; the sentinel promotes the replica;
the service finds the new primary through the sentinel and games continue. With
``redis_wait_replicas=1`` every acknowledged action was on the replica before it was
acknowledged, so every one is found after the failover.
"""

from __future__ import annotations

import random
import tempfile
import time
import uuid
from pathlib import Path

import grpc
import pytest
from tabletop.v1 import game_service_pb2 as svc
from tabletop.v1 import game_service_pb2_grpc

from service.store.sentinel import SentinelUrl
from tests.conftest import start_grpc
from tests.helpers import bearer, create_game, deciding_seat
from tests.ops.cluster import free_port
from tests.ops.test_redis_auth_tls import Server

RETRYABLE = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)


def test_url_form() -> None:
    url = SentinelUrl.parse("redis+sentinel://alice:pw@10.0.0.1:26379,sentinel-b:26380/games?db=2&sentinel_password=sp")
    assert url.sentinels == (("10.0.0.1", 26379), ("sentinel-b", 26380))
    assert (url.master, url.server.username, url.server.password, url.server.db) == ("games", "alice", "pw", 2)
    assert url.sentinel_password == "sp" and url.server.tls is None
    assert SentinelUrl.parse("rediss+sentinel://s:1/m").server.tls is not None
    for bad in ("redis+sentinel://s:1/", "redis+sentinel:///m", "redis+sentinel://s/m"):
        with pytest.raises(ValueError):
            SentinelUrl.parse(bad)


def _sentinel(primary_port: int) -> Server:
    port = free_port()
    conf = Path(tempfile.mkdtemp(prefix="tabletop-sentinel-")) / "sentinel.conf"
    conf.write_text(f"sentinel monitor games 127.0.0.1 {primary_port} 1\n"
                    "sentinel down-after-milliseconds games 500\nsentinel failover-timeout games 3000\n")
    return Server("--sentinel", port=port, conf=str(conf))


def _submit(stub: game_service_pb2_grpc.GameServiceStub, name: str, tokens: dict[int, str],
            rng: random.Random, deadline: float) -> int | None:
    """One random legal action, retried with the same request id until acknowledged; its version."""
    request_id = uuid.uuid4().hex
    request: svc.SubmitActionRequest | None = None
    while time.time() < deadline:
        try:
            if request is None:
                seat, actions = deciding_seat(stub, name, tokens)
                if seat is None:
                    return None
                request = svc.SubmitActionRequest(name=name, action=rng.choice(actions), request_id=request_id)
                token = tokens[seat]
            return int(stub.SubmitAction(request, metadata=bearer(token), timeout=5).game.version)
        except grpc.RpcError as err:
            if err.code() not in RETRYABLE:
                raise
            time.sleep(0.1)
    raise AssertionError("no primary came back in time")


def test_failover_during_play_loses_nothing_acknowledged() -> None:
    primary = Server("--appendonly", "yes")
    replica = Server("--replicaof", "127.0.0.1", str(primary.port))
    sentinel = _sentinel(primary.port)
    while replica.admin.info("replication")["master_link_status"] != "up":
        time.sleep(0.05)
    server = start_grpc(f"redis+sentinel://127.0.0.1:{sentinel.port}/games",
                        redis_wait_replicas=1, redis_wait_timeout_ms=1000)
    rng, acknowledged = random.Random(12), {}
    try:
        with grpc.insecure_channel(server.target) as channel:
            stub = game_service_pb2_grpc.GameServiceStub(channel)
            games = [create_game(stub, seats=2, seed=s) for s in range(3)]
            deadline = time.time() + 60
            for step in range(60):
                if step == 20:
                    primary.proc.kill()  # SIGKILL: no goodbye to anyone
                    primary.proc.wait(10)
                game, tokens = games[step % 3]
                version = _submit(stub, game.name, tokens, rng, deadline)
                if version is not None:
                    acknowledged[game.name] = version
            found = {g.name: stub.GetGame(svc.GetGameRequest(name=g.name)).game.version for g, _ in games}
        role = replica.admin.execute_command("ROLE")[0]
    finally:
        server.running.stop(0)
        for s in (sentinel, replica, primary):
            s.stop()
    print(f"acknowledged versions {acknowledged}, found after failover {found}")
    assert role == b"master"  # the failover really happened
    assert found == acknowledged
    assert sum(found.values()) >= 60  # games went on after it
