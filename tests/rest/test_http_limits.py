"""The HTTP server's limits, each against the real app over loopback (issue 11).

A bound on connections with a clear refusal, header and body deadlines that cut slow
clients off, keep-alive expiry, and the per-token and per-address caps on watches
(429 with Retry-After and a reason).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from typing import Any

import pytest

from bench.http_load import SseWatcher, get, open_idle, until
from tabletop_server.rest.app import create_app, serve
from tabletop_server.rest.server import HttpLimits, HttpServer, PortBusy, bind
from tabletop_server.rest.watch import WatchCaps
from tests.helpers import create_game


@pytest.fixture
def limited(grpc_server: Any, request: pytest.FixtureRequest) -> Iterator[HttpServer]:
    limits, caps = request.param
    server = serve(create_app(grpc_server.target, heartbeat_seconds=0.5), "127.0.0.1", 0, limits=limits, caps=caps)
    yield server
    server.close(1)


@pytest.mark.parametrize("limited", [(HttpLimits(max_connections=40), WatchCaps())], indirect=True)
def test_past_the_connection_cap_a_new_connection_gets_one_clear_503(limited: HttpServer) -> None:
    async def main() -> None:
        held = await open_idle(limited.port, 40)
        assert await until(lambda: limited.connections >= 40, 5)
        reader, _ = await asyncio.open_connection("127.0.0.1", limited.port)
        reply = await asyncio.wait_for(reader.read(), 5)  # answered and closed at once, not left hanging
        head, _, body = reply.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 503") and b"Retry-After: 1" in head
        assert json.loads(body)["error"]["reason"] == "TOO_MANY_CONNECTIONS"
        for _, writer in held[:5]:
            writer.close()
        assert await until(lambda: limited.connections <= 36, 5)
        status, _, _ = await get(limited.port, "/v1/rulesets")  # room again
        assert status == 200
        for _, writer in held[5:]:
            writer.close()

    asyncio.run(main())


@pytest.mark.parametrize("limited", [(HttpLimits(header_timeout=1, body_timeout=1, keep_alive=1), WatchCaps())],
                         indirect=True)
def test_slow_and_idle_clients_are_cut_off_at_their_deadlines(limited: HttpServer) -> None:
    async def main() -> None:
        port = limited.port
        started = time.monotonic()
        (idle_reader, _), (slow_reader, slow_writer), (body_reader, body_writer) = await open_idle(port, 3)
        slow_writer.write(b"GET /v1/rulesets HTTP/1.1\r\nHo")  # never finishes its headers
        body_writer.write(b"POST /v1/games HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{")  # nor its body
        replies = await asyncio.wait_for(asyncio.gather(idle_reader.read(), slow_reader.read(), body_reader.read()), 5)
        assert time.monotonic() - started < 3
        assert replies[0].startswith(b"HTTP/1.1 408") and b"REQUEST_TIMEOUT" in replies[0]
        assert replies[1].startswith(b"HTTP/1.1 408")
        assert replies[2] == b""  # cut mid-body: closed (the app saw a disconnect)
        # a served keep-alive connection is closed once idle past its limit
        conn = await asyncio.open_connection("127.0.0.1", port)
        status, _, _ = await get(port, "/v1/rulesets", conn)
        assert status == 200
        assert await asyncio.wait_for(conn[0].read(), 4) == b""

    asyncio.run(main())


@pytest.mark.parametrize("limited", [(HttpLimits(), WatchCaps(total=0, per_token=2, per_address=3))], indirect=True)
def test_watch_caps_per_token_and_per_address_refuse_with_429_retry_after_and_a_reason(
        limited: HttpServer, stub: Any) -> None:
    game, tokens = create_game(stub)

    async def main() -> None:
        port = limited.port
        first = [SseWatcher().start(port, game.name, tokens[0]) for _ in range(2)]
        await asyncio.wait_for(asyncio.gather(*(w.opened.wait() for w in first)), 5)
        assert [w.status for w in first] == [200, 200]
        over_token = SseWatcher().start(port, game.name, tokens[0])
        await asyncio.wait_for(over_token.opened.wait(), 5)
        assert over_token.status == 429 and int(over_token.headers["retry-after"]) > 0
        third = SseWatcher().start(port, game.name, tokens[1])  # another token: within its cap, the address's 3rd
        await asyncio.wait_for(third.opened.wait(), 5)
        assert third.status == 200
        over_address = SseWatcher().start(port, game.name)
        await asyncio.wait_for(over_address.opened.wait(), 5)
        assert over_address.status == 429
        reasons = limited.app.refusals
        assert reasons == {"TOO_MANY_WATCHES_PER_TOKEN": 1, "TOO_MANY_WATCHES_PER_ADDRESS": 1}
        status, _, body = await get(port, f"/v1/{game.name}:watch", headers={"Authorization": f"Bearer {tokens[2]}"})
        assert status == 429 and json.loads(body)["error"]["reason"] == "TOO_MANY_WATCHES_PER_ADDRESS"
        first[0].cut()  # an abrupt reset frees its slots at once
        assert await until(lambda: limited.app.watches.open == 2, 5)
        again = SseWatcher().start(port, game.name, tokens[0])
        await asyncio.wait_for(again.opened.wait(), 5)
        assert again.status == 200
        for watcher in (*first[1:], third, again):
            watcher.cut()

    asyncio.run(main())


def test_a_busy_port_is_one_clear_error() -> None:
    held = bind("127.0.0.1", 0)
    port = held.getsockname()[1]
    try:
        with pytest.raises(PortBusy) as error:
            bind("127.0.0.1", port)
        assert str(error.value).endswith(f"port {port} on 127.0.0.1 is already in use")
    finally:
        held.close()
