"""One client address cannot hold the HTTP server's connections, and the accept queue is as deep as bind() made
it (issue 26, item 4: 12,500 sockets of one address churning delayed everyone else, and connects timed out on a
full 2048-deep queue).

Bounded, not timed: a count of connections and the listening socket's queue length.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

from bench.http_load import get, until
from tabletop_server.rest.app import create_app, serve
from tabletop_server.rest.server import BACKLOG, HttpLimits, HttpServer

CAP = 5


async def _open(port: int, count: int, source: str = "127.0.0.1") -> list[tuple[asyncio.StreamReader,
                                                                                 asyncio.StreamWriter]]:
    return [await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0)) for _ in range(count)]


def _serve(grpc_server: Any, forwarded_allow_ips: str = "") -> HttpServer:
    return serve(create_app(grpc_server.target), "127.0.0.1", 0,
                 limits=HttpLimits(max_connections_per_address=CAP), forwarded_allow_ips=forwarded_allow_ips)


def test_past_the_per_address_cap_the_next_connection_of_that_address_gets_one_clear_503(grpc_server: Any) -> None:
    server = _serve(grpc_server)

    async def main() -> None:
        port = server.port
        held = await _open(port, CAP)  # idle: they hold their slots until the header deadline
        assert await until(lambda: server.connections >= CAP, 5)
        reader, _ = await asyncio.open_connection("127.0.0.1", port)
        reply = await asyncio.wait_for(reader.read(), 5)  # answered and closed at once, never parsed nor held
        head, _, body = reply.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 503") and b"Retry-After: 1" in head
        error = json.loads(body)["error"]
        assert error["reason"] == "TOO_MANY_CONNECTIONS" and f"holds {CAP} connections" in error["message"]
        assert server.connections == CAP  # the refused one never counted
        # another address is not affected
        other = await asyncio.open_connection("127.0.0.1", port, local_addr=("127.0.0.2", 0))
        status, _, _ = await get(port, "/v1/rulesets", other)
        assert status == 200
        other[1].close()
        # a slot freed is a slot again
        held[0][1].close()
        assert await until(lambda: server.connections <= CAP - 1, 5)
        status, _, _ = await get(port, "/v1/rulesets")
        assert status == 200
        for _, writer in held[1:]:
            writer.close()

    try:
        asyncio.run(main())
    finally:
        server.close(1)


def test_a_trusted_proxy_is_not_held_to_the_per_address_cap(grpc_server: Any) -> None:
    server = _serve(grpc_server, forwarded_allow_ips="127.0.0.0/8")  # every connection carries many clients

    async def main() -> None:
        held = await _open(server.port, CAP * 2)
        assert await until(lambda: server.connections >= CAP * 2, 5)
        status, _, _ = await get(server.port, "/v1/rulesets")
        assert status == 200
        for _, writer in held:
            writer.close()

    try:
        asyncio.run(main())
    finally:
        server.close(1)


def test_the_accept_queue_stays_as_deep_as_bind_made_it(grpc_server: Any) -> None:
    server = _serve(grpc_server)
    try:
        assert server.server.config.backlog == BACKLOG  # uvicorn listens again, with its own 2048 unless told
        if shutil.which("ss"):  # the kernel's view: the listening socket's queue length (Send-Q)
            somaxconn = int(Path("/proc/sys/net/core/somaxconn").read_text())
            line = subprocess.run(["ss", "-Hltn", f"sport = :{server.port}"], capture_output=True, text=True,
                                  check=True).stdout.split()
            assert int(line[2]) == min(somaxconn, BACKLOG)
    finally:
        server.close(1)
