"""Concurrent conflicting actions: exactly the legal ones apply, nothing is lost.

Runs against one server, and against two service processes sharing one Redis.
"""

from __future__ import annotations

import os
import random
import socket
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import grpc
import pytest
from tabletop.v1 import game_service_pb2 as svc
from tabletop.v1 import game_service_pb2_grpc

from tests.helpers import bearer, create_game, deciding_seat

N = 32


def _ready_game(stub):  # type: ignore[no-untyped-def]
    """A game past the initial ticket choice, at the start of a turn."""
    game, tokens = create_game(stub, seats=3, seed=21)
    for seat, token in tokens.items():
        action = stub.ListLegalActions(svc.ListLegalActionsRequest(name=game.name), metadata=bearer(token)).actions[0]
        stub.SubmitAction(svc.SubmitActionRequest(name=game.name, action=action), metadata=bearer(token))
    seat, actions = deciding_seat(stub, game.name, tokens)
    blind = next(a for a in actions if a.ttr_europe.HasField("draw_train_card")
                 and not a.ttr_europe.draw_train_card.HasField("face_up_slot"))
    return game, tokens, seat, blind


def _race(stubs, name, token, action, expected=None):  # type: ignore[no-untyped-def]
    def one(i: int):  # type: ignore[no-untyped-def]
        request = svc.SubmitActionRequest(name=name, action=action, request_id=f"c{i}")
        if expected is not None:
            request.expected_version = expected
        try:
            return stubs[i % len(stubs)].SubmitAction(request, metadata=bearer(token)).game.version
        except grpc.RpcError as err:
            return err.code()
    with ThreadPoolExecutor(N) as pool:
        return list(pool.map(one, range(N)))


def _check(stub, game, results, applied: int, before: int) -> None:  # type: ignore[no-untyped-def]
    versions = sorted(r for r in results if isinstance(r, int))
    assert versions == list(range(before + 1, before + 1 + applied)), results
    refused = [r for r in results if not isinstance(r, int)]
    assert all(r in (grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.ABORTED) for r in refused)
    log = stub.GetGameLog(svc.GetGameLogRequest(name=game.name)).entries
    assert [e.version for e in log] == list(range(1, before + applied + 1))


def test_32_concurrent_draws_only_the_legal_two_apply(stub) -> None:
    game, tokens, seat, blind = _ready_game(stub)
    before = stub.GetGame(svc.GetGameRequest(name=game.name)).game.version
    results = _race([stub], game.name, tokens[seat], blind)
    _check(stub, game, results, 2, before)  # a turn is two blind draws; the rest is NOT_YOUR_TURN


def test_32_concurrent_with_expected_version_exactly_one_applies(stub) -> None:
    game, tokens, seat, blind = _ready_game(stub)
    before = stub.GetGame(svc.GetGameRequest(name=game.name)).game.version
    results = _race([stub], game.name, tokens[seat], blind, expected=before)
    _check(stub, game, results, 1, before)


@pytest.fixture()
def second_process(redis_url):  # type: ignore[no-untyped-def]
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "TABLETOP_REDIS_URL": redis_url, "TABLETOP_METRICS_PORT": "0"}
    proc = subprocess.Popen([sys.executable, "-m", "tabletop_server.service", "grpc", "--grpc-port", str(port)], env=env)
    target = f"127.0.0.1:{port}"
    with grpc.insecure_channel(target) as ch:
        grpc.channel_ready_future(ch).result(timeout=30)
    yield target
    proc.terminate()
    proc.wait(30)


def test_two_service_processes_share_one_game(stub, second_process) -> None:
    with grpc.insecure_channel(second_process) as ch:
        other = game_service_pb2_grpc.GameServiceStub(ch)
        game, tokens, seat, blind = _ready_game(stub)
        before = other.GetGame(svc.GetGameRequest(name=game.name)).game.version
        results = _race([stub, other], game.name, tokens[seat], blind)
        _check(other, game, results, 2, before)
        rng = random.Random(5)
        for i in range(6):  # alternate replicas action by action
            s = (stub, other)[i % 2]
            seat, actions = deciding_seat(s, game.name, tokens)
            s.SubmitAction(svc.SubmitActionRequest(name=game.name, action=rng.choice(actions)),
                           metadata=bearer(tokens[seat]))
        assert stub.GetGame(svc.GetGameRequest(name=game.name)).game.version == before + 8
        time.sleep(0)
