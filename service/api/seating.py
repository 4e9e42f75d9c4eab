"""New games and their seats: CreateGame, JoinGame and the matchmaker's games (``GameHost`` delegates here).

A game is dealt by the engine (``engine.replay.new_game``) from a seed the server chooses, unless the
caller may choose it (``seeds.py``), and written at version 0, so it exists once whoever tries. Seats named
at creation are filled at once, the first by a signed-in creator; open seats are taken by JoinGame through
the one write path (``writes.py``). With a request id, both answer a retry once (``idempotency.py``).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

from tabletop.v1 import game_pb2
from tabletop.v1 import game_service_pb2 as svc

from tabletop_server.service.api import (
    auth,
    convert,
    idempotency,
    lobby,
    players,
    rulesets,
    seeds,
    table,
    timers,
)
from tabletop_server.service.api.errors import Aborted, FailedPrecondition, InvalidArgument, ServiceReason
from tabletop_server.service.api.identity import Player
from tabletop_server.service.api.writes import Decision, Game, Writes, dumps, entry
from tabletop_server.service.config import Config
from tabletop_server.service.engine.errors import EngineReason
from tabletop_server.service.engine.replay import new_game
from tabletop_server.service.engine.ruleset import Ruleset, RulesetInfo
from tabletop_server.service.store.redis_store import GameStore, Remembered


class Seating:
    """Creation and joining over one process's store and write path (the host's)."""

    def __init__(self, store: GameStore, config: Config, clock: Callable[[], float], writes: Writes) -> None:
        self.store, self.config, self.clock, self.writes = store, config, clock, writes

    async def create(self, req: svc.CreateGameRequest, api_key: str = "",
                     caller: players.Caller = None) -> svc.CreateGameResponse:
        """Deal a new game; seats named at creation are filled at once, the first by a signed-in creator.
        ``api_key``: the caller's ``x-api-key``, which may hold the deterministic-games scope (a chosen
        seed, ``seed_source``)."""
        ruleset = rulesets.requested(req.ruleset)
        info = ruleset.INFO
        creator = caller if isinstance(caller, Player) else None
        names = _names(req, info, creator)
        seat_bots = timers.seat_bots(req, ruleset)
        timer = timers.turn_timer(req, ruleset)
        options = ruleset.decode_options(_options(req, ruleset))
        chosen = seeds.chosen_seed(req)
        source = seeds.seed_source(req, len(names), seat_bots, self.config.may_choose_seed(api_key))
        seed = chosen if chosen is not None else seeds.server_seed()
        max_actions = _max_actions(req, info.max_actions)
        state, opening = new_game(ruleset, options, req.seat_count, seed)
        now = self.clock()
        once = idempotency.CreationOnce.of(req, api_key, caller, self.config.request_id_ttl_seconds)
        for attempt in range(5):
            game_id = secrets.token_hex(8)
            if once is not None:  # the game id the request id names (idempotency.py): a retry's is the first's
                named = await once.game_id(self.store.client, game_id, replace=attempt > 0)
                if named != game_id and (found := await once.answer(self.store, named)) is not None:
                    return found  # made by an earlier try: answered before anything is written for it
                game_id = named
            seats, creds = players.build_seats(game_id, req.seat_count, names, seat_bots, creator,
                                               req.invited_player_ids)
            status = "ACTIVE" if table.all_seated({"seats": seats}) else "WAITING"
            doc = {"id": game_id, "ruleset": info.id, "options": options, "seats": seats,
                   **seeds.deal_record(ruleset, state, game_id, seed),
                   "seed_chosen": chosen is not None, "seed_source": source, "actions": 0, "max_actions": max_actions,
                   "status": status, "created": now, "updated": now, "state": state,
                   **({"bots": seat_bots} if seat_bots else {}), **({"timer": timer} if timer else {}),
                   **({"public": True} if req.public else {})}
            events: list[Any] = [["l", {"kind": "CREATED"}]] + ([["l", {"kind": "STARTED"}]] if status == "ACTIVE"
                                                                 else []) + [["g", e] for e in opening]
            await self.writes.schedule(game_id, doc, ruleset, None, now)
            if req.public:
                await lobby.add(self.store.client, game_id, info.id, now, self.config.game_ttl_seconds)
            outbox = self.writes.outbox(game_id, doc, ruleset, 1)
            response = svc.CreateGameResponse(game=convert.game(doc, 1, ruleset), credentials=creds)
            try:
                ok, _ = await self.store.write(game_id, 0, dumps(doc), dumps(entry(None, None, events, now)),
                                               self.writes.ttl(doc), **(once.remember(response) if once else {}),
                                               **outbox)
            except Remembered as earlier:  # only with a request id: its game gone, its answer not yet
                assert once is not None
                return once.replayed(earlier)
            if ok:
                return response
            if once is not None and (found := await once.answer(self.store, game_id)) is not None:
                return found  # the game this request's first try made
        raise Aborted(ServiceReason.ID_COLLISION, "Could not allocate a game id; retry.")

    async def created_before(self, req: svc.CreateGameRequest, api_key: str,
                             caller: players.Caller) -> svc.CreateGameResponse | None:
        """The answer to an earlier try of this CreateGame (same request id and caller), or None: a retry at
        the creator's limits is answered, not refused (``limits.py``)."""
        once = idempotency.CreationOnce.of(req, api_key, caller, self.config.request_id_ttl_seconds)
        return None if once is None else await once.earlier(self.store)

    async def create_seated(self, game_id: str, ruleset: Ruleset, options: dict[str, Any],
                            seated: list[tuple[str, str] | None], bot: str) -> bool:
        """A game whose every seat is taken at once: ``(player id, display name)`` bound to the player, or
        None for a ``bot`` (the matchmaker's, ``matcher.py``). Created from version 0, so only once
        whoever tries; True when this call created it. The server deals: such games may be rated."""
        seed = seeds.server_seed()
        state, opening = new_game(ruleset, options, len(seated), seed)
        now = self.clock()
        seats: list[Any] = [{"name": s[1], "token": "", "player": s[0]} if s is not None
                            else {"name": f"{bot} bot", "token": auth.new_token(game_id, i)[1]}
                            for i, s in enumerate(seated)]
        bots = {str(i): bot for i, s in enumerate(seated) if s is None}
        doc = {"id": game_id, "ruleset": ruleset.INFO.id, "options": options, "seats": seats,
               **seeds.deal_record(ruleset, state, game_id, seed), "seed_chosen": False,
               "seed_source": seeds.SERVER, "actions": 0, "max_actions": ruleset.INFO.max_actions,
               "status": "ACTIVE", "created": now, "updated": now, "state": state, "matched": True,
               **({"bots": bots} if bots else {})}
        events: list[Any] = [["l", {"kind": "CREATED"}], ["l", {"kind": "STARTED"}]] + [["g", e] for e in opening]
        await self.writes.schedule(game_id, doc, ruleset, None, now)
        outbox = self.writes.outbox(game_id, doc, ruleset, 1)
        ok, _ = await self.store.write(game_id, 0, dumps(doc), dumps(entry(None, None, events, now)),
                                       self.writes.ttl(doc), **outbox)
        return bool(ok)

    async def join(self, req: svc.JoinGameRequest, caller: players.Caller = None) -> bytes:
        """Take an open seat (bound to a signed-in caller); the game starts when the last seat is taken.
        The serialized ``JoinGameResponse``, remembered for a request id as SubmitAction's is."""
        game_id = req.name.removeprefix("games/")  # a name field_rules has checked (games/<id>)
        name = req.display_name.strip()
        player = caller if isinstance(caller, Player) else None
        credential: list[game_pb2.SeatCredential] = []

        def decide(game: Game, _seat: int | None) -> Decision:
            seats = game.doc["seats"]
            if game.doc["status"] != "WAITING":
                raise FailedPrecondition(ServiceReason.GAME_ALREADY_STARTED, "Every seat of this game is taken.")
            seat = players.join_seat(seats, req.seat if req.HasField("seat") else None, player)
            if seats[seat] is not None and not seats[seat].get("invited"):  # an invitation join_seat let through
                held = "reserved for the rematch's player" if seats[seat].get("reserved") else "taken"
                raise FailedPrecondition(ServiceReason.SEAT_TAKEN, f"Seat {seat} is {held}; omit `seat` to take any open one.")
            if name.casefold() in {s["name"].casefold() for s in seats if s is not None}:
                raise FailedPrecondition(ServiceReason.DISPLAY_NAME_TAKEN,
                                         f"Another seat is called {name!r}; choose another display name.")
            seats[seat], cred = players.occupy(game_id, seat, name, player)
            credential[:] = [cred]
            events: list[Any] = [["l", {"kind": "SEAT_JOINED", "seat": seat, "name": name}]]
            if req.bot:
                game.doc.setdefault("bots", {})[str(seat)] = timers.offered_bot(game.ruleset, req.bot, "bot")
                events.append(["l", {"kind": "SEAT_TAKEN_OVER", "seat": seat, "bot": req.bot}])
            events += table.start_if_seated(game.doc)
            return seat, None, events, lambda new: svc.JoinGameResponse(
                game=convert.game(new.doc, new.version, new.ruleset), credential=credential[0]).SerializeToString()

        fingerprint = idempotency.fingerprint("JoinGame", req, idempotency.player_of(caller)) if req.request_id else b""
        response: bytes = await self.writes.transact(game_id, None, req.request_id, decide, want_response=True,
                                                     fingerprint=fingerprint)
        return response


# Helpers

def _names(req: svc.CreateGameRequest, info: RulesetInfo, creator: Player | None) -> list[str]:
    """The seats' names at creation, checked against the table: the creator's own when none is given."""
    if not info.min_seats <= req.seat_count <= info.max_seats:
        raise InvalidArgument(EngineReason.INVALID_SEAT_COUNT,
                              f"{info.id} seats {info.min_seats} to {info.max_seats} players.",
                              field="seat_count", min=info.min_seats, max=info.max_seats)
    if len(req.display_names) > req.seat_count:
        raise InvalidArgument(ServiceReason.TOO_MANY_NAMES, "Give at most one display name per seat.", field="display_names")
    names = [n.strip() for n in req.display_names]
    if len({n.casefold() for n in names}) < len(names):
        raise InvalidArgument(ServiceReason.DISPLAY_NAME_TAKEN, "Display names are unique within a game.",
                              field="display_names")
    return names or ([creator.name] if creator is not None else [])  # the creator's seat is the first


def _options(req: svc.CreateGameRequest, ruleset: Ruleset) -> Any:
    """The ruleset's options message of the request, or None for every option at its default."""
    if not req.HasField("options") or req.options.WhichOneof("ruleset") is None:
        return None
    if req.options.WhichOneof("ruleset") != ruleset.INFO.proto_field:
        raise InvalidArgument(EngineReason.WRONG_RULESET,
                              f"Options for {ruleset.INFO.id} go in `options.{ruleset.INFO.proto_field}`.",
                              field="options")
    return getattr(req.options, ruleset.INFO.proto_field)


def _max_actions(req: svc.CreateGameRequest, limit: int) -> int:
    """The game's action limit: the ruleset's, or a lower one the creator chose."""
    if not req.HasField("max_actions"):
        return limit
    if not 1 <= req.max_actions <= limit:
        raise InvalidArgument(ServiceReason.INVALID_MAX_ACTIONS, f"max_actions is 1 to {limit} for this ruleset.",
                              field="max_actions", min=1, max=limit)
    return req.max_actions
