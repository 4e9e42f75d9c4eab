"""Server interceptors (grpc.aio): the cross-cutting work every RPC shares (DESIGN 11).

They wrap each GameService method's behaviour once, when the server is built
(``server.py`` registers the wrapped handlers), instead of being consulted by gRPC on
every call: the same layers without a chain of interceptor coroutines per call.

``ErrorInterceptor`` decodes requests itself (so garbage bytes, unknown fields and
oversized bodies become INVALID_ARGUMENT / RESOURCE_EXHAUSTED with an ErrorInfo
instead of gRPC's bare INTERNAL) and turns any exception a handler raises into the
rich status of ``errors.to_status`` (the one mapping table), unary and streaming alike.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import grpc
from google.protobuf.message import DecodeError, Message
from google.protobuf.unknown_fields import UnknownFieldSet
from grpc_status import rpc_status

from tabletop_server.service.api import wide
from tabletop_server.service.api.errors import InvalidArgument, ResourceExhausted, ServiceReason, to_status

Context = grpc.aio.ServicerContext[Any, Any]
Behaviour = Callable[[Any, Context], Any]  # a coroutine or an async generator


class MethodInterceptor:
    """The one mechanism every interceptor here uses: wrap each GameService method's behaviour.

    Subclasses override ``unary`` / ``stream`` (or ``wrap`` to change the codecs).
    """

    def wrap(self, method: str, handler: Any) -> Any:
        """The handler with its behaviour wrapped, codecs unchanged."""
        if handler.unary_unary:
            return grpc.unary_unary_rpc_method_handler(
                self.unary(method, handler.unary_unary), handler.request_deserializer, handler.response_serializer)
        return grpc.unary_stream_rpc_method_handler(
            self.stream(method, handler.unary_stream), handler.request_deserializer, handler.response_serializer)

    def unary(self, method: str, fn: Behaviour) -> Behaviour:
        """Wrap a unary behaviour (identity by default)."""
        return fn

    def stream(self, method: str, fn: Behaviour) -> Behaviour:
        """Wrap a server-streaming behaviour (identity by default)."""
        return fn


class ErrorInterceptor(MethodInterceptor):
    """Decodes requests strictly and maps exceptions to ``google.rpc.Status``."""

    def __init__(self, max_request_bytes: int) -> None:
        super().__init__()
        self.max_request_bytes = max_request_bytes

    def wrap(self, method: str, handler: Any) -> Any:
        decode = _decoder(handler.request_deserializer, self.max_request_bytes)
        encode = _encoder(handler.response_serializer)
        if handler.unary_unary:
            return grpc.unary_unary_rpc_method_handler(_unary(handler.unary_unary, decode), None, encode)
        return grpc.unary_stream_rpc_method_handler(_stream(handler.unary_stream, decode), None, encode)


# Helpers

def _decoder(parse: Callable[[bytes], Message], limit: int) -> Callable[[bytes], Message]:
    def decode(raw: bytes) -> Message:
        if len(raw) > limit:
            raise ResourceExhausted(ServiceReason.REQUEST_TOO_LARGE, f"Requests are limited to {limit} bytes.",
                                    limit=limit, size=len(raw))
        try:
            message = parse(raw)
        except (DecodeError, ValueError, RuntimeError) as exc:
            raise InvalidArgument(ServiceReason.MALFORMED_REQUEST, f"The request is not a valid protobuf message: {exc}") from exc
        size = message.ByteSize()
        message.DiscardUnknownFields()  # two C passes tell whether any unknown field came in
        path = _unknown_field(parse(raw), "") if message.ByteSize() != size else None
        if path is not None:
            raise InvalidArgument(ServiceReason.UNKNOWN_FIELD, f"The request has a field this server does not know at "
                                  f"'{path or '(top level)'}'; update the server or drop the field.", field=path)
        wide.check(message, raw)  # a 32-bit field sent wider: refused, never cut to its low bits
        return message
    return decode


def _encoder(serialize: Callable[[Any], bytes]) -> Callable[[Any], bytes]:
    """Responses a handler already serialized (remembered for idempotent retries) go out as they are."""
    def encode(response: Any) -> bytes:
        return response if isinstance(response, bytes) else serialize(response)
    return encode


def _unknown_field(message: Message, path: str) -> str | None:
    """The path of the first message holding unknown fields, or None."""
    if len(UnknownFieldSet(message)):
        return path
    for field, value in message.ListFields():
        if field.message_type is None or field.message_type.GetOptions().map_entry:
            continue
        items = value if field.is_repeated else [value]
        for i, item in enumerate(items):
            found = _unknown_field(item, f"{path}.{field.name}".lstrip(".") + (f"[{i}]" if field.is_repeated else ""))
            if found is not None:
                return found
    return None


async def _abort(context: Context, exc: BaseException) -> None:
    await context.abort_with_status(rpc_status.to_status(to_status(exc)))


def _passthrough(exc: BaseException) -> bool:
    """Aborts already carry their status (context.abort raises AbortError)."""
    return isinstance(exc, (grpc.RpcError, grpc.aio.AbortError))


_UNREAD = object()


class _MetadataOnce:
    """A unary call's context whose ``invocation_metadata`` is read from gRPC once.

    grpc.aio builds the metadata's tuples afresh on every call of it (about 1 us), and a
    SubmitAction's layers read it five times (telemetry, identity, limits, field rules, the
    servicer). Everything else is the call's own context's.
    """

    __slots__ = ("_metadata", "context")

    def __init__(self, context: Context) -> None:
        self.context = context
        self._metadata: Any = _UNREAD

    def invocation_metadata(self) -> Any:
        if self._metadata is _UNREAD:
            self._metadata = self.context.invocation_metadata()
        return self._metadata

    def __getattr__(self, name: str) -> Any:
        return getattr(self.context, name)


def _unary(fn: Behaviour, decode: Callable[[bytes], Message]) -> Behaviour:
    async def wrapper(raw: bytes, context: Context) -> Any:
        try:
            return await fn(decode(raw), _MetadataOnce(context))  # type: ignore[arg-type]
        except Exception as exc:
            if _passthrough(exc):
                raise
            await _abort(context, exc)
    return wrapper


def _stream(fn: Behaviour, decode: Callable[[bytes], Message]) -> Behaviour:
    async def wrapper(raw: bytes, context: Context) -> AsyncIterator[Any]:
        try:
            async for response in fn(decode(raw), context):
                yield response
        except Exception as exc:
            if _passthrough(exc):
                raise
            await _abort(context, exc)
    return wrapper
