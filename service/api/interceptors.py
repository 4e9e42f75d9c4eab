"""Server interceptors: the cross-cutting work every RPC shares (DESIGN 11).

``ErrorInterceptor`` turns any exception a handler raises into the rich status of
``errors.to_status`` (the one mapping table), for unary and streaming methods alike.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import grpc
from grpc_status import rpc_status

from service.api.errors import to_status


class ErrorInterceptor(grpc.ServerInterceptor):
    """Maps exceptions to ``google.rpc.Status`` with one ErrorInfo."""

    def intercept_service(self, continuation: Callable[[Any], Any], handler_call_details: Any) -> Any:
        handler = continuation(handler_call_details)
        if handler is None:
            return None
        if handler.unary_unary:
            return grpc.unary_unary_rpc_method_handler(
                _unary(handler.unary_unary), handler.request_deserializer, handler.response_serializer)
        if handler.unary_stream:
            return grpc.unary_stream_rpc_method_handler(
                _stream(handler.unary_stream), handler.request_deserializer, handler.response_serializer)
        return handler


# Helpers

def _abort(context: grpc.ServicerContext, exc: BaseException) -> None:
    context.abort_with_status(rpc_status.to_status(to_status(exc)))


def _unary(fn: Callable[[Any, grpc.ServicerContext], Any]) -> Callable[[Any, grpc.ServicerContext], Any]:
    def wrapper(request: Any, context: grpc.ServicerContext) -> Any:
        try:
            return fn(request, context)
        except Exception as exc:  # noqa: BLE001 - every error leaves through the mapping table
            if isinstance(exc, grpc.RpcError) or type(exc).__name__ == "_AbortError":
                raise
            _abort(context, exc)
    return wrapper


def _stream(fn: Callable[[Any, grpc.ServicerContext], Iterator[Any]]) -> Callable[[Any, grpc.ServicerContext], Any]:
    def wrapper(request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
        try:
            yield from fn(request, context)
        except Exception as exc:  # noqa: BLE001
            if isinstance(exc, grpc.RpcError) or type(exc).__name__ == "_AbortError":
                raise
            _abort(context, exc)
    return wrapper
