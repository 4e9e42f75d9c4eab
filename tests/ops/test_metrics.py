"""Prometheus metrics, scraped over HTTP from the separate metrics port."""

from __future__ import annotations

import asyncio
import random
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from prometheus_client.parser import text_string_to_metric_families
from tabletop.v1 import game_service_pb2 as svc
from tabletop.v1 import game_service_pb2_grpc, matchmaking_pb2, player_pb2

from tabletop_server.service.api.host import GameHost
from tabletop_server.service.api.metrics import Metrics, serve_metrics
from tabletop_server.service.api.observability import HostObserver
from tabletop_server.service.store.redis_store import GameStore, connect
from tests.conftest import GrpcServer, start_grpc
from tests.helpers import bearer, create_game, deciding_seat, play
from tests.jwks import session_key_pem
from tests.ops.cluster import free_port
from tests.service.webhook_kit import private_redis


@pytest.fixture(scope="module")
def server(redis_url: str) -> Iterator[GrpcServer]:
    started = start_grpc(redis_url)
    yield started
    started.running.stop(0)


@pytest.fixture(scope="module")
def metrics_url(server: GrpcServer) -> Iterator[str]:
    http, port = serve_metrics(server.running.metrics, 0, "127.0.0.1")
    yield f"http://127.0.0.1:{port}/metrics"
    http.shutdown()


def scrape(url: str) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    """Every sample of a scrape, keyed by (name, labels)."""
    with urllib.request.urlopen(url, timeout=5) as response:
        assert response.headers["Content-Type"].startswith("text/plain")
        text = response.read().decode()
    return {(s.name, frozenset(s.labels.items())): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def value(samples: dict[tuple[str, frozenset[tuple[str, str]]], float], name: str, **labels: str) -> float:
    return sum(v for (n, ls), v in samples.items() if n == name and set(labels.items()) <= ls)


def test_actions_by_ruleset_result_and_reason_latency_and_replays(server: GrpcServer, metrics_url: str) -> None:
    with grpc.insecure_channel(server.target) as channel:
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        game, tokens = create_game(stub, seats=2, seed=3)
        seat, actions = deciding_seat(stub, game.name, tokens)
        request = svc.SubmitActionRequest(name=game.name, action=actions[0], request_id="m1")
        stub.SubmitAction(request, metadata=bearer(tokens[seat]))
        stub.SubmitAction(request, metadata=bearer(tokens[seat]))  # a retry: replayed
        with pytest.raises(grpc.RpcError):  # seat 0 already chose its tickets: not its decision now
            stub.SubmitAction(svc.SubmitActionRequest(name=game.name, action=actions[0]),
                              metadata=bearer(tokens[seat]))
        play(stub, game.name, tokens, 3, random.Random(2))
    samples = scrape(metrics_url)
    assert value(samples, "tabletop_actions_total", ruleset="ttr-europe", result="applied", reason="OK") >= 4
    assert value(samples, "tabletop_actions_total", ruleset="ttr-europe", result="replayed") >= 1
    rejected = {dict(ls)["reason"] for (n, ls), v in samples.items()
                if n == "tabletop_actions_total" and dict(ls).get("result") == "rejected" and v}
    assert rejected and all(r.isupper() for r in rejected), rejected
    assert value(samples, "tabletop_idempotent_replays_total") >= 1
    assert value(samples, "tabletop_action_duration_seconds_count", ruleset="ttr-europe") >= 6
    assert value(samples, "tabletop_redis_duration_seconds_count", op="write") >= 5
    assert value(samples, "tabletop_redis_duration_seconds_count", op="load") >= 6
    assert value(samples, "tabletop_rpcs_total", method="SubmitAction", code="OK") >= 5


def test_open_watch_streams_gauge_follows_streams(server: GrpcServer, metrics_url: str) -> None:
    with grpc.insecure_channel(server.target) as channel:
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        game, tokens = create_game(stub, seats=2, seed=4)
        base = value(scrape(metrics_url), "tabletop_watch_streams_open")
        calls = [stub.WatchGame(svc.WatchGameRequest(name=game.name), metadata=bearer(tokens[0])) for _ in range(3)]
        for call in calls:
            next(call)
        assert value(scrape(metrics_url), "tabletop_watch_streams_open") == base + 3
        for call in calls:
            call.cancel()
        deadline = time.monotonic() + 5
        while value(scrape(metrics_url), "tabletop_watch_streams_open") != base and time.monotonic() < deadline:
            time.sleep(0.05)
        assert value(scrape(metrics_url), "tabletop_watch_streams_open") == base


class _RacedStore(GameStore):
    """Before its first write, another writer moves the game on: a real lost compare-and-set."""

    raced = False

    async def write(self, game_id, expected, doc, entry, ttl, *args, **kwargs):  # type: ignore[no-untyped-def]
        if expected > 0 and not self.raced:
            self.raced = True
            current = (await self.load(game_id)).doc  # the state as it was: only the version moves
            assert current is not None
            assert (await super().write(game_id, expected, current,
                                        b'{"seat":null,"action":null,"events":[],"time":0}', ttl))[0]
        return await super().write(game_id, expected, doc, entry, ttl, *args, **kwargs)


def test_compare_and_set_conflicts_are_counted(server: GrpcServer, redis_url: str) -> None:
    metrics = Metrics()
    observer = HostObserver(metrics)
    host = GameHost(_RacedStore(connect(redis_url), probe=observer.redis), server.config, observer=observer)
    with grpc.insecure_channel(server.target) as channel:
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        game, tokens = create_game(stub, seats=2, seed=8)
        seat, actions = deciding_seat(stub, game.name, tokens)
    asyncio.run(host.submit(svc.SubmitActionRequest(name=game.name, action=actions[0]), tokens[seat]))
    http, port = serve_metrics(metrics, 0, "127.0.0.1")
    try:
        samples = scrape(f"http://127.0.0.1:{port}/metrics")
    finally:
        http.shutdown()
    assert value(samples, "tabletop_cas_conflicts_total") == 1
    assert value(samples, "tabletop_redis_duration_seconds_count", op="write") == 3  # raced, lost, won


def test_the_service_process_serves_metrics_on_its_metrics_port(redis_url: str) -> None:
    grpc_port, metrics_port = free_port(), free_port()
    env = {"TABLETOP_REDIS_URL": redis_url, "TABLETOP_METRICS_PORT": str(metrics_port), "PATH": "/usr/bin:/bin"}
    proc = subprocess.Popen([sys.executable, "-m", "tabletop_server.service", "grpc", "--grpc-port", str(grpc_port)], env=env,
                            stderr=subprocess.DEVNULL)
    try:
        with grpc.insecure_channel(f"127.0.0.1:{grpc_port}") as channel:
            grpc.channel_ready_future(channel).result(timeout=30)
            stub = game_service_pb2_grpc.GameServiceStub(channel)
            create_game(stub, seats=2)
        samples = _scrape_retrying(f"http://127.0.0.1:{metrics_port}/metrics")
        assert value(samples, "tabletop_rpcs_total", method="CreateGame", code="OK") == 1
        assert ("tabletop_watch_streams_open", frozenset()) in samples
    finally:
        proc.terminate()
        assert proc.wait(30) == 0


def test_metrics_port_zero_disables_the_endpoint(redis_url: str) -> None:
    grpc_port = free_port()
    env = {"TABLETOP_REDIS_URL": redis_url, "TABLETOP_METRICS_PORT": "0", "PATH": "/usr/bin:/bin"}
    proc = subprocess.Popen([sys.executable, "-m", "tabletop_server.service", "grpc", "--grpc-port", str(grpc_port)], env=env,
                            stderr=subprocess.PIPE, text=True)
    try:
        with grpc.insecure_channel(f"127.0.0.1:{grpc_port}") as channel:
            grpc.channel_ready_future(channel).result(timeout=30)
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=30)
    assert "Prometheus metrics on port" not in err and "gRPC service listening" in err


def test_quick_play_series_tickets_waiting_seated_bot_seats_and_time_to_match(tmp_path: Path) -> None:
    key = tmp_path / "session.pem"
    key.write_bytes(session_key_pem())
    with private_redis(tmp_path) as url:  # no other test's matcher seats this one's tickets (and counts them)
        server = start_grpc(url, session_key_file=str(key), guest_sessions=True)
        http, port = serve_metrics(server.running.metrics, 0, "127.0.0.1")
        try:
            with grpc.insecure_channel(server.target) as channel:
                stub = game_service_pb2_grpc.GameServiceStub(channel)
                ann, bob = (stub.CreateGuestSession(player_pb2.CreateGuestSessionRequest(display_name=n),
                                                    timeout=10).session for n in ("ann", "bob"))
                lone = matchmaking_pb2.FindGameRequest(ruleset="ttr-europe", min_seats=2, max_seats=2,
                                                       bots_after_seconds=1)
                stub.FindGame(lone, metadata=bearer(ann.access_token), timeout=10)  # seated with a bot after 1 s
                stub.FindGame(matchmaking_pb2.FindGameRequest(ruleset="bang"), metadata=bearer(bob.access_token),
                              timeout=10)  # waits: nobody else wants BANG!
                deadline = time.monotonic() + 30
                while not (value(samples := scrape(f"http://127.0.0.1:{port}/metrics"), "tabletop_match_bot_seats_total")
                           and value(samples, "tabletop_match_tickets_waiting", ruleset="bang")):
                    assert time.monotonic() < deadline, "no bot seated the lone ticket, or the BANG! queue was never seen"
                    time.sleep(0.1)
        finally:
            http.shutdown()
            server.running.stop(0)
    assert value(samples, "tabletop_match_tickets_seated_total") == 1
    assert value(samples, "tabletop_match_bot_seats_total") == 1
    assert value(samples, "tabletop_match_wait_seconds_count") == 1 and value(samples, "tabletop_match_wait_seconds_sum") >= 1
    assert value(samples, "tabletop_match_tickets_waiting", ruleset="bang") == 1
    assert value(samples, "tabletop_match_tickets_waiting", ruleset="ttr-europe") == 0


# Helpers

def _scrape_retrying(url: str) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    deadline = time.monotonic() + 10
    while True:
        try:
            return scrape(url)
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)





def test_serve_exposes_rest_and_grpc_series_on_one_metrics_port(redis_url: str) -> None:
    import requests

    grpc_port, http_port, metrics_port = free_port(), free_port(), free_port()
    env = {"TABLETOP_REDIS_URL": redis_url, "TABLETOP_METRICS_PORT": str(metrics_port), "PATH": "/usr/bin:/bin"}
    proc = subprocess.Popen([sys.executable, "-m", "tabletop_server.service", "serve", "--grpc-port", str(grpc_port),
                             "--http-port", str(http_port)], env=env, stderr=subprocess.DEVNULL)
    try:
        samples = _scrape_retrying(f"http://127.0.0.1:{metrics_port}/metrics")
        assert value(samples, "tabletop_http_requests_total") == 0
        reply = requests.post(f"http://127.0.0.1:{http_port}/v1/games", json={"ruleset": "ttr-europe", "seatCount": 2},
                              timeout=10)
        assert reply.status_code == 200, reply.text
        assert requests.get(f"http://127.0.0.1:{http_port}/v1/games/ffff0000ffff0000", timeout=10).status_code == 404
        samples = scrape(f"http://127.0.0.1:{metrics_port}/metrics")
        assert value(samples, "tabletop_http_requests_total", route="/v1/games", method="POST", status="200") == 1
        assert value(samples, "tabletop_http_requests_total", route="/v1/games/{game}", method="GET",
                     status="404") == 1
        assert requests.get(f"http://127.0.0.1:{http_port}/no/such/path/x1", timeout=10).status_code == 404
        samples = scrape(f"http://127.0.0.1:{metrics_port}/metrics")
        assert value(samples, "tabletop_http_requests_total", route="other", method="GET", status="404") == 1
        assert value(samples, "tabletop_http_request_duration_seconds_count", route="/v1/games") == 1
        assert value(samples, "tabletop_rpcs_total", method="CreateGame", code="OK") == 1
    finally:
        proc.terminate()
        assert proc.wait(30) == 0
