"""The HTTP server: uvicorn (httptools, one event loop) with the limits a public endpoint needs.

Why uvicorn: it runs in an asyncio loop of ours (``tabletop serve`` puts it on the gRPC
server's loop, so REST adds no thread), idle connections cost a protocol object and a
transport (a few kilobytes), its httptools parser is the fastest of the maintained
pure-asyncio servers, and it takes a custom protocol class, which is where the limits
below live. ``bench/http_servers.py`` compares it with hypercorn and granian.

uvicorn alone closes an idle keep-alive connection but never one that connects and
sends nothing, or a header byte every few seconds. ``_Protocol`` adds:

- a header deadline (``header_timeout``) from the connection's start or the end of the
  previous response to the end of the next request's headers, and a body deadline
  (``body_timeout``) from there to the end of its body: slow clients are cut off with a
  408 (or closed mid-body);
- a bound on open connections: past ``max_connections`` a new connection gets one
  ``503 TOO_MANY_CONNECTIONS`` with ``Retry-After`` and is closed, never left hanging;
- ``TCP_USER_TIMEOUT`` (``vanished_seconds``) on every connection, so a peer that vanished
  without a FIN or RST is dropped once a heartbeat goes unacknowledged that long.
"""

from __future__ import annotations

import asyncio
import errno
import socket
import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any

import grpc
import uvicorn
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from tabletop_server.rest.errors import Reason, local_error


@dataclass(frozen=True)
class HttpLimits:
    """The HTTP server's limits (``service.config`` documents each; 0 turns a bound off)."""

    max_connections: int = 20000
    header_timeout: float = 10.0
    body_timeout: float = 10.0
    keep_alive: float = 5.0
    vanished_seconds: float = 15.0


class PortBusy(OSError):
    """The port is taken: its message is one line for the operator."""


def bind(host: str, port: int, backlog: int = 2048) -> socket.socket:
    """A listening socket on ``host:port`` ("::" = every interface, IPv4 too; falls back to 0.0.0.0)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        if family == socket.AF_INET6:
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        sock.bind((host.strip("[]"), port))
    except OSError as error:
        sock.close()
        if error.errno == errno.EADDRINUSE:
            raise PortBusy(error.errno, f"port {port} on {host} is already in use") from None
        if family == socket.AF_INET6 and host.strip("[]") == "::":  # no IPv6 on this host
            return bind("0.0.0.0", port, backlog)
        raise
    sock.listen(backlog)
    sock.setblocking(False)
    return sock


class HttpServer:
    """``app`` served by uvicorn on ``loop`` (a private loop thread when None); ``close()`` drains."""

    def __init__(self, app: Any, sock: socket.socket, limits: HttpLimits, loop: asyncio.AbstractEventLoop | None = None,
                 on_refused: Callable[[str], None] = lambda reason: None,
                 forwarded_allow_ips: str = "") -> None:
        self.app, self.sock, self.limits = app, sock, limits
        self._address = sock.getsockname()
        self._own_loop = loop is None
        self.loop = loop or _loop_thread()
        protocol = type("TabletopHttp", (_Protocol,), {"limits": limits, "on_refused": staticmethod(on_refused)})
        config = uvicorn.Config(app, http=protocol, lifespan="off", ws="none", log_config=None, access_log=False,
                                timeout_keep_alive=max(1, round(limits.keep_alive)), server_header=False,
                                proxy_headers=bool(forwarded_allow_ips),
                                forwarded_allow_ips=forwarded_allow_ips or None)
        self.server = uvicorn.Server(config)
        self._done: Future[None] = asyncio.run_coroutine_threadsafe(self._serve(), self.loop)
        started = asyncio.run_coroutine_threadsafe(self._started(), self.loop)
        started.result(30)
        if self._done.done():
            self._done.result()

    @property
    def port(self) -> int:
        """The bound port (useful with port 0)."""
        return int(self._address[1])

    @property
    def host(self) -> str:
        return str(self._address[0])

    @property
    def url(self) -> str:
        """``http://host:port`` (loopback when bound to every interface)."""
        host = self.host
        host = "127.0.0.1" if host in ("0.0.0.0", "::") else host
        return f"http://[{host}]:{self.port}" if ":" in host else f"http://{host}:{self.port}"

    @property
    def connections(self) -> int:
        """Open HTTP connections now."""
        return len(self.server.server_state.connections)

    def close(self, grace: float = 5.0) -> None:
        """Stop accepting, end the watch streams (clients resume with Last-Event-ID), let requests in
        flight finish for up to ``grace`` seconds, then close every connection."""
        self.server.config.timeout_graceful_shutdown = max(1, round(grace))

        async def stop() -> None:
            ender = getattr(self.app, "end_watches", None)
            if ender is not None:
                ender()
            self.server.should_exit = True

        asyncio.run_coroutine_threadsafe(stop(), self.loop).result(5)
        try:
            self._done.result(grace + 5)
        finally:
            if self._own_loop:
                self.loop.call_soon_threadsafe(self.loop.stop)

    async def _serve(self) -> None:
        starter = getattr(self.app, "start", None)
        if starter is not None:
            await starter()
        try:
            await self.server.serve(sockets=[self.sock])
        finally:
            stopper = getattr(self.app, "stop", None)
            if stopper is not None:
                await stopper()

    async def _started(self) -> None:
        while not self.server.started and not self._done.done():
            await asyncio.sleep(0.01)


class _Protocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with deadlines and a connection cap (see the module docstring)."""

    limits: HttpLimits
    on_refused: Callable[[str], None]
    _deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        sock = transport.get_extra_info("socket")
        if sock is not None and self.limits.vanished_seconds > 0 and hasattr(socket, "TCP_USER_TIMEOUT"):
            try:
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_USER_TIMEOUT, int(self.limits.vanished_seconds * 1000))
            except OSError:
                pass
        if self.limits.max_connections and len(self.connections) > self.limits.max_connections:
            self.on_refused(Reason.TOO_MANY_CONNECTIONS)
            transport.write(_TOO_MANY_CONNECTIONS)
            transport.close()
            return
        self._arm(self.limits.header_timeout, _HEADER_TIMEOUT)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._deadline is None and (self.cycle is None or self.cycle.response_complete):
            self._arm(self.limits.header_timeout, _HEADER_TIMEOUT)  # the first byte of the next request
        super().data_received(data)

    def on_headers_complete(self) -> None:
        self._disarm()
        super().on_headers_complete()
        if self.cycle is not None and self.cycle.more_body:
            self._arm(self.limits.body_timeout, b"")

    def on_message_complete(self) -> None:
        self._disarm()
        super().on_message_complete()

    def _arm(self, seconds: float, reply: bytes) -> None:
        self._disarm()
        if seconds > 0:
            self._deadline = self.loop.call_later(seconds, self._expired, reply)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _expired(self, reply: bytes) -> None:
        self._deadline = None
        if self.transport.is_closing():
            return
        self.on_refused("HEADER_TIMEOUT" if reply else "BODY_TIMEOUT")  # metrics only: no reason reaches a client
        if reply and (self.cycle is None or self.cycle.response_complete):
            self.transport.write(reply)
        self.transport.close()


def _canned(status: int, code: grpc.StatusCode, reason: str, message: str, retry_after: int | None) -> bytes:
    body = local_error(status, code, reason, message).body()
    retry = f"Retry-After: {retry_after}\r\n" if retry_after else ""
    return (f"HTTP/1.1 {status} {HTTPStatus(status).phrase}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n{retry}Connection: close\r\n\r\n").encode() + body


_TOO_MANY_CONNECTIONS = _canned(503, grpc.StatusCode.UNAVAILABLE, Reason.TOO_MANY_CONNECTIONS,
                                "This server holds as many connections as it may; retry.", 1)
_HEADER_TIMEOUT = _canned(408, grpc.StatusCode.DEADLINE_EXCEEDED, Reason.REQUEST_TIMEOUT,
                          "The request's headers did not arrive in time.", None)


def _loop_thread() -> asyncio.AbstractEventLoop:
    try:
        import uvloop
        loop: asyncio.AbstractEventLoop = uvloop.new_event_loop()
    except ImportError:  # pragma: no cover - uvloop is a dependency off Windows
        loop = asyncio.new_event_loop()
    threading.Thread(target=loop.run_forever, name="http-loop", daemon=True).start()
    return loop
