"""A whole game through the real service: its log and seed replay to the exact final state;
finished games expire after the configured time."""

from __future__ import annotations

import json
import random

import grpc
import redis
from tabletop.v1 import game_pb2, game_service_pb2_grpc
from tabletop.v1 import game_service_pb2 as svc

from tabletop_server.service.engine import registry
from tabletop_server.service.engine.replay import replay
from tabletop_server.service.store import keys
from tests.conftest import start_grpc
from tests.helpers import create_game, play, read_all


def test_full_game_replays_exactly_and_expires(redis_url) -> None:
    server = start_grpc(redis_url, finished_game_ttl_seconds=600, game_ttl_seconds=3600)
    try:
        with grpc.insecure_channel(server.target) as ch:
            stub = game_service_pb2_grpc.GameServiceStub(ch)
            game, tokens = create_game(stub, seats=2, seed=4242)
            client = redis.Redis.from_url(redis_url)
            game_id = game.name.split("/")[1]
            assert 0 < client.ttl(keys.game(game_id)) <= 3600
            play(stub, game.name, tokens, 3000, random.Random(9))
            final = stub.GetGame(svc.GetGameRequest(name=game.name))
            assert final.game.status == game_pb2.GAME_STATUS_FINISHED
            pages = read_all(stub, game.name)
            assert all(p.complete and p.seed == 4242 for p in pages)
            entries = [e for p in pages for e in p.entries]
            ruleset = registry.get("ttr-europe")
            actions = [(e.seat, ruleset.decode_action(e.action.ttr_europe)) for e in entries if e.HasField("action")]
            stored = json.loads(client.hget(keys.game(game_id), "doc"))
            state = replay(ruleset, stored["options"], 2, pages[0].seed, actions)
            assert state == stored["state"]
            assert 0 < client.ttl(keys.game(game_id)) <= 600
            assert 0 < client.ttl(keys.stream(game_id)) <= 600
            scored = [ev for e in entries for ev in e.events if ev.ttr_europe.HasField("game_scored")]
            assert len(scored) == 1
    finally:
        server.running.stop(0)
