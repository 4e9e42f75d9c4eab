"""The game store: one atomic write round trip per action, and a read only when needed (Principle 4).

``load`` reads the version, the document and (when a request id is given) that
request's remembered response in one pipelined round trip. ``write`` runs
``cas.lua``: check the version, write the document, bump the version, append the
log entry to the game's stream and remember the response, all at once.

Both keep what they saw in a bounded per-process cache (``doc_cache.py``), which
``cached`` hands to the host: in the steady state an action is decided on the copy
of the game this process wrote last, and the write is the one round trip. A write
that finds the game moved answers with the current document (cached in turn), and
one whose request id was applied already raises ``Remembered`` with its response.

The store is asynchronous and speaks to Redis through a small client interface
(``execute``, ``pipeline``, ``evalsha``, ``blocking``, ``ping``, ``close``): the lean
multiplexed client of ``resp.py`` for one server, ``ClusterClient`` for Redis Cluster.
"""

from __future__ import annotations

import itertools
import os
import secrets
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import redis.exceptions
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialWithJitterBackoff

from tabletop_server.service.store import keys, resp, sentinel
from tabletop_server.service.store.doc_cache import DocCache

NO_SEAT = -1  # the request ids of calls made without a seat (a bot's, JoinGame's, CreateGame's)

CAS = resp.Script((Path(__file__).with_name("cas.lua")).read_text())
# A write that changes nothing but is replicated (HINCRBY by 0 of the version): it moves this
# connection's replication offset past every earlier write, so the WAIT after it covers them.
TOUCH = resp.Script("if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('HINCRBY', KEYS[1], 'v', 0) end\n"
                    "return 1")


# A remembered response is stored as MARK + the 32-byte SHA-256 fingerprint of its request + the
# response. MARK (0x01) cannot begin a serialized SubmitActionResponse (field 0 does not exist), so
# a value remembered before fingerprints existed (a bare response) still reads, with no fingerprint.
MARK = b"\x01"
FINGERPRINT_BYTES = 32


@dataclass(frozen=True)
class Loaded:
    """A game as read: ``version`` 0 means it does not exist.

    ``cached_fingerprint`` is the fingerprint of the request that made ``cached_response``
    (``None`` for a response remembered without one).
    """

    version: int
    doc: bytes | None
    cached_response: bytes | None
    cached_fingerprint: bytes | None = None
    stamp: str = ""  # the document's write stamp (cas.lua's field w); "" when it has none


class Remembered(Exception):
    """The compare-and-set found the request id's response remembered: the request was applied already."""

    def __init__(self, response: bytes | None, fingerprint: bytes | None) -> None:
        super().__init__("request applied already")
        self.response = response
        self.fingerprint = fingerprint


def connect(url: str, blocking_connections: int = 0, ca_file: str = "") -> Any:
    """A client for ``redis://``, ``rediss://``, ``unix://`` or ``redis[s]+cluster://`` URLs.

    A cluster URL names any one node (``redis+cluster://user:pass@host:port``); the
    client discovers the rest and follows MOVED/ASK redirects. Every key of a game
    shares one hash tag (``keys.py``), so the CAS script and the read pipeline touch
    a single slot. Connections open on first use, inside the server's event loop.

    ``blocking_connections`` is how many blocking reads (watch streams) may wait at once:
    redis-py's cluster client takes a pooled connection per command in flight and per
    waiting read, so its per-node pool is sized above that (redis-py's default is 100).
    """
    for scheme in ("redis", "rediss"):
        if url.startswith(f"{scheme}+cluster://"):
            return ClusterClient(f"{scheme}://" + url.removeprefix(f"{scheme}+cluster://"),
                                 max_connections=max(100, blocking_connections + 100))
    if url.startswith(("redis+sentinel://", "rediss+sentinel://")):
        return sentinel.SentinelRedis(url, timeout=5, connect_timeout=2, ca_file=ca_file)
    resp.Address.from_url(url, ca_file)  # a bad URL fails now, not on the first request
    return resp.Redis(url, timeout=5, connect_timeout=2, ca_file=ca_file)


class GameStore:
    """Reads and atomically writes games in Redis. Holds no game state itself."""

    def __init__(self, client: Any,
                 probe: Callable[[str, str | None], AbstractContextManager[Any]] | None = None,
                 replicas: tuple[int, int] = (0, 0), cache_games: int = 0,
                 on_forgotten: Callable[[int], None] | None = None) -> None:
        self.client = client
        self.on_forgotten = on_forgotten or (lambda count: None)  # remembered request ids dropped past the bound
        self.replicas = replicas  # (replicas each write waits for, timeout ms); see _cas
        self.probe = probe or _no_probe  # times (and traces) each round trip: probe(op, game_id)
        self.cache = DocCache(cache_games)  # the last documents seen; 0 games: none kept

    def cached(self, game_id: str) -> Loaded | None:
        """This process's last copy of the game (possibly stale: the write checks it), or None."""
        known = self.cache.get(game_id) if self.cache.size > 0 else None
        return None if known is None else Loaded(known.version, known.doc, None, None, known.stamp)

    async def load(self, game_id: str, seat: int | None = None, request_id: str = "") -> Loaded:
        """Version, document and remembered response, in one round trip."""
        cached = None
        with self.probe("load", game_id):
            if request_id and seat is not None:
                fields, cached = await self.client.pipeline(("HMGET", keys.game(game_id), "v", "doc", "w"),
                                                            ("GET", keys.request(game_id, seat, request_id)))
                for reply in (fields, cached):
                    if isinstance(reply, Exception):
                        raise reply
                version, doc, stamp = fields
            else:
                version, doc, stamp = await self.client.execute("HMGET", keys.game(game_id), "v", "doc", "w")
        response, fingerprint = _remembered(cached)
        text = _text(stamp)
        self.cache.put(game_id, int(version or 0), text, doc)
        return Loaded(int(version or 0), doc, response, fingerprint, text)

    async def write(self, game_id: str, expected: int, doc: bytes, entry: bytes, ttl: int,
                    seat: int | None = None, request_id: str = "", response: bytes = b"",
                    response_ttl: int = 86400, fingerprint: bytes = b"",
                    mark: tuple[Any, ...] | None = None, nonce: str = "", stamp: str = "",
                    remember: tuple[int, int, int] | None = None) -> tuple[bool, int]:
        """Compare-and-set; returns ``(written, version)`` (the current version when not written).

        ``stamp``: the write stamp of the document the change was decided on (``Loaded.stamp``), checked
        with the version ("": the version only). With a request id, ``response`` is remembered with
        ``fingerprint`` (a SHA-256 digest of the request), in the same atomic script as the write, and a
        response remembered already raises ``Remembered``. ``mark``: the player index's ``XADD``
        (``player_index.py``), sent before the script, whose ``nonce`` the script checks. ``remember``:
        ``(most ids, now ms, ttl ms)`` of the seat's index of remembered request ids, which the script
        keeps to that bound (the oldest responses deleted first; ``on_forgotten`` counts them).
        """
        seat_or_none = seat if seat is not None else NO_SEAT
        req_key = keys.request(game_id, seat_or_none, request_id or "-")
        index = (*remember, request_id, keys.request(game_id, seat_or_none, "")) if remember and request_id else ()
        if request_id and len(fingerprint) != FINGERPRINT_BYTES:
            raise ValueError("a remembered response needs the request's 32-byte fingerprint")
        new_stamp = _next_stamp()
        with self.probe("write", game_id):
            result = await self._cas([keys.game(game_id), keys.stream(game_id), req_key, keys.fence(game_id),
                                      keys.remembered(game_id, seat_or_none)],
                                     [expected, doc, entry, ttl, response if request_id else b"", response_ttl,
                                      MARK + fingerprint, nonce, stamp, new_stamp, *index], mark)
        outcome = int(result[0])
        if outcome == 2:
            raise Remembered(*_remembered(result[1]))
        version = int(result[1])
        if outcome == 1:
            self.cache.put(game_id, version, new_stamp, doc)
            if len(result) > 2 and int(result[2]) > 0:
                self.on_forgotten(int(result[2]))
        else:  # lost: the script answered the current document and its stamp
            self.cache.put(game_id, version, _text(result[3]) if len(result) > 3 else "",
                           (result[2] or None) if len(result) > 2 else None)
        return outcome == 1, version

    async def _cas(self, cas_keys: list[str], args: list[Any], mark: tuple[Any, ...] | None = None) -> Any:
        """The compare-and-set, followed in the same write by ``WAIT`` when replicas are asked for.

        ``WAIT`` counts the replicas that have this connection's writes so far, so a
        successful write is acknowledged only once ``replicas[0]`` replicas hold it: a
        failover to one of them loses nothing acknowledged. Fewer within the timeout raise
        ``ReplicasBehind`` (UNAVAILABLE, REPLICATION_TIMEOUT): the write stands on the
        primary, and a retry with the same request id returns the remembered response.
        """
        if mark is not None:
            if self.replicas[0] > 0 or isinstance(self.client, ClusterClient):
                await self._marked(mark)  # another slot: sent alone, first (a pipeline might reorder them)
            else:  # one server, one connection: the mark executes before the script, in one round trip
                replies = await self.client.pipeline(mark, ("EVALSHA", CAS.sha, len(cas_keys), *cas_keys, *args))
                if isinstance(replies[1], redis.exceptions.NoScriptError):
                    replies[1] = await self.client.evalsha(CAS, cas_keys, args)
                for reply in replies:
                    if isinstance(reply, Exception):
                        raise reply
                return replies[1]
        if self.replicas[0] <= 0:
            return await self.client.evalsha(CAS, cas_keys, args)
        return await self._waited(CAS, cas_keys, args)

    async def _marked(self, mark: tuple[Any, ...]) -> None:
        """The mark alone, replicated as a write is (``WAIT``) when replicas are asked for."""
        if self.replicas[0] <= 0:
            await self.client.execute(*mark)
            return
        _, acknowledged = await self.client.pipeline(mark, ("WAIT", *self.replicas))
        if isinstance(acknowledged, Exception):
            raise acknowledged
        if int(acknowledged) < self.replicas[0]:
            raise resp.ReplicasBehind(int(acknowledged), self.replicas[0])

    async def _waited(self, script: resp.Script, script_keys: list[str], args: list[Any]) -> Any:
        """``script`` then ``WAIT`` in one round trip on one connection; ``ReplicasBehind`` when fewer
        replicas than asked confirm a script that wrote (a CAS that lost its race wrote nothing)."""
        wanted, timeout_ms = self.replicas
        replies = await self.client.pipeline(("EVALSHA", script.sha, len(script_keys), *script_keys, *args),
                                             ("WAIT", wanted, timeout_ms))
        if isinstance(replies[0], redis.exceptions.NoScriptError):
            replies = await self.client.pipeline(("EVAL", script.source, len(script_keys), *script_keys, *args),
                                                 ("WAIT", wanted, timeout_ms))
        for reply in replies:
            if isinstance(reply, Exception):
                raise reply
        result, acknowledged = replies
        written = result[0] if isinstance(result, list) else result
        if int(written) == 1 and int(acknowledged) < wanted:
            raise resp.ReplicasBehind(int(acknowledged), wanted)
        return result

    async def confirm(self, game_id: str) -> None:
        """Before a remembered response is sent again: wait for the replicas as its write did.

        The write that made it may have been answered ``REPLICATION_TIMEOUT`` (or made by
        another replica of the service, or lost its answer): replaying it unchecked would
        acknowledge a move the Redis replicas may never have received. ``WAIT`` only counts
        this connection's writes, hence the replicated no-op (``TOUCH``) before it.
        """
        if self.replicas[0] <= 0:
            return
        with self.probe("confirm", game_id):
            await self._waited(TOUCH, [keys.game(game_id)], [])

    async def entries(self, game_id: str, after_version: int, count: int | None = None) -> list[tuple[int, bytes]]:
        """Log entries with a version above ``after_version``, oldest first (at most ``count``:
        an XRANGE with COUNT reads only those, however long the stream)."""
        limit = ("COUNT", count) if count else ()
        with self.probe("entries", game_id):
            raw = await self.client.execute("XRANGE", keys.stream(game_id), f"{after_version + 1}-0", "+", *limit)
        return [_entry(item) for item in raw]

    async def wait_entries(self, game_id: str, after_version: int, block_ms: int) -> list[tuple[int, bytes]]:
        """Block up to ``block_ms`` for entries after ``after_version``."""
        raw = await self.client.blocking(block_ms, "XREAD", "COUNT", 256, "BLOCK", block_ms, "STREAMS",
                                         keys.stream(game_id), f"{after_version}-0")
        if not raw:
            return []
        return [_entry(item) for item in raw[0][1]]

    async def first_version(self, game_id: str) -> int:
        """The oldest version still in the log (0 when the log is empty)."""
        with self.probe("first_version", game_id):
            raw = await self.client.execute("XRANGE", keys.stream(game_id), "-", "+", "COUNT", 1)
        return _entry(raw[0])[0] if raw else 0

    async def ping(self) -> bool:
        """True when Redis answers (on a cluster: when a reachable master reports ``cluster_state:ok``)."""
        with self.probe("ping", None):
            return bool(await self.client.ping())

    async def close(self) -> None:
        await self.client.close()


def _cluster_retry() -> Retry:
    """Three retries, 50 ms to 0.4 s apart: a game whose master is down fails within about a second.

    Set here rather than left to redis-py's default, which differs between versions: redis-py 8.2
    retries 10 times, and a request for a game on a dead master then held its caller for over 6 s
    (tests/ops/test_cluster.py). MOVED and ASK redirects are not retries and are followed as before;
    waiting out a failover is the client's part (the error is UNAVAILABLE, which it retries).
    """
    return Retry(ExponentialWithJitterBackoff(base=0.05, cap=0.4), retries=3)


class ClusterClient:
    """The store's client interface over redis-py's asyncio Redis Cluster client."""

    def __init__(self, url: str, max_connections: int = 100) -> None:
        self.cluster = RedisCluster.from_url(url, socket_timeout=5, socket_connect_timeout=2,
                                             max_connections=max_connections, retry=_cluster_retry())

    async def execute(self, *args: Any) -> Any:
        return await self.cluster.execute_command(*args)

    async def pipeline(self, *commands: tuple[Any, ...]) -> list[Any]:
        pipe = self.cluster.pipeline()
        for command in commands:
            pipe.execute_command(*command)
        return list(await pipe.execute(raise_on_error=False))

    async def evalsha(self, script: resp.Script, keys: list[str], args: list[Any]) -> Any:
        try:
            return await self.execute("EVALSHA", script.sha, len(keys), *keys, *args)
        except redis.exceptions.NoScriptError:
            return await self.execute("EVAL", script.source, len(keys), *keys, *args)

    async def blocking(self, block_ms: int, *args: Any) -> Any:
        return await self.execute(*args)  # every command checks out a pooled connection of its own

    async def ping(self) -> bool:
        """The first reachable master's view of the cluster state.

        PING alone answers from any live node, even after the cluster has gone to
        ``fail`` (a master down without a replica) and refuses every command.
        """
        await self.cluster.initialize()  # learns the nodes on first use; a no-op afterwards
        for node in self.cluster.get_primaries():
            try:
                info = await self.cluster.cluster_info(target_nodes=node)
            except redis.exceptions.RedisError:
                continue
            return bool(info.get("cluster_state") == "ok")
        return False

    async def close(self) -> None:
        await self.cluster.aclose()


# Helpers

def _no_probe(op: str, game_id: str | None) -> AbstractContextManager[Any]:
    return nullcontext()


# A write's stamp: this process's random prefix and a counter, unique to the write across every
# replica and restart (64 random bits per process), and cheaper than fresh randomness per write.
class _Stamps:
    """The prefix and counter of this process's stamps; a forked worker (``serve --workers``) draws its own."""

    def __init__(self) -> None:
        self.prefix = ""
        self.counter = itertools.count()
        self.draw()

    def draw(self) -> None:
        self.prefix = secrets.token_hex(8)
        self.counter = itertools.count()


_STAMPS = _Stamps()
os.register_at_fork(after_in_child=_STAMPS.draw)


def _next_stamp() -> str:
    return f"{_STAMPS.prefix}{next(_STAMPS.counter):x}"


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else (value or "")


def _remembered(value: bytes | None) -> tuple[bytes | None, bytes | None]:
    """``(response, fingerprint)`` of a stored request-id value (see ``MARK``)."""
    if value is None or not value.startswith(MARK):
        return value, None
    return value[1 + FINGERPRINT_BYTES:], value[1:1 + FINGERPRINT_BYTES]


def _entry(item: Any) -> tuple[int, bytes]:
    """``(version, entry)`` of a stream item: raw ``[id, [field, value]]`` or redis-py's ``(id, {field: value})``."""
    entry_id, fields = item
    text = entry_id.decode() if isinstance(entry_id, bytes) else entry_id
    value = fields[b"e"] if isinstance(fields, dict) else fields[1]
    return int(text.split("-", 1)[0]), value
