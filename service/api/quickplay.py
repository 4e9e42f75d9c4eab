"""FindGame, GetTicket and CancelTicket (issue 28, docs/matchmaking.md): a signed-in player's tickets.

A queue is a ruleset with its options (defaults filled): its id is a hash of both, so tickets that can
share a table share a queue. A ticket is written to its queue after the queue is scheduled for the
matcher (``{mm}:due``, as bots' deadlines are: the index first, so a crash between the two leaves at
worst a look at a queue with nothing new). A player holds one waiting ticket per queue: asking again
returns it. A ticket's name holds its queue: ``tickets/<queue>.<ticket>``.
"""

from __future__ import annotations

import hashlib
import secrets
import time
from collections.abc import Callable
from typing import Any

import orjson
from tabletop.v1 import game_pb2, matchmaking_pb2

from tabletop_server.service.api import convert, rulesets
from tabletop_server.service.api.errors import InvalidArgument, NotFound, ServiceReason
from tabletop_server.service.api.my_games import player_of
from tabletop_server.service.engine import rating, registry
from tabletop_server.service.engine.errors import EngineReason
from tabletop_server.service.engine.ruleset import Ruleset
from tabletop_server.service.store import keys
from tabletop_server.service.store.deadlines import Deadlines
from tabletop_server.service.store.ratings import RatingStore
from tabletop_server.service.store.tickets import Tickets

TICKET_TTL = 3600  # default of TABLETOP_TICKET_TTL_SECONDS: a ticket is kept this long
MAX_BOTS_AFTER = 3600
STATE = {"WAITING": matchmaking_pb2.TICKET_STATE_WAITING, "SEATED": matchmaking_pb2.TICKET_STATE_SEATED,
         "CANCELLED": matchmaking_pb2.TICKET_STATE_CANCELLED}


def queues(client: Any) -> Deadlines:
    """The index of queues the matcher looks at (``timers.Sweeper`` claims them under a lease)."""
    return Deadlines(client, keys.queues_due(), keys.queues_claimed(), keys.queues_held())


class Quickplay:
    """The ticket RPCs over a store client."""

    def __init__(self, client: Any, clock: Callable[[], float] = time.time, ttl: int = TICKET_TTL) -> None:
        self.tickets, self.queues, self.ratings = Tickets(client, ttl), queues(client), RatingStore(client)
        self.clock = clock

    async def find(self, caller: Any, req: matchmaking_pb2.FindGameRequest) -> matchmaking_pb2.FindGameResponse:
        player = player_of(caller)
        ruleset = rulesets.requested(req.ruleset)
        options = _options(ruleset, req)
        low, high = _seat_range(ruleset, options, req.min_seats, req.max_seats)
        if req.rating_window < 0 or not 0 <= req.bots_after_seconds <= MAX_BOTS_AFTER:
            raise InvalidArgument(ServiceReason.INVALID_TICKET, "rating_window is 0 (any) or more; bots_after_seconds "
                                  f"is 0 (never) to {MAX_BOTS_AFTER}.", field="bots_after_seconds")
        queue_id = hashlib.sha256(orjson.dumps([ruleset.INFO.id, options], option=orjson.OPT_SORT_KEYS)).hexdigest()[:16]
        await self.tickets.describe(queue_id, {"ruleset": ruleset.INFO.id, "options": options})
        now = self.clock()
        standing = await self.ratings.standing(player.id, ruleset.INFO.id)
        ticket_id = secrets.token_hex(8)
        ticket: dict[str, Any] = {"id": ticket_id, "queue": queue_id, "player": player.id, "name": player.name,
                  "min": low, "max": high, "window": req.rating_window, "bots_after": req.bots_after_seconds,
                  "rating": rating.ordinal(standing.rating) if standing else 0.0, "created": int(now * 1000),
                  "updated": int(now * 1000), "state": "WAITING"}
        await self.queues.schedule(queue_id, now)
        old = await self.tickets.add(queue_id, ticket_id, ticket, int(now * 1000))
        if old:
            ticket = await self._shown(queue_id, await self.tickets.get(queue_id, old) or ticket)
        return matchmaking_pb2.FindGameResponse(ticket=_message(ticket, ruleset, options))

    async def get(self, caller: Any, name: str) -> matchmaking_pb2.GetTicketResponse:
        queue_id, ticket = await self._own(caller, name)
        return matchmaking_pb2.GetTicketResponse(ticket=await self._out(queue_id, await self._shown(queue_id, ticket)))

    async def _shown(self, queue_id: str, ticket: dict[str, Any]) -> dict[str, Any]:
        """The ticket as its player may act on it: seated only once its game exists. The matcher seats the tickets,
        then creates the game (``matcher.py``); a client polling in between was told a game that GetGame did not
        find (NOT_FOUND, seen under load), so until then the ticket still reads WAITING."""
        if ticket.get("state") == "SEATED" and await self.tickets.is_unmade(queue_id, ticket["game"]):
            return {**ticket, "state": "WAITING", "game": "", "seat": 0}
        return ticket

    async def cancel(self, caller: Any, name: str) -> matchmaking_pb2.CancelTicketResponse:
        queue_id, ticket = await self._own(caller, name)
        after = await self.tickets.cancel(queue_id, ticket["id"], ticket["player"], int(self.clock() * 1000))
        return matchmaking_pb2.CancelTicketResponse(ticket=await self._out(queue_id, after or ticket))

    async def _own(self, caller: Any, name: str) -> tuple[str, dict[str, Any]]:
        player = player_of(caller)
        queue_id, _, ticket_id = name.removeprefix("tickets/").partition(".")
        ticket = await self.tickets.get(queue_id, ticket_id)
        if ticket is None or ticket["player"] != player.id:
            raise NotFound(ServiceReason.TICKET_NOT_FOUND, f"No ticket {name} of yours (tickets are kept an hour).")
        return queue_id, ticket

    async def _out(self, queue_id: str, ticket: dict[str, Any]) -> matchmaking_pb2.MatchTicket:
        meta = await self.tickets.meta(queue_id) or {}
        ruleset = registry.get(meta.get("ruleset", ""))
        if ruleset is None:
            raise NotFound(ServiceReason.TICKET_NOT_FOUND, "This ticket's ruleset is no longer offered.")
        return _message(ticket, ruleset, meta["options"])


# Helpers

def _options(ruleset: Ruleset, req: matchmaking_pb2.FindGameRequest) -> dict[str, Any]:
    kind = req.options.WhichOneof("ruleset") if req.HasField("options") else None
    if kind is not None and kind != ruleset.INFO.proto_field:
        raise InvalidArgument(EngineReason.WRONG_RULESET, f"Options for {ruleset.INFO.id} go in "
                              f"`options.{ruleset.INFO.proto_field}`.", field="options")
    return dict(ruleset.decode_options(getattr(req.options, kind) if kind else None))


def _seat_range(ruleset: Ruleset, options: dict[str, Any], low: int, high: int) -> tuple[int, int]:
    """The seat counts asked (0: the ruleset's bound), each playable with ``options``."""
    playable = [n for r in ruleset.INFO.ranges() if all(_has(options, k, v) for k, v in r.requires)
                for n in range(r.min_seats, r.max_seats + 1)]
    low, high = low or min(playable), high or max(playable)
    if low > high or any(n not in playable for n in range(low, high + 1)):
        raise InvalidArgument(ServiceReason.INVALID_TICKET, f"{ruleset.INFO.id} with these options seats "
                              f"{min(playable)} to {max(playable)}; min_seats <= max_seats.", field="min_seats",
                              min=min(playable), max=max(playable))
    return low, high


def _has(options: dict[str, Any], key: str, value: str) -> bool:
    got = options.get(key)
    return value in got if isinstance(got, list) else str(got) == value


def _message(ticket: dict[str, Any], ruleset: Ruleset, options: dict[str, Any]) -> matchmaking_pb2.MatchTicket:
    encoded = game_pb2.GameOptions(**{ruleset.INFO.proto_field: ruleset.encode_options(options)})  # type: ignore[arg-type]
    return matchmaking_pb2.MatchTicket(
        name=f"tickets/{ticket['queue']}.{ticket['id']}", ruleset=ruleset.INFO.id, options=encoded,
        min_seats=ticket["min"], max_seats=ticket["max"], rating_window=ticket["window"],
        bots_after_seconds=ticket["bots_after"], state=STATE[ticket["state"]],
        game=f"games/{ticket['game']}" if ticket.get("game") else "", seat=int(ticket.get("seat", 0)),
        create_time=convert.timestamp(ticket["created"] / 1000), update_time=convert.timestamp(ticket["updated"] / 1000))
