"""Hostile inputs on every gRPC method: always a 4xx-class code with a rich status, never INTERNAL,
never a transport RESOURCE_EXHAUSTED, and no game changes.

The sweep walks the contract (every method, every string field down to the actions'
fields) instead of listing cases, so a new field or method is swept too.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass
from tabletop.v1 import game_service_pb2 as svc

from tabletop_server.service.api.errors import MAX_MESSAGE_BYTES, bounded
from tabletop_server.service.config import Config
from tests.helpers import bearer, create_game, error_info

SERVICE = svc.DESCRIPTOR.services_by_name["GameService"]
HUGE = "x" * 60_000  # under the 64 KiB request limit, four times gRPC's 16 KiB trailer limit
WIDE = "é" * 20_000  # 40 KB of two-byte characters
CLIENT_ERRORS = {grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.NOT_FOUND,
                 grpc.StatusCode.PERMISSION_DENIED, grpc.StatusCode.FAILED_PRECONDITION}


def _string_paths(descriptor: Descriptor, prefix: str = "", depth: int = 0) -> Iterator[tuple[str, ...]]:
    """Every string field path of a message type (nested messages to depth 3)."""
    for field in descriptor.fields:
        path = (*prefix.split("."), field.name) if prefix else (field.name,)
        if field.type == FieldDescriptor.TYPE_STRING:
            yield path
        elif field.message_type is not None and depth < 3 and not field.message_type.full_name.startswith("google."):
            yield from _string_paths(field.message_type, ".".join(path), depth + 1)


def _with(request: Message, path: tuple[str, ...], value: str) -> Message:
    target: Any = request
    for name in path[:-1]:
        field = target.DESCRIPTOR.fields_by_name[name]
        target = getattr(target, name).add() if field.is_repeated else getattr(target, name)
    field = target.DESCRIPTOR.fields_by_name[path[-1]]
    if field.is_repeated:
        getattr(target, path[-1]).append(value)
    else:
        setattr(target, path[-1], value)
    return request


def _call(channel: grpc.Channel, method: Any, request: Message, metadata: list[tuple[str, str]]) -> grpc.RpcError | None:
    path = f"/{SERVICE.full_name}/{method.name}"
    response_class = GetMessageClass(method.output_type)
    if method.server_streaming:
        call = channel.unary_stream(path, request_serializer=type(request).SerializeToString,
                                    response_deserializer=response_class.FromString)
        stream = call(request, metadata=metadata, timeout=5)
        try:
            next(stream)
        except grpc.RpcError as err:
            return err
        stream.cancel()
        return None
    unary = channel.unary_unary(path, request_serializer=type(request).SerializeToString,
                                response_deserializer=response_class.FromString)
    try:
        unary(request, metadata=metadata, timeout=5)
    except grpc.RpcError as err:
        return err
    return None


def _assert_refused_cleanly(err: grpc.RpcError | None, what: str) -> None:
    assert err is not None, f"{what}: accepted"
    assert err.code() in CLIENT_ERRORS, f"{what}: {err.code()} {err.details()[:200]}"
    info = error_info(err)  # a rich status came back: the trailer fitted
    assert info.reason and len(err.details().encode()) <= MAX_MESSAGE_BYTES


@pytest.fixture(scope="module")
def games(stub):  # type: ignore[no-untyped-def]
    ttr, ttr_tokens = create_game(stub, seats=2)
    bang, bang_tokens = create_game(stub, ruleset="bang", seats=4)
    return {"ttr": (ttr.name, ttr_tokens[0]), "bang": (bang.name, bang_tokens[0])}


def _versions(stub, games) -> list[int]:  # type: ignore[no-untyped-def]
    return [stub.GetGame(svc.GetGameRequest(name=name)).game.version for name, _ in games.values()]


def test_huge_strings_in_every_field_of_every_method(stub, channel, games) -> None:  # type: ignore[no-untyped-def]
    before = _versions(stub, games)
    swept = 0
    for method in SERVICE.methods:
        request_class = GetMessageClass(method.input_type)
        for path in _string_paths(method.input_type):
            game = "bang" if "bang" in path else "ttr"
            name, token = games[game]
            for value in (HUGE, WIDE):
                request = request_class()
                if "name" in method.input_type.fields_by_name and path != ("name",):
                    request.name = name  # type: ignore[attr-defined]
                if method.name == "CreateGame" and path != ("ruleset",):
                    request.ruleset, request.seat_count = "ttr-europe", 2  # type: ignore[attr-defined]
                err = _call(channel, method, _with(request, path, value), bearer(token))
                if err is None and method.name == "CreateGame":
                    continue  # a new game, not a change to these; a harmless string may be accepted
                _assert_refused_cleanly(err, f"{method.name}.{'.'.join(path)}")
                swept += 1
    assert swept >= 20
    assert _versions(stub, games) == before


@pytest.mark.parametrize("token", [
    "{game}." + "9" * 5000 + ".secret",  # was int() of 5000 digits: INTERNAL with a traceback
    "{game}.1e3.secret",
    "{game}.00000000000000000000001.secret",
    "{game}.0." + "s" * 3000,  # (past 8 KiB of metadata gRPC itself refuses the call, before any handler)
    "{game}.-1.secret",
    "x" * 3000,
])
def test_malformed_tokens_on_every_method(stub, channel, games, token: str) -> None:  # type: ignore[no-untyped-def]
    before = _versions(stub, games)
    name, _ = games["ttr"]
    for method in SERVICE.methods:
        request = GetMessageClass(method.input_type)()
        if "name" in method.input_type.fields_by_name:
            request.name = name  # type: ignore[attr-defined]
        if method.name == "CreateGame":
            request.ruleset, request.seat_count = "ttr-europe", 2  # type: ignore[attr-defined]
        err = _call(channel, method, request, bearer(token.format(game=name.split("/")[1])))
        if method.name in ("ListRulesets", "GetRuleset", "ListGames", "CreateGame", "JoinGame",
                           "CreatePlayerSession", "RefreshPlayerSession", "CreateGuestSession"):
            assert err is None or err.code() in CLIENT_ERRORS  # these need no token and ignore one
            continue
        _assert_refused_cleanly(err, f"{method.name} with token {token[:30]}")
        assert err is not None and err.code() == grpc.StatusCode.UNAUTHENTICATED
    assert _versions(stub, games) == before


def test_bounded_keeps_short_values_and_cuts_long_ones_on_a_character_boundary() -> None:
    assert bounded("short") == "short"
    cut = bounded("é" * 1000, 100)
    assert len(cut.encode()) <= 100 and cut.endswith("bytes)") and cut.startswith("é")


@pytest.mark.parametrize("keys", [",", " ", "a,,b", "good, "])
def test_an_empty_api_key_refuses_to_start(keys: str) -> None:
    from tabletop_server.service.config import from_env
    with pytest.raises(SystemExit, match="empty key"):
        from_env({"TABLETOP_API_KEYS": keys})
    with pytest.raises(ValueError, match="empty key"):
        Config(api_keys=keys)
