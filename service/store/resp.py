"""A lean asyncio Redis client: one multiplexed connection, replies parsed by hiredis.

Why not ``redis.asyncio``: on the hot path (one HMGET, one EVALSHA per action) its
connection pool and per-command machinery cost the server more CPU than the rules
themselves. Here every coroutine writes its command to one shared connection as it
comes and awaits its reply in order (Redis answers in order), so concurrent calls
share writes and reads and there is no pool to check out of. A blocking command
(``XREAD BLOCK``) would stall everyone behind it, so it runs on a connection of its
own, kept for the next blocking call.

Speaks RESP2 over TCP, TLS (``rediss://``) or a unix socket, with AUTH and SELECT taken
from the URL the way redis-py reads it. Failures raise redis-py's exception classes
(``ConnectionError``, ``TimeoutError``, ``ResponseError`` and its kinds), so callers map
errors exactly as for redis-py. A lost connection fails the calls waiting on it; the
next call connects again.
"""

from __future__ import annotations

import asyncio
import hashlib
import ssl
from collections import deque
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import hiredis
from redis import exceptions

# Error replies whose prefix names a more specific redis-py class (the rest are ResponseError).


class MasterDownError(exceptions.ConnectionError):
    """A replica that lost its primary (``MASTERDOWN``): retry, possibly after a failover."""


class ReplicasBehind(exceptions.RedisError):
    """A write applied on the primary but acknowledged by fewer replicas than asked (``WAIT``)."""

    def __init__(self, acknowledged: int, wanted: int) -> None:
        super().__init__(f"The write was applied on the Redis primary but only {acknowledged} of {wanted} "
                         "replicas acknowledged it in time.")
        self.acknowledged = acknowledged
        self.wanted = wanted


_ERRORS = {"NOSCRIPT": exceptions.NoScriptError, "LOADING": exceptions.BusyLoadingError,
           "READONLY": exceptions.ReadOnlyError, "MASTERDOWN": MasterDownError,
           "WRONGPASS": exceptions.AuthenticationError, "NOAUTH": exceptions.AuthenticationError}


class Script:
    """A Lua script run by its SHA1 (EVALSHA), loaded on the first NOSCRIPT."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.sha = hashlib.sha1(source.encode()).hexdigest()


@dataclass(frozen=True)
class Address:
    """Where and how to connect, read from a ``redis://``, ``rediss://`` or ``unix://`` URL."""

    host: str = "127.0.0.1"
    port: int = 6379
    path: str = ""  # a unix socket instead of host and port
    username: str = ""
    password: str = ""
    db: int = 0
    tls: ssl.SSLContext | None = None

    @classmethod
    def from_url(cls, url: str, ca_file: str = "") -> Address:
        """``ca_file`` (TABLETOP_REDIS_TLS_CA_FILE) verifies a ``rediss://`` server; ``ssl_ca_certs`` in the URL wins."""
        parts = urlsplit(url)
        query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        username, password = unquote(parts.username or ""), unquote(parts.password or query.get("password", ""))
        if parts.scheme == "unix":
            return cls(path=parts.path, username=username, password=password, db=int(query.get("db", "0")))
        if parts.scheme not in ("redis", "rediss"):
            raise ValueError(f"Unsupported Redis URL scheme {parts.scheme!r} (redis://, rediss://, unix://)")
        db = int(parts.path.lstrip("/") or query.get("db", "0"))
        tls = None
        if parts.scheme == "rediss":
            tls = ssl.create_default_context(cafile=query.get("ssl_ca_certs") or ca_file or None)
            if query.get("ssl_cert_reqs", "required") in ("none", "optional"):
                tls.check_hostname = False
                tls.verify_mode = ssl.CERT_NONE if query["ssl_cert_reqs"] == "none" else ssl.CERT_OPTIONAL
        return cls(host=parts.hostname or "127.0.0.1", port=parts.port or 6379, username=username,
                   password=password, db=db, tls=tls)


class _Waiter:
    """One caller waiting for ``count`` replies (a pipeline waits for several)."""

    __slots__ = ("count", "deadline", "future", "replies")

    def __init__(self, future: asyncio.Future[Any], count: int, deadline: float) -> None:
        self.future = future
        self.count = count
        self.replies: list[Any] = []
        self.deadline = deadline


class _Connection(asyncio.Protocol):
    """One Redis connection: commands written in order, replies matched in order.

    Commands sent during one turn of the event loop go out in a single write at the end
    of the turn: under load, concurrent calls share one system call instead of one each.
    """

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self.loop = asyncio.get_running_loop()
        self.transport: asyncio.Transport | None = None
        self.reader = hiredis.Reader(replyError=exceptions.ResponseError)
        self.waiting: deque[_Waiter] = deque()
        self.closed = False
        self.retiring = False  # no new commands; closed once the replies in flight have arrived
        self._lost: BaseException | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._outgoing: list[bytes] = []

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        self.reader.feed(data)
        waiting = self.waiting
        try:
            while (reply := self.reader.gets()) is not False:
                waiter = waiting[0]
                if waiter.count == 1 and not waiter.replies:
                    waiting.popleft()
                    if not waiter.future.done():  # a caller that gave up (cancelled) is skipped
                        if isinstance(reply, exceptions.ResponseError):
                            waiter.future.set_exception(_error(reply))
                        else:
                            waiter.future.set_result(reply)
                    continue
                waiter.replies.append(_error(reply) if isinstance(reply, exceptions.ResponseError) else reply)
                if len(waiter.replies) == waiter.count:
                    waiting.popleft()
                    if not waiter.future.done():
                        waiter.future.set_result(waiter.replies)
        except (hiredis.ProtocolError, IndexError) as exc:
            self._fail(exceptions.ConnectionError(f"Redis sent a reply that cannot be parsed: {exc}"))
            return
        if self.retiring and not waiting:
            self.close()

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if self._timer is not None:
            self._timer.cancel()
        error = self._lost or exceptions.ConnectionError(f"Connection to Redis lost: {exc or 'closed by the server'}")
        while self.waiting:
            waiter = self.waiting.popleft()
            if not waiter.future.done():
                waiter.future.set_exception(error)

    def send(self, packed: bytes, count: int, timeout: float | None = None) -> asyncio.Future[Any]:
        """Write commands; the future resolves to the reply (a list of ``count`` > 1 replies)."""
        if self.closed or self.retiring or self.transport is None:
            raise exceptions.ConnectionError("Connection to Redis is closed.")
        loop = self.loop
        future = loop.create_future()
        self.waiting.append(_Waiter(future, count, loop.time() + (timeout or self.timeout)))
        if not self._outgoing:
            loop.call_soon(self._flush)
        self._outgoing.append(packed)
        if self._timer is None:
            self._timer = loop.call_later(self.timeout / 4, self._check_deadline)
        return future

    def retire(self) -> None:
        """Take no new commands, and close once every command already sent has its reply.

        Closing at once would fail the other callers' commands in flight on this shared
        connection as "connection lost", hiding the reply Redis is about to give them.
        """
        self.retiring = True
        if not self.waiting:
            self.close()

    def close(self) -> None:
        """Close the connection; one whose event loop has already ended is only let go."""
        if self.transport is None or self.closed:
            return
        if self.loop.is_closed():  # nothing can run on it any more; the socket goes with the transport
            self.closed = True
            self.waiting.clear()
            return
        self._flush()
        self.transport.close()

    def _flush(self) -> None:
        outgoing, self._outgoing = self._outgoing, []
        if outgoing and self.transport is not None and not self.closed:
            self.transport.write(b"".join(outgoing))

    def _check_deadline(self) -> None:
        """Give up on a connection whose oldest command is overdue (the socket timeout)."""
        self._timer = None
        if self.closed or not self.waiting:
            return
        loop = self.loop
        if loop.time() > self.waiting[0].deadline:
            self._fail(exceptions.TimeoutError("Redis did not answer in time."))
            return
        self._timer = loop.call_later(self.timeout / 4, self._check_deadline)

    def _fail(self, error: BaseException) -> None:
        self._lost = error
        if self.transport is not None:
            self.transport.abort()  # connection_lost fails every waiter with ``error``


class Redis:
    """The client: one shared connection for ordinary commands, spares for blocking ones."""

    def __init__(self, url: str, timeout: float = 5.0, connect_timeout: float = 2.0, ca_file: str = "") -> None:
        self.address = Address.from_url(url, ca_file)
        self.timeout = timeout
        self.connect_timeout = connect_timeout
        self._shared: _Connection | None = None
        self._connecting: asyncio.Future[_Connection] | None = None
        self._spare: list[_Connection] = []

    async def execute(self, *args: Any) -> Any:
        """Run one command; returns its reply (error replies raise)."""
        conn = self._shared
        if conn is None or conn.closed or conn.retiring or conn.loop is not asyncio.get_running_loop():
            conn = await self._shared_connection()
        try:
            return await conn.send(pack(args), 1)
        except (exceptions.ReadOnlyError, MasterDownError):
            conn.retire()  # a demoted primary: the next call connects (and re-resolves) afresh
            raise

    async def pipeline(self, *commands: tuple[Any, ...]) -> list[Any]:
        """Run several commands in one write; returns their replies (error replies in place)."""
        conn = self._shared
        if conn is None or conn.closed or conn.retiring or conn.loop is not asyncio.get_running_loop():
            conn = await self._shared_connection()
        reply = await conn.send(b"".join(pack(c) for c in commands), len(commands))
        replies: list[Any] = [reply] if len(commands) == 1 else reply  # send gives one reply bare
        if any(isinstance(r, (exceptions.ReadOnlyError, MasterDownError)) for r in replies):
            conn.retire()  # as in execute
        return replies

    async def evalsha(self, script: Script, keys: list[str], args: list[Any]) -> Any:
        """Run ``script`` by SHA1; when Redis does not know it yet, send its source once."""
        try:
            return await self.execute("EVALSHA", script.sha, len(keys), *keys, *args)
        except exceptions.NoScriptError:
            return await self.execute("EVAL", script.source, len(keys), *keys, *args)

    async def blocking(self, block_ms: int, *args: Any) -> Any:
        """Run a command that may block up to ``block_ms`` on a connection of its own."""
        loop = asyncio.get_running_loop()
        for conn in self._spare:
            if conn.loop is not loop:
                conn.close()
        self._spare = [c for c in self._spare if c.loop is loop and not c.closed]
        conn = self._spare.pop() if self._spare else await self._connect()
        try:
            reply = await conn.send(pack(args), 1, timeout=self.timeout + block_ms / 1000)
        except BaseException:
            conn.close()  # cancelled or failed mid-command: its reply would confuse the next caller
            raise
        if not conn.closed:
            self._spare.append(conn)
        return reply

    async def ping(self) -> bool:
        return bool(await self.execute("PING") == b"PONG")

    async def close(self) -> None:
        for conn in [self._shared, *self._spare]:
            if conn is not None:
                conn.close()
        self._shared, self._spare = None, []

    async def _shared_connection(self) -> _Connection:
        """The shared connection, connecting once for all callers that find it missing."""
        if self._connecting is None or self._connecting.get_loop() is not asyncio.get_running_loop():
            if self._shared is not None and self._shared.loop.is_closed():
                self._shared.close()  # left behind by an event loop that has ended
            self._connecting = asyncio.ensure_future(self._connect())
            self._connecting.add_done_callback(_retrieved)
        connecting = self._connecting
        try:
            conn = await asyncio.shield(connecting)
        finally:
            if self._connecting is connecting and connecting.done():
                self._connecting = None
        self._shared = conn
        return conn

    async def _connect(self) -> _Connection:
        return await self._open(self.address)

    async def _open(self, a: Address) -> _Connection:
        """A connection to ``a``, authenticated and on its database; closed again if the handshake fails.

        A refused AUTH (``WRONGPASS``) or SELECT must not leave a connection behind that
        the next caller would use unauthenticated (its commands would fail with NOAUTH).
        """
        loop = asyncio.get_running_loop()
        try:
            if a.path:
                opening = loop.create_unix_connection(lambda: _Connection(self.timeout), a.path)
            else:
                opening = loop.create_connection(lambda: _Connection(self.timeout), a.host, a.port, ssl=a.tls)
            async with asyncio.timeout(self.connect_timeout):  # not wait_for: on 3.11 it can swallow a cancel
                _, conn = await opening
        except (TimeoutError, OSError) as exc:
            where = a.path or f"{a.host}:{a.port}"
            raise exceptions.ConnectionError(f"Cannot connect to Redis at {where}: {exc}") from exc
        try:
            if a.password:
                await conn.send(pack(("AUTH", a.username, a.password) if a.username else ("AUTH", a.password)), 1)
            if a.db:
                await conn.send(pack(("SELECT", a.db)), 1)
        except BaseException as exc:
            conn.close()
            if isinstance(exc, exceptions.ResponseError):
                raise exceptions.AuthenticationError(f"Redis refused the connection's handshake: {exc}") from exc
            raise
        return conn


def _retrieved(connecting: asyncio.Future[_Connection]) -> None:
    """Mark a shared connect's failure as seen. Its callers wait through ``asyncio.shield``; if every one of
    them was cancelled (a server stopping while Redis refuses it), nobody reads the failure. asyncio then
    logs "Task exception was never retrieved" from the task's finalizer, wherever the garbage collector
    runs it. Under CPython 3.11 that was once inside another test's ``compile()`` of an AST, where the
    logging's switch of threads broke the compile with ``SystemError: AST constructor recursion depth
    mismatch``."""
    if not connecting.cancelled():
        connecting.exception()


def pack(args: tuple[Any, ...]) -> bytes:
    """One command in RESP: an array of bulk strings."""
    out = [b"*%d\r\n" % len(args)]
    for arg in args:
        if type(arg) is not bytes:
            arg = str(arg).encode()
        out += (b"$%d\r\n" % len(arg), arg, b"\r\n")
    return b"".join(out)


def _error(reply: exceptions.ResponseError) -> exceptions.RedisError:
    message = str(reply)
    if message.startswith("ERR Protocol error: unauthenticated"):  # a large command sent without AUTH
        return exceptions.AuthenticationError(f"NOAUTH {message}")
    kind = _ERRORS.get(message.split(" ", 1)[0])
    return kind(message) if kind is not None else reply
