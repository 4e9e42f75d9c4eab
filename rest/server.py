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
- a bound on open connections per client address (``max_connections_per_address``; never for the
  trusted proxies of ``forwarded_allow_ips``, whose connections carry many clients): past it a new
  connection from that address gets the same 503 before anything is parsed, at the cost of one write and a
  close, so one address cannot hold the server's connections (issue 26, item 4);
- ``TCP_USER_TIMEOUT`` (``vanished_seconds``) on every connection, so a peer that vanished
  without a FIN or RST is dropped once a heartbeat goes unacknowledged that long;
- bounds on a request's head: past ``max_header_bytes`` (request line and headers) or
  ``max_headers`` header lines the request gets ``414 URI_TOO_LONG`` or ``431
  HEADERS_TOO_LARGE`` and the connection closes. httptools holds an unfinished header in
  memory, so without the bound a header that never ends grows without end (issue 26: 200
  such connections held 200 MB); with it a connection's head costs at most the bound plus
  one read;
- every refusal of the HTTP layer itself (a request httptools cannot parse included) in the
  API's one JSON error shape, never uvicorn's plain-text "Invalid HTTP request received.".
"""

from __future__ import annotations

import asyncio
import errno
import functools
import ipaddress
import random
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
    max_header_bytes: int = 32768  # the request line and headers of one request
    max_headers: int = 100  # header lines of one request
    max_connections_per_address: int = 1000  # open connections from one client address (trusted proxies excepted)


class PortBusy(OSError):
    """The port is taken: its message is one line for the operator."""


BACKLOG = 65535  # the kernel clamps it to net.core.somaxconn (4096 on current Linux)


def bind(host: str, port: int, backlog: int = BACKLOG, reuse_port: bool = False) -> socket.socket:
    """A listening socket on ``host:port`` ("::" = every interface, IPv4 too; falls back to 0.0.0.0).

    The accept backlog is as deep as the kernel allows: a crowd of clients reconnecting at once (each
    cut at the header timeout) filled the old 2048 and left connects to time out (issue 26, item 4),
    while the server, one event loop, accepts them a little later at no extra cost. ``reuse_port``: the
    port is shared with other processes that bind it so (SO_REUSEPORT: ``tabletop serve --workers``),
    and the kernel spreads new connections over them."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if reuse_port:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    try:
        if family == socket.AF_INET6:
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        sock.bind((host.strip("[]"), port))
    except OSError as error:
        sock.close()
        if error.errno == errno.EADDRINUSE:
            raise PortBusy(error.errno, f"port {port} on {host} is already in use") from None
        if family == socket.AF_INET6 and host.strip("[]") == "::":  # no IPv6 on this host
            return bind("0.0.0.0", port, backlog, reuse_port)
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
        protocol = type("TabletopHttp", (_Protocol,), {
            "limits": limits, "on_refused": staticmethod(on_refused),
            "per_address": {}, "trusted": staticmethod(_trusted(forwarded_allow_ips))})
        # backlog: uvicorn listens again on the socket it is given, with its own default of 2048, which undid
        # bind()'s deeper backlog (issue 26, item 4: the attackers' connects timed out on a full queue).
        config = uvicorn.Config(app, http=protocol, lifespan="off", ws="none", log_config=None, access_log=False,
                                backlog=BACKLOG,
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
    per_address: dict[str, int]  # open connections by client address (the server's, shared by its connections)
    trusted: Callable[[str], bool]  # a trusted proxy's address: no per-address cap
    _address = ""  # the client address this connection counts against in ``per_address`` ("" = none)
    _deadline: asyncio.TimerHandle | None = None
    _in_head = False  # between a request's first byte and the end of its headers
    _head_bytes = 0  # bytes read while that request's head was unfinished
    _lingering = False  # refused and answered: reading only to discard (see _refuse)
    _refusal = ""  # the reason when a parser callback refused the request (a key of _head_refusals)

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        cap = self.limits.max_connections_per_address
        if cap:
            peer = transport.get_extra_info("peername")
            address = _client_address(peer[0]) if isinstance(peer, tuple) and peer else ""
            if address and not self.trusted(address):
                held = self.per_address.get(address, 0)
                if held >= cap:  # refused before anything else is set up: one write and a close
                    self.transport, self._lingering = transport, True
                    self.on_refused(Reason.TOO_MANY_CONNECTIONS)
                    transport.write(_too_many_from_address(cap))
                    transport.close()
                    return
                self.per_address[address], self._address = held + 1, address
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
        self._arm(_spread(self.limits.header_timeout), _HEADER_TIMEOUT)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        if self._address:
            held = self.per_address.pop(self._address, 1) - 1
            if held > 0:
                self.per_address[self._address] = held
            self._address = ""
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._lingering:
            return  # refused: what the client still sends is dropped until the connection closes
        if self._deadline is None and (self.cycle is None or self.cycle.response_complete):
            self._arm(_spread(self.limits.header_timeout), _HEADER_TIMEOUT)  # the first byte of the next request
        super().data_received(data)
        if self._in_head and not self.transport.is_closing():  # an unfinished head: count what it has cost
            self._head_bytes += len(data)
            if self.limits.max_header_bytes and self._head_bytes > self.limits.max_header_bytes:
                self._refuse(self._head_too_large())

    def send_400_response(self, msg: str) -> None:
        """uvicorn's answer to a request httptools refused: ours, in the JSON error shape."""
        self._refuse(self._refusal or Reason.MALFORMED_HTTP)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._in_head, self._head_bytes = True, 0

    def on_header(self, name: bytes, value: bytes) -> None:
        super().on_header(name, value)
        if self.limits.max_headers and len(self.headers) > self.limits.max_headers:
            self._refusal = "headers"
            raise ValueError("too many headers")  # httptools stops; uvicorn calls send_400_response

    def on_headers_complete(self) -> None:
        self._in_head = False
        limit = self.limits.max_header_bytes
        if limit and len(self.url) + sum(len(n) + len(v) + 4 for n, v in self.headers) > limit:
            self._refusal = self._head_too_large()
            raise ValueError("request head too large")
        self._disarm()
        super().on_headers_complete()
        if self.cycle is not None and self.cycle.more_body:
            self._arm(self.limits.body_timeout, b"")

    def on_message_complete(self) -> None:
        self._disarm()
        super().on_message_complete()

    def _head_too_large(self) -> str:
        """414 when the request line is most of the head, else 431."""
        too_long = len(self.url) * 2 > self.limits.max_header_bytes
        return Reason.URI_TOO_LONG if too_long else Reason.HEADERS_TOO_LARGE

    def _refuse(self, reason: str) -> None:
        self._in_head = False
        reply = _head_refusals(self.limits).get(reason, _MALFORMED)
        self.on_refused(Reason.HEADERS_TOO_LARGE if reason == "headers" else reason)
        if self.transport.is_closing() or self._lingering:
            return
        # Closing a socket with unread input sends an RST, which can destroy the reply before the
        # client reads it (a client still sending its megabyte header). So: the reply, a FIN, and
        # a short lingering close that discards input (as nginx's lingering_close), then close.
        self._lingering = True
        self.transport.write(reply)
        if self.transport.can_write_eof():
            self.transport.write_eof()
        self._arm(_LINGER_SECONDS, b"")
        self.url, self.headers = b"", []  # what the refused head held is free at once

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
        if self.transport.is_closing() or self._lingering:
            self.transport.close()
            return
        self.on_refused("HEADER_TIMEOUT" if reply else "BODY_TIMEOUT")  # metrics only: no reason reaches a client
        if reply and (self.cycle is None or self.cycle.response_complete):
            self.transport.write(reply)
        self.transport.close()


def _spread(seconds: float) -> float:
    """A header deadline between 75% and 100% of ``seconds``: connections opened together (a crowd of idle
    or slow clients) are not all cut, and reopened, in the same instant (bench/http_hostile.py)."""
    return seconds * random.uniform(0.75, 1.0)  # spreading load, not a secret


_LINGER_SECONDS = 1.0  # how long a refused connection's input is discarded before it closes


def _canned(status: int, code: grpc.StatusCode, reason: str, message: str, retry_after: int | None) -> bytes:
    body = local_error(status, code, reason, message).body()
    retry = f"Retry-After: {retry_after}\r\n" if retry_after else ""
    return (f"HTTP/1.1 {status} {HTTPStatus(status).phrase}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n{retry}X-Content-Type-Options: nosniff\r\n"
            f"Connection: close\r\n\r\n").encode() + body


_TOO_MANY_CONNECTIONS = _canned(503, grpc.StatusCode.UNAVAILABLE, Reason.TOO_MANY_CONNECTIONS,
                                "This server holds as many connections as it may; retry.", 1)


@functools.cache
def _too_many_from_address(cap: int) -> bytes:
    return _canned(503, grpc.StatusCode.UNAVAILABLE, Reason.TOO_MANY_CONNECTIONS,
                   f"Your address holds {cap} connections to this server, as many as one address may; close one "
                   "or retry.", 1)


def _client_address(host: str) -> str:
    """A peer's address as the per-address cap counts it: an IPv4 client of a dual-stack socket as IPv4."""
    return host[7:] if host.startswith("::ffff:") and "." in host else host


def _trusted(forwarded_allow_ips: str) -> Callable[[str], bool]:
    """Whether an address is one of the trusted proxies of ``forwarded_allow_ips`` (addresses or networks,
    comma-separated; ``*`` = every address), whose connections carry many clients."""
    entries = [entry.strip() for entry in forwarded_allow_ips.split(",") if entry.strip()]
    if "*" in entries:
        return lambda address: True
    networks = []
    for entry in entries:
        try:
            networks.append(ipaddress.ip_network(entry, strict=False))
        except ValueError:  # a name (uvicorn takes a Unix socket path too): never a TCP peer's address
            continue
    if not networks:
        return lambda address: False

    @functools.lru_cache(maxsize=1024)
    def trusted(address: str) -> bool:
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return False
        return any(ip in network for network in networks)
    return trusted


_HEADER_TIMEOUT = _canned(408, grpc.StatusCode.DEADLINE_EXCEEDED, Reason.REQUEST_TIMEOUT,
                          "The request's headers did not arrive in time.", None)
_MALFORMED = _canned(400, grpc.StatusCode.INVALID_ARGUMENT, Reason.MALFORMED_HTTP,
                     "The request is not valid HTTP/1.1 (its request line, a header or its framing).", None)


@functools.cache
def _head_refusals(limits: HttpLimits) -> dict[str, bytes]:
    """The canned refusals of an over-long request head, by reason ("headers" for too many lines)."""
    size, count = limits.max_header_bytes, limits.max_headers
    return {
        Reason.URI_TOO_LONG: _canned(414, grpc.StatusCode.INVALID_ARGUMENT, Reason.URI_TOO_LONG,
                                     f"The request line is over {size} bytes: shorten the path and query "
                                     "(a filter or page token that long is never valid).", None),
        Reason.HEADERS_TOO_LARGE: _canned(431, grpc.StatusCode.INVALID_ARGUMENT, Reason.HEADERS_TOO_LARGE,
                                          f"The request's headers are over {size} bytes.", None),
        "headers": _canned(431, grpc.StatusCode.INVALID_ARGUMENT, Reason.HEADERS_TOO_LARGE,
                           f"The request has over {count} header lines.", None),
    }


def _loop_thread() -> asyncio.AbstractEventLoop:
    try:
        import uvloop
        loop: asyncio.AbstractEventLoop = uvloop.new_event_loop()
    except ImportError:  # pragma: no cover - uvloop is a dependency off Windows
        loop = asyncio.new_event_loop()
    threading.Thread(target=loop.run_forever, name="http-loop", daemon=True).start()
    return loop
