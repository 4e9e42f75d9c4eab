"""Structured JSON logs: request id, game, seat and version on every call; never a secret."""

from __future__ import annotations

import io
import json
import logging
import random
from collections.abc import Iterator

import grpc
import pytest
from tabletop.v1 import game_service_pb2 as svc
from tabletop.v1 import game_service_pb2_grpc

from tabletop_server.service.api.log_format import LOG_FIELDS, JsonFormatter
from tests.conftest import GrpcServer, start_grpc
from tests.helpers import bearer, create_game, deciding_seat, play

ALLOWED_KEYS = {"ts", "level", "logger", "msg", "error", *LOG_FIELDS}


@pytest.fixture(scope="module")
def server(redis_url: str) -> Iterator[GrpcServer]:
    started = start_grpc(redis_url)
    yield started
    started.running.stop(0)


@pytest.fixture()
def captured() -> Iterator[io.StringIO]:
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(JsonFormatter())
    logger = logging.getLogger("tabletop")
    old_level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    yield out
    logger.removeHandler(handler)
    logger.setLevel(old_level)


def _lines(out: io.StringIO) -> list[dict[str, object]]:
    return [json.loads(line) for line in out.getvalue().splitlines() if line.strip()]


def test_an_action_logs_request_id_game_seat_and_version_and_no_secret(server: GrpcServer,
                                                                       captured: io.StringIO) -> None:
    with grpc.insecure_channel(server.target) as channel:
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        game, tokens = create_game(stub, seats=3, seed=17)
        seat, actions = deciding_seat(stub, game.name, tokens)
        reply = stub.SubmitAction(svc.SubmitActionRequest(name=game.name, action=actions[0]),
                                  metadata=[*bearer(tokens[seat]), ("x-request-id", "req-7f3a")])
        play(stub, game.name, tokens, 5, random.Random(8))
        private = stub.GetGame(svc.GetGameRequest(name=game.name), metadata=bearer(tokens[seat])).view
    lines = _lines(captured)
    action = next(line for line in lines if line.get("request_id") == "req-7f3a")
    assert action["method"] == "SubmitAction" and action["code"] == "OK"
    assert action["game"] == game.name.removeprefix("games/")
    assert action["seat"] == seat and action["version"] == reply.game.version
    assert action["ruleset"] == "ttr-europe" and isinstance(action["duration_ms"], float)
    text = captured.getvalue()
    for token in tokens.values():
        assert token not in text and token.split(".", 2)[2] not in text
    for line in lines:
        assert set(line) <= ALLOWED_KEYS, line
    tickets = [t for t in private.ttr_europe.private.tickets] + list(private.ttr_europe.private.offered_tickets)
    assert tickets, "the seat should hold tickets"
    for ticket in tickets:
        for word in (str(v) for _, v in ticket.ListFields() if isinstance(v, str) and len(v) > 3):
            assert word not in text, f"a ticket detail ({word}) reached the log"
    assert "hand" not in text and "ticket" not in text.lower() and "role" not in text.lower()


def test_every_call_has_a_request_id_and_a_rejection_logs_only_its_reason(server: GrpcServer,
                                                                           captured: io.StringIO) -> None:
    with grpc.insecure_channel(server.target) as channel:
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        game, tokens = create_game(stub, seats=2, seed=18)
        seat, actions = deciding_seat(stub, game.name, tokens)
        stub.SubmitAction(svc.SubmitActionRequest(name=game.name, action=actions[0], request_id="first"),
                          metadata=bearer(tokens[seat]))
        with pytest.raises(grpc.RpcError) as err:
            stub.SubmitAction(svc.SubmitActionRequest(name=game.name, action=actions[0], request_id="again"),
                              metadata=bearer(tokens[seat]))
    lines = [line for line in _lines(captured) if line.get("logger") == "tabletop.access"]
    assert all(line.get("request_id") for line in lines)
    assert next(line for line in lines if line["method"] == "SubmitAction" and line["request_id"] == "first")
    rejected = next(line for line in lines if line.get("request_id") == "again")
    assert rejected["code"] == err.value.code().name == "FAILED_PRECONDITION"
    assert rejected["reason"] and rejected["seat"] == seat and rejected["game"] == game.name.removeprefix("games/")
    assert err.value.details() not in captured.getvalue()  # the message to the player stays out of the log


def test_formatter_keeps_only_allowlisted_fields_and_scrubs_token_shapes() -> None:
    record = logging.LogRecord("tabletop.x", logging.INFO, __file__, 1, "got %s", ("0123abcd4567ef89.1.Zm9vYmFyYmF6cXV4cXV1eA",),
                               None)
    record.hand = ["red", "red"]
    record.game = "0123abcd4567ef89"
    line = json.loads(JsonFormatter().format(record))
    assert line["msg"] == "got [redacted]" and line["game"] == "0123abcd4567ef89" and "hand" not in line


def test_a_watch_the_client_leaves_is_logged_as_cancelled(server: GrpcServer, captured: io.StringIO) -> None:
    import gc
    import time

    with grpc.insecure_channel(server.target) as channel:
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        game, tokens = create_game(stub, seats=2, seed=19)
        call = stub.WatchGame(svc.WatchGameRequest(name=game.name), metadata=[*bearer(tokens[1]),
                                                                             ("x-request-id", "watch-1")])
        assert next(call).version == 1
        call.cancel()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            gc.collect()
            lines = [line for line in _lines(captured) if line.get("request_id") == "watch-1"]
            if lines:
                break
            time.sleep(0.1)
    assert lines, "the cancelled watch left no log line"
    assert lines[0]["method"] == "WatchGame" and lines[0]["code"] == "CANCELLED" and lines[0]["seat"] == 1
