"""One Redis round trip per action in the steady state (issue 29): each process keeps the last document
it saw of a game and sends the compare-and-set without reading first. A stale copy (another replica
moved the game, or a failover lost this replica's write) costs a retry on the document the script
answers with, never a wrong move."""

from __future__ import annotations

import asyncio
import random
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
import redis
from tabletop.v1 import game_service_pb2 as svc
from tabletop.v1 import game_service_pb2_grpc

from tabletop_server.service.store import keys
from tabletop_server.service.store.redis_store import GameStore, connect
from tests.conftest import GrpcServer, start_grpc
from tests.helpers import bearer, create_game, deciding_seat
from tests.service.webhook_kit import private_redis

Stub = game_service_pb2_grpc.GameServiceStub


@pytest.fixture(scope="module")
def two(redis_url: str) -> Iterator[tuple[Stub, Stub, GrpcServer, GrpcServer]]:
    """Two servers on one Redis: replicas of one deployment, each with its own cache."""
    a, b = start_grpc(redis_url), start_grpc(redis_url)
    with grpc.insecure_channel(a.target) as ca, grpc.insecure_channel(b.target) as cb:
        yield Stub(ca), Stub(cb), a, b
    a.running.stop(0)
    b.running.stop(0)


def test_two_servers_alternating_moves_play_the_game_one_server_plays(two: Any) -> None:
    a, b, server_a, server_b = two
    game, tokens = create_game(a, seats=3, seed=2929)
    played = _play(a, b, game.name, tokens, steps=40, rng=random.Random(29))
    replay, replay_tokens = create_game(b, seats=3, seed=2929)
    for seat, action in played:  # the same moves, one server, one after the other
        b.SubmitAction(svc.SubmitActionRequest(name=replay.name, action=action), metadata=bearer(replay_tokens[seat]))
    _assert_same_game(b, (game.name, tokens), (replay.name, replay_tokens))
    assert server_a.running.store.cache.hits and server_b.running.store.cache.hits
    for server in (server_a, server_b):  # every move after the first found its copy stale: a retry, no read
        copies = server.running.metrics.doc_copies
        assert copies.labels("used")._value.get() > 0
        assert server.running.metrics.cas_conflicts._value.get() > 0


def test_a_write_lost_in_a_failover_is_never_built_on(two: Any, redis_url: str) -> None:
    a, b, _, _ = two
    plain = redis.Redis.from_url(redis_url)
    game, tokens = create_game(a, seats=2, seed=31)
    game_id = game.name.removeprefix("games/")
    played = _play(a, a, game.name, tokens, steps=4, rng=random.Random(4))
    before = {key: plain.dump(key) for key in (keys.game(game_id), keys.stream(game_id))}
    seat, actions = deciding_seat(b, game.name, tokens)
    assert len(actions) > 1
    a.SubmitAction(svc.SubmitActionRequest(name=game.name, action=actions[0]), metadata=bearer(tokens[seat]))
    for key, value in before.items():  # the replica that becomes primary never got that write
        plain.restore(key, 0, value, replace=True)
    b.SubmitAction(svc.SubmitActionRequest(name=game.name, action=actions[-1]), metadata=bearer(tokens[seat]))
    played.append((seat, actions[-1]))  # the same version as a's lost write, another document
    played += _play(a, b, game.name, tokens, steps=6, rng=random.Random(5))  # a's copy is of the lost write
    replay, replay_tokens = create_game(b, seats=2, seed=31)
    for seat, action in played:
        b.SubmitAction(svc.SubmitActionRequest(name=replay.name, action=action), metadata=bearer(replay_tokens[seat]))
    _assert_same_game(b, (game.name, tokens), (replay.name, replay_tokens))


def test_a_retry_on_a_cached_copy_replays_the_remembered_answer(two: Any) -> None:
    a, b, _, _ = two
    game, tokens = create_game(a, seats=2, seed=12)
    seat, actions = deciding_seat(a, game.name, tokens)
    request = svc.SubmitActionRequest(name=game.name, action=actions[0], request_id="cached-retry")
    first = a.SubmitAction(request, metadata=bearer(tokens[seat]))
    _play(b, b, game.name, tokens, steps=3, rng=random.Random(1))  # a's copy is stale now
    assert a.SubmitAction(request, metadata=bearer(tokens[seat])) == first
    assert b.SubmitAction(request, metadata=bearer(tokens[seat])) == first


def test_one_round_trip_per_action_in_the_steady_state(tmp_path: Path) -> None:
    with private_redis(tmp_path) as own:
        cached = _round_trips(own, doc_cache_games=100)
        uncached = _round_trips(own, doc_cache_games=0)
    # Every other action carries a request id: its response is remembered and the seat's index of them kept
    # to its bound in the same script (cas.lua), so those are one round trip too.
    assert cached == {"writes": 1.0, "reads": 0.0, "round_trips": 1.0}, cached
    assert uncached == {"writes": 1.0, "reads": 1.0, "round_trips": 2.0}, uncached  # the counting sees a read


# Helpers

def _play(a: Stub, b: Stub, name: str, tokens: dict[int, str], steps: int,
          rng: random.Random) -> list[tuple[int, Any]]:
    """``steps`` moves, sent to ``a`` and ``b`` in turn, each chosen from what the *other* server reads (so
    the sender's copy is as stale as it gets when they differ); each answer is one version on."""
    played = []
    for step in range(steps):
        sender, reader = ((a, b), (b, a))[step % 2]
        seat, actions = deciding_seat(reader, name, tokens)
        if seat is None:
            break
        before = reader.GetGame(svc.GetGameRequest(name=name)).game.version
        action = rng.choice(actions)
        reply = sender.SubmitAction(svc.SubmitActionRequest(name=name, action=action, read_mask={"paths": ["events"]}),
                                    metadata=bearer(tokens[seat]))
        assert reply.version == before + 1
        played.append((seat, action))
    return played


def _assert_same_game(stub: Stub, game: tuple[str, dict[int, str]], replay: tuple[str, dict[int, str]]) -> None:
    for seat in game[1]:
        mine = stub.GetGame(svc.GetGameRequest(name=game[0]), metadata=bearer(game[1][seat]))
        theirs = stub.GetGame(svc.GetGameRequest(name=replay[0]), metadata=bearer(replay[1][seat]))
        assert mine.view == theirs.view and mine.game.version == theirs.game.version
    log = stub.GetGameLog(svc.GetGameLogRequest(name=game[0], page_size=1000), metadata=bearer(game[1][0]))
    assert [e.version for e in log.entries] == list(range(1, mine.game.version + 1))


def _round_trips(redis_url: str, doc_cache_games: int) -> dict[str, float]:
    """Commands per action from Redis's side (INFO commandstats around each SubmitAction, on a Redis of the
    test's own): EVALSHA calls, and HMGET calls beyond the one each compare-and-set makes itself; and the
    round trips the server's Redis client made (its ``execute`` and ``pipeline`` calls, counted)."""
    server = start_grpc(redis_url, doc_cache_games=doc_cache_games, player_index=False, timer_poll_seconds=3600)
    trips = _count_round_trips(server.running.store.client)
    plain = redis.Redis.from_url(redis_url)
    writes = reads = actions = round_trips = 0
    try:
        with grpc.insecure_channel(server.target) as channel:
            stub = Stub(channel)
            game, tokens = create_game(stub, seats=2, seed=3)
            rng = random.Random(3)
            for step in range(12):
                seat, legal = deciding_seat(stub, game.name, tokens)
                request = svc.SubmitActionRequest(name=game.name, action=rng.choice(legal),
                                                  request_id=f"r{step}" if step % 2 else "")
                before, sent = _calls(plain), trips[0]
                stub.SubmitAction(request, metadata=bearer(tokens[seat]))
                after = _calls(plain)
                round_trips += trips[0] - sent
                evalsha = after["evalsha"] - before["evalsha"]
                writes += evalsha
                reads += after["hmget"] - before["hmget"] - evalsha  # cas.lua's own HMGET is no round trip
                actions += 1
    finally:
        server.running.stop(0)
        plain.close()
    return {"writes": writes / actions, "reads": reads / actions, "round_trips": round_trips / actions}


def _count_round_trips(client: Any) -> list[int]:
    """Counts every round trip of the server's Redis client (``evalsha`` goes through ``execute``)."""
    count = [0]
    for name in ("execute", "pipeline"):
        method = getattr(client, name)

        async def counted(*args: Any, _method: Any = method) -> Any:
            count[0] += 1
            return await _method(*args)
        setattr(client, name, counted)
    return count


def _calls(client: redis.Redis) -> dict[str, int]:
    stats = client.info("commandstats")
    return {name: stats.get(f"cmdstat_{name}", {}).get("calls", 0) for name in ("evalsha", "hmget")}


def test_a_copy_of_the_same_version_but_another_document_is_refused_and_replaced(redis_url: str) -> None:
    """The store's part of the failover case: versions equal, stamps differ (a lost write), so the
    compare-and-set refuses and answers the stored document, which replaces the copy."""
    async def run() -> list[Any]:
        mine, theirs = GameStore(connect(redis_url), cache_games=10), GameStore(connect(redis_url), cache_games=10)
        game_id = f"lost-{uuid.uuid4().hex}"
        plain = connect(redis_url)
        try:
            await mine.write(game_id, 0, b"v1", b"{}", 60)
            saved = {key: await plain.execute("DUMP", key) for key in (keys.game(game_id), keys.stream(game_id))}
            await mine.write(game_id, 1, b"lost", b"{}", 60, stamp=(await theirs.load(game_id)).stamp)
            for key, value in saved.items():  # the replica that becomes primary never got that write
                await plain.execute("RESTORE", key, 0, value, "REPLACE")
            stored = await theirs.write(game_id, 1, b"kept", b"{}", 60, stamp=(await theirs.load(game_id)).stamp)
            copy = mine.cached(game_id)
            assert copy is not None and (copy.version, copy.doc) == (2, b"lost")
            refused = await mine.write(game_id, 2, b"built on lost", b"{}", 60, stamp=copy.stamp)
            fresh = mine.cached(game_id)
            assert fresh is not None
            return [stored, refused, (fresh.version, fresh.doc), await plain.execute("HGET", keys.game(game_id), "doc")]
        finally:
            for client in (mine.client, theirs.client, plain):
                await client.close()
    assert asyncio.run(run()) == [(True, 2), (False, 2), (2, b"kept"), b"kept"]
