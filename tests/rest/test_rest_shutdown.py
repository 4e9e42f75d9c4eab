"""Closing the REST server drains it: in-flight requests finish, watch streams end cleanly."""

from __future__ import annotations

import socket
import threading
import time
from typing import Any

import pytest
import requests

from tabletop_server.rest.app import create_app, serve
from tests.rest.conftest import HEARTBEAT_SECONDS
from tests.rest.rest_api import Api, SseReader


def test_close_lets_an_in_flight_request_finish() -> None:
    silent = socket.create_server(("127.0.0.1", 0))  # accepts TCP, never answers: a slow service
    rest = serve(create_app(f"127.0.0.1:{silent.getsockname()[1]}", deadline_seconds=1.0), "127.0.0.1", 0)
    replies: list[Any] = []
    caller = threading.Thread(target=lambda: replies.append(Api(rest.url).get("/v1/rulesets")))
    try:
        caller.start()
        time.sleep(0.3)  # the request is now waiting on the service
        started = time.monotonic()
        rest.close(grace=5)
        assert time.monotonic() - started < 4
        caller.join(5)
        assert replies and replies[0].status_code == 504  # answered, not cut off
        with pytest.raises(requests.ConnectionError):
            Api(rest.url).get("/healthz")  # no new connections after close
    finally:
        silent.close()


def test_close_ends_watch_streams_cleanly(grpc_server: Any) -> None:
    rest = serve(create_app(grpc_server.target, heartbeat_seconds=30), "127.0.0.1", 0)
    api = Api(rest.url)
    name, tokens = api.create_game()
    reply = api.get(f"/v1/{name}:watch", tokens[0], stream=True, timeout=10)
    stream = SseReader(reply)
    stream.read(lambda item: item.comment is None and item.id == "1")
    started = time.monotonic()
    rest.close(grace=5)
    rest_of_stream = stream.read(lambda item: False)  # returns when the server ends the body
    assert time.monotonic() - started < HEARTBEAT_SECONDS * 6  # not after the 30 s heartbeat
    assert all(item.event != "error" for item in rest_of_stream)
