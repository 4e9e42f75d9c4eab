"""Hosting games: every RPC's behaviour, independent of gRPC; rules evaluated on loaded games,
changes written through the one write path (``writes.py``: a copy or a read, one compare-and-set).

Request fields arrive checked against the contract's limits (``field_rules``, before any
handler runs); the host adds only the bounds that depend on the game: a ruleset's seat
range and action limit, the table's seats.

The methods are coroutines: they await only the store's round trips; the rules,
projections and conversions between them are plain synchronous functions.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

from tabletop.v1 import game_pb2
from tabletop.v1 import game_service_pb2 as svc

from tabletop_server.service.api import (
    convert,
    feeds,
    idempotency,
    lobby,
    log_pages,
    players,
    read_mask,
    replays,
    seeds,
    table,
    timers,
)
from tabletop_server.service.api.errors import (
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    OutOfRange,
    ServiceReason,
    StaleVersion,
    Unauthenticated,
)
from tabletop_server.service.api.identity import Player
from tabletop_server.service.api.seating import Seating
from tabletop_server.service.api.writes import Decision, Game, Writes, dumps, entry, loaded_game
from tabletop_server.service.config import Config
from tabletop_server.service.engine.errors import EngineReason, RuleError
from tabletop_server.service.engine.ruleset import Ruleset
from tabletop_server.service.store import player_index
from tabletop_server.service.store.deadlines import Deadlines
from tabletop_server.service.store.redis_store import GameStore, Loaded

MAX_BOT_MOVES = 64  # due decisions one sweep makes in one game before it looks at the others

class GameHost:
    """The service's behaviour, independent of gRPC: every RPC is one method here."""

    def __init__(self, store: GameStore, config: Config, clock: Callable[[], float] = time.time,
                 observer: Any = None, deadlines: Any = None) -> None:
        self.store = store
        self.config = config
        self.clock = clock
        self.observer = observer  # metrics/logging hook: loaded(), conflict(), replayed() (observability.py)
        self.deadlines = deadlines if deadlines is not None else Deadlines(store.client)  # timers.py
        self.feeds = feeds.Feeds(store, config.max_watched_games)  # one Redis reader per watched game (feeds.py)
        self.index = player_index.PlayerIndex(store.client, config.index_shards, config.inbox_max,
                                              config.inbox_ttl_seconds, config.game_ttl_seconds)  # my_games.py
        self.writes = Writes(store, config, clock, observer, self.deadlines)  # decide, compare-and-set (writes.py)
        self.seating = Seating(store, config, clock, self.writes)  # new games and their seats (seating.py)

    async def create(self, req: svc.CreateGameRequest, api_key: str = "",
                     caller: players.Caller = None) -> svc.CreateGameResponse:
        """Deal a new game (``seating.py``)."""
        return await self.seating.create(req, api_key, caller)

    async def created_before(self, req: svc.CreateGameRequest, api_key: str,
                             caller: players.Caller) -> svc.CreateGameResponse | None:
        """The answer to an earlier try of this CreateGame, or None (``seating.py``)."""
        return await self.seating.created_before(req, api_key, caller)

    async def create_seated(self, game_id: str, ruleset: Ruleset, options: dict[str, Any],
                            seated: list[tuple[str, str] | None], bot: str) -> bool:
        """The matchmaker's game, every seat taken at once (``seating.py``)."""
        return await self.seating.create_seated(game_id, ruleset, options, seated, bot)

    async def list_games(self, req: svc.ListGamesRequest) -> svc.ListGamesResponse:
        """One page of public games, newest first (``lobby.py``)."""
        return await lobby.page(self.store.client, req)

    async def join(self, req: svc.JoinGameRequest, caller: players.Caller = None) -> bytes:
        """Take an open seat: the serialized ``JoinGameResponse`` (``seating.py``)."""
        return await self.seating.join(req, caller)

    async def get(self, name: str, token: players.Caller, at_version: int | None = None) -> svc.GetGameResponse:
        """The caller's view (a spectator's without a token); with ``at_version``, the spectator's view
        at that past version (``replays``), whoever asks."""
        game, seat, _ = await self._read(_game_id(name), token)
        if at_version is not None:
            view = await replays.view_at(self.store, game.id, game.doc, game.ruleset, game.version, at_version)
            recent = await replays.events_up_to(self.store, game.id, game.ruleset, at_version)
            return svc.GetGameResponse(game=convert.game(game.doc, game.version, game.ruleset), view=view,
                                       recent_events=recent)
        reply = svc.GetGameResponse(game=convert.game(game.doc, game.version, game.ruleset),
                                    view=convert.view(game.doc["state"], game.ruleset, seat))
        if seat is not None:
            reply.viewer_seat = seat
        return reply

    async def legal_actions(self, name: str, token: players.Caller) -> svc.ListLegalActionsResponse:
        """Every action the caller's seat may take now."""
        game, seat, _ = await self._read(_game_id(name), _required(token))
        actions = []
        if game.doc["status"] == "ACTIVE" and seat is not None:
            ruleset = game.ruleset
            actions = [game_pb2.Action(**{ruleset.INFO.proto_field: ruleset.encode_action(a)})  # type: ignore[arg-type]
                       for a in ruleset.legal_actions(game.doc["state"], seat)]
        return svc.ListLegalActionsResponse(version=game.version, actions=actions)

    async def submit(self, req: svc.SubmitActionRequest, token: players.Caller) -> bytes:
        """Apply one action for the caller's seat, exactly once per request id.

        Returns the serialized ``SubmitActionResponse``: the very bytes remembered for the
        request id are the bytes sent, so a retry gets an identical answer and nothing is
        parsed and serialized again on the hot path.
        """
        game_id = _game_id(req.name)
        parsed = players.parse(_required(token))
        expected = req.expected_version if req.HasField("expected_version") else None
        fingerprint = idempotency.fingerprint("SubmitAction", req) if req.request_id else b""
        wanted = read_mask.selection(req)  # a bad mask is refused before anything is read or written

        def decide(game: Game, seat: int | None) -> Decision:
            assert seat is not None
            if expected is not None and expected != game.version:
                raise StaleVersion(game.version, expected)
            _check_active(game.doc)
            table.check_not_conceded(game.doc, seat)
            ruleset = game.ruleset
            if req.action.WhichOneof("game") != ruleset.INFO.proto_field:
                raise InvalidArgument(EngineReason.WRONG_RULESET,
                                      f"This game needs an `action.{ruleset.INFO.proto_field}`.", field="action")
            action = ruleset.decode_action(getattr(req.action, ruleset.INFO.proto_field))
            state = game.doc["state"]
            events: list[Any] = [["g", e] for e in ruleset.apply(state, seat, action)]
            timers.person_acted(game.doc, seat)
            _count_action(game.doc, ruleset.is_over(state), ruleset.INFO.max_actions, events)

            def respond(new: Game) -> bytes:
                return wanted.build(new.version, {
                    "game": lambda: convert.game(new.doc, new.version, ruleset).SerializeToString(),
                    "view": lambda: convert.view_bytes(state, ruleset, seat),
                    "events": lambda: [e.SerializeToString() for e in convert.events(events, new.version, ruleset, seat)]})
            return seat, action, events, respond

        response: bytes = await self.writes.transact(game_id, parsed, req.request_id, decide, want_response=True,
                                               fingerprint=fingerprint)
        return response

    async def leave(self, req: svc.LeaveGameRequest, token: players.Caller) -> svc.LeaveGameResponse:
        """Give up the caller's seat before the game starts (its token is void from then on)."""
        parsed = players.parse(_required(token))

        def decide(game: Game, seat: int | None) -> Decision:
            assert seat is not None
            if game.doc["status"] != "WAITING":
                raise FailedPrecondition(ServiceReason.GAME_ALREADY_STARTED,
                                         "The game has started; a seat can only be left before it starts "
                                         "(concede it with ConcedeGame).")
            game.doc["seats"][seat] = None
            game.doc.get("bots", {}).pop(str(seat), None)
            return seat, None, [["l", {"kind": "SEAT_LEFT", "seat": seat}]], lambda g: b""

        game = await self.writes.transact(_game_id(req.name), parsed, "", decide)
        return svc.LeaveGameResponse(game=convert.game(game.doc, game.version, game.ruleset))

    async def concede(self, req: svc.ConcedeGameRequest, token: players.Caller) -> bytes:
        """Concede the caller's seat (``table.concede``), exactly once per request id; the serialized
        ``ConcedeGameResponse``, remembered for the request id as SubmitAction's is."""
        parsed = players.parse(_required(token))
        fingerprint = idempotency.fingerprint("ConcedeGame", req) if req.request_id else b""

        def decide(game: Game, seat: int | None) -> Decision:
            assert seat is not None
            _check_active(game.doc)
            events = table.concede(game.doc, game.ruleset, seat)
            state = game.doc["state"]
            _count_action(game.doc, game.ruleset.is_over(state), game.ruleset.INFO.max_actions, events)

            def respond(new: Game) -> bytes:
                return svc.ConcedeGameResponse(
                    game=convert.game(new.doc, new.version, new.ruleset), view=convert.view(state, new.ruleset, seat),
                    events=convert.events(events, new.version, new.ruleset, seat)).SerializeToString()
            return seat, None, events, respond

        response: bytes = await self.writes.transact(_game_id(req.name), parsed, req.request_id, decide,
                                               want_response=True, fingerprint=fingerprint)
        return response

    async def rematch(self, req: svc.RematchGameRequest, token: players.Caller) -> svc.RematchGameResponse:
        """The rematch of a finished game: created by the first seat to ask, then each seat's own seat in it."""
        old_id = _game_id(req.name)
        parsed = players.parse(_required(token))
        old, seat, _ = await self._read(old_id, token)
        assert seat is not None
        table.check_finished(old.doc)
        new_id = table.rematch_id(old_id)
        if not old.doc.get("rematch"):
            doc, events = table.rematch_doc(old.doc, old.ruleset, self.clock(), seeds.server_seed())
            await self.writes.schedule(new_id, doc, old.ruleset, None, doc["created"])
            if doc.get("public"):
                await lobby.add(self.store.client, new_id, doc["ruleset"], doc["created"], self.config.game_ttl_seconds)
            await self.store.write(new_id, 0, dumps(doc), dumps(entry(None, None, events, doc["created"])),
                                   self.writes.ttl(doc))  # lost to another seat's write: that game is the rematch

            def announce(game: Game, _seat: int | None) -> Decision:
                if game.doc.get("rematch"):
                    raise _AlreadyAnnounced()
                game.doc["rematch"] = new_id
                return None, None, [["l", {"kind": "REMATCH", "game": f"games/{new_id}"}]], lambda g: b""
            try:
                await self.writes.transact(old_id, parsed, "", announce)
            except _AlreadyAnnounced:
                pass
        credential: list[game_pb2.SeatCredential] = []

        def take(game: Game, _seat: int | None) -> Decision:
            cred, events = table.claim(game.doc, seat, token if isinstance(token, Player) else None)
            credential[:] = [cred]
            return seat, None, events, lambda g: b""

        new = await self.writes.transact(new_id, None, "", take)
        return svc.RematchGameResponse(game=convert.game(new.doc, new.version, new.ruleset), credential=credential[0])

    async def set_seat_bot(self, req: svc.SetSeatBotRequest, token: players.Caller) -> svc.SetSeatBotResponse:
        """Hand the caller's seat to a bot, or take it back; its decision's clock starts again."""
        parsed = players.parse(_required(token))

        def decide(game: Game, seat: int | None) -> Decision:
            assert seat is not None
            _check_active(game.doc)
            return seat, None, [["l", timers.hand_over(game.doc, game.ruleset, seat, req.bot)]], lambda g: b""

        game = await self.writes.transact(_game_id(req.name), parsed, "", decide)
        return svc.SetSeatBotResponse(game=convert.game(game.doc, game.version, game.ruleset))

    async def play_due(self, game_id: str) -> float | None:
        """Make every decision of the game that is due now with its bot (the sweeper's call,
        ``timers.py``); the next due time, or None when nothing more is timed. Raises
        ``timers.NothingDue`` when it made none (the game missing, or nothing due in it)."""
        moved: list[tuple[float, bool]] = []  # (lag, timed out) of the move decided last

        def decide(game: Game, _seat: int | None) -> Decision:
            seat, action, events, lag = timers.due_decision(game.doc, game.ruleset, game.version, self.clock())
            moved.append((lag, action is None or bool(events[0][1]["timed_out"])))
            state = game.doc["state"]
            if action is None:  # TurnTimer.concede_after: the seat concedes instead
                events += table.concede(game.doc, game.ruleset, seat, timed_out=True)
            else:
                events += [["g", e] for e in game.ruleset.apply(state, seat, action)]
            _count_action(game.doc, game.ruleset.is_over(state), game.ruleset.INFO.max_actions, events)
            return seat, action, events, lambda g: b""

        for made in range(MAX_BOT_MOVES):
            try:
                await self.writes.transact(game_id, None, "", decide, claimed=True)  # the sweeper indexes what follows
                if moved and self.observer is not None:
                    self.observer.bot_played(*moved[-1])
                moved.clear()
            except timers.NothingDue as nothing:
                if made == 0:
                    raise  # nothing decided: the sweeper may look once more (timers.Sweeper)
                return nothing.due
            except NotFound:
                if made == 0:  # expired, or its creation not written yet (the index is written first)
                    raise timers.NothingDue(None) from None
                return None  # expired meanwhile
        return self.clock()  # more than MAX_BOT_MOVES due at once: look again at the next sweep

    async def watch(self, name: str, token: players.Caller, from_version: int,
                    active: Callable[[], bool]) -> AsyncIterator[svc.WatchGameResponse]:
        """Check the game and the token now, then follow it: every version after ``from_version``,
        projected for the caller, with a snapshot first when the caller is far behind."""
        game_id = _game_id(name)
        if from_version < 0:
            raise InvalidArgument(ServiceReason.INVALID_FROM_VERSION, f"from_version is {from_version}: a version "
                                  "is 0 or more (0 = from the start).", field="from_version")
        game, seat, _ = await self._read(game_id, token)
        if from_version > game.version:
            raise OutOfRange(ServiceReason.VERSION_AHEAD, f"from_version {from_version} is after the game's version "
                             f"{game.version}: watch from {game.version} or less.", version=game.version)
        self.feeds.admit(game_id)  # over the cap of games followed: refused before the stream opens
        return feeds.updates(self.feeds, game, seat, from_version, active, self.config.watch_backlog)

    async def log(self, name: str, token: players.Caller, page_size: int = 0,
                  page_token: str = "") -> svc.GetGameLogResponse:
        """One page of the log as the caller may see it; complete, with the seed, once the game is over.

        A page is one bounded XRANGE (``log_pages``); its projection runs in a worker thread,
        so a replica's event loop keeps serving other games while a long log is read.
        """
        game_id = _game_id(name)
        size = log_pages.page_size(page_size)
        after = log_pages.decode_token(page_token, game_id)
        game, seat, _ = await self._read(game_id, token)
        done = game.doc["status"] == "FINISHED"
        raw = await self.store.entries(game_id, after, count=size + 1)  # one more: is there a next page?
        page = raw[:size]
        entries = await asyncio.to_thread(log_pages.project, page, game.ruleset, seat, done)
        next_token = log_pages.encode_token(game_id, page[-1][0]) if len(raw) > size else ""
        return svc.GetGameLogResponse(entries=entries, complete=done, next_page_token=next_token,
                                      **(seeds.revealed(game.doc) if done else {}))

    # Helpers

    async def _read(self, game_id: str, token: players.Caller) -> tuple[Game, int | None, Loaded]:
        parsed = players.parse(token) if token else None
        loaded = await self.store.load(game_id)
        game = loaded_game(game_id, loaded)
        seat = players.verify(parsed, game_id, game.doc["seats"]) if parsed else None
        if self.observer is not None:
            self.observer.loaded(game_id, game.doc["ruleset"], game.version, seat)
        return game, seat, loaded

class _AlreadyAnnounced(Exception):
    """Another seat's RematchGame named the rematch in the old game first: nothing to write."""


def _game_id(name: str) -> str:
    """The id of a game name that ``field_rules`` has checked (``games/<id>``, before any handler runs)."""
    return name.removeprefix("games/")


def _required(token: players.Caller) -> str | Player:
    if not token:
        raise Unauthenticated(ServiceReason.MISSING_TOKEN, "Send your player token as 'authorization: Bearer <token>'.")
    return token


def _check_active(doc: dict[str, Any]) -> None:
    if doc["status"] == "WAITING":
        raise RuleError(EngineReason.GAME_NOT_STARTED, "The game starts when every seat is taken.")
    if doc["status"] == "FINISHED":
        raise RuleError(EngineReason.GAME_FINISHED, "The game is over; read its log.")


def _count_action(doc: dict[str, Any], over: bool, ruleset_limit: int, events: list[Any]) -> None:
    """Count one accepted action and end the game when the rules ended it or at its action limit.

    At the limit the game ends as abandoned: an ABANDONED event, then FINISHED as for any
    end (so watchers and clients that wait for FINISHED stop), with ``end`` saying which.
    """
    doc["actions"] = doc.get("actions", 0) + 1  # games created before the count start from zero
    if not over and doc["actions"] < doc.get("max_actions", ruleset_limit):
        return
    doc["status"], doc["end"] = "FINISHED", "COMPLETED" if over else "ABANDONED"
    if not over:
        events.append(["l", {"kind": "ABANDONED"}])
    events.append(["l", {"kind": "FINISHED"}])


