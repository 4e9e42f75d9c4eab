"""GetGameLog pages (AIP-132): bounded, complete, in order, and never stalling other games.

A long log is built in seconds by copying a real entry straight into the game's stream
(``lengthen_log``); the service reads it as it would a long game's.
"""

from __future__ import annotations

import statistics
import threading
import time

import grpc
import pytest
from tabletop.v1 import game_service_pb2 as svc

from tabletop_server.service.api.log_pages import DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE
from tests.helpers import bearer, create_game, deciding_seat, error_info, lengthen_log, read_all


def _long_game(stub, redis_url: str, total: int):  # type: ignore[no-untyped-def]
    game, tokens = create_game(stub, seats=2)
    seat, actions = deciding_seat(stub, game.name, tokens)
    assert seat == 0  # seat 0 acts first: its own entries show their action to it alone
    stub.SubmitAction(svc.SubmitActionRequest(name=game.name, action=actions[0]), metadata=bearer(tokens[0]))
    lengthen_log(redis_url, game.name, total)
    return game.name, tokens


def test_pages_are_bounded_complete_and_in_order(stub, redis_url: str) -> None:
    name, tokens = _long_game(stub, redis_url, 5000)
    for size, bound in ((0, DEFAULT_PAGE_SIZE), (700, 700), (5000, MAX_PAGE_SIZE)):
        pages = read_all(stub, name, tokens[1], size)
        assert all(len(p.entries) <= bound for p in pages)
        assert len(pages) == -(-5000 // bound)
        assert [e.version for p in pages for e in p.entries] == list(range(1, 5001))


def test_pages_are_projected_for_the_caller(stub, redis_url: str) -> None:
    name, tokens = _long_game(stub, redis_url, 300)
    own = read_all(stub, name, tokens[0], 100)
    other = read_all(stub, name, tokens[1], 100)
    spectator = read_all(stub, name, None, 100)
    assert all(e.HasField("action") for p in own for e in p.entries[1 if p is own[0] else 0:])
    assert not any(e.HasField("action") for pages in (other, spectator) for p in pages for e in p.entries)
    assert not any(p.complete or p.HasField("seed") for p in own)


@pytest.mark.parametrize("page_token", ["nonsense", "%%%", "x" * 500, "bm9fY29sb24"])
def test_a_malformed_page_token_is_invalid(stub, page_token: str) -> None:
    game, _ = create_game(stub, seats=2)
    with pytest.raises(grpc.RpcError) as err:
        stub.GetGameLog(svc.GetGameLogRequest(name=game.name, page_token=page_token))
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert error_info(err.value).reason == "INVALID_PAGE_TOKEN"


def test_a_page_token_of_another_game_is_invalid(stub, redis_url: str) -> None:
    name, _ = _long_game(stub, redis_url, 30)
    token = stub.GetGameLog(svc.GetGameLogRequest(name=name, page_size=10)).next_page_token
    assert token
    other, _ = create_game(stub, seats=2)
    with pytest.raises(grpc.RpcError) as err:
        stub.GetGameLog(svc.GetGameLogRequest(name=other.name, page_token=token))
    assert error_info(err.value).reason == "INVALID_PAGE_TOKEN"


def test_a_negative_page_size_is_invalid(stub) -> None:
    game, _ = create_game(stub, seats=2)
    with pytest.raises(grpc.RpcError) as err:
        stub.GetGameLog(svc.GetGameLogRequest(name=game.name, page_size=-1))
    assert error_info(err.value).reason == "INVALID_PAGE_SIZE"


def test_reading_a_long_log_does_not_stall_other_games(stub, redis_url: str) -> None:
    """Another game's GetGame stays fast while maximal pages of a 30,000-entry log are read."""
    name, _ = _long_game(stub, redis_url, 30_000)
    other, _ = create_game(stub, seats=2)
    done = threading.Event()

    def reader() -> None:
        try:
            read_all(stub, name, None, MAX_PAGE_SIZE)
        finally:
            done.set()

    thread = threading.Thread(target=reader)
    thread.start()
    latencies = []
    while not done.is_set():
        start = time.perf_counter()
        stub.GetGame(svc.GetGameRequest(name=other.name))
        latencies.append(time.perf_counter() - start)
    thread.join()
    assert len(latencies) >= 10
    # Unpaged, the whole log was built on the event loop: others waited for all of it (8.6 s at 150,000).
    assert max(latencies) < 0.5, (max(latencies), statistics.median(latencies))
