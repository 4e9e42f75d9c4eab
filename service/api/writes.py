"""The write path: decide a change on this process's copy of the game or a fresh read, then one
compare-and-set; a lost race is decided again on the document the script answers with.

A change is decided on this process's last copy of the game when it has one (else the game is
read: one round trip), with pure rules, and written with one compare-and-set (one round trip)
that checks the copy's version and write stamp (``store/doc_cache.py``). The copies are only
guesses that the write checks, so any replica serves any game. What rides on the same write:
the timers' due times (indexed first, ``store/deadlines.py``), the player index's mark, the
request id's remembered response (a retry is answered once).
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson

from tabletop_server.service.api import my_games, players, timers
from tabletop_server.service.api.errors import Aborted, InvalidArgument, NotFound, ServiceReason
from tabletop_server.service.config import Config
from tabletop_server.service.engine import registry
from tabletop_server.service.engine.ruleset import Ruleset
from tabletop_server.service.store import player_index
from tabletop_server.service.store.redis_store import NO_SEAT, GameStore, Loaded, Remembered


@dataclass
class Game:
    """A loaded game: its id, version, document and ruleset."""

    id: str
    version: int
    doc: dict[str, Any]
    ruleset: Ruleset
    stamp: str = ""  # the stored document's write stamp (cas.lua), checked by the write


# What a mutation decided: (acting seat, action, events, response builder from the new Game).
Decision = tuple[int | None, Any, list[Any], Callable[[Game], bytes]]


class Writes:
    """One process's write path over the store (the host's; ``observer``: metrics and logging hooks)."""

    def __init__(self, store: GameStore, config: Config, clock: Callable[[], float] = time.time,
                 observer: Any = None, deadlines: Any = None) -> None:
        self.store, self.config, self.clock, self.observer, self.deadlines = store, config, clock, observer, deadlines

    async def transact(self, game_id: str, token: players.Credential | None, request_id: str,
                       decide: Callable[[Game, int | None], Decision], want_response: bool = False,
                       fingerprint: bytes = b"", claimed: bool = False) -> Any:
        """Decide and compare-and-set, up to ``cas_retries`` times; in the steady state one round trip.

        ``claimed``: the caller holds the game's claim in the deadline index (the sweeper's ``play_due``),
        so the next due time is indexed by the sweeper when it lets the claim go, not by this write. Indexed
        now, it would let another replica's sweeper claim the game while this one is still playing it: both
        then decided the same bot moves and lost compare-and-sets to each other (``CONFLICT``). A crash
        meanwhile loses nothing: the claim runs out and is taken again (``store/deadlines.py``).

        The first guess is this process's copy of the game (``store.cached``): the write checks its
        version and stamp, and a lost race brings the current document back for the next try. A
        decision that fails on a copy is not an answer (the copy may be stale): the game is read
        (with the request id's remembered response) and decided again, and only that is final.
        """
        for _ in range(self.config.cas_retries):
            copy = self.store.cached(game_id)  # after a lost race: the document the script answered
            decided = self._decide_on_copy(game_id, copy, token, decide) if copy is not None else None
            if self.observer is not None:
                self.observer.copy("missing" if copy is None else "refused" if decided is None else "used")
            if decided is None:
                loaded, game, seat = await self._load_for_write(game_id, token, request_id)
                if loaded.cached_response is not None:
                    return await self._replay(game_id, loaded.cached_response, loaded.cached_fingerprint, fingerprint)
                decided = game, seat, decide(game, seat)
            game, seat, (actor, action, events, respond) = decided
            now = self.clock()
            game.doc["updated"] = now
            await self.schedule(game_id, game.doc, game.ruleset, actor, now, index=not claimed)
            new = Game(game_id, game.version + 1, game.doc, game.ruleset)
            outbox = self.outbox(game_id, game.doc, game.ruleset, new.version)
            response = respond(new) if want_response else b""
            try:
                ok, _ = await self.store.write(game_id, game.version, dumps(game.doc),
                                         dumps(entry(actor, action, events, now)), self.ttl(game.doc),
                                         seat, request_id, response, self.config.request_id_ttl_seconds, fingerprint,
                                         stamp=game.stamp, remember=self._remember(seat, now), **outbox)
            except Remembered as remembered:  # applied already (the script found its response)
                return await self._replay(game_id, remembered.response, remembered.fingerprint, fingerprint)
            if self.observer is not None:
                self.observer.written(game_id, new.version) if ok else self.observer.conflict(game_id)
            if ok:
                return response if want_response else new
        raise Aborted(ServiceReason.CONFLICT, "Too many concurrent changes to this game; retry.")

    def _decide_on_copy(self, game_id: str, copy: Loaded, token: players.Credential | None,
                        decide: Callable[[Game, int | None], Decision]) -> tuple[Game, int | None, Decision] | None:
        """The decision on this process's copy of the game, or None when it failed there (read and decide
        again: on a stale copy any check can fail wrongly, so no error decided on a copy is sent)."""
        try:
            game = loaded_game(game_id, copy)
            seat = players.verify(token, game_id, game.doc["seats"]) if token else None
            decision = decide(game, seat)
        except Exception:  # noqa: BLE001 - every failure on a copy is decided again on the stored game
            return None
        if self.observer is not None:
            self.observer.loaded(game_id, game.doc["ruleset"], game.version, seat)
        return game, seat, decision

    async def _load_for_write(self, game_id: str, token: players.Credential | None,
                              request_id: str) -> tuple[Loaded, Game, int | None]:
        """The stored game, the caller's seat and (with a request id) its remembered response, read."""
        hint = players.seat_hint(token, game_id) if token else NO_SEAT if request_id else None
        loaded = await self.store.load(game_id, hint, request_id)
        game = loaded_game(game_id, loaded)
        seat = players.verify(token, game_id, game.doc["seats"]) if token else None
        if request_id and seat is not None and hint != seat:  # a player's seat, known now: read again
            loaded = await self.store.load(game_id, seat, request_id)  # with the remembered response
            game = loaded_game(game_id, loaded)
            seat = players.verify(token, game_id, game.doc["seats"]) if token else None
        if self.observer is not None:
            self.observer.loaded(game_id, game.doc["ruleset"], game.version, seat)
        return loaded, game, seat

    async def _replay(self, game_id: str, response: bytes | None, made_by: bytes | None, fingerprint: bytes) -> Any:
        """A remembered response, sent again once its request is known to be this one and the replicas hold it."""
        check_same_request(made_by, fingerprint)
        await self.store.confirm(game_id)  # the replicas must hold it before it is acknowledged again
        if self.observer is not None:
            self.observer.replayed(game_id)
        return response

    async def schedule(self, game_id: str, doc: dict[str, Any], ruleset: Ruleset, actor: int | None,
                       now: float, index: bool = True) -> None:
        """Update the waiting seats' due times; index the earliest *before* the write (``deadlines.py``)
        unless the caller holds the game's claim (``index`` False, see ``transact``)."""
        due = timers.plan(doc, ruleset, actor, now, self.config.bot_delay_seconds)
        if due is not None and index:
            await self.deadlines.schedule(game_id, due)

    def outbox(self, game_id: str, doc: dict[str, Any], ruleset: Ruleset, version: int) -> dict[str, Any]:
        """A game with players: its turns stamped and the player index's mark for the write (``player_index.py``)."""
        if not self.config.player_index or not my_games.track(doc):
            return {}
        my_games.stamp_turns(doc, ruleset, version)
        nonce = secrets.token_hex(6)
        return {"mark": player_index.mark_command(game_id, version, nonce, self.config.index_shards), "nonce": nonce}

    def _remember(self, seat: int | None, now: float) -> tuple[int, int, int] | None:
        """The bound of the seat's remembered request ids, kept by the write (``cas.lua``); None: unbounded."""
        if seat is None or self.config.max_request_ids_per_seat <= 0:
            return None
        return self.config.max_request_ids_per_seat, int(now * 1000), self.config.request_id_ttl_seconds * 1000

    def ttl(self, doc: dict[str, Any]) -> int:
        return self.config.finished_game_ttl_seconds if doc["status"] == "FINISHED" else self.config.game_ttl_seconds


def loaded_game(game_id: str, loaded: Loaded) -> Game:
    if not loaded.version or loaded.doc is None:
        raise NotFound(ServiceReason.GAME_NOT_FOUND, f"No game games/{game_id}; it may have expired.")
    doc = orjson.loads(loaded.doc)
    ruleset = registry.get(doc["ruleset"])
    assert ruleset is not None, f"stored game of unknown ruleset {doc['ruleset']}"
    return Game(game_id, loaded.version, doc, ruleset, loaded.stamp)


def check_same_request(made_by: bytes | None, fingerprint: bytes) -> None:
    """A remembered response answers only the request that made it (one remembered without a
    fingerprint, before they were stored, is replayed as before)."""
    if made_by is not None and made_by != fingerprint:
        raise InvalidArgument(ServiceReason.IDEMPOTENCY_KEY_REUSED,
                              "This request_id (Idempotency-Key) was used for a different request; "
                              "use a new one for each new request.", field="request_id")


def entry(seat: int | None, action: Any, events: list[Any], now: float) -> dict[str, Any]:
    return {"seat": seat, "action": action, "events": events, "time": now}


def dumps(value: Any) -> bytes:
    return orjson.dumps(value)
