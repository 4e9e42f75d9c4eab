"""Errors: the service's exception classes and the one table that maps them to gRPC.

Every error leaves as a ``google.rpc.Status`` with exactly one ``ErrorInfo`` (a stable
UPPER_SNAKE reason, domain ``tabletop.dev``, string metadata) plus the details that
help: ``PreconditionFailure`` with the current version when stale, ``BadRequest`` field
violations when malformed. REST maps the gRPC code to an HTTP status generically.
"""

from __future__ import annotations

import datetime
import logging
from collections.abc import Mapping
from enum import StrEnum

import grpc
import redis.exceptions
from google.protobuf import any_pb2, duration_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2

from tabletop_server.service.engine.errors import MalformedAction, RuleError
from tabletop_server.service.store.resp import MasterDownError, ReplicasBehind

DOMAIN = "tabletop.dev"


class ServiceReason(StrEnum):
    """Reasons of the service itself (rulesets add their own; see docs/errors.md)."""

    # INVALID_ARGUMENT: the request is malformed.
    MALFORMED_REQUEST = "MALFORMED_REQUEST"  # not a valid protobuf message
    UNKNOWN_FIELD = "UNKNOWN_FIELD"  # a field this server does not know
    INVALID_NAME = "INVALID_NAME"  # not "games/<id>"
    INVALID_LANGUAGE_CODE = "INVALID_LANGUAGE_CODE"  # GetRuleset.language_code that is no BCP 47 tag
    INVALID_DISPLAY_NAME = "INVALID_DISPLAY_NAME"  # empty, only spaces, over 64 characters, or with a control or invisible formatting character
    TOO_MANY_NAMES = "TOO_MANY_NAMES"  # more display names than seats
    SEAT_OUT_OF_RANGE = "SEAT_OUT_OF_RANGE"  # JoinGame.seat outside the table
    INVALID_BOT_NAME = "INVALID_BOT_NAME"  # a bot name that is no name (1 to 32 of a-z, 0-9, _)
    INVALID_FILTER = "INVALID_FILTER"  # a ListGames filter outside the supported terms
    UNKNOWN_BOT = "UNKNOWN_BOT"  # a bot name the ruleset does not offer (CreateGame.bots, turn_timer.bot)
    INVALID_TICKET = "INVALID_TICKET"  # FindGame: a seat range the ruleset cannot play with these options, a negative rating window, bots after more than an hour
    TOO_MANY_BOTS = "TOO_MANY_BOTS"  # more CreateGame.bots than seats
    INVALID_TURN_TIMER = "INVALID_TURN_TIMER"  # TurnTimer outside its bounds
    REQUEST_ID_TOO_LONG = "REQUEST_ID_TOO_LONG"  # request_id over 128 characters
    IDEMPOTENCY_KEY_REUSED = "IDEMPOTENCY_KEY_REUSED"  # a request_id / Idempotency-Key sent before with another request (REST 422)
    INVALID_PAGE_TOKEN = "INVALID_PAGE_TOKEN"  # page_token not from this game's GetGameLog (or over 111 characters)
    INVALID_PAGE_SIZE = "INVALID_PAGE_SIZE"  # negative page_size
    INVALID_MAX_ACTIONS = "INVALID_MAX_ACTIONS"  # CreateGame.max_actions outside 1 to the ruleset's limit
    INVALID_SEED = "INVALID_SEED"  # CreateGame.seed_hex not 64 lowercase hex digits, or given with seed
    INVALID_PLAYER_ID = "INVALID_PLAYER_ID"  # a player id that is no id (1 to 128 of A-Z a-z 0-9 . _ : @ | + -)
    TOO_MANY_INVITATIONS = "TOO_MANY_INVITATIONS"  # more CreateGame.invited_player_ids than open seats
    PLAYER_INVITED_TWICE = "PLAYER_INVITED_TWICE"  # an invited player id twice, or the creator's own
    INVALID_READ_MASK = "INVALID_READ_MASK"  # a SubmitAction.read_mask path that names no response field, or over 16 paths
    INVALID_FROM_VERSION = "INVALID_FROM_VERSION"  # a negative WatchGame.from_version (or SSE Last-Event-ID)
    INVALID_AT_VERSION = "INVALID_AT_VERSION"  # GetGame.at_version below 1 (a replay starts at the deal, version 1)
    INVALID_NOTIFICATION_ID = "INVALID_NOTIFICATION_ID"  # WatchPlayer.after_id (or SSE Last-Event-ID) or a MarkNotificationsRead id that is no notification id
    VALUE_OUT_OF_RANGE = "VALUE_OUT_OF_RANGE"  # a 32-bit field sent with a wider value (it would have been cut)
    # OUT_OF_RANGE: past the end of what exists.
    VERSION_AHEAD = "VERSION_AHEAD"  # WatchGame.from_version (or GetGame.at_version) after the game's version
    # UNAUTHENTICATED / PERMISSION_DENIED: credentials.
    MISSING_TOKEN = "MISSING_TOKEN"  # the call needs a player token
    PLAYER_REQUIRED = "PLAYER_REQUIRED"  # a player's call (ListMyGames, WatchPlayer, the inbox) without a signed-in player's bearer JWT
    INVALID_TOKEN = "INVALID_TOKEN"  # malformed or forged token, or not "Bearer"
    TOKEN_FOR_OTHER_GAME = "TOKEN_FOR_OTHER_GAME"  # a real token of another game (PERMISSION_DENIED)
    API_KEY_REQUIRED = "API_KEY_REQUIRED"  # CreateGame needs x-api-key on this server
    API_KEY_INVALID = "API_KEY_INVALID"  # an unknown x-api-key (PERMISSION_DENIED)
    SEED_CHOICE_NOT_ALLOWED = "SEED_CHOICE_NOT_ALLOWED"  # a chosen seed for a game with a seat the creator does not hold, without the deterministic-games scope (PERMISSION_DENIED)
    JWT_MALFORMED = "JWT_MALFORMED"  # a bearer JWT that is no compact JWS with JSON header and claims
    JWT_ALGORITHM_REFUSED = "JWT_ALGORITHM_REFUSED"  # alg outside the issuer's RS256/ES256/EdDSA list (none, HS256)
    JWT_ISSUER_UNKNOWN = "JWT_ISSUER_UNKNOWN"  # iss is not a configured issuer (TABLETOP_JWT_ISSUERS)
    JWT_KEY_UNKNOWN = "JWT_KEY_UNKNOWN"  # kid is not in the issuer's JWKS, even after a refetch
    JWT_SIGNATURE_INVALID = "JWT_SIGNATURE_INVALID"  # the signature does not verify (forged or altered)
    JWT_EXPIRED = "JWT_EXPIRED"  # past exp, beyond the clock skew
    JWT_NOT_YET_VALID = "JWT_NOT_YET_VALID"  # before nbf (or iat in the future), beyond the clock skew
    JWT_AUDIENCE_MISMATCH = "JWT_AUDIENCE_MISMATCH"  # aud does not name the issuer's configured audience
    JWT_CLAIMS_INVALID = "JWT_CLAIMS_INVALID"  # sub or exp missing, or sub not a player id
    REFRESH_TOKEN_INVALID = "REFRESH_TOKEN_INVALID"  # unknown or expired refresh token
    REFRESH_TOKEN_REUSED = "REFRESH_TOKEN_REUSED"  # a spent refresh token again: its sign-in's sessions are revoked
    NOT_SEATED_IN_GAME = "NOT_SEATED_IN_GAME"  # a signed-in player holds no seat of this game (PERMISSION_DENIED)
    SEAT_RESERVED_FOR_INVITEE = "SEAT_RESERVED_FOR_INVITEE"  # JoinGame of a seat kept for another invited player (PERMISSION_DENIED)
    DUPLICATE_AUTHORIZATION = "DUPLICATE_AUTHORIZATION"  # more than one authorization entry: none is picked
    # NOT_FOUND.
    GAME_NOT_FOUND = "GAME_NOT_FOUND"  # no such game (or it expired)
    TICKET_NOT_FOUND = "TICKET_NOT_FOUND"  # no such matchmaking ticket of the caller's (or it expired)
    RULESET_NOT_FOUND = "RULESET_NOT_FOUND"  # GetRuleset of a ruleset this server does not offer
    # FAILED_PRECONDITION: not possible in the game's current state.
    STALE_VERSION = "STALE_VERSION"  # expected_version / If-Match is not the current version
    GAME_ALREADY_STARTED = "GAME_ALREADY_STARTED"  # JoinGame when every seat is taken
    SEAT_TAKEN = "SEAT_TAKEN"  # JoinGame.seat is occupied
    DISPLAY_NAME_TAKEN = "DISPLAY_NAME_TAKEN"  # another seat of the game has this display name (case aside)
    NOT_A_BOT_SEAT = "NOT_A_BOT_SEAT"  # SetSeatBot takes back a seat no bot plays
    CONCEDE_NOT_SUPPORTED = "CONCEDE_NOT_SUPPORTED"  # ConcedeGame (or TurnTimer.concede_after) for a ruleset without conceding
    GAME_NOT_FINISHED = "GAME_NOT_FINISHED"  # RematchGame before the game is over
    PLAYER_ALREADY_SEATED = "PLAYER_ALREADY_SEATED"  # a signed-in player joins a game it holds a seat of
    SESSIONS_DISABLED = "SESSIONS_DISABLED"  # CreatePlayerSession/RefreshPlayerSession without TABLETOP_SESSION_KEY_FILE (or API keys)
    GUEST_SESSIONS_DISABLED = "GUEST_SESSIONS_DISABLED"  # CreateGuestSession without TABLETOP_GUEST_SESSIONS
    # ABORTED: lost races; retry.
    CONFLICT = "CONFLICT"  # too many concurrent writers to one game
    ID_COLLISION = "ID_COLLISION"  # no free game id found (practically never)
    # RESOURCE_EXHAUSTED: limits.
    REQUEST_TOO_LARGE = "REQUEST_TOO_LARGE"  # over TABLETOP_MAX_REQUEST_BYTES
    RATE_LIMITED = "RATE_LIMITED"  # over a per-token or per-address rate; RetryInfo says when
    TOO_MANY_WATCH_STREAMS = "TOO_MANY_WATCH_STREAMS"  # the replica's cap of watch streams or of watched games
    TOO_MANY_WATCHES_PER_TOKEN = "TOO_MANY_WATCHES_PER_TOKEN"  # this player token holds its share of a replica's watch streams
    TOO_MANY_WATCHES_PER_ADDRESS = "TOO_MANY_WATCHES_PER_ADDRESS"  # this client address holds its share of a replica's watch streams
    CREATE_RATE_LIMITED = "CREATE_RATE_LIMITED"  # over the games-per-minute of an address or API key
    TOO_MANY_OPEN_GAMES = "TOO_MANY_OPEN_GAMES"  # the creator has its limit of waiting/active games
    # UNAVAILABLE: retry, possibly on another replica.
    STORE_UNAVAILABLE = "STORE_UNAVAILABLE"  # Redis is unreachable
    STORE_AUTH_FAILED = "STORE_AUTH_FAILED"  # Redis refused the credentials (WRONGPASS, NOAUTH): fix the URL
    STORE_READ_ONLY = "STORE_READ_ONLY"  # reached a replica (READONLY), e.g. during a failover
    STORE_LOADING = "STORE_LOADING"  # Redis is loading its data set after a restart (LOADING)
    STORE_MASTER_DOWN = "STORE_MASTER_DOWN"  # a replica that lost its primary (MASTERDOWN)
    REPLICATION_TIMEOUT = "REPLICATION_TIMEOUT"  # written on the primary, too few replicas acknowledged: retry with the same request_id; a call without one may have made its change, so check before repeating it
    SHUTTING_DOWN = "SHUTTING_DOWN"  # this replica is draining
    JWKS_UNAVAILABLE = "JWKS_UNAVAILABLE"  # an issuer's JWKS URL cannot be fetched and no copy is cached
    # INTERNAL.
    INTERNAL = "INTERNAL"  # a bug; logged with its traceback
log = logging.getLogger("tabletop.errors")
MAX_MESSAGE_BYTES = 512  # an error message, in UTF-8 (gRPC percent-encodes it into a 16 KiB trailer)
MAX_DETAIL_BYTES = 128  # one ErrorInfo metadata value or BadRequest field path


def bounded(text: object, limit: int = MAX_DETAIL_BYTES) -> str:
    """``text`` cut to ``limit`` UTF-8 bytes, marked when cut.

    The one helper for every value an error echoes back: a 60 KB field echoed whole
    overflows gRPC's trailer limit, and the client then sees RESOURCE_EXHAUSTED (from
    its own transport) for a request that can never succeed. Every status leaves through
    ``build_status``, which bounds message and details with it.
    """
    value = str(text)
    raw = value.encode()
    if len(raw) <= limit:
        return value
    marker = f"...(+{len(raw) - limit} bytes)"
    return raw[:max(0, limit - len(marker))].decode(errors="ignore") + marker


class ServiceError(Exception):
    """An error of the service itself (not of a game's rules)."""

    code = grpc.StatusCode.INTERNAL

    def __init__(self, reason: str, message: str, **details: object) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message
        self.details = {k: str(v) for k, v in details.items()}


class InvalidArgument(ServiceError):
    code = grpc.StatusCode.INVALID_ARGUMENT

    def __init__(self, reason: str, message: str, field: str = "", **details: object) -> None:
        super().__init__(reason, message, **details)
        self.field = field


class OutOfRange(ServiceError):
    code = grpc.StatusCode.OUT_OF_RANGE


class NotFound(ServiceError):
    code = grpc.StatusCode.NOT_FOUND


class Unauthenticated(ServiceError):
    code = grpc.StatusCode.UNAUTHENTICATED


class PermissionDenied(ServiceError):
    code = grpc.StatusCode.PERMISSION_DENIED


class FailedPrecondition(ServiceError):
    code = grpc.StatusCode.FAILED_PRECONDITION


class StaleVersion(FailedPrecondition):
    """The expected version is not the current one; the current version is in the details."""

    def __init__(self, current: int, expected: int) -> None:
        super().__init__(ServiceReason.STALE_VERSION,
                         f"The game is at version {current}, not {expected}: reload it and decide again.",
                         current_version=current, expected_version=expected)
        self.current = current


class Aborted(ServiceError):
    code = grpc.StatusCode.ABORTED


class ResourceExhausted(ServiceError):
    code = grpc.StatusCode.RESOURCE_EXHAUSTED


class RateLimited(ResourceExhausted):
    """Too many requests from one token or address; ``retry_after`` seconds go in a RetryInfo."""

    def __init__(self, scope: str, retry_after: float, limit: float) -> None:
        super().__init__(ServiceReason.RATE_LIMITED, f"Too many requests for this {scope}; retry after {retry_after:.2f}s.",
                         scope=scope, limit_per_second=limit)
        self.retry_after = retry_after


class Unavailable(ServiceError):
    code = grpc.StatusCode.UNAVAILABLE


# The one mapping table: exception class -> gRPC code (most specific first).
CODES: tuple[tuple[type[BaseException], grpc.StatusCode], ...] = (
    (MalformedAction, grpc.StatusCode.INVALID_ARGUMENT),
    (RuleError, grpc.StatusCode.FAILED_PRECONDITION),
    (redis.exceptions.ConnectionError, grpc.StatusCode.UNAVAILABLE),
    (redis.exceptions.TimeoutError, grpc.StatusCode.UNAVAILABLE),
    (redis.exceptions.ClusterDownError, grpc.StatusCode.UNAVAILABLE),
    (redis.exceptions.ReadOnlyError, grpc.StatusCode.UNAVAILABLE),
    (ReplicasBehind, grpc.StatusCode.UNAVAILABLE),
)

# Store errors (all UNAVAILABLE): class -> (reason, message for the client), most specific first.
STORE_REASONS: tuple[tuple[type[BaseException], ServiceReason, str], ...] = (
    (redis.exceptions.AuthenticationError, ServiceReason.STORE_AUTH_FAILED,
     "The game store refused this server's credentials; retry shortly."),
    (redis.exceptions.ReadOnlyError, ServiceReason.STORE_READ_ONLY,
     "The game store is failing over to a new primary; retry shortly."),
    (redis.exceptions.BusyLoadingError, ServiceReason.STORE_LOADING,
     "The game store is loading its data; retry shortly."),
    (MasterDownError, ServiceReason.STORE_MASTER_DOWN,
     "The game store has lost its primary; retry shortly."),
    (ReplicasBehind, ServiceReason.REPLICATION_TIMEOUT,
     ("The change was written but not yet copied to enough replicas. Retry a call that has a request_id with "
     "the same one to confirm it; a call without one may have made its change, so "
     "check before repeating it.")),
    (BaseException, ServiceReason.STORE_UNAVAILABLE, "The game store is unreachable; retry shortly."),
)


def to_status(exc: BaseException) -> status_pb2.Status:
    """The rich status for any exception a handler raised."""
    if isinstance(exc, ServiceError):
        code, reason, message, details = exc.code, exc.reason, exc.message, exc.details
    elif isinstance(exc, RuleError):
        code = next(c for cls, c in CODES if isinstance(exc, cls))
        reason, message, details = exc.reason, exc.message, exc.details
    elif any(isinstance(exc, cls) for cls, _ in CODES):
        code = next(c for cls, c in CODES if isinstance(exc, cls))
        reason, message = next((r, m) for cls, r, m in STORE_REASONS if isinstance(exc, cls))
        details = {}
        log.warning("game store unavailable: %s: %s", reason, exc)  # the one line an operator needs
    else:
        log.exception("unexpected error", exc_info=exc)
        code, reason, message, details = (grpc.StatusCode.INTERNAL, ServiceReason.INTERNAL,
                                           "An unexpected error occurred; it has been logged.", {})
    return build_status(code, reason, message, details, _extra_details(exc))


def build_status(code: grpc.StatusCode, reason: str, message: str, metadata: Mapping[str, str],
                 extra: list[any_pb2.Any] | None = None) -> status_pb2.Status:
    """A ``google.rpc.Status`` with exactly one ErrorInfo followed by ``extra`` details."""
    info = any_pb2.Any()
    info.Pack(error_details_pb2.ErrorInfo(reason=reason, domain=DOMAIN,
                                          metadata={k: bounded(v) for k, v in metadata.items()}))
    return status_pb2.Status(code=getattr(code_pb2, code.name), message=bounded(message, MAX_MESSAGE_BYTES),
                             details=[info, *(extra or [])])


# Helpers

def _extra_details(exc: BaseException) -> list[any_pb2.Any]:
    extra = any_pb2.Any()
    if isinstance(exc, RateLimited):
        delay = duration_pb2.Duration()
        delay.FromTimedelta(datetime.timedelta(seconds=exc.retry_after))
        extra.Pack(error_details_pb2.RetryInfo(retry_delay=delay))
        return [extra]
    if isinstance(exc, StaleVersion):
        extra.Pack(error_details_pb2.PreconditionFailure(violations=[
            error_details_pb2.PreconditionFailure.Violation(
                type="VERSION", subject="version", description=str(exc.current))]))
        return [extra]
    field = getattr(exc, "field", "")
    if field:
        extra.Pack(error_details_pb2.BadRequest(field_violations=[
            error_details_pb2.BadRequest.FieldViolation(
                field=bounded(field), description=bounded(getattr(exc, "message", exc), MAX_MESSAGE_BYTES))]))
        return [extra]
    return []
