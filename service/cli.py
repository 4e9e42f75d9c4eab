"""The ``tabletop`` command: ``serve`` (gRPC and REST in one process), ``grpc``, ``rest``; ``verify``
checks a finished game's deal (``service/api/verify_command.py``, docs/fair-play.md).

With no ``TABLETOP_REDIS_URL``, ``serve`` and ``grpc`` start an embedded real Redis
(``service/store/embedded.py``: append-only, supervised) with its data in a per-user state
directory (``TABLETOP_DATA_DIR`` overrides it), say where, and stop it after everything else.
``backup`` and ``restore`` copy games out of and into a Redis (``service/store/backup.py``);
``webhooks`` shows the webhook queues and redelivers dead letters (``service/webhooks/command.py``).
"""

from __future__ import annotations

import argparse
import gc
import logging
import secrets
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from tabletop_server.service import config as config_mod
from tabletop_server.service.config import Config
from tabletop_server.service.signals import Stop

log = logging.getLogger("tabletop")


def main(argv: list[str] | None = None) -> int:
    """Entry point of the console script."""
    parser = argparse.ArgumentParser(prog="tabletop", description="Tabletop game service")
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(dest="command", required=True)
    for name, text in (("serve", "gRPC service and REST facade in one process"),
                       ("grpc", "the gRPC service only"), ("rest", "the REST facade only")):
        p = sub.add_parser(name, help=text)
        p.add_argument("--host", help="bind address of every listener (default TABLETOP_HOST, else 127.0.0.1)")
        p.add_argument("--grpc-port", type=int)
        p.add_argument("--http-port", type=int)
        p.add_argument("--metrics-port", type=int)
        p.add_argument("--grpc-target")
        _tls_arguments(p)
        if name == "serve":
            p.add_argument("--workers", type=int, help="processes sharing the ports (default TABLETOP_WORKERS, else "
                           "one per core of the container's CPU limit, 1 without one); see deploy/README.md")
            p.add_argument("--reuse-port", action="store_true", help=argparse.SUPPRESS)  # a worker's own flags
            p.add_argument("--worker-index", type=int, default=None, help=argparse.SUPPRESS)
    from tabletop_server.service.store import backup
    backup.add_commands(sub)
    from tabletop_server.service.api import verify_command
    verify_command.add_command(sub)
    from tabletop_server.service.webhooks import command as webhooks_command
    webhooks_command.add_command(sub)
    argv = sys.argv[1:] if argv is None else argv
    args = parser.parse_args(argv)
    if args.command in ("backup", "restore"):
        return _backup(args)
    if args.command == "webhooks":
        return _webhooks(args)
    if args.command == "verify":
        return verify_command.run(args)
    cfg = config_mod.from_env(host=args.host, grpc_port=args.grpc_port, http_port=args.http_port,
                              metrics_port=args.metrics_port, grpc_target=args.grpc_target,
                              grpc_tls_cert_file=args.grpc_tls_cert, grpc_tls_key_file=args.grpc_tls_key,
                              grpc_tls_client_ca_file=args.grpc_tls_client_ca)
    _logging(cfg)
    _raise_fd_limit()
    try:
        if args.command == "serve" and _worker_count(args, cfg) > 1:
            return _supervise(argv, cfg, _worker_count(args, cfg))
        return _run(args, cfg)
    except _BindError as error:
        log.error("%s", error)
        return 1


def _run(args: argparse.Namespace, cfg: Config) -> int:
    """Start the listeners of ``args.command``, wait for SIGTERM or SIGINT, drain, stop."""
    stop = Stop()  # SIGTERM or SIGINT (service/signals.py: why not a threading.Event)
    closers: list[Callable[[], object]] = []
    deadline = 0.0  # set when the shutdown starts; the closers read it then
    from tabletop_server.service.api import tracing
    from tabletop_server.service.api.metrics import Metrics, serve_metrics
    tracing.setup_from_env(service_name=f"tabletop-{args.command}")
    metrics = Metrics()
    if args.command in ("serve", "grpc"):
        cfg = _with_redis(cfg)
        if args.command == "serve" and not cfg.proxy_secret:  # the in-process facade proves itself with it
            cfg = replace(cfg, proxy_secret=secrets.token_urlsafe(32))
        _refuse_serve_with_client_ca(args.command, cfg)
        running = _start_grpc(cfg, loopback=args.command == "serve", reuse_port=_reuses_port(args))
        metrics = running.metrics
        log.info("gRPC service listening on port %d (%s)", running.port,
                 "TLS" if cfg.grpc_tls_cert_file else "plaintext")
        closers.append(lambda: running.stop(_remaining(deadline)))
        if args.command == "serve":
            cfg = _in_process_target(cfg, running.port, running.loopback_port)
    if args.command in ("serve", "rest"):
        loop = running.loop if args.command == "serve" else None  # serve: REST on the gRPC server's loop
        # serve: unary calls run the service's own handlers in process (rest.local), not over loopback
        http, in_flight = _start_rest(cfg, metrics, loop, running.handlers if args.command == "serve" else None,
                                      reuse_port=_reuses_port(args))
        log.info("REST facade listening on %s port %d (gRPC at %s)", cfg.host, http.port, cfg.grpc_target)
        closers.insert(0, lambda: _drain_rest(http, in_flight, _remaining(deadline)))
        log.info("%s", _where_to_go(http.url, running.port if args.command == "serve" else None, cfg))
    if cfg.metrics_port:
        metrics_port = _serve_metrics(serve_metrics, metrics, cfg)
        log.info("Prometheus metrics on port %d at /metrics", metrics_port)
    _freeze_startup_objects()
    stop.wait()
    log.info("shutting down: draining for up to %.0fs", cfg.shutdown_grace_seconds)
    deadline = time.monotonic() + cfg.shutdown_grace_seconds  # one grace for REST and gRPC together
    _close(closers)
    return 0


def _supervise(argv: list[str], cfg: Config, count: int) -> int:
    """``serve --workers N``: the embedded Redis once, then N workers on the same ports (``workers.py``)."""
    from tabletop_server.rest.server import PortBusy, bind
    from tabletop_server.service import workers
    if not cfg.grpc_port or not cfg.http_port:
        raise _BindError("--workers N shares fixed ports between the workers: give --grpc-port and --http-port "
                         "other than 0")
    for what, port in (("gRPC", cfg.grpc_port), ("HTTP", cfg.http_port)):
        try:
            bind(cfg.host, port).close()  # taken by another program: one line now, not one per worker
        except PortBusy:
            raise _BindError(f"cannot listen for {what}: port {port} on {cfg.host} is already in use") from None
    stop = Stop()
    cfg = _with_redis(cfg)
    supervisor = workers.Supervisor(count, workers.worker_command(argv),
                                    workers.worker_env(cfg.redis_url, cfg.proxy_secret or secrets.token_urlsafe(32),
                                                       cfg.data_dir),
                                    cfg.metrics_port, cfg.shutdown_grace_seconds)
    log.info("serving with %d workers on gRPC port %d and HTTP port %d (SO_REUSEPORT)", count, cfg.grpc_port,
             cfg.http_port)
    try:
        return supervisor.run(stop)
    finally:
        from tabletop_server.service.store import embedded
        embedded.stop_all()


# Helpers

def _freeze_startup_objects() -> None:
    """Leave what startup made (modules, descriptors, the rulesets' data: about 100,000 objects) out of the
    garbage collector's full collections, which otherwise scan it all each time. Under connection churn (each
    connection's objects live for seconds, long enough to reach the oldest generation) full collections ran
    every few seconds, and each stopped the event loop for up to 630 ms on a loaded host (issue 26, item 4:
    44 of them, 5.2 s in all, in one hostile run). Garbage first, so none of it is kept for good."""
    gc.collect()
    gc.freeze()


def _worker_count(args: argparse.Namespace, cfg: Config) -> int:
    from tabletop_server.service import workers
    if args.workers is not None:
        if args.workers < 1:
            raise SystemExit("--workers is 1 or more")
        return int(args.workers)
    return cfg.workers or workers.auto_workers()


def _reuses_port(args: argparse.Namespace) -> bool:
    return bool(getattr(args, "reuse_port", False))


def _where_to_go(url: str, grpc_port: int | None, cfg: Config) -> str:
    """The line that tells a person where to go once the server is up (issue 26)."""
    grpc = (f"; gRPC (with reflection) on port {grpc_port}" if grpc_port is not None
            else f"; it calls the gRPC service at {cfg.grpc_target}")
    return (f"ready: the web client at {url}/ , the API explorer at {url}/docs , REST under {url}/v1/ , "
            f"OpenAPI at {url}/openapi.json{grpc}")


def _with_redis(cfg: Config) -> Config:
    """The embedded Redis when no URL is set (``_close`` stops it after everything else)."""
    if cfg.redis_url:
        return cfg
    from tabletop_server.service.store import embedded
    data_dir = cfg.data_dir or embedded.default_data_dir()
    url = embedded.start(data_dir, cfg.embedded_fsync)
    log.warning("TABLETOP_REDIS_URL is not set: using an embedded Redis (append-only, fsync %s) with its data "
                "in %s; set TABLETOP_DATA_DIR to keep it elsewhere", cfg.embedded_fsync, data_dir)
    return replace(cfg, redis_url=url, data_dir=data_dir)


def _backup(args: argparse.Namespace) -> int:
    """``backup`` / ``restore`` on --redis-url, TABLETOP_REDIS_URL, or the embedded Redis (the running
    one of ``serve`` when it answers, else one started on the data directory for the command)."""
    from tabletop_server.service.store import backup, embedded
    cfg = config_mod.from_env()
    url = args.redis_url or cfg.redis_url
    if not url:
        data_dir = cfg.data_dir or embedded.default_data_dir()
        url = embedded.running_url(data_dir) or embedded.start(data_dir, cfg.embedded_fsync)
    try:
        return backup.run(args, url, cfg.redis_tls_ca_file)
    finally:
        embedded.stop_all()


def _webhooks(args: argparse.Namespace) -> int:
    """``webhooks`` on --redis-url, TABLETOP_REDIS_URL, or the embedded Redis (as ``_backup``)."""
    from tabletop_server.service.store import embedded
    from tabletop_server.service.webhooks import command
    cfg = config_mod.from_env()
    url, started = args.redis_url or cfg.redis_url, False
    if not url:
        data_dir = cfg.data_dir or embedded.default_data_dir()
        url = embedded.running_url(data_dir) or ""
        if not url:
            url, started = embedded.start(data_dir, cfg.embedded_fsync), True
    try:
        return command.run(args, cfg, url)
    finally:
        if started:  # only the one started here (a test process may hold its own)
            embedded.stop_all()


def _start_grpc(cfg: Config, loopback: bool = False, reuse_port: bool = False) -> Any:
    from tabletop_server.rest.server import PortBusy, bind
    from tabletop_server.service.api.server import create_server
    host = f"[{cfg.host}]" if ":" in cfg.host else cfg.host
    try:
        bind(cfg.host, cfg.grpc_port, reuse_port=reuse_port).close()  # a taken port: one line of ours, not gRPC core's
    except PortBusy:
        raise _BindError(f"cannot listen for gRPC: port {cfg.grpc_port} on {cfg.host} is already in use; "
                         "choose another with --grpc-port") from None
    try:
        return create_server(cfg, host, loopback=loopback, reuse_port=reuse_port)
    except RuntimeError as error:  # grpc: "Failed to bind to address ..."
        if "bind" in str(error).lower():
            raise _BindError(f"cannot listen for gRPC on {cfg.host} port {cfg.grpc_port}: the port is in use "
                             "(or the address is not this host's); choose another with --grpc-port or --host") from None
        raise


def _serve_metrics(serve_metrics: Callable[..., tuple[Any, int]], metrics: Any, cfg: Config) -> int:
    host = cfg.host
    try:
        return serve_metrics(metrics, cfg.metrics_port, host)[1]
    except OSError as error:
        if host == "::" and "Address already in use" not in str(error):  # no IPv6 on this host
            return serve_metrics(metrics, cfg.metrics_port, "0.0.0.0")[1]
        raise _BindError(f"cannot serve metrics on {host} port {cfg.metrics_port}: {error.strerror or error}; "
                         "choose another with --metrics-port (0 turns it off)") from None


def _start_rest(cfg: Config, metrics: Any, loop: Any = None, local: dict[str, Any] | None = None,
                reuse_port: bool = False) -> tuple[Any, Any]:

    from tabletop_server.rest.app import CHANNEL_OPTIONS, create_app, serve
    from tabletop_server.rest.dispatch import facade_channel
    from tabletop_server.rest.routes import ROUTES
    from tabletop_server.rest.server import HttpLimits, PortBusy
    from tabletop_server.rest.watch import WatchCaps
    from tabletop_server.service.api import tls, tracing
    from tabletop_server.service.api.rest_metrics import instrument_rest
    tracer = tracing.current_tracer()
    channel = tracing.traced_channel(tls.facade_channel(cfg, CHANNEL_OPTIONS), tracer)  # /readyz's health check
    app = create_app(cfg.grpc_target, max_body_bytes=cfg.max_request_bytes, channel=channel,
                     cors_origins=[o for o in cfg.cors_origins.split(",") if o.strip()],
                     proxy_secret=cfg.proxy_secret, heartbeat_seconds=cfg.watch_heartbeat_seconds)
    in_flight = instrument_rest(app, metrics, [route.openapi_path for route in ROUTES])
    limits = HttpLimits(cfg.http_max_connections, cfg.http_header_timeout_seconds, cfg.http_body_timeout_seconds,
                        cfg.http_keep_alive_seconds, cfg.http_vanished_seconds,
                        max_connections_per_address=cfg.http_max_connections_per_address)
    caps = WatchCaps(cfg.max_sse_watches, cfg.max_watches_per_token, cfg.max_watches_per_address)
    try:
        # The one choice between the deployment shapes: serve's handlers in process, else gRPC (rest.dispatch).
        http = serve(app, cfg.host, cfg.http_port, cfg.http_threads, limits=limits, caps=caps, metrics=metrics,
                     in_flight=in_flight, loop=loop, forwarded_allow_ips=cfg.http_forwarded_allow_ips,
                     channel=lambda: facade_channel(lambda: tls.facade_channel(cfg, CHANNEL_OPTIONS, aio=True), local),
                     tracing=tracing.AsgiTracing.for_tracer(tracer), reuse_port=reuse_port)
    except PortBusy as error:
        raise _BindError(f"cannot listen for HTTP: {error.strerror}; choose another with --http-port") from None
    return http, in_flight


def _raise_fd_limit() -> None:
    """Every connection is a file descriptor: lift the soft limit to the hard one (often 1024 -> 1M)."""
    try:
        import resource
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft != hard:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    except (ImportError, ValueError, OSError):  # not on this platform, or not allowed
        pass


class _BindError(Exception):
    """A listener could not bind: its message is the one line the operator sees."""


def _close(closers: list[Callable[[], object]]) -> None:
    """Run the closers in order; the embedded Redis (if any) stops last, whatever they did,
    so no redis-server outlives ``tabletop`` (open watch streams included)."""
    from tabletop_server.service.store import embedded
    try:
        for close in closers:
            close()
    finally:
        embedded.stop_all()


def _tls_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--grpc-tls-cert", help="PEM certificate chain: the gRPC port serves TLS")
    p.add_argument("--grpc-tls-key", help="PEM private key of --grpc-tls-cert")
    p.add_argument("--grpc-tls-client-ca", help="PEM CA: gRPC callers must present a certificate it signed")


def _refuse_serve_with_client_ca(command: str, cfg: Config) -> None:
    """``serve``'s facade reaches the service over plaintext loopback: with client certificates required,
    that would be a way around them. Run ``tabletop grpc`` and ``tabletop rest`` apart instead."""
    if command == "serve" and cfg.grpc_tls_client_ca_file:
        raise SystemExit("TABLETOP_GRPC_TLS_CLIENT_CA_FILE is not for `tabletop serve`: its REST facade would "
                         "call the service without a client certificate. Run `tabletop grpc` (with the client "
                         "CA) and the REST facade apart, or leave the client CA unset.")


def _in_process_target(cfg: Config, port: int, loopback_port: int) -> Config:
    """Where ``serve``'s own facade calls: the plaintext loopback port beside a TLS port, else the port."""
    local = "127.0.0.1" if cfg.host in ("::", "0.0.0.0", "") else cfg.host
    local = f"[{local}]" if ":" in local else local
    target = f"127.0.0.1:{loopback_port}" if loopback_port else f"{local}:{port}"
    return replace(cfg, grpc_target=target, grpc_target_tls_ca_file="", grpc_target_tls_server_name="")


def _version() -> str:
    from importlib import metadata
    try:
        return metadata.version("tabletop-server")
    except metadata.PackageNotFoundError:  # run from a checkout that was never installed
        return "0+unknown"


def _remaining(deadline: float) -> float:
    return max(1.0, deadline - time.monotonic())


def _drain_rest(http: Any, in_flight: Any, grace: float) -> None:
    """/readyz to 503 while still serving (so the balancer drops this pod), then close.

    The first phase waits until no request is in flight, at most half the grace (and 5 s);
    the REST server's own close then stops accepting and drains what is left.
    """
    started = time.monotonic()
    in_flight.drain(min(5.0, grace / 2))
    http.close(max(1.0, grace - (time.monotonic() - started)))


def _logging(cfg: Config) -> None:
    from tabletop_server.service.api.log_format import configure_logging
    configure_logging(cfg.log_level, cfg.log_format, sys.stderr)


if __name__ == "__main__":
    raise SystemExit(main())
