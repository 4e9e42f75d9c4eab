"""Small helpers shared by the service, REST and client tests."""

from __future__ import annotations

import grpc
from google.rpc import error_details_pb2
from grpc_status import rpc_status


def bearer(token: str) -> list[tuple[str, str]]:
    """gRPC metadata carrying a player token."""
    return [("authorization", f"Bearer {token}")]


def error_info(err: grpc.RpcError) -> error_details_pb2.ErrorInfo:
    """The one ErrorInfo of a rich gRPC error (fails the test if there is not exactly one)."""
    status = rpc_status.from_call(err)  # type: ignore[arg-type]
    assert status is not None, f"no rich status on {err}"
    infos = [d for d in status.details if d.Is(error_details_pb2.ErrorInfo.DESCRIPTOR)]
    assert len(infos) == 1, status
    info = error_details_pb2.ErrorInfo()
    infos[0].Unpack(info)
    return info
