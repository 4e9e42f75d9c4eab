"""REST fixtures: the real app served by uvicorn (rest.server) over real HTTP, against the real gRPC server."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import grpc
import pytest

from tabletop_server.rest.app import create_app, serve
from tabletop_server.rest.local import LocalChannel
from tabletop_server.rest.server import HttpServer
from tests.rest.rest_api import Api

HEARTBEAT_SECONDS = 0.5


@pytest.fixture(scope="session", params=["fast-path", "flask-views", "in-process"])
def rest_server(grpc_server: Any, request: pytest.FixtureRequest) -> Iterator[HttpServer]:
    """The app served over HTTP, every way its unary routes can be dispatched: awaited over a
    grpc.aio channel, through Flask's blocking channel, and (as ``tabletop serve`` does) on the
    gRPC server's own loop with the service's handlers called in process (``rest.local``)."""
    fast_path = request.param != "flask-views"
    app = create_app(grpc_server.target, heartbeat_seconds=HEARTBEAT_SECONDS, fast_path=fast_path)
    if request.param == "in-process":
        running = grpc_server.running
        server = serve(app, "127.0.0.1", 0, loop=running.loop,
                       aio_channel=lambda: LocalChannel(running.handlers, grpc.aio.insecure_channel(grpc_server.target)))
    else:
        server = serve(app, "127.0.0.1", 0)
    yield server
    server.close()


@pytest.fixture
def api(rest_server: HttpServer) -> Iterator[Api]:
    client = Api(rest_server.url)
    yield client
    client.session.close()
