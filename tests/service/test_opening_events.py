"""What setup does in the open (BANG!'s Sheriff starts his turn by himself) is announced with the
game's creation, projected per seat like any event, and the replay still matches."""

from __future__ import annotations

import json

import redis
from tabletop.v1 import game_service_pb2 as svc

from tabletop_server.service.engine import registry
from tabletop_server.service.engine.replay import replay
from tabletop_server.service.store import keys
from tests.helpers import bearer, create_game


def test_bang_first_turn_is_announced_and_projected(stub, redis_url) -> None:
    game, tokens = create_game(stub, ruleset="bang", seats=5, seed=9)
    view = stub.GetGame(svc.GetGameRequest(name=game.name)).view.bang
    logs = {seat: stub.GetGameLog(svc.GetGameLogRequest(name=game.name), metadata=bearer(token))
            for seat, token in tokens.items()}
    first = {seat: [e.bang for e in log.entries[0].events if e.HasField("bang")] for seat, log in logs.items()}
    assert all(first.values()), "every seat hears that the first turn started"
    drawn = {seat: [c for e in events for m in [e] for c in str(m).split() if "base." in c]
             for seat, events in first.items()}
    sheriff = max(drawn, key=lambda s: len(drawn[s]))
    assert drawn[sheriff], "the Sheriff sees the cards he drew"
    assert all(not drawn[s] for s in drawn if s != sheriff), "no one else sees them"
    assert view is not None
    stored = json.loads(redis.Redis.from_url(redis_url).hget(keys.game(game.name.split("/")[1]), "doc"))
    ruleset = registry.get("bang")
    assert "opening" not in stored["state"]
    assert replay(ruleset, stored["options"], 5, 9, []) == stored["state"]
