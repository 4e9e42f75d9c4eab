"""Odd inputs get a clear refusal at once, never a quiet reinterpretation (issue 26, items 7 and 8).

- a 32-bit field sent with a wider value (``seat_count`` 2**32 + 4) was cut to its low bits by the
  protobuf parser and created a 4-seat game: refused with the field's reason, nothing created;
- ``WatchGame`` ``from_version`` after the game's version waited for the deadline: OUT_OF_RANGE at once;
  a negative one was read as "from the start": INVALID_ARGUMENT;
- two ``authorization`` entries: refused, neither picked;
- a seat with a display name and a bot is played by the bot under that name.
"""

from __future__ import annotations

import time
from typing import Any

import grpc
import pytest
from google.protobuf.internal.encoder import _VarintBytes
from tabletop.v1 import game_pb2
from tabletop.v1 import game_service_pb2 as svc

from tests.helpers import bearer, create_game, error_info

CREATE = "/tabletop.v1.GameService/CreateGame"


def _raw_create(channel: grpc.Channel, payload: bytes) -> Any:
    call = channel.unary_unary(CREATE, request_serializer=None, response_deserializer=svc.CreateGameResponse.FromString)
    return call(payload, timeout=5)


@pytest.mark.parametrize(("tail", "reason", "field"), [
    (b"\x18" + _VarintBytes(2**32 + 4), "INVALID_SEAT_COUNT", "seat_count"),  # would read as 4
    (b"\x18\x04\x3a\x09\x08" + _VarintBytes(2**33 + 1) + b"\x12\x01r", "SEAT_OUT_OF_RANGE", "bots[0].seat"),  # as 1
    (b"\x18\x03\x30" + _VarintBytes(2**32 + 100), "INVALID_MAX_ACTIONS", "max_actions"),  # as 100
])
def test_a_32_bit_field_sent_wider_is_refused_not_cut(channel: grpc.Channel, tail: bytes, reason: str,
                                                      field: str) -> None:
    payload = svc.CreateGameRequest(ruleset="ttr-europe").SerializeToString() + tail
    assert svc.CreateGameRequest.FromString(payload).seat_count in (0, 3, 4)  # what the parser alone makes of it
    with pytest.raises(grpc.RpcError) as err:
        _raw_create(channel, payload)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    info = error_info(err.value)
    assert info.reason == reason and f"`{field}`" in err.value.details()


def test_negative_and_in_range_values_still_pass(channel: grpc.Channel) -> None:
    created = _raw_create(channel, svc.CreateGameRequest(ruleset="ttr-europe", seat_count=3,
                                                         display_names=["Zoë 😀"]).SerializeToString())
    assert len(created.game.seats) == 3  # four high bytes in a row (the emoji): checked twice, and fine
    with pytest.raises(grpc.RpcError) as err:  # -3 is an int32: the ordinary range check answers
        _raw_create(channel, svc.CreateGameRequest(ruleset="ttr-europe", seat_count=-3).SerializeToString())
    assert error_info(err.value).reason == "INVALID_SEAT_COUNT" and "cut" not in err.value.details()


def test_watch_from_a_version_after_the_games_is_out_of_range_at_once(stub: Any) -> None:
    game, _ = create_game(stub, seats=2)
    started = time.monotonic()
    with pytest.raises(grpc.RpcError) as err:
        list(stub.WatchGame(svc.WatchGameRequest(name=game.name, from_version=2**63 - 1), timeout=10))
    assert time.monotonic() - started < 3
    assert err.value.code() == grpc.StatusCode.OUT_OF_RANGE and error_info(err.value).reason == "VERSION_AHEAD"
    assert "version 1" in err.value.details()
    with pytest.raises(grpc.RpcError) as err:
        list(stub.WatchGame(svc.WatchGameRequest(name=game.name, from_version=-5), timeout=10))
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert error_info(err.value).reason == "INVALID_FROM_VERSION"
    # the current version itself is fine: the stream opens and waits for the next one
    call = stub.WatchGame(svc.WatchGameRequest(name=game.name, from_version=1), timeout=1)
    with pytest.raises(grpc.RpcError) as err:
        list(call)
    assert err.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED


def test_two_authorization_entries_are_refused_not_one_picked(stub: Any) -> None:
    game, tokens = create_game(stub, seats=2)
    for metadata in ((*bearer(tokens[0]), *bearer(tokens[1])), (*bearer(tokens[0]), *bearer(tokens[0]))):
        with pytest.raises(grpc.RpcError) as err:
            stub.GetGame(svc.GetGameRequest(name=game.name), metadata=metadata)
        assert err.value.code() == grpc.StatusCode.UNAUTHENTICATED
        assert error_info(err.value).reason == "DUPLICATE_AUTHORIZATION"


def test_a_named_seat_can_be_a_bot_and_keeps_its_name(stub: Any) -> None:
    created = stub.CreateGame(svc.CreateGameRequest(
        ruleset="ttr-europe", seat_count=4, display_names=["ann", "Robo", "Bobo", "Cleo"],
        bots=[game_pb2.SeatBot(seat=s, bot="random") for s in (1, 2, 3)]))
    assert [c.seat for c in created.credentials] == [0]  # a bot's seat gets no credential
    assert created.game.status == game_pb2.GAME_STATUS_ACTIVE
    seats = created.game.seats
    assert [s.display_name for s in seats] == ["ann", "Robo", "Bobo", "Cleo"]
    assert [s.bot for s in seats] == ["", "random", "random", "random"]


def test_a_bot_seat_off_the_table_says_which_seats_there_are(stub: Any) -> None:
    with pytest.raises(grpc.RpcError) as err:
        stub.CreateGame(svc.CreateGameRequest(ruleset="ttr-europe", seat_count=3, display_names=["a", "b", "c"],
                                              bots=[game_pb2.SeatBot(seat=3, bot="random")]))
    assert error_info(err.value).reason == "SEAT_OUT_OF_RANGE"
    assert "seats are 0 to 2" in err.value.details()
