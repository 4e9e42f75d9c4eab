"""Limits and admission: API keys, rate limits, the watch-stream cap, and draining (issue 5).

``LimitsInterceptor`` runs inside the error interceptor, so everything it raises leaves
through the one mapping table in ``errors.py``:

- while the server drains (SIGTERM), new calls are UNAVAILABLE ``SHUTTING_DOWN`` and open
  watch streams end with UNAVAILABLE ``SHUTTING_DOWN`` carrying ``last_version``, so a
  client resumes with ``from_version=last_version`` on another replica;
- CreateGame needs an operator-issued ``x-api-key`` when ``TABLETOP_API_KEYS`` is set;
- token buckets per player token and per peer address answer RESOURCE_EXHAUSTED
  ``RATE_LIMITED`` with a RetryInfo. The buckets live in this process: with N replicas
  behind a balancer a client gets up to N times the configured rate. Behind the REST
  facade the peer address is the facade's, so the per-address limit then applies per
  facade replica; put the per-client address limit in the ingress.
- one client, one bucket, whichever door it uses: a direct gRPC peer (``ipv4:1.2.3.4:5678``) and
  the address the REST facade forwards (``1.2.3.4``) are both counted as the bare address
  (``1.2.3.4``; an IPv4-mapped IPv6 address as its IPv4 one), so REST and gRPC share the
  creation limits and rate buckets of an address (issue 26).
- at most ``TABLETOP_MAX_WATCH_STREAMS`` WatchGame streams are open per process, with fair shares
  per player token and per client address. An idle stream holds no thread and no Redis connection
  of its own: the streams of one game share one reader (``feeds.py``), so the cap bounds coroutines
  and queues (memory), and ``TABLETOP_MAX_WATCHED_GAMES`` bounds the Redis connections. A stream the
  REST facade opens (proven by ``TABLETOP_PROXY_SECRET``) was admitted by the facade under its own
  caps (``TABLETOP_MAX_SSE_WATCHES``, per token, per address): it is counted here but never refused,
  so direct gRPC watchers cannot lock SSE and Connect watchers out (issue 26).
"""

from __future__ import annotations

import hmac
import ipaddress
import threading
import time
from collections import Counter, OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from tabletop_server.service.api import auth, players
from tabletop_server.service.api.creation import CreationLimits, CreationRefused
from tabletop_server.service.api.errors import (
    PermissionDenied,
    RateLimited,
    ResourceExhausted,
    ServiceError,
    ServiceReason,
    Unauthenticated,
    Unavailable,
)
from tabletop_server.service.api.interceptors import Context, MethodInterceptor
from tabletop_server.service.config import Config

PROXY_HEADER = "x-tabletop-proxy"  # the REST facade's shared secret (TABLETOP_PROXY_SECRET)
MAX_BUCKETS = 100_000  # least recently used buckets beyond this are forgotten (a full bucket is the default)


class RateLimiter:
    """Token buckets by key: ``rate`` per second, bursts up to ``max(1, rate)``."""

    def __init__(self, rate: float, clock: Callable[[], float] = time.monotonic, capacity: int = MAX_BUCKETS) -> None:
        self.rate = rate
        self.burst = max(1.0, rate)
        self.clock = clock
        self.capacity = capacity
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()
        self._lock = threading.Lock()

    def take(self, key: str) -> float:
        """0 when a request may pass now, else the seconds until one may."""
        now = self.clock()
        with self._lock:
            tokens, since = self._buckets.pop(key, (self.burst, now))
            tokens = min(self.burst, tokens + (now - since) * self.rate)
            wait = 0.0 if tokens >= 1 else (1 - tokens) / self.rate
            self._buckets[key] = (tokens - 1 if wait == 0 else tokens, now)
            if len(self._buckets) > self.capacity:
                self._buckets.popitem(last=False)
        return wait


class StreamSlots:
    """A counting cap on open watch streams, with fair shares: at most ``per_token`` streams of one
    player token and ``per_address`` of one client address (0 = no cap), so one client cannot take
    every slot and lock out everyone else (issue 26; the REST facade's SSE caps do the same)."""

    def __init__(self, limit: int, per_token: int = 0, per_address: int = 0) -> None:
        self.limit, self.per_token, self.per_address = limit, per_token, per_address
        self.open = 0
        self.by_token: Counter[str] = Counter()
        self.by_address: Counter[str] = Counter()
        self._lock = threading.Lock()

    def acquire(self, token: str = "", address: str = "") -> None:
        """Take a slot or raise RESOURCE_EXHAUSTED naming the cap that is full."""
        with self._lock:
            if self.limit > 0 and self.open >= self.limit:
                raise ResourceExhausted(ServiceReason.TOO_MANY_WATCH_STREAMS, f"This replica has {self.limit} "
                                        "watch streams open; retry later.", limit=self.limit)
            if token and self.per_token and self.by_token[token] >= self.per_token:
                raise ResourceExhausted(ServiceReason.TOO_MANY_WATCHES_PER_TOKEN, f"This player token holds "
                                        f"{self.per_token} watch streams on this replica; close one first.",
                                        limit=self.per_token)
            if address and self.per_address and self.by_address[address] >= self.per_address:
                raise ResourceExhausted(ServiceReason.TOO_MANY_WATCHES_PER_ADDRESS, f"This client address holds "
                                        f"{self.per_address} watch streams on this replica; close one first.",
                                        limit=self.per_address)
            self.open += 1
            if token:
                self.by_token[token] += 1
            if address:
                self.by_address[address] += 1

    def count(self) -> None:
        """Count a stream that another layer admitted (the REST facade's, under its own caps)."""
        with self._lock:
            self.open += 1

    def release(self, token: str = "", address: str = "") -> None:
        with self._lock:
            self.open -= 1
            for counter, key in ((self.by_token, token), (self.by_address, address)):
                if not key:
                    continue
                counter[key] -= 1
                if counter[key] <= 0:
                    del counter[key]


class LimitsInterceptor(MethodInterceptor):
    """Admission for GameService calls: draining, API keys, rate limits, the stream cap."""

    def __init__(self, config: Config, stopping: threading.Event, on_limited: Callable[[str], None] | None = None,
                 clock: Callable[[], float] = time.monotonic, redis: Any = None,
                 created_before: Callable[..., Awaitable[Any]] | None = None) -> None:
        super().__init__()
        self.created_before = created_before  # the host's: an earlier try's answer to a CreateGame's request id
        self.stopping = stopping
        self.api_keys = config.api_key_set
        self.per_token = RateLimiter(config.rate_limit_per_token, clock) if config.rate_limit_per_token > 0 else None
        self.per_address = (RateLimiter(config.rate_limit_per_address, clock)
                            if config.rate_limit_per_address > 0 else None)
        self.streams = StreamSlots(config.max_watch_streams, config.max_watches_per_token,
                                   watch_share_per_address(config))
        self.trusted_proxies = _networks(config.trusted_proxies)
        self.proxy_secret = config.proxy_secret.encode()
        self.on_limited = on_limited or (lambda scope: None)
        self.creation = CreationLimits(redis, config, self.on_limited) if redis is not None else None

    def admit(self, method: str, context: Context) -> None:
        """Raise the error that refuses this call, if any."""
        if self.stopping.is_set():
            raise Unavailable(ServiceReason.SHUTTING_DOWN, "This replica is shutting down; retry (another replica will answer).")
        metadata = context.invocation_metadata() or ()
        if method == "CreateGame" and self.api_keys and players.CURRENT.get() is None:
            check_api_key(self.api_keys, metadata)  # a signed-in player creates without the studio's key
        if self.per_address is not None:
            self._take(self.per_address, self.address(context.peer(), metadata),
                       "address")
        if self.per_token is not None:
            token = _token(metadata)
            if token:
                self._take(self.per_token, token, "token")

    def address(self, peer: str, metadata: Any) -> str:
        """The client address a limit counts (see ``_client_address``)."""
        return _client_address(peer, metadata, self.trusted_proxies, self.proxy_secret)

    def _take(self, limiter: RateLimiter, key: str, scope: str) -> None:
        wait = limiter.take(key)
        if wait > 0:
            self.on_limited(scope)
            raise RateLimited(scope, wait, limiter.rate)

    def unary(self, method: str, fn: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
        def wrapper(request: Any, context: Context) -> Any:  # admits, then the method's own awaitable:
            self.admit(method, context)  # one coroutine less per call, the same order
            return fn(request, context)

        async def create(request: Any, context: Context) -> Any:
            self.admit(method, context)
            assert self.creation is not None
            metadata = context.invocation_metadata() or ()
            key = next((str(v) for k, v in metadata if k == "x-api-key"), "") if self.api_keys else ""
            player = players.CURRENT.get()
            creator = self.creation.creator(key, self.address(context.peer(), metadata),
                                            player.id if player is not None else "")
            if creator is None:
                return await fn(request, context)
            try:
                reservation = await self.creation.admit(creator)
            except CreationRefused:  # a retry of a creation that was made is answered, not refused
                earlier = await self._created_before(request, metadata, player)
                if earlier is None:
                    raise
                return earlier
            try:
                response = await fn(request, context)
            except BaseException:
                await self.creation.release(creator, reservation)
                raise
            await self.creation.record(creator, reservation, response.game.name)
            return response
        async def guest(request: Any, context: Context) -> Any:
            self.admit(method, context)
            assert self.creation is not None
            creator = self.creation.guest_creator(self.address(context.peer(), context.invocation_metadata() or ()))
            if creator is not None:
                await self.creation.admit(creator)  # a rate only: a guest session is no open game
            return await fn(request, context)
        if method == "CreateGuestSession" and self.creation is not None:
            return guest
        return create if method == "CreateGame" and self.creation is not None else wrapper

    async def _created_before(self, request: Any, metadata: Any, player: Any) -> Any:
        if self.created_before is None or not request.request_id:
            return None
        api_key = next((str(v) for k, v in metadata if k == "x-api-key"), "")  # as the servicer reads it
        return await self.created_before(request, api_key, player)

    def stream(self, method: str, fn: Callable[[Any, Any], AsyncIterator[Any]]) -> Callable[[Any, Any], AsyncIterator[Any]]:
        async def wrapper(request: Any, context: Context) -> AsyncIterator[Any]:
            self.admit(method, context)
            metadata = context.invocation_metadata() or ()
            token, address = _token(metadata) or "", self.address(context.peer(), metadata)
            if _proven(context.peer(), metadata, self.trusted_proxies, self.proxy_secret):
                token = address = ""  # the facade admitted it under its own caps: counted here, never refused
                self.streams.count()
            else:
                self.streams.acquire(token, address)
            last = int(getattr(request, "from_version", 0) or 0)
            try:
                async for response in fn(request, _Draining(context, self.stopping)):
                    last = max(last, int(getattr(response, "version", 0) or 0))
                    yield response
            finally:
                self.streams.release(token, address)
            if self.stopping.is_set():  # a client that left was cancelled above and never gets here
                raise Unavailable(ServiceReason.SHUTTING_DOWN, f"This replica is shutting down; watch again with "
                                  f"from_version={last} to resume.", last_version=last)
        return wrapper


# Helpers

class _Draining:
    """A servicer context whose ``is_active`` turns False when the server starts draining.

    A client that leaves is not seen here: grpc.aio cancels the handler's task instead
    (its ``context.cancelled()`` only reports a status the server itself set).
    """

    def __init__(self, context: Context, stopping: threading.Event) -> None:
        self._context = context
        self._stopping = stopping

    def is_active(self) -> bool:
        return not self._stopping.is_set()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._context, name)


def check_api_key(keys: frozenset[str], metadata: Any) -> None:
    """Refuse a call without one of the operator-issued keys in ``x-api-key`` (compared in constant time)."""
    given = next((str(v) for k, v in metadata if k == "x-api-key"), "")
    if not given:
        raise Unauthenticated(ServiceReason.API_KEY_REQUIRED, "This call (CreateGame, CreatePlayerSession) needs an "
                              "operator-issued key in 'x-api-key'.")
    if not any(hmac.compare_digest(given.encode(), key.encode()) for key in keys):
        raise PermissionDenied(ServiceReason.API_KEY_INVALID, "The 'x-api-key' is not one this service accepts.")


def watch_share_per_address(config: Config) -> int:
    """WatchGame streams one client address may hold on a replica (0 = no cap): TABLETOP_MAX_WATCHES_PER_ADDRESS
    (0 turns it off), and at most a quarter of TABLETOP_MAX_WATCH_STREAMS but never under 8 (256 of 20,000:
    the setting; 8 of 32), so one client cannot lock out every other."""
    if config.max_watches_per_address <= 0:
        return 0
    total = config.max_watch_streams
    share = max(total // 4, min(total, 8)) if total > 0 else config.max_watches_per_address
    return max(1, min(config.max_watches_per_address, share))


def _token(metadata: Any) -> str | None:
    try:
        return auth.bearer(metadata)
    except ServiceError:
        return None  # a malformed header is refused by the handler itself


def _networks(spec: str) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    return tuple(ipaddress.ip_network(part.strip(), strict=False) for part in spec.split(",") if part.strip())


def _client_address(peer: str, metadata: Any, trusted: tuple[Any, ...], secret: bytes) -> str:
    """The address a limit counts: the peer, or, when the call comes from the REST facade,
    the last ``x-forwarded-for`` entry it appended.

    The facade proves itself with the shared ``x-tabletop-proxy`` secret (and, when
    ``trusted`` CIDRs are set, by its peer address too). An address list alone cannot tell
    the facade from any other client at that address: with 127.0.0.1 trusted, every local
    process could choose its own address, and so its own rate and open-games buckets.
    """
    address = _address(peer)
    if not _proven(peer, metadata, trusted, secret):
        return address
    forwarded = next((str(v) for k, v in metadata if k == "x-forwarded-for"), "")
    last = forwarded.rsplit(",", 1)[-1].strip()
    return _canonical(last) if last else address


def _proven(peer: str, metadata: Any, trusted: tuple[Any, ...], secret: bytes) -> bool:
    """Whether the call comes from the REST facade: it carries the shared secret (and, when ``trusted``
    CIDRs are set, comes from one of them)."""
    given = next((str(v) for k, v in metadata if k == PROXY_HEADER), "")
    if not secret or not hmac.compare_digest(given.encode(), secret):
        return False
    if not trusted:
        return True
    try:
        ip = ipaddress.ip_address(_address(peer))
    except ValueError:
        return False
    return any(ip in network for network in trusted)


def _address(peer: str) -> str:
    """``ipv4:1.2.3.4:5678`` -> ``1.2.3.4``, ``ipv6:[::1]:5678`` -> ``::1`` (the port changes per connection)."""
    kind, _, rest = peer.partition(":")
    if kind in ("ipv4", "ipv6"):
        return _canonical(rest.rsplit(":", 1)[0])
    return peer


def _canonical(address: str) -> str:
    """One spelling per address: ``[::ffff:1.2.3.4]`` and ``1.2.3.4`` alike are ``1.2.3.4``."""
    try:
        ip = ipaddress.ip_address(address.strip("[]"))
    except ValueError:
        return address
    mapped = getattr(ip, "ipv4_mapped", None)
    return str(mapped or ip)
