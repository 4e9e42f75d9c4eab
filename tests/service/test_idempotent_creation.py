"""CreateGame and JoinGame with a request id: a retry whose answer was lost makes no second game and takes
no second seat (``service/api/idempotency.py``). Real gRPC, real Redis; replicas share it."""

from __future__ import annotations

import asyncio
import secrets
import threading
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
import redis
from tabletop.v1 import game_pb2, game_service_pb2_grpc
from tabletop.v1 import game_service_pb2 as svc

from tabletop_server.service.api import idempotency
from tabletop_server.service.api.host import GameHost
from tabletop_server.service.config import Config
from tabletop_server.service.store.redis_store import GameStore, connect
from tests.conftest import GrpcServer, start_grpc
from tests.helpers import bearer, error_info

SECRET = "test-facade-secret"
OFF = {"create_per_minute_per_address": 0, "max_open_games_per_address": 0}


@pytest.fixture()
def replicas(redis_url: str, request: pytest.FixtureRequest) -> Iterator[list[Any]]:
    """Two replicas on the test Redis (settings: the test's parameter, if any), a stub each."""
    settings = {**OFF, "proxy_secret": SECRET, **getattr(request, "param", {})}
    started: list[GrpcServer] = [start_grpc(redis_url, **settings) for _ in range(2)]
    channels = [grpc.insecure_channel(s.target) for s in started]
    yield [game_service_pb2_grpc.GameServiceStub(c) for c in channels]
    for server, channel in zip(started, channels, strict=True):
        channel.close()
        server.running.stop(0)


def _from(address: str) -> list[tuple[str, str]]:
    """A client at ``address`` (forwarded by a facade that holds the secret): counters of its own."""
    return [("x-forwarded-for", f"10.0.0.1, {address}"), ("x-tabletop-proxy", SECRET)]


def _create(request_id: str, names: tuple[str, ...] = ("ann",), seats: int = 3, **kw: Any) -> svc.CreateGameRequest:
    return svc.CreateGameRequest(ruleset="ttr-europe", seat_count=seats, display_names=list(names),
                                 request_id=request_id, **kw)


def _refused(call: Any, request: Any, **kw: Any) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.RpcError) as err:
        call(request, timeout=10, **kw)
    return err.value.code(), error_info(err.value).reason


def _seated(stub: Any, name: str) -> int:
    return sum(s.occupied for s in stub.GetGame(svc.GetGameRequest(name=name), timeout=10).game.seats)


def test_a_repeated_creation_makes_one_game_and_answers_the_same_on_any_replica(replicas: list[Any]) -> None:
    one, other = replicas
    request_id = secrets.token_hex(16)
    first = one.CreateGame(_create(request_id), timeout=10)
    again = other.CreateGame(_create(request_id), timeout=10)
    assert again.SerializeToString() == first.SerializeToString(), "the same game, header and tokens"
    another = one.CreateGame(_create(secrets.token_hex(16)), timeout=10)
    assert another.game.name != first.game.name
    plain = [one.CreateGame(_create(""), timeout=10).game.name for _ in range(2)]
    assert plain[0] != plain[1], "without a request id, every call makes a game"


def test_a_request_id_sent_with_another_creation_is_refused_and_makes_nothing(replicas: list[Any]) -> None:
    one, _ = replicas
    request_id = secrets.token_hex(16)
    first = one.CreateGame(_create(request_id), timeout=10)
    refused = _refused(one.CreateGame, _create(request_id, names=("bob",), public=True))
    assert refused == (grpc.StatusCode.INVALID_ARGUMENT, "IDEMPOTENCY_KEY_REUSED")
    listed = one.ListGames(svc.ListGamesRequest(), timeout=10).games
    assert first.game.name not in {g.name for g in listed}, "the refused request listed nothing"
    assert one.GetGame(svc.GetGameRequest(name=first.game.name), timeout=10).game.version == 1


def test_a_creation_whose_game_was_never_written_is_made_by_its_retry(replicas: list[Any], redis_url: str) -> None:
    """A crash after the request id named its game id and before the game's write: the retry writes it."""
    one, _ = replicas
    request_id, game_id = secrets.token_hex(16), secrets.token_hex(8)
    client = redis.Redis.from_url(redis_url)
    client.set(idempotency.creation_key("", None, request_id), game_id, px=60_000)
    made = one.CreateGame(_create(request_id), timeout=10)
    assert made.game.name == f"games/{game_id}"
    assert one.CreateGame(_create(request_id), timeout=10).SerializeToString() == made.SerializeToString()


def test_duplicates_racing_make_one_game(replicas: list[Any]) -> None:
    request_id, answers, errors = secrets.token_hex(16), [], []

    def create(stub: Any) -> None:
        try:
            answers.append(stub.CreateGame(_create(request_id), timeout=10).SerializeToString())
        except grpc.RpcError as error:  # pragma: no cover - the assertion below names it
            errors.append(error)
    threads = [threading.Thread(target=create, args=(replicas[i % 2],)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors and len(answers) == 8 and len(set(answers)) == 1


class MeetingStore(GameStore):
    """A store whose games' first writes wait until ``count`` of them are under way: duplicates in flight."""

    def __init__(self, client: Any, count: int) -> None:
        super().__init__(client)
        self.count, self.arrived, self.met = count, 0, asyncio.Event()

    async def write(self, game_id: str, expected: int, *args: Any, **kwargs: Any) -> tuple[bool, int]:
        if expected == 0:
            self.arrived += 1
            if self.arrived >= self.count:
                self.met.set()
            await asyncio.wait_for(self.met.wait(), 10)
        return await super().write(game_id, expected, *args, **kwargs)


def test_a_duplicate_whose_write_loses_to_the_first_answers_with_the_first(redis_url: str) -> None:
    """Both tries past the naming of the game id before either has written: the one whose write loses finds
    the game made and answers with its remembered response (no second game under a new id)."""
    async def scenario() -> list[bytes]:
        host = GameHost(MeetingStore(connect(redis_url), 2), Config(player_index=False))
        request = _create(secrets.token_hex(16))
        answers = await asyncio.gather(*(host.create(request) for _ in range(2)))
        return [a.SerializeToString() for a in answers]
    first, second = asyncio.run(scenario())
    assert first == second


@pytest.mark.parametrize("replicas", [{"max_open_games_per_address": 1}], indirect=True)
def test_a_retry_at_the_open_games_limit_is_answered_not_refused(replicas: list[Any]) -> None:
    one, other = replicas
    address, request_id = f"198.51.100.{secrets.randbelow(250)}-{secrets.token_hex(3)}", secrets.token_hex(16)
    first = one.CreateGame(_create(request_id), metadata=_from(address), timeout=10)
    again = other.CreateGame(_create(request_id), metadata=_from(address), timeout=10)
    assert again.SerializeToString() == first.SerializeToString()
    refused = _refused(one.CreateGame, _create(secrets.token_hex(16)), metadata=_from(address))
    assert refused == (grpc.StatusCode.RESOURCE_EXHAUSTED, "TOO_MANY_OPEN_GAMES")
    with_another_body = _refused(other.CreateGame, _create(request_id, names=("bob",)), metadata=_from(address))
    assert with_another_body == (grpc.StatusCode.INVALID_ARGUMENT, "IDEMPOTENCY_KEY_REUSED")


def test_a_repeated_join_takes_one_seat_and_answers_the_same_after_the_game_started(replicas: list[Any]) -> None:
    one, other = replicas
    game = one.CreateGame(_create(""), timeout=10).game
    join = svc.JoinGameRequest(name=game.name, display_name="bob", request_id=secrets.token_hex(16))
    first = one.JoinGame(join, timeout=10)
    assert other.JoinGame(join, timeout=10).SerializeToString() == first.SerializeToString()
    assert _seated(one, game.name) == 2
    last = other.JoinGame(svc.JoinGameRequest(name=game.name, display_name="cy"), timeout=10)
    assert last.game.status == game_pb2.GAME_STATUS_ACTIVE
    assert one.JoinGame(join, timeout=10).SerializeToString() == first.SerializeToString(), "answered, not refused"
    token = first.credential.player_token
    view = one.GetGame(svc.GetGameRequest(name=game.name), metadata=bearer(token), timeout=10)
    assert view.game.version == 3 and _seated(one, game.name) == 3


def test_a_join_request_id_sent_with_another_join_is_refused(replicas: list[Any]) -> None:
    one, _ = replicas
    game = one.CreateGame(_create(""), timeout=10).game
    request_id = secrets.token_hex(16)
    one.JoinGame(svc.JoinGameRequest(name=game.name, display_name="bob", request_id=request_id), timeout=10)
    refused = _refused(one.JoinGame, svc.JoinGameRequest(name=game.name, display_name="cy", request_id=request_id))
    assert refused == (grpc.StatusCode.INVALID_ARGUMENT, "IDEMPOTENCY_KEY_REUSED")
    assert _seated(one, game.name) == 2
