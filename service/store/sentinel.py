"""Redis Sentinel: the lean client of ``resp.py``, connecting to whichever server is primary now.

URL form (documented in deploy/README.md)::

    redis+sentinel://[user:password@]host:port[,host:port...]/<master-name>[?db=N&sentinel_password=P]
    rediss+sentinel://...   the same, over TLS to the sentinels and the servers

The user and password are those of the Redis servers (primary and replicas share
them); ``sentinel_password`` authenticates to the sentinels when they have one.

Why re-resolving on every new connection is enough: the client connects lazily, and a
connection is dropped when it is lost (kill, network), when the server answers
``READONLY`` (a demoted primary) or ``MASTERDOWN``. Each new connection asks the
sentinels, in order, for the current primary and checks with ``ROLE`` that it really
is the primary before using it, so a stale sentinel answer during a failover yields
UNAVAILABLE (retry) rather than writes to a replica.
"""

from __future__ import annotations

import dataclasses
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from redis import exceptions

from tabletop_server.service.store import resp


@dataclasses.dataclass(frozen=True)
class SentinelUrl:
    """A ``redis+sentinel://`` URL, parsed."""

    sentinels: tuple[tuple[str, int], ...]
    master: str
    server: resp.Address  # credentials, db and TLS for the primary (host and port are filled in per connect)
    sentinel_password: str

    @classmethod
    def parse(cls, url: str, ca_file: str = "") -> SentinelUrl:
        parts = urlsplit(url)
        if parts.scheme not in ("redis+sentinel", "rediss+sentinel"):
            raise ValueError(f"Not a Sentinel URL: {parts.scheme!r}")
        userinfo, _, hosts = parts.netloc.rpartition("@")
        sentinels = tuple(_host_port(h) for h in hosts.split(",") if h)
        master = unquote(parts.path.strip("/"))
        if not sentinels or not master:
            raise ValueError("A Sentinel URL needs host:port[,host:port...]/<master-name>")
        query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        scheme = "rediss" if parts.scheme.startswith("rediss") else "redis"
        rest = "&".join(f"{k}={v}" for k, v in query.items() if k != "sentinel_password")
        server = resp.Address.from_url(f"{scheme}://{userinfo + '@' if userinfo else ''}placeholder/?{rest}", ca_file)
        return cls(sentinels, master, server, query.get("sentinel_password", ""))


class SentinelRedis(resp.Redis):
    """``resp.Redis`` whose every new connection goes to the primary the sentinels name."""

    def __init__(self, url: str, timeout: float = 5.0, connect_timeout: float = 2.0, ca_file: str = "") -> None:
        self.sentinel = SentinelUrl.parse(url, ca_file)
        super().__init__("redis://placeholder", timeout, connect_timeout)
        self.address = self.sentinel.server

    async def _connect(self) -> resp._Connection:
        """The primary's connection: asks each sentinel in turn, verifies the answer with ROLE."""
        failures = []
        for host, port in self.sentinel.sentinels:
            try:
                primary = await self._ask(host, port)
            except exceptions.RedisError as exc:
                failures.append(f"sentinel {host}:{port}: {exc}")
                continue
            if primary is None:
                failures.append(f"sentinel {host}:{port} does not know master {self.sentinel.master!r}")
                continue
            conn = await self._open(dataclasses.replace(self.address, host=primary[0], port=primary[1]))
            role = await conn.send(resp.pack(("ROLE",)), 1)
            if role and role[0] == b"master":
                return conn
            conn.close()
            failures.append(f"{primary[0]}:{primary[1]} named by {host}:{port} is a {role[0].decode()}, not the primary")
        raise exceptions.ConnectionError("No primary found through the sentinels: " + "; ".join(failures))

    async def _ask(self, host: str, port: int) -> tuple[str, int] | None:
        """``SENTINEL get-master-addr-by-name`` on one sentinel (None when it does not know the name)."""
        address = dataclasses.replace(self.address, host=host, port=port, username="",
                                      password=self.sentinel.sentinel_password, db=0)
        conn = await self._open(address)
        try:
            reply: Any = await conn.send(resp.pack(("SENTINEL", "get-master-addr-by-name", self.sentinel.master)), 1)
        finally:
            conn.close()
        return (reply[0].decode(), int(reply[1])) if reply else None


# Helpers

def _host_port(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    if not host or not port.isdigit():
        raise ValueError(f"Sentinel address {text!r} is not host:port")
    return host.strip("[]"), int(port)
