"""Building and running the gRPC server: service, health, reflection, interceptors."""

from __future__ import annotations

import logging
import threading
from concurrent import futures
from dataclasses import dataclass, field
from typing import Any

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection
from tabletop.v1 import game_service_pb2, game_service_pb2_grpc

from service.api import tracing
from service.api.host import GameHost
from service.api.interceptors import ErrorInterceptor
from service.api.limits import LimitsInterceptor
from service.api.observability import HostObserver, Metrics, TelemetryInterceptor
from service.api.servicer import GameServicer
from service.config import Config
from service.engine import registry
from service.store.redis_store import GameStore, connect

SERVICE_NAME = game_service_pb2.DESCRIPTOR.services_by_name["GameService"].full_name
log = logging.getLogger("tabletop.server")


@dataclass
class Running:
    """A started gRPC server and what it needs to stop cleanly."""

    server: grpc.Server
    port: int
    health: health.HealthServicer
    store: GameStore
    stopping: threading.Event = field(default_factory=threading.Event)
    metrics: Metrics = field(default_factory=Metrics)

    def set_serving(self, serving: bool) -> None:
        status = (health_pb2.HealthCheckResponse.SERVING if serving and not self.stopping.is_set()
                  else health_pb2.HealthCheckResponse.NOT_SERVING)
        for name in ("", SERVICE_NAME):
            self.health.set(name, status)

    def stop(self, grace: float | None = 5.0) -> None:
        """Health to NOT_SERVING, refuse new calls, let in-flight ones finish."""
        self.stopping.set()
        self.set_serving(False)
        self.server.stop(grace).wait()


def create_server(config: Config, host: str = "[::]", port: int | None = None, client: Any = None,
                  tracer: Any = None) -> Running:
    """A started server on ``port`` (``config.grpc_port`` by default; 0 picks a free one).

    ``tracer`` defaults to the one ``tracing.setup_from_env`` made (None: tracing off).
    """
    tracer = tracer if tracer is not None else tracing.current_tracer()
    metrics, stopping = Metrics(), threading.Event()
    observer = HostObserver(metrics, tracer)
    store = GameStore(client if client is not None else connect(config.redis_url), probe=observer.redis)
    registry.all_rulesets()  # load every ruleset (data tables, handlers) now, not on the first request
    server = grpc.server(
        futures.ThreadPoolExecutor(max_workers=config.grpc_workers, thread_name_prefix="grpc"),
        interceptors=[ErrorInterceptor(config.max_request_bytes), TelemetryInterceptor(metrics, tracer),
                      LimitsInterceptor(config, stopping, lambda scope: metrics.rate_limited.labels(scope).inc())],
        options=_server_options(config))
    game_service_pb2_grpc.add_GameServiceServicer_to_server(
        GameServicer(GameHost(store, config, observer=observer)), server)
    health_servicer = health.HealthServicer(experimental_non_blocking=True)
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable_server_reflection(
        (SERVICE_NAME, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name, reflection.SERVICE_NAME), server)
    bound = server.add_insecure_port(f"{host}:{config.grpc_port if port is None else port}")
    server.start()
    running = Running(server, bound, health_servicer, store, stopping, metrics)
    running.set_serving(_redis_ok(store))
    threading.Thread(target=_watch_redis, args=(running,), daemon=True, name="redis-health").start()
    return running


# Helpers

def _server_options(config: Config) -> list[tuple[str, int]]:
    """gRPC core options. A maximum connection age makes clients reconnect now and then, so
    long-lived HTTP/2 connections spread over new replicas after a scale-out (a Kubernetes
    Service balances connections, not calls); open watch streams then end with UNAVAILABLE
    after the grace and resume by version."""
    options = [("grpc.max_receive_message_length", 4 * config.max_request_bytes + 1024), ("grpc.so_reuseport", 0)]
    if config.max_connection_age_seconds > 0:
        options += [("grpc.max_connection_age_ms", int(config.max_connection_age_seconds * 1000)),
                    ("grpc.max_connection_age_grace_ms", int(config.shutdown_grace_seconds * 1000))]
    return options


def _redis_ok(store: GameStore) -> bool:
    try:
        return store.ping()
    except Exception:  # noqa: BLE001 - any failure means not reachable
        return False


def _watch_redis(running: Running, every: float = 2.0) -> None:
    """Health follows Redis reachability."""
    while not running.stopping.wait(every):
        running.set_serving(_redis_ok(running.store))
