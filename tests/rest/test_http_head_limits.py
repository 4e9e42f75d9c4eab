"""The HTTP server bounds a request's head and answers every refusal in the one error shape (issue 26).

A header that never ends used to be buffered without end (200 such connections: +200 MB), 3,000
headers were accepted, and a request line past 64 KiB got uvicorn's plain-text "Invalid HTTP
request received.". Now: 414 / 431 / 400 with the JSON error, ``nosniff``, and the connection closed
as soon as the bound is passed, not when the client finishes.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest

from bench.http_load import get, until
from tabletop_server.rest.app import create_app, serve
from tabletop_server.rest.server import HttpLimits, HttpServer


@pytest.fixture(scope="module")
def server(grpc_server: Any) -> Iterator[HttpServer]:
    http = serve(create_app(grpc_server.target), "127.0.0.1", 0)
    yield http
    http.close(1)


async def _exchange(port: int, raw: bytes, then_wait: bool = False) -> bytes:
    """Send ``raw`` (and, with ``then_wait``, nothing more: the head never ends); the whole reply."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(raw)
        await writer.drain()
    except ConnectionError:
        pass
    reply = await asyncio.wait_for(reader.read(), 5)  # answered and closed without waiting for the rest
    writer.close()
    return reply


def _error(reply: bytes) -> tuple[int, dict[str, str], dict[str, Any]]:
    head, _, body = reply.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    return int(lines[0].split()[1]), headers, json.loads(body)["error"]


@pytest.mark.parametrize("query", ["filter", "pageToken"])
def test_a_100000_character_query_gets_414_in_the_error_shape(server: HttpServer, query: str) -> None:
    raw = f"GET /v1/games?{query}={'a' * 100_000} HTTP/1.1\r\nHost: x\r\n\r\n".encode()
    status, headers, error = _error(asyncio.run(_exchange(server.port, raw)))
    assert status == 414 and error["reason"] == "URI_TOO_LONG" and error["status"] == "INVALID_ARGUMENT"
    assert headers["content-type"] == "application/json" and headers["x-content-type-options"] == "nosniff"


def test_a_header_that_never_ends_gets_431_once_past_the_bound(server: HttpServer) -> None:
    raw = b"GET /v1/rulesets HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 1_000_000  # and nothing more, ever
    status, _, error = _error(asyncio.run(_exchange(server.port, raw, then_wait=True)))
    assert status == 431 and error["reason"] == "HEADERS_TOO_LARGE"
    assert str(HttpLimits().max_header_bytes) in error["message"]


def test_3000_headers_get_431(server: HttpServer) -> None:
    raw = b"GET /v1/rulesets HTTP/1.1\r\nHost: x\r\n" + b"".join(b"X-H%d: 1\r\n" % i for i in range(3000)) + b"\r\n"
    status, _, error = _error(asyncio.run(_exchange(server.port, raw)))
    assert status == 431 and error["reason"] == "HEADERS_TOO_LARGE" and "100 header lines" in error["message"]


@pytest.mark.parametrize("raw", [b"GARBAGE\r\n\r\n", b"GET /v1/rulesets HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n",
                                 b"POST /v1/games HTTP/1.1\r\nHost: x\r\nContent-Length: x\r\n\r\n"])
def test_what_the_parser_refuses_gets_400_in_the_error_shape(server: HttpServer, raw: bytes) -> None:
    status, headers, error = _error(asyncio.run(_exchange(server.port, raw)))
    assert status == 400 and error["reason"] == "MALFORMED_HTTP" and error["code"] == 400
    assert headers["content-type"] == "application/json"


def test_heads_within_the_bounds_are_served(server: HttpServer) -> None:
    async def main() -> None:
        many = {f"X-H{i}": "1" for i in range(90)}
        assert (await get(server.port, "/v1/rulesets", headers=many))[0] == 200
        assert (await get(server.port, "/v1/rulesets", headers={"X-Big": "a" * 30_000}))[0] == 200
        status, _, body = await get(server.port, "/v1/games?filter=" + "a" * 20_000)
        assert status == 400 and json.loads(body)["error"]["reason"] != "URI_TOO_LONG"  # the service's own answer

    asyncio.run(main())


def test_connections_with_endless_headers_are_closed_and_counted_as_refused(server: HttpServer) -> None:
    async def main() -> None:
        before = dict(server.app.refusals)
        conns = [await asyncio.open_connection("127.0.0.1", server.port) for _ in range(50)]
        for _, writer in conns:
            writer.write(b"GET /v1/rulesets HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 200_000)
        replies = await asyncio.gather(*(asyncio.wait_for(reader.read(), 10) for reader, _ in conns))
        assert all(reply.startswith(b"HTTP/1.1 431") for reply in replies)
        assert await until(lambda: server.connections == 0, 5)
        assert server.app.refusals.get("HEADERS_TOO_LARGE", 0) - before.get("HEADERS_TOO_LARGE", 0) == 50
        for _, writer in conns:
            writer.close()

    asyncio.run(main())
