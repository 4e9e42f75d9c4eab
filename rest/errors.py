"""The REST error shape and the one generic gRPC-code -> HTTP-status table.

Every error leaves the facade as ``{"error": {"code", "status", "message", "reason",
"details"}}`` (the google.rpc.Status JSON of grpc-gateway and Google APIs, plus the
ErrorInfo reason lifted to the top for convenience). The gRPC service is the single
home of rules and errors; this module only maps its status codes to HTTP statuses
generically (DESIGN 9: never a second per-exception table). Errors the facade raises
itself (malformed JSON, unknown fields, oversized bodies, unknown routes) use the same
shape and carry a ``google.rpc.ErrorInfo`` too, so clients handle one format.
"""

from __future__ import annotations

import base64
import json
import math
from collections.abc import Iterable, Mapping
from enum import StrEnum
from typing import Any

import grpc
from google.protobuf import json_format
from google.protobuf.any_pb2 import Any as AnyPb
from google.protobuf.message import Message
from google.rpc import error_details_pb2, status_pb2  # error_details registers the detail types
from grpc_status import rpc_status

from tabletop_server.service.api.errors import MAX_MESSAGE_BYTES, bounded  # the one bound on echoed input

DOMAIN = "tabletop.dev"


class Reason(StrEnum):
    """The ErrorInfo reasons of errors the facade raises itself (the service has its own)."""

    MALFORMED_JSON = "MALFORMED_JSON"
    MALFORMED_PROTOBUF = "MALFORMED_PROTOBUF"  # a Connect or gRPC-Web body that is not the request message's binary
    UNSUPPORTED_PROTOCOL = "UNSUPPORTED_PROTOCOL"  # native gRPC sent to the HTTP port: it is served on the gRPC port
    UNKNOWN_FIELD = "UNKNOWN_FIELD"
    INVALID_FIELD = "INVALID_FIELD"
    CONFLICTING_FIELD = "CONFLICTING_FIELD"
    DUPLICATE_FIELD = "DUPLICATE_FIELD"  # one field under both its JSON and its proto name
    UNKNOWN_QUERY_PARAMETER = "UNKNOWN_QUERY_PARAMETER"
    INVALID_HEADER = "INVALID_HEADER"
    UNSUPPORTED_HEADER = "UNSUPPORTED_HEADER"
    UNEXPECTED_BODY = "UNEXPECTED_BODY"
    ROUTE_NOT_FOUND = "ROUTE_NOT_FOUND"
    METHOD_NOT_ALLOWED = "METHOD_NOT_ALLOWED"
    BODY_TOO_LARGE = "BODY_TOO_LARGE"
    UNSUPPORTED_MEDIA_TYPE = "UNSUPPORTED_MEDIA_TYPE"
    TOO_MANY_WATCH_STREAMS = "TOO_MANY_WATCH_STREAMS"  # this server holds as many SSE watches as it may
    TOO_MANY_WATCHES_PER_TOKEN = "TOO_MANY_WATCHES_PER_TOKEN"  # this player token holds its cap of SSE watches
    TOO_MANY_WATCHES_PER_ADDRESS = "TOO_MANY_WATCHES_PER_ADDRESS"  # this client address holds its cap of SSE watches
    TOO_MANY_CONNECTIONS = "TOO_MANY_CONNECTIONS"  # the HTTP server holds its cap of open connections
    REQUEST_TIMEOUT = "REQUEST_TIMEOUT"  # the request's headers did not arrive within the header timeout
    MALFORMED_HTTP = "MALFORMED_HTTP"  # not valid HTTP/1.1: the request line, a header or the framing (400)
    URI_TOO_LONG = "URI_TOO_LONG"  # the request line is over the head bound, 32 KiB (414)
    HEADERS_TOO_LARGE = "HEADERS_TOO_LARGE"  # the headers are over 32 KiB or 100 lines (431)
    CORS_ORIGIN_NOT_ALLOWED = "CORS_ORIGIN_NOT_ALLOWED"  # a CORS preflight from an origin not in TABLETOP_CORS_ORIGINS (403)
    NOT_SERVING = "NOT_SERVING"
    INTERNAL = "INTERNAL"


# The generic table, as grpc-gateway's HTTPStatusFromCode (runtime/errors.go).
# FAILED_PRECONDITION is 409 ("illegal in this state"). HTTP has two statuses no gRPC
# code has, each the meaning of one of this API's headers, so REASON_STATUS refines two
# reasons and no others: STALE_VERSION -> 412 (a failed If-Match, RFC 9110 13.1.1) and
# IDEMPOTENCY_KEY_REUSED -> 422 (an Idempotency-Key reused with another request, as the
# IETF httpapi idempotency-key-header draft, section 2.7, specifies).
HTTP_STATUS: dict[grpc.StatusCode, int] = {
    grpc.StatusCode.OK: 200,
    grpc.StatusCode.CANCELLED: 499,
    grpc.StatusCode.UNKNOWN: 500,
    grpc.StatusCode.INVALID_ARGUMENT: 400,
    grpc.StatusCode.DEADLINE_EXCEEDED: 504,
    grpc.StatusCode.NOT_FOUND: 404,
    grpc.StatusCode.ALREADY_EXISTS: 409,
    grpc.StatusCode.PERMISSION_DENIED: 403,
    grpc.StatusCode.RESOURCE_EXHAUSTED: 429,
    grpc.StatusCode.FAILED_PRECONDITION: 409,
    grpc.StatusCode.ABORTED: 409,
    grpc.StatusCode.OUT_OF_RANGE: 400,
    grpc.StatusCode.UNIMPLEMENTED: 501,
    grpc.StatusCode.INTERNAL: 500,
    grpc.StatusCode.UNAVAILABLE: 503,
    grpc.StatusCode.DATA_LOSS: 500,
    grpc.StatusCode.UNAUTHENTICATED: 401,
}
REASON_STATUS: dict[str, int] = {"STALE_VERSION": 412, "IDEMPOTENCY_KEY_REUSED": 422}
CODE_BY_NUMBER: dict[int, grpc.StatusCode] = {code.value[0]: code for code in grpc.StatusCode}
DEFAULT_RETRY_AFTER_SECONDS = 1


class ApiError(Exception):
    """An error response: HTTP status, gRPC status name, message, reason, details."""

    def __init__(
        self,
        http_status: int,
        code: grpc.StatusCode,
        message: str,
        reason: str = "",
        details: Iterable[Message] = (),
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.http_status = http_status
        self.code = code
        self.message = message
        self.reason = reason
        self.details = list(details)
        self.headers = dict(headers or {})

    def body(self) -> bytes:
        """The JSON error document."""
        error = {
            "code": self.http_status,
            "status": self.code.name,
            "message": self.message,
            "reason": self.reason,
            "details": [_detail_json(detail) for detail in self.details],
        }
        return json.dumps({"error": error}, separators=(",", ":")).encode()


def local_error(
    http_status: int,
    code: grpc.StatusCode,
    reason: str,
    message: str,
    field: str | None = None,
    **metadata: str,
) -> ApiError:
    """An error the facade raises itself, with an ErrorInfo (and a BadRequest for ``field``)."""
    message = bounded(message, MAX_MESSAGE_BYTES)
    metadata = {key: bounded(value) for key, value in metadata.items()}
    details: list[Message] = [error_details_pb2.ErrorInfo(reason=reason, domain=DOMAIN, metadata=metadata)]
    if field is not None:
        violation = error_details_pb2.BadRequest.FieldViolation(field=bounded(field), description=message)
        details.append(error_details_pb2.BadRequest(field_violations=[violation]))
    return ApiError(http_status, code, message, reason, details)


def bad_request(reason: str, message: str, field: str | None = None) -> ApiError:
    """A 400 INVALID_ARGUMENT raised by the facade."""
    return local_error(400, grpc.StatusCode.INVALID_ARGUMENT, reason, message, field)


def from_rpc_error(error: grpc.RpcError) -> ApiError:
    """Map a failed gRPC call to the REST error: generic status, reason, every detail."""
    code = error.code() if isinstance(error, grpc.Call) else grpc.StatusCode.UNKNOWN
    message = error.details() if isinstance(error, grpc.Call) else str(error)
    status = _rich_status(error)
    details: list[AnyPb] = list(status.details) if status is not None else []
    if status is not None:
        message = status.message or message
    reason, retry_after = "", None
    unpacked = [_unpack(detail) for detail in details]
    for detail in unpacked:
        if isinstance(detail, error_details_pb2.ErrorInfo) and not reason:
            reason = detail.reason
        if isinstance(detail, error_details_pb2.RetryInfo):
            delay = detail.retry_delay
            retry_after = max(1, math.ceil(delay.seconds + delay.nanos / 1e9))
    if not reason:
        # No rich status (a transport error such as an unreachable service or a missed
        # deadline): name the code as the reason, so every REST error carries an ErrorInfo.
        reason = code.name
        unpacked.insert(
            0, error_details_pb2.ErrorInfo(reason=reason, domain=DOMAIN, metadata={"origin": "transport"})
        )
    http_status = REASON_STATUS.get(reason) or HTTP_STATUS.get(code, 500)
    headers = {}
    if code == grpc.StatusCode.RESOURCE_EXHAUSTED:
        headers["Retry-After"] = str(retry_after or DEFAULT_RETRY_AFTER_SECONDS)
    return ApiError(http_status, code, message or code.name, reason, unpacked, headers)


# Helpers


def _rich_status(error: grpc.RpcError) -> status_pb2.Status | None:
    if not isinstance(error, grpc.Call):
        return None
    try:
        return rpc_status.from_call(error)
    except ValueError:  # the status details disagree with the call's code/message
        return None


def _unpack(detail: AnyPb) -> Message:
    """The detail as its own message type when known (it then prints with ``@type``)."""
    for cls in _DETAIL_CLASSES:
        if detail.Is(cls.DESCRIPTOR):  # type: ignore[arg-type]
            message = cls()
            detail.Unpack(message)
            return message
    return detail


def _detail_json(detail: Message) -> dict[str, Any]:
    if isinstance(detail, AnyPb):
        try:
            return json_format.MessageToDict(detail)
        except (TypeError, KeyError, json_format.Error):  # type not in the descriptor pool
            return {"@type": detail.type_url, "value": base64.b64encode(detail.value).decode()}
    wrapper = AnyPb()
    wrapper.Pack(detail)
    return json_format.MessageToDict(wrapper)


_DETAIL_CLASSES: tuple[type[Message], ...] = (
    error_details_pb2.ErrorInfo,
    error_details_pb2.RetryInfo,
    error_details_pb2.BadRequest,
    error_details_pb2.PreconditionFailure,
    error_details_pb2.QuotaFailure,
    error_details_pb2.ResourceInfo,
    error_details_pb2.DebugInfo,
    error_details_pb2.Help,
    error_details_pb2.LocalizedMessage,
    error_details_pb2.RequestInfo,
)
