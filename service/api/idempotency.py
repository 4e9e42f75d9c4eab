"""Request ids of the calls that make a game or take a seat: CreateGame and JoinGame answered once.

A mobile client whose answer is lost retries; without a request id its retry made a second game
(counted against its open-games limit) or took a second seat. With one, as with SubmitAction, a
repeat of the same request gets the first response and changes nothing, for the request-id TTL
(``TABLETOP_REQUEST_ID_TTL_SECONDS``, 24 h).

JoinGame writes to a game that exists, so its request id rides on the game's compare-and-set as an
action's does (``writes.Writes.transact``), under the game's seatless request ids (``NO_SEAT``): a
retry finds it even after the join filled the last seat and started the game. Its fingerprint holds
the signed-in player's id, so another player's repeat is refused, never answered with this seat.

CreateGame has no game to write to until it makes one, so the request id names the game id first:
``keys.created`` (the caller's scope and the request id, hashed) is set to a fresh game id unless it
holds one already (``GAME_ID``), *before* the game is written. The game's first compare-and-set then
remembers the response under the game's own hash tag, so each step touches one Redis Cluster slot. A
retry, or a duplicate racing the first, finds the same game id: its version-0 write loses and the
remembered response is the answer. A crash between the two steps leaves a name for a game never
written: the retry writes it. The scope is the caller's API key, else its signed-in player, else none
(an anonymous caller's request id is its own secret, as a UUID is).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from google.protobuf.message import Message
from tabletop.v1 import game_service_pb2 as svc

from tabletop_server.service.api import players
from tabletop_server.service.api.identity import Player
from tabletop_server.service.api.writes import check_same_request
from tabletop_server.service.store import keys, resp
from tabletop_server.service.store.redis_store import NO_SEAT, GameStore, Remembered

GAME_ID = resp.Script("local id = redis.call('GET', KEYS[1]) if id then return id end\n"
                      "redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) return ARGV[1]")


def fingerprint(method: str, request: Message, who: str = "") -> bytes:
    """SHA-256 of the method, the caller ``who`` (when the id is not scoped to it otherwise) and the
    request's deterministic bytes without its request id: equal for a retry over gRPC or REST."""
    canonical = type(request)()
    canonical.CopyFrom(request)
    canonical.ClearField("request_id")
    head = method if not who else f"{method}\0{who}"
    return hashlib.sha256(head.encode() + b"\0" + canonical.SerializeToString(deterministic=True)).digest()


def player_of(caller: players.Caller) -> str:
    """The signed-in player's id, or "" (a seat token or nobody)."""
    return caller.id if isinstance(caller, Player) else ""


def creation_key(api_key: str, caller: players.Caller, request_id: str) -> str:
    """Where a creation's request id names its game: scoped to the API key, else the player, else none."""
    scope = f"k:{api_key}" if api_key else f"p:{player_of(caller)}" if player_of(caller) else "-"
    return keys.created(hashlib.sha256(f"{scope}\0{request_id}".encode()).hexdigest()[:32])


@dataclass(frozen=True)
class CreationOnce:
    """A CreateGame's request id: where it names its game, and what the game's first write remembers."""

    key: str
    request_id: str
    fingerprint: bytes
    ttl_seconds: int

    @classmethod
    def of(cls, request: svc.CreateGameRequest, api_key: str, caller: players.Caller,
           ttl_seconds: int) -> CreationOnce | None:
        """None for a creation without a request id (each call makes a game)."""
        if not request.request_id:
            return None
        return cls(creation_key(api_key, caller, request.request_id), request.request_id,
                   fingerprint("CreateGame", request), ttl_seconds)

    async def game_id(self, client: Any, fresh: str, replace: bool = False) -> str:
        """The game id the request id names: ``fresh`` unless it names one already (``replace``: ``fresh``
        anyway, when the id it named turned out to be another game's)."""
        if replace:
            await client.execute("SET", self.key, fresh, "PX", self.ttl_seconds * 1000)
            return fresh
        named = await client.evalsha(GAME_ID, [self.key], [fresh, self.ttl_seconds * 1000])
        return named.decode() if isinstance(named, bytes) else str(named)

    def remember(self, response: svc.CreateGameResponse) -> dict[str, Any]:
        """The game's first write's arguments (``GameStore.write``) that remember ``response`` for the id."""
        return {"seat": None, "request_id": self.request_id, "response": response.SerializeToString(),
                "response_ttl": self.ttl_seconds, "fingerprint": self.fingerprint}

    def replayed(self, earlier: Remembered) -> svc.CreateGameResponse:
        """The answer the write found remembered (``Remembered``), once known to answer this request."""
        check_same_request(earlier.fingerprint, self.fingerprint)
        return svc.CreateGameResponse.FromString(earlier.response or b"")

    async def answer(self, store: GameStore, game_id: str) -> svc.CreateGameResponse | None:
        """The answer remembered in ``game_id`` for this request, or None (the game not written yet, or
        another game's id)."""
        found = await remembered(store, game_id, self.request_id, self.fingerprint)
        return None if found is None else svc.CreateGameResponse.FromString(found)

    async def earlier(self, store: GameStore) -> svc.CreateGameResponse | None:
        """The answer to an earlier try, or None (none named a game, or its game is not written yet)."""
        named = await store.client.execute("GET", self.key)
        return None if named is None else await self.answer(store, named.decode() if isinstance(named, bytes)
                                                             else str(named))


async def remembered(store: GameStore, game_id: str, request_id: str, made_by: bytes) -> bytes | None:
    """The response remembered in ``game_id`` for a seatless request id, once known to answer this request
    (else IDEMPOTENCY_KEY_REUSED) and held by the Redis replicas; None when there is none."""
    loaded = await store.load(game_id, NO_SEAT, request_id)
    if loaded.cached_response is None:
        return None
    check_same_request(loaded.cached_fingerprint, made_by)
    await store.confirm(game_id)
    return loaded.cached_response
