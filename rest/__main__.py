"""``python -m tabletop_server.rest``: the REST facade alone, as started by ``rest.process.spawn``.

Stops (draining, see ``HttpServer.close``) on SIGTERM or SIGINT, and with
``--exit-with-parent`` also at end of file on stdin (the parent process is gone).
"""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import signal
import sys
import threading

from tabletop_server.rest.app import create_app, serve


def main(argv: list[str] | None = None) -> int:
    """Parse the flags, serve until told to stop, drain, exit 0."""
    parser = argparse.ArgumentParser(prog="python -m tabletop_server.rest", description=__doc__.splitlines()[0])
    parser.add_argument("--grpc-target", required=True)
    parser.add_argument("--host", default="0.0.0.0")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--max-body-bytes", type=int, default=65536)
    parser.add_argument("--threads", type=int, default=32)
    parser.add_argument("--grace-seconds", type=float, default=5.0)
    parser.add_argument("--exit-with-parent", action="store_true", help="stop when stdin reaches end of file")
    parser.add_argument(
        "--setup", default="", help="module:callable run on the app before serving (instrumentation)"
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=os.environ.get("TABLETOP_LOG_LEVEL", "INFO").upper(), stream=sys.stderr)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    if args.exit_with_parent:
        threading.Thread(target=_stop_at_eof, args=(stop,), daemon=True, name="parent-watch").start()
    app = create_app(args.grpc_target, max_body_bytes=args.max_body_bytes)
    if args.setup:
        module, _, name = args.setup.partition(":")
        getattr(importlib.import_module(module), name)(app)
    server = serve(app, args.host, args.port, args.threads)
    logging.getLogger("tabletop.rest").info(
        "REST facade on port %d, gRPC at %s", server.port, args.grpc_target
    )
    stop.wait()
    server.close(args.grace_seconds)
    return 0


def _stop_at_eof(stop: threading.Event) -> None:
    # os.read, not sys.stdin: a daemon thread blocked in a buffered read holds its lock
    # and aborts the interpreter at exit.
    try:
        while os.read(sys.stdin.fileno(), 4096):
            pass
    except OSError:
        pass
    stop.set()


if __name__ == "__main__":
    sys.exit(main())
