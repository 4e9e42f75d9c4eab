"""REST fixtures: the real app served by uvicorn (rest.server) over real HTTP, against the real gRPC server.

The facade has one request path (``rest.dispatch``) and two deployment shapes, which differ
only in the channel the path calls (``rest.dispatch.facade_channel``):

- ``in-process``: as ``tabletop serve`` runs it, on the gRPC server's own loop with the
  service's handlers called in process (``rest.local``);
- ``grpc``: as ``tabletop rest`` (its own Deployment) runs it, over ``grpc.aio``.

A module that tests what depends on the channel (errors as the service raises them, the
metadata it forwards, deadlines, streams) sets ``EACH_SHAPE = True`` and runs on both;
every other REST test (field rules, playthroughs, the OpenAPI document, ...) runs once, on
``in-process``, the shape ``tabletop serve`` ships.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import grpc
import pytest

from tabletop_server.rest.app import create_app, serve
from tabletop_server.rest.dispatch import facade_channel
from tabletop_server.rest.server import HttpServer
from tests.rest.rest_api import Api

HEARTBEAT_SECONDS = 0.5
SHAPES = ("in-process", "grpc")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "rest_server" in metafunc.fixturenames:
        shapes = SHAPES if getattr(metafunc.module, "EACH_SHAPE", False) else SHAPES[:1]
        metafunc.parametrize("rest_server", shapes, indirect=True, scope="session")


@pytest.fixture(scope="session")
def rest_server(grpc_server: Any, request: pytest.FixtureRequest) -> Iterator[HttpServer]:
    """The app served over HTTP in one deployment shape (``request.param``, see the module docstring)."""
    server = serve_shape(grpc_server, request.param, create_app(grpc_server.target, heartbeat_seconds=HEARTBEAT_SECONDS))
    yield server
    server.close()


def serve_shape(grpc_server: Any, shape: str, app: Any, **kwargs: Any) -> HttpServer:
    """``app`` served in ``shape``: ``in-process`` on the gRPC server's loop with its handlers, or ``grpc``."""
    if shape == "in-process":
        running = grpc_server.running
        return serve(app, "127.0.0.1", 0, loop=running.loop, **kwargs,
                     channel=lambda: facade_channel(lambda: grpc.aio.insecure_channel(grpc_server.target),
                                                    running.handlers))
    return serve(app, "127.0.0.1", 0, **kwargs)


@pytest.fixture
def api(rest_server: HttpServer) -> Iterator[Api]:
    client = Api(rest_server.url)
    yield client
    client.session.close()
