"""``tabletop serve --workers 2`` (issue 29): two processes on the same gRPC and HTTP ports (SO_REUSEPORT),
one embedded Redis started once for both, a worker killed is replaced, and SIGTERM drains every worker."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import grpc
import requests
from tabletop.v1 import game_service_pb2 as svc
from tabletop.v1 import game_service_pb2_grpc

from bench.http_load import free_port
from tests.helpers import bearer, create_game, deciding_seat

STARTED = re.compile(r"worker (\d) started \(pid (\d+)\)")


def test_two_workers_share_the_ports_and_one_redis_and_a_dead_worker_is_replaced(tmp_path: Path) -> None:
    grpc_port, http_port, metrics_port = free_port(), free_port(), free_port()
    log = tmp_path / "serve.log"
    env = {**os.environ, "TABLETOP_DATA_DIR": str(tmp_path / "data"), "TABLETOP_LOG_FORMAT": "text",
           "TABLETOP_SHUTDOWN_GRACE_SECONDS": "3", "TABLETOP_METRICS_PORT": str(metrics_port)}
    env.pop("TABLETOP_REDIS_URL", None)  # the embedded Redis: started once, by the supervisor
    with log.open("wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "tabletop_server.service", "serve", "--workers", "2",
                                 "--grpc-port", str(grpc_port), "--http-port", str(http_port)],
                                env=env, stderr=out, stdout=out)
    try:
        pids = _wait_for_workers(log, metrics_port, {0, 1})
        redis_servers = subprocess.run(["pgrep", "-f", str(tmp_path / "data")], check=False, capture_output=True, text=True)
        assert len(redis_servers.stdout.split()) == 1, redis_servers.stdout  # one embedded Redis for both
        served = _play_over_many_connections(grpc_port, http_port)
        assert all(_rpcs(metrics_port + i) > 0 for i in (0, 1)), "both workers took connections"
        assert served >= 16
        os.kill(pids[0], signal.SIGKILL)
        replaced = _wait_for_workers(log, metrics_port, {0}, after=pids[0])
        assert replaced[0] != pids[0]
        _play_over_many_connections(grpc_port, http_port, games=2)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0
        for pid in (replaced[0], pids[1]):
            assert not _alive(pid), f"worker {pid} outlived the supervisor"
        assert not subprocess.run(["pgrep", "-f", str(tmp_path / "data")], check=False, capture_output=True).stdout
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    text = log.read_text()
    assert text.count("shutting down: draining") >= 2, text[-2000:]  # each worker drained


# Helpers

def _wait_for_workers(log: Path, metrics_port: int, slots: set[int], after: int = 0) -> dict[int, int]:
    """The pid of each slot's newest worker (not ``after``), once its metrics port answers."""
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        pids = {int(slot): int(pid) for slot, pid in STARTED.findall(log.read_text())}
        if slots <= set(pids) and all(pids[s] != after for s in slots) and all(_rpcs(metrics_port + s) >= 0
                                                                                  for s in slots):
            return pids
        time.sleep(0.2)
    raise AssertionError(f"workers {slots} not up: {log.read_text()[-3000:]}")


def _play_over_many_connections(grpc_port: int, http_port: int, games: int = 8) -> int:
    """Games made and moved over new connections each (the kernel spreads them over the workers)."""
    calls = 0
    for _ in range(games):
        with grpc.insecure_channel(f"127.0.0.1:{grpc_port}") as channel:
            stub = game_service_pb2_grpc.GameServiceStub(channel)
            game, tokens = create_game(stub, seats=2, seed=None)
        with grpc.insecure_channel(f"127.0.0.1:{grpc_port}") as channel:  # another connection, maybe a worker
            stub = game_service_pb2_grpc.GameServiceStub(channel)
            seat, actions = deciding_seat(stub, game.name, tokens)
            reply = stub.SubmitAction(svc.SubmitActionRequest(name=game.name, action=actions[0]),
                                      metadata=bearer(tokens[seat]))
        assert reply.version == 2
        assert requests.get(f"http://127.0.0.1:{http_port}/v1/{game.name}", timeout=10).json()["game"]["version"] == "2"
        calls += 2
    return calls


def _rpcs(port: int) -> float:
    """The worker's count of RPCs (-1 while its metrics port does not answer)."""
    try:
        text = requests.get(f"http://127.0.0.1:{port}/metrics", timeout=2).text
    except requests.RequestException:
        return -1
    return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines() if line.startswith("tabletop_rpcs_total{"))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}/stat").exists() and Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
