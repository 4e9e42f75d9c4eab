"""The embedded Redis of ``tabletop serve``: durable, supervised, stopped with the service.

Real ``python -m tabletop_server.service serve`` processes with no ``TABLETOP_REDIS_URL``. Its redis-server
is SIGKILLed during play from several client processes (``tests/ops/player.py``); the
supervisor restarts it on its append-only file, and every acknowledged action is found
afterwards, for ``appendfsync everysec`` and ``always``. Stopping ``serve`` (SIGTERM or
SIGINT) with a gRPC or SSE watch open leaves no redis-server behind.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from tabletop.v1 import game_service_pb2 as svc
from tabletop.v1 import game_service_pb2_grpc

from tabletop_server.service.store import embedded
from tests.helpers import bearer, create_game
from tests.ops.cluster import free_port

ROOT = Path(__file__).resolve().parents[2]
SERVING = health_pb2.HealthCheckResponse.SERVING


@dataclass
class Serve:
    """A ``tabletop serve`` process on an embedded Redis in ``data_dir``."""

    proc: subprocess.Popen[bytes]
    data_dir: Path
    grpc_port: int
    http_port: int
    log: Path

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.grpc_port}"

    def redis_pid(self) -> int:
        return int((self.data_dir / "redis.pid").read_text())

    def healthy(self) -> bool:
        try:
            with grpc.insecure_channel(self.target) as channel:
                reply = health_pb2_grpc.HealthStub(channel).Check(
                    health_pb2.HealthCheckRequest(service="tabletop.v1.GameService"), timeout=1)
            return bool(reply.status == SERVING)
        except grpc.RpcError:
            return False


def start_serve(data_dir: Path, **env: str) -> Serve:
    grpc_port, http_port = free_port(), free_port()
    environ = {k: v for k, v in os.environ.items() if k != "TABLETOP_REDIS_URL"}
    environ.update(TABLETOP_DATA_DIR=str(data_dir), TABLETOP_LOG_FORMAT="text", TABLETOP_METRICS_PORT="0", **env)
    log = data_dir.parent / f"serve-{grpc_port}.log"
    with log.open("wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "tabletop_server.service", "serve", "--grpc-port", str(grpc_port),
                                 "--http-port", str(http_port)], cwd=ROOT, env=environ,
                                stdout=out, stderr=subprocess.STDOUT)
    serve = Serve(proc, data_dir, grpc_port, http_port, log)
    try:  # generous: on a loaded 2-core machine the REST facade alone has taken 2 minutes to start
        _until(lambda: serve.healthy() and _http(serve, "/readyz") == 200, 180, serve)
    except AssertionError:
        proc.kill()  # not yet in the fixture's list: stop it here, its Redis goes with its next start
        proc.wait(10)
        raise
    return serve


@pytest.fixture
def serves(tmp_path: Path) -> Iterator[list[Serve]]:
    started: list[Serve] = []
    yield started
    for serve in started:
        if serve.proc.poll() is None:
            serve.proc.kill()
            serve.proc.wait(10)
        try:
            os.kill(serve.redis_pid(), signal.SIGKILL)
        except (OSError, ValueError):
            pass


def test_data_lives_in_a_per_user_state_directory() -> None:
    assert embedded.default_data_dir({"XDG_STATE_HOME": "/x/state"}) == "/x/state/tabletop"
    assert embedded.default_data_dir({"HOME": "/home/u"}).endswith("/.local/state/tabletop")


@pytest.mark.parametrize("fsync", ["everysec", "always"])
def test_kill_9_of_its_redis_loses_no_acknowledged_action(fsync: str, tmp_path: Path,
                                                         serves: list[Serve]) -> None:
    serve = start_serve(tmp_path / "data", TABLETOP_EMBEDDED_FSYNC=fsync)
    serves.append(serve)
    assert f"{tmp_path / 'data'}" in serve.log.read_text(), "the data directory is printed at start"
    players = [subprocess.Popen([sys.executable, "-m", "tests.ops.player", serve.target, "2", "25", str(seed)],
                                cwd=ROOT, stdout=subprocess.PIPE) for seed in range(3)]
    recoveries = []
    for _ in range(3):
        time.sleep(1.5)
        pid = serve.redis_pid()
        os.kill(pid, signal.SIGKILL)
        killed = time.monotonic()
        _until(lambda p=pid: _alive_pid(serve) not in (None, p) and serve.healthy()  # type: ignore[misc]
               and _http(serve, "/readyz") == 200, 20, serve)
        recoveries.append(time.monotonic() - killed)
    acked: dict[str, list[int]] = {}
    for player in players:
        out, _ = player.communicate(timeout=180)
        assert player.returncode == 0
        acked.update(json.loads(out))
    with grpc.insecure_channel(serve.target) as channel:
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        found = {name: stub.GetGame(svc.GetGameRequest(name=name)).game.version - 1 for name in acked}
    acknowledged = {name: len(versions) for name, versions in acked.items()}
    print(f"fsync {fsync}: 3 kills, acknowledged {sum(acknowledged.values())} actions, found "
          f"{sum(found.values())}; serving again after {', '.join(f'{r:.1f}' for r in recoveries)} s")
    assert found == acknowledged
    assert sum(acknowledged.values()) >= 100  # play went on across the kills
    assert max(recoveries) < 10


@pytest.mark.parametrize(("sig", "watch"), [(signal.SIGTERM, "grpc"), (signal.SIGINT, "sse"),
                                            (signal.SIGTERM, "sse"), (signal.SIGINT, "grpc")])
def test_serve_stops_its_redis_with_a_watch_open(sig: int, watch: str, tmp_path: Path,
                                                 serves: list[Serve]) -> None:
    serve = start_serve(tmp_path / "data", TABLETOP_SHUTDOWN_GRACE_SECONDS="3")
    serves.append(serve)
    redis_pid = serve.redis_pid()
    with grpc.insecure_channel(serve.target) as channel:
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        game, tokens = create_game(stub, seats=2)
        if watch == "grpc":
            stream = stub.WatchGame(svc.WatchGameRequest(name=game.name), metadata=bearer(tokens[0]))
            assert next(stream).version == 1
        else:
            request = urllib.request.Request(
                f"http://127.0.0.1:{serve.http_port}/v1/{game.name}:watch",
                headers={"Authorization": f"Bearer {tokens[0]}", "Accept": "text/event-stream"})
            stream = urllib.request.urlopen(request, timeout=30)
            assert stream.status == 200
        serve.proc.send_signal(sig)
        serve.proc.wait(30)
    assert not Path(f"/proc/{redis_pid}").exists() or b"redis" not in _cmdline(redis_pid), \
        f"redis-server {redis_pid} outlived serve:\n{serve.log.read_text()[-2000:]}"


# Helpers

def _alive_pid(serve: Serve) -> int | None:
    try:
        pid = serve.redis_pid()
    except (OSError, ValueError):
        return None
    return pid if Path(f"/proc/{pid}").exists() else None


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def _http(serve: Serve, path: str) -> int:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{serve.http_port}{path}", timeout=2) as reply:
            return int(reply.status)
    except urllib.error.HTTPError as err:
        return int(err.code)
    except OSError:
        return 0


def _until(ready, timeout: float, serve: Serve) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not ready():
        if serve.proc.poll() is not None or time.monotonic() > deadline:
            raise AssertionError(f"serve did not get there:\n{serve.log.read_text()[-3000:]}")
        time.sleep(0.1)


def test_backup_reads_the_running_embedded_redis(tmp_path: Path, serves: list[Serve]) -> None:
    serve = start_serve(tmp_path / "data")
    serves.append(serve)
    with grpc.insecure_channel(serve.target) as channel:
        create_game(game_service_pb2_grpc.GameServiceStub(channel), seats=2)
    environ = {k: v for k, v in os.environ.items() if k != "TABLETOP_REDIS_URL"}
    done = subprocess.run([sys.executable, "-m", "tabletop_server.service", "backup", str(tmp_path / "b.jsonl")], check=False,
                          cwd=ROOT, env={**environ, "TABLETOP_DATA_DIR": str(tmp_path / "data")},
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "backed up 1 games" in done.stderr, done.stderr
    assert serve.proc.poll() is None and serve.healthy()  # the service's Redis was used, not stopped


def test_a_killed_serve_leaves_its_data_to_the_next_one(tmp_path: Path, serves: list[Serve]) -> None:
    """kill -9 of serve itself: its redis-server goes with it (parent-death signal; else it is
    stopped by the next serve on the same data), which finds every game; a second serve on data in use refuses to start."""
    first = start_serve(tmp_path / "data")
    serves.append(first)
    with grpc.insecure_channel(first.target) as channel:
        game, _ = create_game(game_service_pb2_grpc.GameServiceStub(channel), seats=2)
    second = subprocess.run([sys.executable, "-m", "tabletop_server.service", "grpc", "--grpc-port", str(free_port())], cwd=ROOT,
                            env={**{k: v for k, v in os.environ.items() if k != "TABLETOP_REDIS_URL"},
                                 "TABLETOP_DATA_DIR": str(tmp_path / "data"), "TABLETOP_METRICS_PORT": "0"},
                            capture_output=True, text=True, timeout=60, check=False)
    assert second.returncode != 0 and "Another tabletop process uses" in second.stderr
    leftover = first.redis_pid()
    first.proc.kill()
    first.proc.wait(10)
    if shutil.which("setpriv"):  # the parent-death signal: its redis-server goes with it, at once
        deadline = time.monotonic() + 10
        while b"redis" in _cmdline(leftover):
            assert time.monotonic() < deadline, "the killed serve's redis-server is still running"
            time.sleep(0.05)
    again = start_serve(tmp_path / "data")
    serves.append(again)
    assert again.redis_pid() != leftover and b"redis" not in _cmdline(leftover)
    with grpc.insecure_channel(again.target) as channel:
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        assert stub.GetGame(svc.GetGameRequest(name=game.name)).game.version == 1
