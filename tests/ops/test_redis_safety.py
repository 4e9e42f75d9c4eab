"""The Redis safety check (service/store/safety.py) against real redis-server processes.

An eviction policy other than ``noeviction`` or no persistence at all keeps the service
NOT_SERVING (gRPC health and REST ``/readyz``) under ``TABLETOP_REDIS_SAFETY=refuse``, the
default; ``warn`` serves and logs. Fixing the setting on the live server makes the service
ready within a health period. A Redis that refuses CONFIG is logged as unknown and served.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from tabletop_server.rest.app import create_app
from tabletop_server.service.config import Config
from tests.conftest import GrpcServer, start_grpc
from tests.ops.test_redis_auth_tls import REDIS_SERVER, Server

pytestmark = pytest.mark.skipif(not Path(REDIS_SERVER).exists(), reason="needs a redis-server binary")

SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


def _health(server: GrpcServer) -> int:
    with grpc.insecure_channel(server.target) as channel:
        return int(health_pb2_grpc.HealthStub(channel).Check(
            health_pb2.HealthCheckRequest(service="tabletop.v1.GameService"), timeout=2).status)


def _run(redis: Server, mode: str | None = None) -> GrpcServer:
    settings = {} if mode is None else {"redis_safety": mode}
    if mode is None:  # the service's own default, not the test suite's
        settings["redis_safety"] = Config().redis_safety
    return start_grpc(f"redis://127.0.0.1:{redis.port}", **settings)


@pytest.mark.parametrize(("args", "problem"), [
    (("--appendonly", "yes", "--maxmemory-policy", "volatile-lru"), "maxmemory-policy is volatile-lru"),
    (("--appendonly", "yes", "--maxmemory-policy", "allkeys-lru"), "maxmemory-policy is allkeys-lru"),
    (("--appendonly", "no"), "no persistence"),
])
def test_an_unsafe_redis_is_refused_by_default(args: tuple[str, ...], problem: str,
                                               caplog: pytest.LogCaptureFixture) -> None:
    assert Config().redis_safety == "refuse"
    redis = Server(*args)
    caplog.set_level(logging.INFO, logger="tabletop.server")
    server = _run(redis)
    try:
        assert _health(server) == NOT_SERVING
        app = create_app(server.target, health_service="tabletop.v1.GameService")
        assert app.test_client().get("/readyz").status_code == 503
        lines = [r.getMessage() for r in caplog.records if "UNSAFE" in r.getMessage()]
        assert len(lines) == 1 and problem in lines[0] and "refusing to become ready" in lines[0]
        assert server.running.metrics.redis_unsafe._value.get() == 1
        redis.admin.config_set("maxmemory-policy", "noeviction")  # the operator fixes it, live
        redis.admin.config_set("appendonly", "yes")
        deadline = time.monotonic() + 10
        while _health(server) != SERVING:
            assert time.monotonic() < deadline, "fixing Redis did not make the service ready"
            time.sleep(0.2)
        assert app.test_client().get("/readyz").status_code == 200
        assert server.running.metrics.redis_unsafe._value.get() == 0
    finally:
        server.running.stop(0)
        redis.stop()


def test_warn_serves_an_unsafe_redis_and_says_so(caplog: pytest.LogCaptureFixture) -> None:
    redis = Server("--appendonly", "no", "--maxmemory-policy", "volatile-ttl")
    caplog.set_level(logging.INFO, logger="tabletop.server")
    server = _run(redis, "warn")
    try:
        assert _health(server) == SERVING
        [line] = [r for r in caplog.records if "UNSAFE" in r.getMessage()]
        assert line.levelno == logging.WARNING and "serving anyway" in line.getMessage()
        assert "volatile-ttl" in line.getMessage() and "no persistence" in line.getMessage()
    finally:
        server.running.stop(0)
        redis.stop()


def test_safe_settings_and_snapshots_only(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="tabletop.server")
    for args, expected in ((("--appendonly", "yes"), "Redis settings are safe"),
                           (("--save", "900 1"), "snapshots only")):
        redis = Server(*args)
        server = _run(redis)
        try:
            assert _health(server) == SERVING
            assert any(expected in r.getMessage() for r in caplog.records), expected
        finally:
            server.running.stop(0)
            redis.stop()


def test_a_redis_without_config_is_unknown_and_served(caplog: pytest.LogCaptureFixture) -> None:
    redis = Server("--appendonly", "yes", "--rename-command", "CONFIG", "")
    caplog.set_level(logging.INFO, logger="tabletop.server")
    server = _run(redis)
    try:
        assert _health(server) == SERVING
        assert any("Redis safety unknown: CONFIG GET is refused" in r.getMessage() for r in caplog.records)
    finally:
        server.running.stop(0)
        redis.stop()
