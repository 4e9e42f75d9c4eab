"""REST fixtures: the real app served by uvicorn (rest.server) over real HTTP, against the real gRPC server."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from rest.app import create_app, serve
from rest.server import HttpServer
from tests.rest.rest_api import Api

HEARTBEAT_SECONDS = 0.5


@pytest.fixture(scope="session", params=["fast-path", "flask-views"])
def rest_server(grpc_server: Any, request: pytest.FixtureRequest) -> Iterator[HttpServer]:
    """The app served over HTTP, both ways its unary routes can be dispatched."""
    fast_path = request.param == "fast-path"
    app = create_app(grpc_server.target, heartbeat_seconds=HEARTBEAT_SECONDS, fast_path=fast_path)
    server = serve(app, "127.0.0.1", 0)
    yield server
    server.close()


@pytest.fixture
def api(rest_server: HttpServer) -> Iterator[Api]:
    client = Api(rest_server.url)
    yield client
    client.session.close()
