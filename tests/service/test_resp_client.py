"""The lean asyncio Redis client (``service/store/resp.py``) against a real Redis.

The gRPC server reaches Redis only through this client, so its promises are checked on
a real connection (no fake Redis, no mocked socket), with the shared server or the
embedded one: replies and their types, many coroutines multiplexed on one connection,
pipelines with error replies in place, redis-py's exception classes, the NOSCRIPT
fallback, the socket timeout, blocking commands on a connection of their own, recovery
after a lost connection, URL parsing (including a real SELECT) and use from successive
event loops. Every key lives under a unique hash-tagged prefix and is deleted afterwards.
"""

from __future__ import annotations

import asyncio
import gc
import random
import socket
import ssl
import time
import uuid
from collections.abc import Iterator
from urllib.parse import urlsplit, urlunsplit

import pytest
import redis
from redis import exceptions

from tabletop_server.service.store import resp


def with_db(url: str, db: int) -> str:
    """``url`` selecting database ``db`` (a path for redis://, a query for unix://)."""
    parts = urlsplit(url)
    if parts.scheme == "unix":
        return url + ("&" if parts.query else "?") + f"db={db}"
    return urlunsplit(parts._replace(path=f"/{db}"))


@pytest.fixture
def plain(redis_url: str) -> Iterator[redis.Redis]:
    """A plain redis-py client, to look at (and tamper with) what the lean client did."""
    client = redis.Redis.from_url(redis_url)
    yield client
    client.close()


@pytest.fixture
def prefix(redis_url: str) -> Iterator[str]:
    """A unique key prefix; its keys (in db 0 and db 5) are deleted afterwards."""
    tag = f"{{resptest:{uuid.uuid4().hex}}}:"
    yield tag
    for db in (0, 5):
        with redis.Redis.from_url(with_db(redis_url, db)) as cleaner:
            found = list(cleaner.scan_iter(match=f"{tag}*", count=1000))
            if found:
                cleaner.delete(*found)


# Commands and replies

def test_replies_come_back_as_bytes_none_and_int(redis_url: str, prefix: str) -> None:
    async def scenario() -> None:
        client = resp.Redis(redis_url)
        try:
            assert await client.execute("SET", prefix + "s", "hello") == b"OK"
            assert await client.execute("GET", prefix + "s") == b"hello"
            assert await client.execute("HMGET", prefix + "h", "v", "doc") == [None, None]
            count = await client.execute("INCRBY", prefix + "n", 41)
            assert count == 41 and type(count) is int
        finally:
            await client.close()

    asyncio.run(scenario())


# Multiplexing

def test_concurrent_callers_on_one_connection_get_their_own_replies(redis_url: str, prefix: str) -> None:
    async def one(client: resp.Redis, i: int) -> bytes:
        value = f"value-{i}-" + "x" * (i * 97)  # up to ~19 KB: replies split across reads
        await client.execute("SET", f"{prefix}k{i}", value)
        reply: bytes = await client.execute("GET", f"{prefix}k{i}")
        return reply

    async def scenario() -> None:
        client = resp.Redis(redis_url)
        try:
            replies = await asyncio.wait_for(asyncio.gather(*(one(client, i) for i in range(200))), 10)
            assert replies == [(f"value-{i}-" + "x" * (i * 97)).encode() for i in range(200)]
        finally:
            await client.close()

    asyncio.run(scenario())


def test_pipeline_returns_replies_in_order_with_errors_in_place(redis_url: str, prefix: str) -> None:
    async def scenario() -> list[object]:
        client = resp.Redis(redis_url)
        try:
            return await client.pipeline(("SET", prefix + "s", "v"), ("HGET", prefix + "s", "f"),
                                         ("GET", prefix + "s"), ("EVALSHA", "0" * 40, 0), ("INCR", prefix + "n"))
        finally:
            await client.close()

    ok, wrongtype, value, noscript, count = asyncio.run(scenario())
    assert (ok, value, count) == (b"OK", b"v", 1)
    assert isinstance(wrongtype, exceptions.ResponseError) and str(wrongtype).startswith("WRONGTYPE")
    assert isinstance(noscript, exceptions.NoScriptError)  # the same classes as raised ones


# Error replies

def test_error_replies_raise_redis_py_classes(redis_url: str, prefix: str) -> None:
    async def scenario() -> None:
        client = resp.Redis(redis_url)
        try:
            await client.execute("SET", prefix + "s", "v")
            with pytest.raises(exceptions.ResponseError, match="^WRONGTYPE"):
                await client.execute("HGET", prefix + "s", "f")
            with pytest.raises(exceptions.NoScriptError):
                await client.execute("EVALSHA", "0" * 40, 0)
            assert await client.execute("GET", prefix + "s") == b"v"  # the connection is still in step
        finally:
            await client.close()

    asyncio.run(scenario())


def test_evalsha_loads_an_unknown_script_then_runs_it_by_sha(redis_url: str, plain: redis.Redis,
                                                             prefix: str) -> None:
    script = resp.Script(f"-- resptest {random.getrandbits(64)}\nreturn {{KEYS[1], ARGV[1]}}")
    assert plain.script_exists(script.sha) == [False]

    async def scenario() -> None:
        client = resp.Redis(redis_url)
        try:
            client_id = await client.execute("CLIENT", "ID")
            assert await client.evalsha(script, [prefix + "k"], ["a"]) == [(prefix + "k").encode(), b"a"]
            assert plain.client_list(client_id=[client_id])[0]["cmd"] == "eval"  # the NOSCRIPT fallback
            assert await client.execute("SCRIPT", "EXISTS", script.sha) == [1]
            assert await client.evalsha(script, [prefix + "k"], ["b"]) == [(prefix + "k").encode(), b"b"]
            assert plain.client_list(client_id=[client_id])[0]["cmd"] == "evalsha"  # no source sent again
        finally:
            await client.close()

    asyncio.run(scenario())


# Timeouts and blocking commands

def test_a_reply_later_than_the_timeout_raises_and_the_client_reconnects(redis_url: str, prefix: str) -> None:
    async def scenario() -> float:
        client = resp.Redis(redis_url, timeout=0.3)
        try:
            start = time.monotonic()
            with pytest.raises(exceptions.TimeoutError):
                await client.execute("BLPOP", prefix + "missing", 2)  # blocks the shared connection 2 s
            elapsed = time.monotonic() - start
            assert await client.ping()
            return elapsed
        finally:
            await client.close()

    assert asyncio.run(scenario()) < 1.2


def test_blocking_commands_run_on_their_own_connection(redis_url: str, prefix: str) -> None:
    async def scenario() -> None:
        client, pusher = resp.Redis(redis_url), resp.Redis(redis_url)
        try:
            waiting = asyncio.ensure_future(client.blocking(2000, "BLPOP", prefix + "q", 2))
            await asyncio.sleep(0.1)  # the BLPOP is on the server now
            start = time.monotonic()
            assert await client.execute("PING") == b"PONG"
            assert time.monotonic() - start < 0.5 and not waiting.done()
            await pusher.execute("RPUSH", prefix + "q", "item")
            assert await asyncio.wait_for(waiting, 2) == [(prefix + "q").encode(), b"item"]
            # The blocking connection is kept for the next blocking call, apart from the shared one.
            blocking_id = await client.blocking(0, "CLIENT", "ID")
            assert await client.blocking(0, "CLIENT", "ID") == blocking_id
            assert await client.execute("CLIENT", "ID") != blocking_id
        finally:
            await client.close()
            await pusher.close()

    asyncio.run(scenario())


# Lost connections

def test_a_connection_killed_by_the_server_is_replaced(redis_url: str, plain: redis.Redis) -> None:
    async def scenario() -> None:
        client = resp.Redis(redis_url)
        try:
            killed = await client.execute("CLIENT", "ID")
            assert plain.client_kill_filter(_id=killed) == 1
            try:
                assert await client.execute("PING") == b"PONG"  # already reconnected
            except exceptions.ConnectionError:
                pass  # the loss was noticed on this call
            assert await client.execute("PING") == b"PONG"
            assert await client.execute("CLIENT", "ID") != killed
        finally:
            await client.close()

    asyncio.run(scenario())


def test_a_call_in_flight_fails_at_once_when_the_connection_dies(redis_url: str, plain: redis.Redis,
                                                                 prefix: str) -> None:
    async def scenario() -> float:
        client = resp.Redis(redis_url, timeout=5)
        try:
            killed = await client.execute("CLIENT", "ID")
            waiting = asyncio.ensure_future(client.execute("BLPOP", prefix + "missing", 4))
            await asyncio.sleep(0.1)
            start = time.monotonic()
            await asyncio.to_thread(plain.client_kill_filter, _id=killed)
            with pytest.raises(exceptions.ConnectionError):
                await asyncio.wait_for(waiting, 2)  # a hang would raise the builtin TimeoutError
            elapsed = time.monotonic() - start
            assert await client.ping()
            return elapsed
        finally:
            await client.close()

    assert asyncio.run(scenario()) < 1.0  # not after the 4 s BLPOP nor the 5 s timeout


def test_nothing_listening_raises_connection_error_quickly() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]

    async def scenario() -> None:
        client = resp.Redis(f"redis://127.0.0.1:{port}")
        with pytest.raises(exceptions.ConnectionError, match="Cannot connect"):
            await client.execute("PING")

    start = time.monotonic()
    asyncio.run(scenario())
    assert time.monotonic() - start < 1.0


def test_a_shared_connect_that_fails_after_its_callers_were_cancelled_logs_nothing(
        caplog: pytest.LogCaptureFixture) -> None:
    """A server stopping while Redis does not answer cancels every caller waiting for the shared connect;
    its failure must not be left for the garbage collector to log ("Task exception was never retrieved")."""
    with socket.socket() as silent:  # accepts (the backlog), never answers: the handshake (AUTH) times out
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        port = silent.getsockname()[1]

        async def scenario() -> None:
            client = resp.Redis(f"redis://:secret@127.0.0.1:{port}", timeout=0.3)
            caller = asyncio.ensure_future(client.execute("PING"))
            await asyncio.sleep(0.05)
            caller.cancel()
            connecting = client._connecting
            assert connecting is not None
            await asyncio.wait([connecting])  # it fails after its only caller was cancelled (nothing here reads
            assert connecting.done() and not connecting.cancelled()  # its exception: that would hide the bug)

        with caplog.at_level("ERROR", logger="asyncio"):
            asyncio.run(scenario())
            gc.collect()
    assert not [r for r in caplog.records if "never retrieved" in r.getMessage()]


# URLs

def test_urls_are_read_the_way_redis_py_reads_them() -> None:
    a = resp.Address.from_url("redis://user:p%40ss@cache.example:6380/2")
    assert (a.host, a.port, a.username, a.password, a.db, a.path, a.tls) == (
        "cache.example", 6380, "user", "p@ss", 2, "", None)
    u = resp.Address.from_url("unix:///tmp/x.sock?db=3")
    assert (u.path, u.db, u.tls) == ("/tmp/x.sock", 3, None)
    verified = resp.Address.from_url("rediss://cache.example").tls
    assert verified is not None and verified.verify_mode == ssl.CERT_REQUIRED and verified.check_hostname
    unverified = resp.Address.from_url("rediss://cache.example?ssl_cert_reqs=none").tls
    assert unverified is not None and unverified.verify_mode == ssl.CERT_NONE and not unverified.check_hostname
    with pytest.raises(ValueError, match="scheme"):
        resp.Address.from_url("http://cache.example:6379")


def test_the_url_database_is_selected(redis_url: str, prefix: str) -> None:
    async def scenario() -> None:
        client = resp.Redis(with_db(redis_url, 5))
        try:
            await client.execute("SET", prefix + "db", "five")
        finally:
            await client.close()

    asyncio.run(scenario())
    with redis.Redis.from_url(with_db(redis_url, 5)) as db5, redis.Redis.from_url(with_db(redis_url, 0)) as db0:
        assert db5.get(prefix + "db") == b"five"
        assert db0.exists(prefix + "db") == 0


# Event loops

def test_the_client_works_from_successive_event_loops(redis_url: str, prefix: str) -> None:
    client = resp.Redis(redis_url)
    asyncio.run(client.execute("SET", prefix + "k", "one"))
    assert asyncio.run(client.execute("GET", prefix + "k")) == b"one"
    assert asyncio.run(client.blocking(0, "GET", prefix + "k")) == b"one"

    async def last_loop() -> list[object]:
        try:
            assert await client.blocking(0, "GET", prefix + "k") == b"one"
            return await client.pipeline(("GET", prefix + "k"), ("PING",))
        finally:
            await client.close()  # in this loop: close() fails on another loop's connections (below)
    assert asyncio.run(last_loop()) == [b"one", b"PONG"]


def test_a_pipeline_of_one_command_is_a_list_of_one_reply(redis_url: str, prefix: str) -> None:
    """A lobby page or an open-games count of exactly one game pipelines a single command."""
    client = resp.Redis(redis_url)

    async def one() -> list[object]:
        try:
            return await client.pipeline(("HMGET", prefix + "none", "v", "doc"))
        finally:
            await client.close()
    assert asyncio.run(one()) == [[None, None]]


def test_close_from_a_new_event_loop(redis_url: str) -> None:
    client = resp.Redis(redis_url)
    assert asyncio.run(client.execute("PING")) == b"PONG"
    asyncio.run(client.close())  # the connection's loop is gone; closing must not raise


def test_cancelling_a_call_while_it_connects_is_never_lost(redis_url: str) -> None:
    """A watcher's first blocking read opens a connection. If the watcher is cancelled (its
    client left) just as the connection opens, the cancellation must still end the call:
    a lost cancellation would leave the stream open for good."""

    async def scenario() -> list[str]:
        outcomes = []
        for attempt in range(300):
            client = resp.Redis(redis_url)
            task = asyncio.ensure_future(client.blocking(300, "BLPOP", "{resptest}:never", 0.3))
            for _ in range(attempt % 30):  # cancel at every stage of the connect
                await asyncio.sleep(0)
            task.cancel()
            try:
                await task
                outcomes.append("lost")
            except asyncio.CancelledError:
                outcomes.append("cancelled")
            await client.close()
        return outcomes

    outcomes = asyncio.run(scenario())
    assert "lost" not in outcomes, f"{outcomes.count('lost')} of {len(outcomes)} cancellations were lost"
