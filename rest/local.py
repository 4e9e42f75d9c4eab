"""``tabletop serve``'s facade calls the service's own handlers in process, not over loopback gRPC.

Why: in ``serve`` the REST facade and the gRPC service share one process and one event loop.
Over a loopback channel every REST request also paid a gRPC client call and a gRPC server
call on that loop (HTTP/2 framing both ways, grpc.aio's call objects, the poller thread):
profiled at concurrency 16, REST cost 1.3 ms of server CPU per ``:act`` against 0.6 ms for
the same action over gRPC (``bench/run.py``; ``docs/http.md`` has the profile).

A local call runs exactly the handler grpc.aio would run for the method: the one
``server._GenericOnly`` built with every interceptor layer wrapped around the servicer
(strict decoding, errors, telemetry and metrics, limits, auth rules). The request goes in
as its protobuf bytes and the response comes back as bytes, as on the wire; the context
carries the same metadata the facade would send (forwarded headers, ``x-forwarded-for``,
the facade's proxy secret) and a loopback peer. So the rules, auth, errors, limits and
metrics stay in the service, and an abort reaches the facade as a ``grpc.Call`` with the
same code, message and rich status that ``rest.errors.from_rpc_error`` reads.

Only unary methods are local. ``unary_stream`` (``:watch``) and ``close`` go to the real
channel given as ``remote``; a method without a local handler also goes there.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any

import grpc

from tabletop_server.rest.aio import FinishedCall

Metadata = Sequence[tuple[str, str]]
PEER = "ipv4:127.0.0.1:0"  # the facade in the same process: what a loopback channel's peer would be


class LocalAbort(FinishedCall):
    """A local call that ended with a status other than OK, seen as a finished ``grpc.Call``."""

    def __init__(self, code: grpc.StatusCode, details: str, trailing_metadata: Metadata = ()) -> None:
        super().__init__(details)
        self._code, self._details, self._trailing = code, details, tuple(trailing_metadata)

    def code(self) -> grpc.StatusCode:
        return self._code

    def details(self) -> str:
        return self._details

    def initial_metadata(self) -> Any:
        return ()

    def trailing_metadata(self) -> Any:
        return self._trailing


class LocalContext:
    """The part of ``grpc.aio.ServicerContext`` the service's unary layers use; nothing else exists,
    so a layer that starts to use more fails the local tests instead of being answered wrongly."""

    def __init__(self, metadata: Metadata) -> None:
        self._metadata = tuple(metadata)

    def invocation_metadata(self) -> Metadata:
        return self._metadata

    def peer(self) -> str:
        return PEER

    async def abort(self, code: grpc.StatusCode, details: str = "", trailing_metadata: Metadata = ()) -> None:
        raise LocalAbort(code, details, trailing_metadata)

    async def abort_with_status(self, status: Any) -> None:
        raise LocalAbort(status.code, status.details, status.trailing_metadata)


class LocalChannel:
    """A ``grpc.aio`` channel's ``unary_unary`` served by ``handlers`` ({"/pkg.Service/Method": handler})."""

    def __init__(self, handlers: dict[str, Any], remote: Any) -> None:
        self.handlers = handlers
        self.remote = remote

    def unary_unary(self, method: str, request_serializer: Callable[[Any], bytes],
                    response_deserializer: Callable[[bytes], Any]) -> Any:
        handler = self.handlers.get(method)
        if handler is None or handler.unary_unary is None:
            return self.remote.unary_unary(method, request_serializer=request_serializer,
                                           response_deserializer=response_deserializer)
        behaviour, encode = handler.unary_unary, handler.response_serializer

        async def call(request: Any, timeout: float | None = None, metadata: Metadata = ()) -> Any:
            context = LocalContext(metadata)
            try:
                async with asyncio.timeout(timeout):
                    result = await behaviour(request_serializer(request), context)
            except TimeoutError:
                raise LocalAbort(grpc.StatusCode.DEADLINE_EXCEEDED, "Deadline Exceeded") from None
            return response_deserializer(encode(result) if encode is not None else result)
        return call

    def unary_stream(self, method: str, request_serializer: Callable[[Any], bytes],
                     response_deserializer: Callable[[bytes], Any]) -> Any:
        return self.remote.unary_stream(method, request_serializer=request_serializer,
                                        response_deserializer=response_deserializer)

    async def close(self, grace: float | None = None) -> None:
        await self.remote.close(grace)
