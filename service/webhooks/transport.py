"""Webhook HTTP: one POST, to an allowed host, at an allowed address, never following a redirect.

Server-side request forgery is refused in layers:

- the endpoint's host must be on the operator's allow-list (checked when the file is read, and
  again here at every connection);
- every address the host resolves to **at connect time** must be public (``ipaddress``'s
  ``is_global``: no loopback, private, link-local, shared, reserved or multicast address, an
  IPv4-mapped IPv6 address judged as its IPv4 address) or inside ``TABLETOP_WEBHOOK_ALLOWED_NETWORKS``.
  One refused address refuses the host (a name that resolves to a public and an internal address is
  a rebinding attempt, not a choice), and the connection goes to the address that was checked, not to
  a second lookup;
- a 3xx answer is a failed attempt: no redirect is followed (httpcore never follows one);
- no proxy from the environment is used, and TLS verifies the certificate for the host's name.

HTTP itself is httpcore's (the transport under httpx): nothing here parses HTTP.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import ssl
from collections.abc import Iterable
from typing import Any

import httpcore

from tabletop_server.service.webhooks import endpoints

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network
MAX_ANSWER_BYTES = 4096


class AddressRefused(Exception):
    """The endpoint's host is not allowed, or resolves to an address that is not (``reason`` says which)."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


def networks(allowed: str) -> tuple[Network, ...]:
    """The CIDRs of ``TABLETOP_WEBHOOK_ALLOWED_NETWORKS`` (ValueError names a bad one)."""
    out = []
    for entry in (e.strip() for e in allowed.split(",")):
        if entry:
            try:
                out.append(ipaddress.ip_network(entry, strict=False))
            except ValueError as exc:
                raise ValueError(f"TABLETOP_WEBHOOK_ALLOWED_NETWORKS: {entry!r} is not a CIDR") from exc
    return tuple(out)


def address_allowed(address: Address, allowed: Iterable[Network]) -> bool:
    """Public, or inside an allowed network."""
    judged: Address = address
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        judged = address.ipv4_mapped
    if any(judged in network for network in allowed):
        return True
    return judged.is_global and not judged.is_multicast


def check_addresses(host: str, addresses: list[Address], allowed: tuple[Network, ...]) -> None:
    """Raise ``AddressRefused`` unless every one of ``addresses`` (at least one) is allowed."""
    refused = [str(a) for a in addresses if not address_allowed(a, allowed)]
    if refused or not addresses:
        raise AddressRefused("ADDRESS_NOT_ALLOWED", f"host {host!r} resolves to {', '.join(refused) or 'nothing'}"
                             ": not a public address nor in TABLETOP_WEBHOOK_ALLOWED_NETWORKS")


class GuardedBackend(httpcore.AsyncNetworkBackend):
    """httpcore's network backend with the checks above in ``connect_tcp``."""

    def __init__(self, allowed_hosts: str, allowed_networks: tuple[Network, ...]) -> None:
        self.allowed_hosts, self.allowed_networks = allowed_hosts, allowed_networks
        self.inner = httpcore.AnyIOBackend()

    async def connect_tcp(self, host: str, port: int, timeout: float | None = None,
                          local_address: str | None = None, socket_options: Any = None) -> httpcore.AsyncNetworkStream:
        if not endpoints.host_allowed(host, self.allowed_hosts):
            raise AddressRefused("HOST_NOT_ALLOWED", f"host {host!r} is not in TABLETOP_WEBHOOK_ALLOWED_HOSTS")
        addresses = await resolve(host, port)
        check_addresses(host, addresses, self.allowed_networks)
        error: Exception | None = None
        for address in addresses:
            try:
                return await self.inner.connect_tcp(str(address), port, timeout, local_address, socket_options)
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                error = exc
        assert error is not None
        raise error

    async def connect_unix_socket(self, path: str, timeout: float | None = None,
                                  socket_options: Any = None) -> httpcore.AsyncNetworkStream:
        raise AddressRefused("HOST_NOT_ALLOWED", "webhooks are never delivered to a unix socket")

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


async def resolve(host: str, port: int) -> list[Address]:
    """Every address ``host`` resolves to now (an IP literal is itself), in the resolver's order."""
    try:
        infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise httpcore.ConnectError(f"cannot resolve {host!r}: {exc}") from exc
    out: list[Address] = []
    for info in infos:
        address = ipaddress.ip_address(str(info[4][0]).split("%", 1)[0])
        if address not in out:
            out.append(address)
    return out


class Poster:
    """Keep-alive connections to one endpoint's origin, reused most recent first.

    A list of idle httpcore connections rather than httpcore's pool: the pool looks at every connection
    for every queued request (quadratic: about 5 ms of CPU per delivery at 32 in flight, measured), while
    the dispatcher already bounds the attempts in flight, so a connection is simply taken or opened."""

    def __init__(self, url: str, allowed_hosts: str, allowed_networks: tuple[Network, ...], connections: int,
                 timeout: float) -> None:
        self.url, self.timeout, self.connections = url, timeout, connections
        self.origin = httpcore.URL(url).origin
        self.ssl = ssl.create_default_context()
        self.backend = GuardedBackend(allowed_hosts, allowed_networks)
        self.idle: list[httpcore.AsyncHTTPConnection] = []

    async def post(self, headers: list[tuple[str, str]], body: bytes) -> tuple[int, float]:
        """POST ``body``; the answer's status and its ``Retry-After`` in seconds (0: none, or an HTTP date,
        which is not read); its body is read up to 4 KiB and dropped. Raises ``AddressRefused``, httpcore's
        errors or ``TimeoutError`` (the whole attempt within the timeout)."""
        limits = {"connect": self.timeout, "read": self.timeout, "write": self.timeout, "pool": self.timeout}
        connection = await self._connection()
        try:
            async with asyncio.timeout(self.timeout):
                async with connection.stream("POST", self.url, headers=headers, content=body,
                                             extensions={"timeout": limits}) as answer:
                    read = 0
                    async for chunk in answer.aiter_stream():
                        read += len(chunk)
                        if read >= MAX_ANSWER_BYTES:
                            break
                    status, wait = int(answer.status), _retry_after(answer.headers)
        except BaseException:
            await connection.aclose()
            raise
        if connection.is_idle() and len(self.idle) < self.connections:
            self.idle.append(connection)
        else:
            await connection.aclose()
        return status, wait

    async def close(self) -> None:
        while self.idle:
            await self.idle.pop().aclose()

    async def _connection(self) -> httpcore.AsyncHTTPConnection:
        while self.idle:
            connection = self.idle.pop()
            if connection.is_idle() and not connection.has_expired():
                return connection
            await connection.aclose()
        return httpcore.AsyncHTTPConnection(self.origin, ssl_context=self.ssl, keepalive_expiry=30.0,
                                            network_backend=self.backend)


def _retry_after(headers: list[tuple[bytes, bytes]]) -> float:
    """A ``Retry-After`` of delta-seconds (RFC 9110), else 0."""
    for name, value in headers:
        if name.lower() == b"retry-after" and value.strip().isdigit():
            return float(int(value.strip()))
    return 0.0
