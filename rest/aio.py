"""Adapters between ``grpc.aio`` and the facade's synchronous error mapping.

``rest.errors.from_rpc_error`` reads a ``grpc.Call`` (code, details, trailing metadata
with the rich status); an ``AioRpcError`` carries the same facts but is not a
``grpc.Call``, so ``rpc_error`` wraps it in one.
"""

from __future__ import annotations

from typing import Any

import grpc


class FinishedCall(grpc.RpcError, grpc.Call):
    """A call that ended with an error status, as ``rest.errors.from_rpc_error`` reads one: subclasses
    give ``code``, ``details`` and the metadata; nothing is left to cancel or to wait for."""

    def details(self) -> str:
        raise NotImplementedError

    def trailing_metadata(self) -> Any:
        raise NotImplementedError

    def is_active(self) -> bool:
        return False

    def time_remaining(self) -> float:
        return 0.0

    def cancel(self) -> bool:
        return False

    def add_callback(self, callback: Any) -> bool:
        return False


class _AioCallError(FinishedCall):
    """An ``AioRpcError`` seen as a finished synchronous call."""

    def __init__(self, error: Any) -> None:
        self._error = error

    def code(self) -> grpc.StatusCode:
        return self._error.code()  # type: ignore[no-any-return]

    def details(self) -> str:
        return str(self._error.details() or "")

    def initial_metadata(self) -> Any:
        return self._error.initial_metadata()

    def trailing_metadata(self) -> Any:
        return self._error.trailing_metadata()


def rpc_error(error: grpc.RpcError) -> grpc.RpcError:
    """``error`` as a ``grpc.Call`` when it is an ``AioRpcError``; otherwise unchanged."""
    return _AioCallError(error) if isinstance(error, grpc.aio.AioRpcError) else error
