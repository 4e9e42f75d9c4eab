"""Players in games: who the caller is, seats bound to players, invitations (issue 27).

A caller presents either a seat token (``auth.py``, one per seat of one game, unchanged) or a
player's JWT (``identity.py``: the studio's own, or a Tabletop session). ``IdentityInterceptor``
verifies a JWT once per call, before the method runs, and keeps the player for the call in a
context variable (each call is its own asyncio task); the servicer hands the host either the
player or the raw seat token (:func:`caller`).

A seat taken by a player (CreateGame's first seat, JoinGame, an invitation) stores the player id
(``seat["player"]``) and no token hash, so no seat token acts in it: that player acts in it with
the same credential it acts with in every game. A player holds at most one seat of a game. A seat
kept for an invited player is stored reserved (``"reserved": true, "invited": <player id>``), so
the rest of the service (starting, listing open seats) treats it as the rematch's reserved seats.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import AsyncIterator, Sequence
from contextvars import ContextVar
from typing import Any

from tabletop.v1 import game_pb2

from tabletop_server.service.api import auth
from tabletop_server.service.api.errors import (
    FailedPrecondition,
    InvalidArgument,
    PermissionDenied,
    ServiceReason,
)
from tabletop_server.service.api.identity import Player, Verifier, looks_like_jwt
from tabletop_server.service.api.interceptors import Behaviour, Context, MethodInterceptor

CURRENT: ContextVar[Player | None] = ContextVar("tabletop_player", default=None)
# (player, game) -> the seat last found there: where a request id's remembered response is looked up first.
SEATS_SEEN: OrderedDict[tuple[str, str], int] = OrderedDict()
MAX_SEATS_SEEN = 100_000
Caller = str | Player | None  # what the servicer hands the host: a raw seat token, a verified player, nobody
Credential = auth.Token | Player  # a parsed caller


class IdentityInterceptor(MethodInterceptor):
    """Verifies a bearer JWT before the method runs (only when issuers or sessions are configured)."""

    def __init__(self, verifier: Verifier) -> None:
        super().__init__()
        self.verifier = verifier

    def unary(self, method: str, fn: Behaviour) -> Behaviour:
        async def wrapper(request: Any, context: Context) -> Any:
            reset = CURRENT.set(await self._player(context))
            try:
                return await fn(request, context)
            finally:
                CURRENT.reset(reset)

        def tokens_only(request: Any, context: Context) -> Any:
            """No JWT issuer configured: no player to set, so no coroutine of its own (the header is
            still checked here first, as ``_player`` checks it)."""
            if self.verifier.sources:  # configured since (sessions add their issuer)
                return wrapper(request, context)
            auth.bearer(context.invocation_metadata())  # type: ignore[arg-type]
            return fn(request, context)
        return tokens_only

    def stream(self, method: str, fn: Behaviour) -> Behaviour:
        async def wrapper(request: Any, context: Context) -> AsyncIterator[Any]:
            CURRENT.set(await self._player(context))  # this stream's task only
            async for response in fn(request, context):
                yield response
        return wrapper

    async def _player(self, context: Context) -> Player | None:
        token = auth.bearer(context.invocation_metadata())  # type: ignore[arg-type]
        if token is None or not self.verifier.sources or not looks_like_jwt(token):
            return None
        return await self.verifier.verify(token)


def caller(context: Context) -> Caller:
    """The call's verified player, else its seat token (unparsed), else None."""
    player = CURRENT.get()
    return player if player is not None else auth.bearer(context.invocation_metadata())  # type: ignore[arg-type]


def parse(given: str | Player) -> Credential:
    """A player as it is; a seat token parsed (malformed: UNAUTHENTICATED)."""
    return given if isinstance(given, Player) else auth.parse(given)


def seat_hint(credential: Credential | None, game_id: str) -> int | None:
    """The caller's seat in the game, when known before the game is read: a seat token's own, or the seat
    this process last found for the player there (only a hint: ``verify`` decides from the game)."""
    if isinstance(credential, Player):
        return credential.seats.get(game_id, SEATS_SEEN.get((credential.id, game_id)))
    return credential.seat if credential is not None else None


def verify(credential: Credential, game_id: str, seats: list[Any]) -> int:
    """The caller's seat: a seat token checked against the stored hash, or the seat bound to the player."""
    if not isinstance(credential, Player):
        return auth.verify(credential, game_id, seats)
    seat = bound_seat(seats, credential.id)
    if seat is None:
        raise PermissionDenied(ServiceReason.NOT_SEATED_IN_GAME, "You hold no seat of this game; join it "
                               "(JoinGame) or watch it without credentials.", player=credential.id)
    credential.seats[game_id] = SEATS_SEEN[(credential.id, game_id)] = seat
    SEATS_SEEN.move_to_end((credential.id, game_id))
    if len(SEATS_SEEN) > MAX_SEATS_SEEN:
        SEATS_SEEN.popitem(last=False)
    return seat


def bound_seat(seats: list[Any], player_id: str) -> int | None:
    """The seat bound to ``player_id``, if any."""
    return next((i for i, s in enumerate(seats) if s is not None and s.get("player") == player_id), None)


def build_seats(game_id: str, seat_count: int, names: list[str], seat_bots: dict[str, str],
                creator: Player | None, invited: Sequence[str]) -> tuple[list[Any], list[game_pb2.SeatCredential]]:
    """CreateGame's seats and credentials: the named seats (the first the creator's, when a player
    creates: ``names`` holds at least its name), the bots', then the invited players' kept seats
    (the lowest others); the rest open."""
    open_seats = [i for i in range(len(names), seat_count) if str(i) not in seat_bots]
    _check_invitations(invited, creator, len(open_seats))
    if creator is not None and "0" in seat_bots:
        raise InvalidArgument(ServiceReason.SEAT_TAKEN, "Seat 0 is the creating player's own; put bots on other "
                              "seats.", field="bots")
    kept = dict(zip(open_seats, invited, strict=False))
    seats: list[Any] = []
    creds: list[game_pb2.SeatCredential] = []
    for i in range(seat_count):
        if i == 0 and creator is not None:
            seats.append({"name": names[0], "token": "", "player": creator.id})
            creds.append(game_pb2.SeatCredential(seat=0, player_id=creator.id))
        elif str(i) in seat_bots:  # a bot's seat (named or not): its token is never given to anyone
            name = names[i] if i < len(names) else f"{seat_bots[str(i)]} bot"
            seats.append({"name": name, "token": auth.new_token(game_id, i)[1]})
        elif i < len(names):
            token, digest = auth.new_token(game_id, i)
            seats.append({"name": names[i], "token": digest})
            creds.append(game_pb2.SeatCredential(seat=i, player_token=token))
        elif i in kept:
            seats.append({"name": "", "token": "", "reserved": True, "invited": kept[i]})
        else:
            seats.append(None)
    return seats, creds


def join_seat(seats: list[Any], requested: int | None, player: Player | None) -> int:
    """The seat JoinGame takes: the requested one, the player's invitation, or the lowest open one."""
    if player is not None and bound_seat(seats, player.id) is not None:
        raise FailedPrecondition(ServiceReason.PLAYER_ALREADY_SEATED, "You hold a seat of this game already; a "
                                 "player holds at most one seat of a game.")
    invitation = next((i for i, s in enumerate(seats) if s is not None and player is not None
                       and s.get("invited") == player.id), None)
    seat = requested if requested is not None else invitation
    if seat is None:
        if None not in seats:
            raise FailedPrecondition(ServiceReason.SEAT_TAKEN, "Every open seat is kept: for the players of the "
                                     "game this one is a rematch of, or for invited players.")
        seat = seats.index(None)
    if not 0 <= seat < len(seats):
        raise InvalidArgument(ServiceReason.SEAT_OUT_OF_RANGE, f"Seats are 0 to {len(seats) - 1}.", field="seat")
    held = seats[seat]
    if held is not None and held.get("invited") and (player is None or held["invited"] != player.id):
        raise PermissionDenied(ServiceReason.SEAT_RESERVED_FOR_INVITEE, f"Seat {seat} is kept for an invited "
                               "player; only that player, signed in, takes it.")
    return seat


def occupy(game_id: str, seat: int, name: str, player: Player | None) -> tuple[dict[str, Any], game_pb2.SeatCredential]:
    """The stored seat and the caller's credential for it: bound to the player, or a new seat token."""
    if player is not None:
        return {"name": name, "token": "", "player": player.id}, game_pb2.SeatCredential(seat=seat, player_id=player.id)
    token, digest = auth.new_token(game_id, seat)
    return {"name": name, "token": digest}, game_pb2.SeatCredential(seat=seat, player_token=token)


# Helpers

def _check_invitations(invited: Sequence[str], creator: Player | None, open_seats: int) -> None:
    if len(invited) > open_seats:
        raise InvalidArgument(ServiceReason.TOO_MANY_INVITATIONS, f"{len(invited)} players are invited to "
                              f"{open_seats} open seats.", field="invited_player_ids")
    if len(set(invited)) < len(invited) or (creator is not None and creator.id in invited):
        raise InvalidArgument(ServiceReason.PLAYER_INVITED_TWICE, "Each invited player is invited once, and not "
                              "the creator, who holds the first seat.", field="invited_player_ids")
