"""Game-affinity routing with real parts (issue 29): Debian's nginx in front of three ``tabletop grpc``
processes on one Redis, configured as the chart's ``grpc.ingress.gameAffinity`` asks ingress-nginx to route
(``upstream-hash-by: "$http_x_tabletop_game"``: consistent hashing on the header the clients send with every
call that names a game; deploy/README.md, "Game-affinity routing").

The Python client plays recorded games through nginx, each action with its own game's header, then the same
again with the header stripped (a raw client that sends none). Each replica's own metrics say how its
changes found their game (``tabletop_doc_copies_total{result}``, ``tabletop_cas_conflicts_total``): with the
header each game's calls reach one replica, whose copy is current, so nearly every action is one Redis round
trip; without it nginx's hash has an empty key and falls back to round robin (ngx_http_upstream_hash_module:
``hp->key.len == 0`` takes the round-robin peer), which spreads the calls over all three replicas and leaves
a copy current about one time in three or less (round robin sends a game's next call to whichever replica
is next: with four players keeping step, that is seldom the last one). The same runs with the key that
deploy/README.md gives ingress-nginx, whose Lua balancer hashes an empty key like any other: a ``map`` that
falls back to the request id, so calls without the header are spread at random. And REST: ``tabletop rest``
with its gRPC target at that nginx names each route's game from its path, so REST actions stay on their
game's replica too. Prints the figures.
"""

from __future__ import annotations

import random
import re
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
import requests
from google.protobuf import json_format
from prometheus_client.parser import text_string_to_metric_families
from tabletop.client import GAME_HEADER, TabletopClient
from tabletop.v1 import game_pb2

from bench.nginx_proxy import CHART_KEY, NEVER_EMPTY_KEY, Nginx
from tabletop_server.service.engine import registry
from tests.ops.cluster import free_port
from tests.tools import needs

REPLICAS = 3
THREADS = 4  # players at once, so that round robin sends a game's next call to any of the replicas
GAMES_PER_THREAD = 3
ACTIONS_PER_GAME = 30  # 4 x 3 x 30 = 360 actions a phase
LISTENING = re.compile(r"gRPC service listening on port (\d+)")
REST_LISTENING = re.compile(r"REST facade listening on \S+ port (\d+)")
NGINX_HINT = "Debian's nginx (`apt-get install -y nginx`; .ci/run installs it)"

Script = tuple[int, list[tuple[int, game_pb2.Action]]]
Counts = dict[str, float]


@pytest.fixture(params=[CHART_KEY, NEVER_EMPTY_KEY], ids=["chart key", "never-empty key"])
def routed(request: pytest.FixtureRequest, redis_url: str, tmp_path: Path) -> Iterator[tuple[str, list[int], str]]:
    """nginx's address, the replicas' metrics ports and the hash key."""
    needs("nginx", hint=NGINX_HINT, in_ci=True)
    metrics = [free_port() for _ in range(REPLICAS)]
    logs = [tmp_path / f"replica-{i}.log" for i in range(REPLICAS)]
    procs: list[subprocess.Popen[bytes]] = []
    try:
        for port, log in zip(metrics, logs, strict=True):
            env = {"PATH": "/usr/bin:/bin", "TABLETOP_REDIS_URL": redis_url, "TABLETOP_METRICS_PORT": str(port),
                   "TABLETOP_REDIS_SAFETY": "warn", "TABLETOP_CREATE_PER_MINUTE_PER_ADDRESS": "0",
                   "TABLETOP_MAX_OPEN_GAMES_PER_ADDRESS": "0"}
            with open(log, "ab") as out:
                procs.append(subprocess.Popen([sys.executable, "-m", "tabletop_server.service", "grpc",
                                               "--grpc-port", "0"], env=env, stderr=out, stdout=subprocess.DEVNULL))
        ports = [_listening(proc, log) for proc, log in zip(procs, logs, strict=True)]
        with Nginx(ports, request.param, tmp_path) as (target, _):  # bench/nginx_proxy.py: the configuration
            yield target, metrics, request.param[0]
    finally:
        for proc in reversed(procs):
            proc.terminate()
            proc.wait(30)


def test_the_game_header_keeps_each_game_on_one_replica_and_its_copy_current(routed: tuple[str, list[int], str]
                                                                             ) -> None:
    target, metrics, key = routed
    scripts = _recorded_games(THREADS * GAMES_PER_THREAD)
    before = [_counts(port) for port in metrics]
    _play(target, scripts, keep_header=True)
    middle = [_counts(port) for port in metrics]
    _play(target, scripts, keep_header=False)
    after = [_counts(port) for port in metrics]
    with_header, without = _figures(before, middle), _figures(middle, after)
    print(f"\ngame affinity over {REPLICAS} replicas behind nginx hashing {key}: with the header {with_header}; "
          f"without {without}")
    assert with_header["actions"] == without["actions"] == THREADS * GAMES_PER_THREAD * ACTIONS_PER_GAME
    assert with_header["hit_rate"] >= 0.9, with_header  # a miss: a game's first action (created elsewhere)
    assert without["hit_rate"] <= 0.55, without  # 1/3 at random; round robin in step with the players: less
    assert without["round_trips"] > with_header["round_trips"] + 0.3
    assert min(without["shares"]) >= 0.2, without  # round robin, or the request id's hash: spread


@pytest.mark.parametrize("routed", [CHART_KEY], ids=["chart key"], indirect=True)
def test_the_rest_facade_names_each_route_s_game_so_a_hashing_target_routes_rest_too(
        routed: tuple[str, list[int], str], redis_url: str, tmp_path: Path) -> None:
    """``tabletop rest`` with its gRPC target at the hashing nginx (``rest.grpcTarget``): the facade names the
    game of each REST route (``x-tabletop-game`` from the path), so REST actions are routed by game too."""
    target, metrics, _ = routed
    log = tmp_path / "rest.log"
    env = {"PATH": "/usr/bin:/bin", "TABLETOP_REDIS_URL": redis_url, "TABLETOP_METRICS_PORT": "0"}
    with open(log, "ab") as out:
        rest = subprocess.Popen([sys.executable, "-m", "tabletop_server.service", "rest", "--grpc-target", target,
                                 "--http-port", "0"], env=env, stderr=out, stdout=subprocess.DEVNULL)
    try:
        base = f"http://127.0.0.1:{_listening(rest, log, pattern=REST_LISTENING)}"
        scripts = _recorded_games(THREADS * GAMES_PER_THREAD)
        before = [_counts(port) for port in metrics]
        _play_rest(base, scripts)
        figures = _figures(before, [_counts(port) for port in metrics])
    finally:
        rest.terminate()
        rest.wait(30)
    print(f"\nREST through the facade, its gRPC target nginx hashing the game header: {figures}")
    assert figures["actions"] == THREADS * GAMES_PER_THREAD * ACTIONS_PER_GAME
    assert figures["hit_rate"] >= 0.9, figures


# Helpers

def _recorded_games(count: int) -> list[Script]:
    """Games played ahead with the engine, as (seed, [(seat, action)]): nothing is read to choose a move."""
    ruleset = registry.get("ttr-europe")
    assert ruleset is not None
    scripts = []
    for seed in range(1, count + 1):
        rng, state, steps = random.Random(seed), ruleset.setup(ruleset.decode_options(None), 3, seed), []
        while not ruleset.is_over(state) and len(steps) < ACTIONS_PER_GAME:
            seat = rng.choice(ruleset.to_act(state))
            action = rng.choice(ruleset.legal_actions(state, seat))
            ruleset.apply(state, seat, action)
            steps.append((seat, game_pb2.Action(ttr_europe=ruleset.encode_action(action))))
        scripts.append((seed, steps))
    return scripts


def _play(target: str, scripts: list[Script], keep_header: bool) -> None:
    """Every recorded game created and played through the Python client, ``THREADS`` games at a time."""
    def player(mine: list[Script]) -> None:
        channel = grpc.insecure_channel(target)
        if not keep_header:
            channel = grpc.intercept_channel(channel, _StripGameHeader())
        try:
            with TabletopClient(target, timeout=30.0, channel=channel) as client:
                for seed, steps in mine:
                    created = client.create_game("ttr-europe", 3, display_names=["a", "b", "c"], seed=seed)
                    seats = client.for_seats(created.credentials)
                    for seat, action in steps:
                        seats[seat].submit_action(created.game.name, action)
        finally:
            channel.close()
    _in_threads(player, scripts)


def _play_rest(base: str, scripts: list[Script]) -> None:
    """The recorded games over REST (``POST /v1/games``, ``POST /v1/games/<id>:act``), ``THREADS`` at a time."""
    def player(mine: list[Script]) -> None:
        with requests.Session() as http:
            for seed, steps in mine:
                created = http.post(f"{base}/v1/games", json={"ruleset": "ttr-europe", "seatCount": 3, "seed": seed,
                                                              "displayNames": ["a", "b", "c"]}, timeout=30)
                created.raise_for_status()
                game = created.json()
                tokens = {c.get("seat", 0): c["playerToken"] for c in game["credentials"]}
                for seat, action in steps:
                    acted = http.post(f"{base}/v1/{game['game']['name']}:act", timeout=30,
                                      json={"action": json_format.MessageToDict(action), "readMask": "events"},
                                      headers={"authorization": f"Bearer {tokens[seat]}"})
                    acted.raise_for_status()
    _in_threads(player, scripts)


def _in_threads(player: Callable[[list[Script]], None], scripts: list[Script]) -> None:
    """``player`` on every ``THREADS``-th script, in ``THREADS`` threads at once (the players keeping step);
    an error in any thread fails the test."""
    failures: list[BaseException] = []

    def run(mine: list[Script]) -> None:
        try:
            player(mine)
        except BaseException as error:  # noqa: BLE001 - reported by the main thread
            failures.append(error)

    threads = [threading.Thread(target=run, args=(scripts[i::THREADS],)) for i in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(300)
    assert not failures, failures


def _figures(start: list[Counts], end: list[Counts]) -> dict[str, Any]:
    """The phase's changes, hit rate (changes written by their first script call on a current copy: no
    read, no retry) and Redis round trips per change (a script call each try, a read each missing or
    refused copy), summed over the replicas; and each replica's share of the SubmitAction calls."""
    delta = {key: sum(e[key] - s[key] for s, e in zip(start, end, strict=True)) for key in end[0]}
    tries = delta["used"] + delta["missing"] + delta["refused"]
    changes = tries - delta["conflicts"]
    misses = delta["missing"] + delta["refused"] + delta["conflicts"]
    calls = [e["submits"] - s["submits"] for s, e in zip(start, end, strict=True)]
    return {"actions": round(sum(calls)), "hit_rate": round(1 - misses / changes, 3),
            "round_trips": round((tries + delta["missing"] + delta["refused"]) / changes, 2),
            "shares": [round(c / sum(calls), 2) for c in calls]}


def _counts(port: int) -> Counts:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as response:
        text = response.read().decode()
    samples = [s for family in text_string_to_metric_families(text) for s in family.samples]

    def total(name: str, match: Callable[[dict[str, str]], bool] = lambda _: True) -> float:
        return sum(s.value for s in samples if s.name == name and match(s.labels))
    counts = {result: total("tabletop_doc_copies_total", lambda labels, r=result: labels.get("result") == r)
              for result in ("used", "missing", "refused")}
    counts["conflicts"] = total("tabletop_cas_conflicts_total")
    counts["submits"] = total("tabletop_rpcs_total", lambda labels: labels.get("method") == "SubmitAction")
    return counts


def _listening(proc: subprocess.Popen[bytes], log: Path, bound: float = 60.0, pattern: re.Pattern[str] = LISTENING
               ) -> int:
    deadline = time.monotonic() + bound
    while not (found := pattern.search(log.read_text())):
        assert proc.poll() is None, f"replica exited: {log.read_text()[-2000:]}"
        assert time.monotonic() < deadline, f"replica not listening after {bound} s"
        time.sleep(0.05)
    return int(found.group(1))


class _StripGameHeader(grpc.UnaryUnaryClientInterceptor):  # type: ignore[misc]
    """A raw client's calls: the same requests, no ``x-tabletop-game``."""

    def intercept_unary_unary(self, continuation, details, request):  # type: ignore[no-untyped-def]
        metadata = [(key, value) for key, value in details.metadata or () if key != GAME_HEADER]
        return continuation(details._replace(metadata=metadata), request)
