"""``rest.local``: ``tabletop serve``'s facade calls the service's handlers in process.

The in-process route must answer exactly what the same call over gRPC answers: the same
response bytes, and for a refusal the same code, message and rich status (ErrorInfo reason);
the service's layers (metrics, auth) still run. The whole REST suite also runs through it
(the ``in-process`` parameter of the ``rest_server`` fixture).
"""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2, status_pb2
from tabletop.v1 import game_pb2
from tabletop.v1 import game_service_pb2 as svc

from tabletop_server.rest.local import LocalAbort, LocalChannel

SERVICE = "/tabletop.v1.GameService/"


def _channels(running: Any, target: str) -> tuple[LocalChannel, Any]:
    async def make() -> tuple[LocalChannel, Any]:
        return LocalChannel(running.handlers, grpc.aio.insecure_channel(target)), grpc.aio.insecure_channel(target)
    return running.call(make())


def _method(channel: Any, name: str, request_class: Any, response_class: Any) -> Any:
    return channel.unary_unary(SERVICE + name, request_serializer=request_class.SerializeToString,
                               response_deserializer=response_class.FromString)


def _outcome(running: Any, rpc: Any, request: Any, metadata: list[tuple[str, str]]) -> tuple[Any, ...]:
    """(response bytes,) or (code, message, ErrorInfo reason) of one call, run on the server's loop."""
    async def go() -> tuple[Any, ...]:
        try:
            return (( await rpc(request, timeout=10, metadata=metadata)).SerializeToString(),)
        except grpc.RpcError as error:
            call: Any = error
            raw = dict(call.trailing_metadata() or ()).get("grpc-status-details-bin", b"")
            status = status_pb2.Status.FromString(raw)
            info = error_details_pb2.ErrorInfo()
            status.details[0].Unpack(info)
            return call.code(), call.details(), info.reason
    return running.call(go())


def test_local_calls_answer_what_grpc_answers(grpc_server: Any) -> None:
    running = grpc_server.running
    local, remote = _channels(running, grpc_server.target)
    try:
        create = svc.CreateGameRequest(ruleset="ttr-europe", seat_count=2, display_names=["a", "b"], seed=5)
        created = svc.CreateGameResponse.FromString(
            _outcome(running, _method(local, "CreateGame", svc.CreateGameRequest, svc.CreateGameResponse), create,
                     [])[0])
        name = created.game.name
        tokens = {c.seat: c.player_token for c in created.credentials}
        get = svc.GetGameRequest(name=name)
        calls = [
            ("GetGame", get, svc.GetGameRequest, svc.GetGameResponse, [("authorization", f"Bearer {tokens[0]}")]),
            ("GetGame", get, svc.GetGameRequest, svc.GetGameResponse, [("authorization", "Bearer not-a-token")]),
            ("GetGame", svc.GetGameRequest(name="games/none"), svc.GetGameRequest, svc.GetGameResponse, []),
            ("ListLegalActions", svc.ListLegalActionsRequest(name=name), svc.ListLegalActionsRequest,
             svc.ListLegalActionsResponse, [("authorization", f"Bearer {tokens[1]}")]),
            ("SubmitAction", svc.SubmitActionRequest(name=name, action=game_pb2.Action()), svc.SubmitActionRequest,
             svc.SubmitActionResponse, [("authorization", f"Bearer {tokens[1]}")]),
        ]
        seen = []
        for method, request, request_class, response_class, metadata in calls:
            here = _outcome(running, _method(local, method, request_class, response_class), request, metadata)
            there = _outcome(running, _method(remote, method, request_class, response_class), request, metadata)
            assert here == there, method
            seen.append(here)
        assert len(seen[0]) == 1  # a view
        assert [s[0] for s in seen[1:3]] == [grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.NOT_FOUND]
        assert len(seen[3]) == 1 and seen[4][0] == grpc.StatusCode.INVALID_ARGUMENT
    finally:
        running.call(local.close())
        running.call(remote.close())


def test_local_calls_run_the_service_layers(grpc_server: Any) -> None:
    """Telemetry counts a local call as the RPC it is (the layers are the handler's, not the channel's)."""
    running = grpc_server.running
    local, remote = _channels(running, grpc_server.target)
    series = running.metrics.rpcs.labels("GetGame", "NOT_FOUND")
    before = series._value.get()
    try:
        rpc = _method(local, "GetGame", svc.GetGameRequest, svc.GetGameResponse)
        assert _outcome(running, rpc, svc.GetGameRequest(name="games/none"), [])[0] == grpc.StatusCode.NOT_FOUND
        assert series._value.get() == before + 1
    finally:
        running.call(local.close())
        running.call(remote.close())


def test_a_method_without_a_local_handler_and_streams_go_to_the_remote_channel() -> None:
    class Remote:
        def __init__(self) -> None:
            self.asked: list[tuple[str, str]] = []

        def unary_unary(self, method: str, **_: Any) -> str:
            self.asked.append(("unary", method))
            return "remote unary"

        def unary_stream(self, method: str, **_: Any) -> str:
            self.asked.append(("stream", method))
            return "remote stream"

    remote = Remote()
    channel = LocalChannel({}, remote)
    codec = {"request_serializer": bytes, "response_deserializer": bytes}
    assert channel.unary_unary("/x.Y/Unknown", **codec) == "remote unary"
    assert channel.unary_stream("/x.Y/Watch", **codec) == "remote stream"
    assert remote.asked == [("unary", "/x.Y/Unknown"), ("stream", "/x.Y/Watch")]


@pytest.mark.parametrize(("sleep", "outcome"), [(0.0, b"done"), (0.5, grpc.StatusCode.DEADLINE_EXCEEDED)])
def test_a_local_call_keeps_its_deadline(sleep: float, outcome: object) -> None:
    async def slow(request: bytes, context: Any) -> bytes:
        await asyncio.sleep(sleep)
        return b"done"

    channel = LocalChannel({"/x.Y/Slow": grpc.unary_unary_rpc_method_handler(slow)}, remote=None)
    rpc = channel.unary_unary("/x.Y/Slow", request_serializer=bytes, response_deserializer=bytes)

    async def go() -> object:
        try:
            return await rpc(b"", timeout=0.1)
        except LocalAbort as error:
            return error.code()
    assert asyncio.run(go()) == outcome
