"""A small typed client for the Tabletop game service, over the generated tabletop.v1 stubs.

The generated stub is complete but raw: every call needs the bearer-token metadata that
selects the caller's seat, every action must be wrapped in the ``Action`` oneof, and a
failure arrives as a ``grpc.RpcError`` whose useful part (the ``google.rpc.ErrorInfo``
reason, the current version of a stale write) is buried in binary trailing metadata.
``TabletopClient`` does those three things once, so a bot or a test reads like the
rulebook: create, look, list what is legal, act, watch.

It depends only on grpcio, protobuf and googleapis-common-protos (the rich status is
decoded here rather than through grpcio-status, to keep the client's dependencies to
those three).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Generator, Iterable, Iterator, Mapping, Sequence
from types import TracebackType
from typing import Self, TypeAlias, TypeVar

import grpc
from google.protobuf import any_pb2
from google.protobuf.message import Message
from google.rpc import error_details_pb2, status_pb2

from tabletop.v1 import (
    bang_pb2,
    game_pb2,
    game_service_pb2,
    game_service_pb2_grpc,
    matchmaking_pb2,
    player_pb2,
    rating_pb2,
    ttr_europe_pb2,
)

__all__ = ["GAME_HEADER", "ActionLike", "OptionsLike", "TabletopClient", "TabletopError", "game_name",
           "game_routing_metadata"]

ActionLike: TypeAlias = game_pb2.Action | ttr_europe_pb2.TtrEuropeAction | bang_pb2.BangAction
"""An action, either wrapped in the ``Action`` oneof or as the ruleset's own message."""

OptionsLike: TypeAlias = game_pb2.GameOptions | ttr_europe_pb2.TtrEuropeOptions | bang_pb2.BangOptions
"""Game options, either wrapped in the ``GameOptions`` oneof or as the ruleset's own message."""

_Req = TypeVar("_Req", bound=Message)
_Resp = TypeVar("_Resp", bound=Message)

STATUS_DETAILS_KEY = "grpc-status-details-bin"

GAME_HEADER = "x-tabletop-game"
"""The metadata key naming the game a call is about, so that an ingress can send every call of one game to
the same server replica (its copy of the game is then current: deploy/README.md, "Game-affinity routing").
Its value is the game's id, the part of the game's resource name after ``games/``. Only routing reads it:
the server decides by the request's ``name``, never by this header."""

# The google.rpc detail types a client may meet; anything else stays a packed Any.
_DETAIL_TYPES: tuple[type[Message], ...] = (
    error_details_pb2.ErrorInfo,
    error_details_pb2.PreconditionFailure,
    error_details_pb2.BadRequest,
    error_details_pb2.RetryInfo,
    error_details_pb2.ResourceInfo,
    error_details_pb2.QuotaFailure,
    error_details_pb2.RequestInfo,
    error_details_pb2.DebugInfo,
    error_details_pb2.Help,
    error_details_pb2.LocalizedMessage,
)


class TabletopError(Exception):
    """A failed call, with the server's rich status decoded.

    Callers branch on ``reason`` (a stable UPPER_SNAKE code such as ``NOT_YOUR_TURN``)
    rather than on ``code`` or the message: several reasons share a gRPC code, and the
    message is prose meant for people.
    """

    def __init__(self, code: grpc.StatusCode, message: str, reason: str = "", domain: str = "",
                 metadata: Mapping[str, str] | None = None, details: Sequence[Message] = ()) -> None:
        super().__init__(f"{code.name} {reason or '-'}: {message}")
        self.code = code
        self.message = message
        self.reason = reason
        self.domain = domain
        self.metadata: dict[str, str] = dict(metadata or {})
        self.details: tuple[Message, ...] = tuple(details)

    @classmethod
    def from_rpc_error(cls, error: grpc.RpcError) -> TabletopError:
        """Decodes ``grpc-status-details-bin``; a plain status (no details) keeps an empty reason."""
        code: grpc.StatusCode = error.code() if isinstance(error, grpc.Call) else grpc.StatusCode.UNKNOWN
        message: str = (error.details() or "") if isinstance(error, grpc.Call) else str(error)
        trailers = error.trailing_metadata() if isinstance(error, grpc.Call) else None
        raw = _status_bytes(trailers)
        if raw is None:
            return cls(code, message)
        status = status_pb2.Status.FromString(raw)
        details = [_unpack(packed) for packed in status.details]
        info = next((d for d in details if isinstance(d, error_details_pb2.ErrorInfo)), None)
        return cls(code, status.message or message,
                   reason=info.reason if info else "", domain=info.domain if info else "",
                   metadata=dict(info.metadata) if info else {}, details=details)

    @property
    def precondition_failure(self) -> error_details_pb2.PreconditionFailure | None:
        """The PreconditionFailure detail (a stale version), if any."""
        return next((d for d in self.details if isinstance(d, error_details_pb2.PreconditionFailure)), None)

    @property
    def bad_request(self) -> error_details_pb2.BadRequest | None:
        """The BadRequest detail (malformed fields), if any."""
        return next((d for d in self.details if isinstance(d, error_details_pb2.BadRequest)), None)

    @property
    def retry_delay(self) -> float | None:
        """Seconds to wait before retrying (RetryInfo, sent with RATE_LIMITED), if the server said."""
        info = next((d for d in self.details if isinstance(d, error_details_pb2.RetryInfo)), None)
        return info.retry_delay.ToTimedelta().total_seconds() if info is not None else None

    @property
    def current_version(self) -> int | None:
        """The game's version when a write was stale, so the caller can reload and retry."""
        value = self.metadata.get("current_version")
        return int(value) if value is not None and value.lstrip("-").isdigit() else None


class TabletopClient:
    """One connection to the service, acting as one seat (or as a spectator without a token).

    ``api_key`` is the operator-issued key some deployments require for CreateGame
    (sent as ``x-api-key``); it is passed on to ``with_token`` clients.

    ``with_token`` gives a client for another seat over the same channel, so a test or a
    bot can play every seat of a game over a single HTTP/2 connection. Use it as a
    context manager to close the channel it opened.
    """

    def __init__(self, target: str, token: str | None = None, *, api_key: str | None = None,
                 timeout: float | None = 30.0, credentials: grpc.ChannelCredentials | None = None,
                 channel: grpc.Channel | None = None) -> None:
        self.target = target
        self.token = token
        self.api_key = api_key
        self.timeout = timeout
        self._owns_channel = channel is None
        if channel is None:
            channel = (grpc.secure_channel(target, credentials) if credentials is not None
                       else grpc.insecure_channel(target))
        self._channel = channel
        self._stub = game_service_pb2_grpc.GameServiceStub(channel)

    def with_token(self, token: str | None) -> TabletopClient:
        """A client for another seat sharing this channel; closing it leaves the channel open."""
        return TabletopClient(self.target, token, api_key=self.api_key, timeout=self.timeout,
                              channel=self._channel)

    def as_player(self, session: player_pb2.PlayerSession) -> TabletopClient:
        """A client acting as a signed-in player (its access token), sharing this channel: the player acts
        with it in every game it holds a seat of."""
        return self.with_token(session.access_token)

    def for_seats(self, credentials: Iterable[game_pb2.SeatCredential]) -> dict[int, TabletopClient]:
        """One client per seat from CreateGame's ``credentials``, all sharing this channel."""
        return {credential.seat: self.with_token(credential.player_token) for credential in credentials}

    def close(self) -> None:
        """Closes the channel if this client opened it."""
        if self._owns_channel:
            self._channel.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    # Calls

    def list_rulesets(self) -> list[game_pb2.Ruleset]:
        """The games the server offers."""
        response = self._unary(self._stub.ListRulesets, game_service_pb2.ListRulesetsRequest())
        return list(response.rulesets)

    def get_ruleset(self, ruleset: str) -> game_service_pb2.GetRulesetResponse:
        """One ruleset with its catalog (map, cards, characters: ``ttr_europe`` or ``bang``) and its etag;
        ``ruleset`` is an id such as "ttr-europe" or a name such as "rulesets/ttr-europe"."""
        name = ruleset if ruleset.startswith("rulesets/") else f"rulesets/{ruleset}"
        return self._unary(self._stub.GetRuleset, game_service_pb2.GetRulesetRequest(name=name))

    def create_game(self, ruleset: str, seat_count: int, display_names: Iterable[str] = (),
                    seed: int | None = None, options: OptionsLike | None = None,
                    request_id: str = "") -> game_service_pb2.CreateGameResponse:
        """Creates a game; its ``credentials`` hold one token per named seat (use ``with_token``).

        With a ``request_id`` (a fresh UUID per game), calling again after a lost answer returns the
        same game and tokens instead of making another.
        """
        request = game_service_pb2.CreateGameRequest(ruleset=ruleset, seat_count=seat_count,
                                                     display_names=list(display_names), request_id=request_id)
        if seed is not None:
            request.seed = seed
        if options is not None:
            request.options.CopyFrom(_wrap_options(options))
        return self._unary(self._stub.CreateGame, request)

    def join_game(self, name: str, display_name: str, seat: int | None = None,
                  request_id: str = "") -> game_service_pb2.JoinGameResponse:
        """Takes an open seat (the lowest one when ``seat`` is None); with a ``request_id``, calling again
        after a lost answer returns the same seat and token instead of taking another."""
        request = game_service_pb2.JoinGameRequest(name=game_name(name), display_name=display_name,
                                                   request_id=request_id)
        if seat is not None:
            request.seat = seat
        return self._unary(self._stub.JoinGame, request)

    def create_player_session(self, player_id: str, display_name: str = "") -> player_pb2.PlayerSession:
        """A session for one of the studio's players (a studio backend's call: needs ``api_key``)."""
        request = player_pb2.CreatePlayerSessionRequest(player_id=player_id, display_name=display_name)
        return self._unary(self._stub.CreatePlayerSession, request).session

    def refresh_player_session(self, refresh_token: str) -> player_pb2.PlayerSession:
        """A new session for a refresh token, which is spent (each is accepted once)."""
        request = player_pb2.RefreshPlayerSessionRequest(refresh_token=refresh_token)
        return self._unary(self._stub.RefreshPlayerSession, request).session

    def create_guest_session(self, display_name: str = "") -> player_pb2.PlayerSession:
        """A session for a new guest player, where the operator turned guests on."""
        request = player_pb2.CreateGuestSessionRequest(display_name=display_name)
        return self._unary(self._stub.CreateGuestSession, request).session

    def get_game(self, name: str) -> game_service_pb2.GetGameResponse:
        """The game and this seat's view of it."""
        return self._unary(self._stub.GetGame, game_service_pb2.GetGameRequest(name=game_name(name)))

    def legal_actions(self, name: str) -> game_service_pb2.ListLegalActionsResponse:
        """This seat's legal actions and the version they hold at (pass it as ``expected_version``)."""
        request = game_service_pb2.ListLegalActionsRequest(name=game_name(name))
        return self._unary(self._stub.ListLegalActions, request)

    def submit_action(self, name: str, action: ActionLike, expected_version: int | None = None,
                      request_id: str | None = None) -> game_service_pb2.SubmitActionResponse:
        """Applies one action for this seat.

        Without ``request_id`` a fresh one is sent, so the call is never mistaken for a
        repeat of another; pass your own id to retry a call whose answer was lost, and the
        server returns the first answer instead of acting twice.
        """
        request = game_service_pb2.SubmitActionRequest(name=game_name(name), action=_wrap_action(action),
                                                       request_id=request_id or uuid.uuid4().hex)
        if expected_version is not None:
            request.expected_version = expected_version
        return self._unary(self._stub.SubmitAction, request)

    def watch(self, name: str, from_version: int = 0,
              timeout: float | None = None) -> Generator[game_service_pb2.WatchGameResponse, None, None]:
        """Every version after ``from_version`` as it happens; the stream stays open while the game runs.

        No deadline by default, since a watcher waits for other players. Closing the
        iterator (``break`` out of the loop, or ``close()``) cancels the call on the server.
        """
        request = game_service_pb2.WatchGameRequest(name=game_name(name), from_version=from_version)
        call = self._stub.WatchGame(request, metadata=self._metadata(request), timeout=timeout)
        try:
            yield from call
        except grpc.RpcError as error:
            raise TabletopError.from_rpc_error(error) from None
        finally:
            call.cancel()

    def game_log(self, name: str, page_size: int = 0, page_token: str = "") -> game_service_pb2.GetGameLogResponse:
        """One page of the action log as this seat may see it (complete, with the seed, once finished).

        Pass the page's ``next_page_token`` back for the next one; :meth:`log_entries` does that.
        """
        request = game_service_pb2.GetGameLogRequest(name=game_name(name), page_size=page_size, page_token=page_token)
        return self._unary(self._stub.GetGameLog, request)

    def log_entries(self, name: str, page_size: int = 0) -> Iterator[game_pb2.LogEntry]:
        """Every log entry, oldest first, read page by page (one bounded call per page)."""
        page_token = ""
        while True:
            page = self.game_log(name, page_size, page_token)
            yield from page.entries
            page_token = page.next_page_token
            if not page_token:
                return

    def my_games(self, filter: str = "", page_size: int = 0) -> Iterator[player_pb2.PlayerGame]:
        """Every game of this signed-in player (``as_player``), page by page: those awaiting the player's
        decision first, then the most recently active. ``filter``: e.g. ``'status = "ACTIVE" AND my_turn = true'``."""
        page_token = ""
        while True:
            request = player_pb2.ListMyGamesRequest(filter=filter, page_size=page_size, page_token=page_token)
            page = self._unary(self._stub.ListMyGames, request)
            yield from page.games
            page_token = page.next_page_token
            if not page_token:
                return

    def notifications(self, filter: str = "", page_size: int = 0) -> Iterator[player_pb2.PlayerNotification]:
        """This signed-in player's inbox, newest first (``filter``: ``read = false`` for the unread ones)."""
        page_token = ""
        while True:
            request = player_pb2.ListNotificationsRequest(filter=filter, page_size=page_size, page_token=page_token)
            page = self._unary(self._stub.ListNotifications, request)
            yield from page.notifications
            page_token = page.next_page_token
            if not page_token:
                return

    def mark_notifications_read(self, ids: Iterable[str] = (), every: bool = False) -> int:
        """Mark notifications read (by id, or ``every`` one); the unread count left."""
        request = player_pb2.MarkNotificationsReadRequest(ids=list(ids), all=every)
        return self._unary(self._stub.MarkNotificationsRead, request).unread_count

    def leaderboard(self, ruleset: str, page_size: int = 0) -> Iterator[rating_pb2.LeaderboardEntry]:
        """A ruleset's leaderboard, best first, page by page (docs/ratings.md)."""
        page_token = ""
        while True:
            request = rating_pb2.ListLeaderboardRequest(parent=f"rulesets/{ruleset}", page_size=page_size,
                                                        page_token=page_token)
            page = self._unary(self._stub.ListLeaderboard, request)
            yield from page.entries
            page_token = page.next_page_token
            if not page_token:
                return

    def profile(self, player_id: str = "me", history_size: int = 0) -> rating_pb2.PlayerProfile:
        """A player's rated games and ratings (``"me"``: this signed-in player)."""
        request = rating_pb2.GetPlayerProfileRequest(name=f"players/{player_id}", history_size=history_size)
        return self._unary(self._stub.GetPlayerProfile, request).profile

    def find_game(self, ruleset: str, min_seats: int = 0, max_seats: int = 0, bots_after_seconds: int = 0,
                  rating_window: float = 0.0, options: OptionsLike | None = None) -> matchmaking_pb2.MatchTicket:
        """Quick play: a ticket for a game of ``ruleset`` (docs/matchmaking.md); poll :meth:`ticket`."""
        request = matchmaking_pb2.FindGameRequest(ruleset=ruleset, min_seats=min_seats, max_seats=max_seats,
                                                  bots_after_seconds=bots_after_seconds, rating_window=rating_window)
        if options is not None:
            request.options.CopyFrom(_wrap_options(options))
        return self._unary(self._stub.FindGame, request).ticket

    def ticket(self, name: str) -> matchmaking_pb2.MatchTicket:
        """A ticket of this player's: WAITING, or SEATED with its game and seat."""
        return self._unary(self._stub.GetTicket, matchmaking_pb2.GetTicketRequest(name=name)).ticket

    def cancel_ticket(self, name: str) -> matchmaking_pb2.MatchTicket:
        """Cancel a waiting ticket (a seated one stays seated)."""
        return self._unary(self._stub.CancelTicket, matchmaking_pb2.CancelTicketRequest(name=name)).ticket

    def watch_player(self, after_id: str = "", timeout: float | None = None,
                     reconnect: bool = True) -> Generator[player_pb2.PlayerNotification, None, None]:
        """This signed-in player's notifications after ``after_id`` (empty: from now on), as they are made.

        With ``reconnect`` a dropped stream (UNAVAILABLE: a replica went away) is opened again after the
        last notification received, so none is missed or repeated. Closing the iterator cancels the call.
        """
        after = after_id
        while True:
            call = self._stub.WatchPlayer(player_pb2.WatchPlayerRequest(after_id=after), metadata=self._metadata(),
                                          timeout=timeout)
            try:
                for reply in call:
                    after = reply.notification.id
                    yield reply.notification
                return
            except grpc.RpcError as error:
                if not reconnect or error.code() != grpc.StatusCode.UNAVAILABLE:
                    raise TabletopError.from_rpc_error(error) from None
                time.sleep(1.0)
            finally:
                call.cancel()

    # Helpers

    def _metadata(self, request: Message | None = None) -> tuple[tuple[str, str | bytes], ...]:
        metadata: list[tuple[str, str | bytes]] = list(game_routing_metadata(request)) if request else []
        if self.token:
            metadata.append(("authorization", f"Bearer {self.token}"))
        if self.api_key:
            metadata.append(("x-api-key", self.api_key))
        return tuple(metadata)

    def _unary(self, method: grpc.UnaryUnaryMultiCallable[_Req, _Resp], request: _Req) -> _Resp:
        try:
            return method(request, metadata=self._metadata(request), timeout=self.timeout)
        except grpc.RpcError as error:
            raise TabletopError.from_rpc_error(error) from None


def game_name(name: str) -> str:
    """``games/<id>`` from either the resource name or the bare id."""
    return name if name.startswith("games/") else f"games/{name}"


def game_routing_metadata(request: Message) -> tuple[tuple[str, str], ...]:
    """``((GAME_HEADER, id),)`` for a request whose ``name`` is a game's (``games/<id>``), else nothing: calls
    that name no game (CreateGame, ListGames, tickets, players) carry no routing key and are spread."""
    name = getattr(request, "name", "")
    if isinstance(name, str) and name.startswith("games/") and len(name) > len("games/"):
        return ((GAME_HEADER, name.removeprefix("games/")),)
    return ()


def _wrap_action(action: ActionLike) -> game_pb2.Action:
    if isinstance(action, game_pb2.Action):
        return action
    if isinstance(action, ttr_europe_pb2.TtrEuropeAction):
        return game_pb2.Action(ttr_europe=action)
    return game_pb2.Action(bang=action)


def _wrap_options(options: OptionsLike) -> game_pb2.GameOptions:
    if isinstance(options, game_pb2.GameOptions):
        return options
    if isinstance(options, ttr_europe_pb2.TtrEuropeOptions):
        return game_pb2.GameOptions(ttr_europe=options)
    return game_pb2.GameOptions(bang=options)


def _status_bytes(trailers: Sequence[tuple[str, str | bytes]] | None) -> bytes | None:
    for key, value in trailers or ():
        if key == STATUS_DETAILS_KEY:
            return value if isinstance(value, bytes) else value.encode("latin-1")
    return None


def _unpack(packed: any_pb2.Any) -> Message:
    for cls in _DETAIL_TYPES:
        if packed.TypeName() == cls.DESCRIPTOR.full_name:
            detail = cls()
            packed.Unpack(detail)
            return detail
    return packed
