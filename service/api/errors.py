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

import grpc
import redis.exceptions
from google.protobuf import any_pb2, duration_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2

from service.engine.errors import MalformedAction, RuleError

DOMAIN = "tabletop.dev"
log = logging.getLogger("tabletop.errors")


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
        super().__init__("STALE_VERSION",
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
        super().__init__("RATE_LIMITED", f"Too many requests for this {scope}; retry after {retry_after:.2f}s.",
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
        reason, message, details = "STORE_UNAVAILABLE", "The game store is unreachable; retry shortly.", {}
    else:
        log.exception("unexpected error", exc_info=exc)
        code, reason, message, details = (grpc.StatusCode.INTERNAL, "INTERNAL",
                                           "An unexpected error occurred; it has been logged.", {})
    return build_status(code, reason, message, details, _extra_details(exc))


def build_status(code: grpc.StatusCode, reason: str, message: str, metadata: Mapping[str, str],
                 extra: list[any_pb2.Any] | None = None) -> status_pb2.Status:
    """A ``google.rpc.Status`` with exactly one ErrorInfo followed by ``extra`` details."""
    info = any_pb2.Any()
    info.Pack(error_details_pb2.ErrorInfo(reason=reason, domain=DOMAIN, metadata=dict(metadata)))
    return status_pb2.Status(code=getattr(code_pb2, code.name), message=message,
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
            error_details_pb2.BadRequest.FieldViolation(field=field, description=str(getattr(exc, "message")))]))
        return [extra]
    return []
