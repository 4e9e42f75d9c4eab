"""REST fixtures: the real app served by waitress over real HTTP, against the real gRPC server."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from rest.app import RestServer, create_app, serve
from tests.rest.rest_api import Api

HEARTBEAT_SECONDS = 0.5


@pytest.fixture(scope="session")
def rest_server(grpc_server: Any) -> Iterator[RestServer]:
    app = create_app(grpc_server.target, heartbeat_seconds=HEARTBEAT_SECONDS)
    server = serve(app, "127.0.0.1", 0)
    yield server
    server.close()


@pytest.fixture
def api(rest_server: RestServer) -> Iterator[Api]:
    client = Api(rest_server.url)
    yield client
    client.session.close()
