"""Building and running the gRPC server: service, health, reflection, interceptors.

The server is ``grpc.aio`` on an event loop of its own thread (uvloop when installed):
a call costs no thread hand-off, an open watch stream holds no thread, and the store's
Redis connection is shared by every call in flight. ``create_server`` starts it and
returns once it listens; ``Running.stop`` drains it, from any thread.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import secrets
import socket
import threading
import time
from collections.abc import Coroutine
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, TypeVar

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection, reflection_pb2_grpc
from tabletop.v1 import game_service_pb2, game_service_pb2_grpc

from tabletop_server.service.api import identity, quickplay, timers, tls, tracing
from tabletop_server.service.api.field_rules import RulesInterceptor
from tabletop_server.service.api.host import GameHost
from tabletop_server.service.api.indexer import Indexer, tell_near
from tabletop_server.service.api.interceptors import ErrorInterceptor, MethodInterceptor
from tabletop_server.service.api.limits import LimitsInterceptor
from tabletop_server.service.api.matcher import Matcher
from tabletop_server.service.api.metrics import Metrics
from tabletop_server.service.api.observability import HostObserver, TelemetryInterceptor
from tabletop_server.service.api.players import IdentityInterceptor
from tabletop_server.service.api.servicer import AUTHENTICATED, GameServicer
from tabletop_server.service.api.sessions import Sessions
from tabletop_server.service.config import Config
from tabletop_server.service.engine import registry
from tabletop_server.service.store import keys, safety
from tabletop_server.service.store.deadlines import Deadlines
from tabletop_server.service.store.redis_store import GameStore, connect
from tabletop_server.service.store.tickets import Tickets
from tabletop_server.service.webhooks import endpoints as webhook_endpoints
from tabletop_server.service.webhooks.dispatcher import Dispatcher
from tabletop_server.service.webhooks.metrics import WebhookMetrics

SERVICE_NAME = game_service_pb2.DESCRIPTOR.services_by_name["GameService"].full_name
log = logging.getLogger("tabletop.server")
_IDLE_LOOK_SECONDS = 0.1  # how often a drain looks whether any call is left to serve (_drain)
PENDING_CALLS = 10_000  # new calls core holds for this server before it drops some (1,000 by default; see _server_options)
T = TypeVar("T")


@dataclass
class Running:
    """A started gRPC server, the loop it runs on, and what it needs to stop cleanly."""

    server: grpc.aio.Server
    port: int
    health: Any  # grpc_health's asyncio HealthServicer
    store: GameStore
    loop: asyncio.AbstractEventLoop
    stopping: threading.Event = field(default_factory=threading.Event)
    metrics: Metrics = field(default_factory=Metrics)
    thread: threading.Thread | None = None
    watcher: asyncio.Task[None] | None = None  # health follows Redis
    sweeper: asyncio.Future[None] | None = None  # makes due decisions with bots (timers.Sweeper)
    webhooks: asyncio.Future[None] | None = None  # delivers queued webhooks (service/webhooks/dispatcher.py)
    matcher: asyncio.Future[None] | None = None  # seats quick-play tickets (matcher.Matcher)
    indexer: asyncio.Future[None] | None = None  # drains the player index's marks (indexer.Indexer)
    near: asyncio.Future[None] | None = None  # sends DEADLINE_NEAR notifications when due (timers.Sweeper)
    safety_mode: str = "refuse"  # TABLETOP_REDIS_SAFETY: unsafe Redis settings keep health NOT_SERVING
    verdict: safety.Verdict | None = None  # the last safety check (logged when it changes)
    loopback_port: int = 0  # plaintext on 127.0.0.1 beside a TLS port, for an in-process facade (0: none)
    health_server: grpc.aio.Server | None = None  # plaintext, grpc.health.v1 only (config.grpc_health_port)
    handlers: dict[str, Any] = field(default_factory=dict)  # "/service/Method": wrapped handler (rest.local)
    feeds: Any = None  # the games' shared readers (feeds.Feeds): woken when draining, so watch streams end now

    def call(self, coroutine: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
        """Run a coroutine on the server's loop from another thread and wait for its result."""
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    def set_serving(self, serving: bool) -> None:
        """Health to SERVING or NOT_SERVING (always NOT_SERVING once stopping), from any thread."""
        if threading.current_thread() is self.thread:
            raise RuntimeError("set_serving is for other threads; on the loop, await _set_serving")
        self.call(_set_serving(self, serving))

    def stop(self, grace: float | None = 5.0) -> None:
        """Health to NOT_SERVING, refuse new calls, let in-flight ones finish, then end the loop."""
        self.stopping.set()
        if self.loop.is_closed():
            return
        try:
            self.call(_stop(self, grace), timeout=(grace or 0) + 10)
        except TimeoutError:  # a stop must end: the loop goes down with whatever is left
            log.warning("the gRPC server did not drain within %.0f s; stopping it anyway", (grace or 0) + 10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        if self.thread is not None:
            self.thread.join(10)
            if self.thread.is_alive():
                log.warning("the gRPC server's loop did not end within 10 s of the drain; exiting without it")


def create_server(config: Config, host: str = "[::]", port: int | None = None, client: Any = None,
                  tracer: Any = None, loopback: bool = False, reuse_port: bool = False) -> Running:
    """A started server on ``port`` (``config.grpc_port`` by default; 0 picks a free one).

    The port serves TLS when ``config`` names a certificate (service/api/tls.py). ``loopback`` also
    opens a plaintext port on 127.0.0.1 when it does, for a REST facade in this process (``serve``).

    ``tracer`` defaults to the one ``tracing.setup_from_env`` made (None: tracing off). ``reuse_port``
    binds with SO_REUSEPORT, so the workers of ``tabletop serve --workers`` share the port (``workers.py``).
    """
    tracer = tracer if tracer is not None else tracing.current_tracer()
    registry.all_rulesets()  # load every ruleset (data tables, handlers) now, not on the first request
    loop = _new_loop()
    started: Future[Running] = Future()

    def run() -> None:
        asyncio.set_event_loop(loop)
        loop.run_until_complete(_start(config, (host, port, loopback, reuse_port), client, tracer, loop, started))
        if started.exception() is None:
            loop.run_forever()
        loop.run_until_complete(_finish_tasks())  # what stopping left pending ends on the loop, not in GC
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.close()

    thread = threading.Thread(target=run, name="grpc-loop", daemon=True)
    thread.start()
    running = started.result(60)
    running.thread = thread
    return running


# Helpers

async def _start(config: Config, bind: tuple[str, int | None, bool, bool], client: Any, tracer: Any,
                 loop: asyncio.AbstractEventLoop, started: Future[Running]) -> None:
    host, port, loopback, _ = bind
    try:
        credentials = tls.server_credentials(config)
        webhook_endpoints.configured(config)  # a bad endpoints file stops the start, with its reason
        metrics, stopping = Metrics(), threading.Event()
        observer = HostObserver(metrics, tracer)
        client = client if client is not None else connect(config.redis_url, config.max_watched_games or 1000,
                                                           ca_file=config.redis_tls_ca_file)
        store = GameStore(client, probe=observer.redis,
                          replicas=(config.redis_wait_replicas, config.redis_wait_timeout_ms),
                          cache_games=config.doc_cache_games,
                          on_forgotten=lambda count: metrics.rate_limited.labels("request_ids_forgotten").inc(count))
        server = grpc.aio.server(options=_server_options(config, bind[3]))
        verifier = identity.Verifier(identity.parse_issuers(config.jwt_issuers), config.jwt_clock_skew_seconds,
                                     config.jwks_refresh_seconds, config.jwks_min_refresh_seconds)
        sessions = Sessions(client, config, verifier)  # adds Tabletop's own issuer when sessions are on
        game_host = GameHost(store, config, observer=observer)
        layers = [ErrorInterceptor(config.max_request_bytes), TelemetryInterceptor(metrics, tracer),
                  IdentityInterceptor(verifier), LimitsInterceptor(config, stopping, lambda scope: metrics.rate_limited.labels(scope).inc(),
                                    redis=client, created_before=game_host.created_before), RulesInterceptor(AUTHENTICATED)]
        generic: Any = _GenericOnly(server, {SERVICE_NAME: layers})  # stands in for the server (see the class)
        game_service_pb2_grpc.add_GameServiceServicer_to_server(GameServicer(game_host, sessions), generic)
        health_servicer = health.aio.HealthServicer()
        health_pb2_grpc.add_HealthServicer_to_server(health_servicer, generic)
        reflection_pb2_grpc.add_ServerReflectionServicer_to_server(reflection.aio.ReflectionServicer(  # type: ignore[no-untyped-call]
            (SERVICE_NAME, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name, reflection.SERVICE_NAME)),
            generic)
        address = f"{host}:{config.grpc_port if port is None else port}"
        bound = (server.add_secure_port(address, credentials) if credentials is not None
                 else server.add_insecure_port(address))
        local = server.add_insecure_port("127.0.0.1:0") if loopback and credentials is not None else 0
        await server.start()
        running = Running(server, bound, health_servicer, store, loop, stopping, metrics,
                          safety_mode=config.redis_safety, loopback_port=local,
                          health_server=await _health_only(config, host, health_servicer),
                          handlers=generic.handlers, feeds=game_host.feeds)
        await _set_serving(running, await _ready(running))
        running.watcher = asyncio.ensure_future(_watch_redis(running))
        sweeper = timers.Sweeper(game_host.deadlines, game_host.play_due, config.timer_poll_seconds, config.timer_lease_seconds,
                                 config.timer_batch, on_error=metrics.timer_sweep_errors.inc,
                                 on_due=metrics.timers_due.set, recheck=config.timer_recheck_seconds)
        running.sweeper = asyncio.ensure_future(sweeper.run())  # bot seats and turn timers (timers.py)
        matcher = Matcher(game_host, Tickets(client, config.ticket_ttl_seconds), on_seated=metrics.tickets_seated,
                          on_waiting=lambda r, q, n: metrics.match_waiting.labels(r, q).set(n))
        running.matcher = asyncio.ensure_future(timers.Sweeper(  # quick play: queues claimed like due games
            quickplay.queues(client), matcher.match, config.timer_poll_seconds, config.timer_lease_seconds,
            config.timer_batch, on_error=metrics.timer_sweep_errors.inc, recheck=config.timer_recheck_seconds).run())
        if webhook_endpoints.configured(config):
            dispatcher = Dispatcher(client, config, WebhookMetrics(metrics.registry))
            running.webhooks = asyncio.ensure_future(dispatcher.run())  # signed webhooks (service/webhooks)
        indexer = Indexer(game_host.index, config, f"{socket.gethostname()}-{os.getpid()}-{secrets.token_hex(4)}",
                          on_error=metrics.index_errors.inc, on_indexed=metrics.index_lag.observe)
        if config.player_index:
            running.indexer = asyncio.ensure_future(indexer.run())  # players' games and inboxes (indexer.py)
        if config.player_index and config.deadline_near_share > 0:
            near = timers.Sweeper(Deadlines(store.client, keys.near_due(), keys.near_claimed(), keys.near_held()),
                                  functools.partial(tell_near, game_host.index, config=config), config.timer_poll_seconds,
                                  config.timer_lease_seconds, config.timer_batch, on_error=metrics.index_errors.inc)
            running.near = asyncio.ensure_future(near.run())
        started.set_result(running)
    except BaseException as exc:  # noqa: BLE001 - handed to the thread that waits for the start
        started.set_exception(exc)


class _GenericOnly:
    """Serves what generated ``add_*_to_server`` functions register as generic handlers only,
    with a service's interceptors wrapped around its methods once, here.

    Those functions also register each method with gRPC core. grpc.aio then keeps one
    pending "next call" future per registered method and waits on all of them for every
    incoming call (``asyncio.wait`` over ~13 futures): about a tenth of the server's CPU
    per call here. Served as generic handlers (a dict lookup by method name), every call
    comes through one future; and with no grpc.aio interceptors, no chain of interceptor
    coroutines runs per call.
    """

    def __init__(self, server: grpc.aio.Server, layers: dict[str, list[MethodInterceptor]]) -> None:
        self.server = server
        self.layers = layers
        self.handlers: dict[str, Any] = {}  # "/service/Method": the wrapped handler (rest.local calls them)

    def add_generic_rpc_handlers(self, handlers: Any) -> None:
        """Ignored: ``add_registered_method_handlers`` gets the same methods, by name."""

    def add_registered_method_handlers(self, service_name: str, method_handlers: dict[str, Any]) -> None:
        layers = self.layers.get(service_name, [])
        wrapped = {}
        for method, handler in method_handlers.items():
            for layer in reversed(layers):  # the first layer is the outermost
                handler = layer.wrap(method, handler)
            wrapped[method] = handler
            self.handlers[f"/{service_name}/{method}"] = handler
        self.server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(service_name, wrapped),))


def _new_loop() -> asyncio.AbstractEventLoop:
    """uvloop's loop when installed (it roughly halves the server's CPU per call), else asyncio's."""
    try:
        import uvloop
    except ImportError:
        return asyncio.new_event_loop()
    return uvloop.new_event_loop()


def _server_options(config: Config, reuse_port: bool = False) -> list[tuple[str, int]]:
    """gRPC core options. A maximum connection age makes clients reconnect now and then, so
    long-lived HTTP/2 connections spread over new replicas after a scale-out (a Kubernetes
    Service balances connections, not calls); open watch streams then end with UNAVAILABLE
    after the grace and resume by version.

    gRPC core queues the calls this server has not accepted yet (grpc.aio takes one per turn of the event
    loop) and, by default, drops them at random past 1,000 waiting (up to all past 3,000), as a bare
    CANCELLED the client cannot tell from its own cancel: 2,000 WatchGame streams opened in one burst lost
    about 180 (issue 26). ``PENDING_CALLS`` sizes that queue for the stream caps; the watch caps
    (limits.py), not this queue, are what refuse a crowd, with a reason."""
    options = [("grpc.max_receive_message_length", 4 * config.max_request_bytes + 1024), ("grpc.so_reuseport", int(reuse_port)),
               ("grpc.server.max_pending_requests", PENDING_CALLS),
               ("grpc.server.max_pending_requests_hard_limit", 2 * PENDING_CALLS)]
    if config.max_connection_age_seconds > 0:
        options += [("grpc.max_connection_age_ms", int(config.max_connection_age_seconds * 1000)),
                    ("grpc.max_connection_age_grace_ms", int(config.shutdown_grace_seconds * 1000))]
    return options


async def _set_serving(running: Running, serving: bool) -> None:
    status = (health_pb2.HealthCheckResponse.SERVING if serving and not running.stopping.is_set()
              else health_pb2.HealthCheckResponse.NOT_SERVING)
    for name in ("", SERVICE_NAME):
        await running.health.set(name, status)


async def _stop(running: Running, grace: float | None) -> None:
    await _set_serving(running, False)
    if running.watcher is not None:
        running.watcher.cancel()
    for task in (running.sweeper, running.matcher, running.indexer, running.near, running.webhooks):  # webhooks: in-flight attempts end; their claims run out and are taken again
        if task is not None:
            task.cancel()
    if running.feeds is not None:
        running.feeds.wake_all()  # each stream sees the drain and ends with SHUTTING_DOWN and its last version
    started = time.monotonic()
    late = (running.loop.call_later(grace - 0.5, _log_pending, "still in flight near the grace's end")
            if grace is not None and grace >= 1 else None)  # a stop with (almost) no grace: nothing to explain
    try:
        await _drain(running, grace)
    finally:
        if late is not None:
            late.cancel()
    log.info("drained: calls ended %.2f s after the drain began", time.monotonic() - started)
    if running.health_server is not None:  # after the drain: probes see NOT_SERVING until the end
        await running.health_server.stop(0)
    await running.store.close()


async def _drain(running: Running, grace: float | None) -> None:
    """``server.stop(grace)``, cut short once no call is left that anything here would serve.

    grpc.aio's stop also waits for a call gRPC core took in just as the drain began and will never hand to a
    handler (its loop of new calls has stopped): under load that held a drain for its whole grace with nothing
    of ours running (tests/ops/test_shutdown.py, 10.0 s). So while the stop waits, the loop is watched: when for
    two looks in a row it runs nothing but this drain, our background work and the games' readers (no call's
    handler, no REST request: nothing we do not know is left), what core still holds is cancelled (``stop(None)``).
    Such a call never reached a handler, so nothing of it was applied; its client gets UNAVAILABLE and retries.
    Any task not known here keeps the full grace, as before."""
    stopping = asyncio.ensure_future(running.server.stop(grace))
    idle_looks = 0
    while not stopping.done():
        await asyncio.wait([stopping], timeout=_IDLE_LOOK_SECONDS)
        idle_looks = idle_looks + 1 if _only_known_tasks(running, stopping) else 0
        if idle_looks >= 2 and not stopping.done():
            log.info("drain: no call left to serve; cancelling what gRPC core still holds")
            await running.server.stop(None)
            break  # the first stop now ends with the cut: one cut, then wait for it
    await stopping


def _only_known_tasks(running: Running, stopping: asyncio.Future[None]) -> bool:
    """Whether the loop runs nothing but the drain (this task and ``stopping``), the background work that
    ``_stop`` cancelled, and the games' feed readers (which end with their last follower)."""
    known: set[Any] = {asyncio.current_task(), stopping, running.watcher, running.sweeper, running.matcher,
                       running.indexer, running.near, running.webhooks}
    if running.feeds is not None:
        known.update(feed.task for feed in list(running.feeds.feeds.values()))
    return all(task in known for task in asyncio.all_tasks() if not task.done())


async def _health_only(config: Config, host: str, servicer: Any) -> grpc.aio.Server | None:
    """A plaintext server of grpc.health.v1 alone, sharing the main server's health status.

    Kubelet gRPC probes speak no TLS; this port gives them the real status (Redis reachable, not
    draining) without opening the game API in plaintext beside the TLS port."""
    if not config.grpc_health_port:
        return None
    server = grpc.aio.server()
    health_pb2_grpc.add_HealthServicer_to_server(servicer, server)
    server.add_insecure_port(f"{host}:{config.grpc_health_port}")
    await server.start()
    return server


async def _finish_tasks(timeout: float = 5.0) -> None:
    """Cancel the tasks still pending (calls cut off by the stop) and let them unwind."""
    tasks = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
    for task in tasks:
        task.cancel()
    if tasks:
        _, pending = await asyncio.wait(tasks, timeout=timeout)
        if pending:
            _log_pending(f"did not end {timeout:.0f} s after being cancelled", pending)


def _log_pending(why: str, tasks: Any = None) -> None:
    """Name what holds a drain (a task's coroutine: a call's handler, a background loop), at most 20 of them.

    A drain that takes its whole grace is otherwise silent about why (tests/ops/test_shutdown.py, under load)."""
    tasks = [t for t in (tasks if tasks is not None else asyncio.all_tasks()) if t is not asyncio.current_task()]
    if tasks:
        names = sorted(getattr(t.get_coro(), "__qualname__", repr(t.get_coro())) for t in tasks)
        log.warning("drain: %d task(s) %s: %s", len(tasks), why, ", ".join(names[:20]))


async def _redis_ok(store: GameStore) -> bool:
    try:
        async with asyncio.timeout(5):
            return await store.ping()
    except Exception:  # noqa: BLE001 - any failure means not reachable
        return False


async def _ready(running: Running) -> bool:
    """Redis answers, and its settings cannot lose games (or TABLETOP_REDIS_SAFETY=warn)."""
    if not await _redis_ok(running.store):
        return False
    try:
        async with asyncio.timeout(5):
            verdict = await safety.check(running.store.client)
    except Exception:  # noqa: BLE001 - Redis went away between the ping and the check
        return False
    if verdict != running.verdict:  # one line per change, not one per health check
        running.verdict = verdict
        running.metrics.redis_unsafe.set(0 if verdict.safe else 1)
        level = logging.INFO if verdict.safe and not verdict.notes and not verdict.unknown else (
            logging.ERROR if not verdict.safe and running.safety_mode == "refuse" else logging.WARNING)
        log.log(level, safety.describe(verdict, running.safety_mode))
    return verdict.safe or running.safety_mode == "warn"


async def _watch_redis(running: Running, every: float = 2.0) -> None:
    """Health follows Redis reachability and the safety of its settings."""
    while not running.stopping.is_set():
        await asyncio.sleep(every)
        await _set_serving(running, await _ready(running))
