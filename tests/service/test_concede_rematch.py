"""ConcedeGame, RematchGame and TurnTimer.concede_after through the running service (issues 15, 16):
real gRPC, real Redis."""

from __future__ import annotations

import json
import random
import threading
import time
from typing import Any

import grpc
import pytest
import redis
from tabletop.v1 import bang_pb2, game_pb2
from tabletop.v1 import game_service_pb2 as svc

from tabletop_server.service.engine import registry
from tabletop_server.service.engine.replay import replay
from tabletop_server.service.store import keys
from tests.conftest import start_grpc
from tests.helpers import bearer, create_game, error_info, play, read_all

LIFECYCLE = game_pb2.LifecycleEvent


def concede(stub: Any, name: str, token: str, request_id: str = "") -> svc.ConcedeGameResponse:
    return stub.ConcedeGame(svc.ConcedeGameRequest(name=name, request_id=request_id), metadata=bearer(token))


def lifecycle(stub: Any, name: str, token: str | None = None) -> list[game_pb2.LifecycleEvent]:
    return [e.lifecycle for p in read_all(stub, name, token) for entry in p.entries for e in entry.events
            if e.WhichOneof("kind") == "lifecycle"]


def refused(call: Any, code: grpc.StatusCode, reason: str) -> None:
    with pytest.raises(grpc.RpcError) as err:
        call()
    assert err.value.code() == code, err.value.details()
    assert error_info(err.value).reason == reason


def test_a_ttr_seat_concedes_its_turns_pass_it_by_and_others_are_told(stub: Any) -> None:
    game, tokens = create_game(stub, seats=3, seed=11)
    play(stub, game.name, tokens, 3, random.Random(1))  # the starting tickets
    done = concede(stub, game.name, tokens[1], request_id="c-1")
    assert done.game.seats[1].conceded and not done.game.seats[0].conceded
    assert done.view.ttr_europe.players[1].conceded
    assert [e.lifecycle.kind for e in done.events if e.WhichOneof("kind") == "lifecycle"] == [
        LIFECYCLE.KIND_SEAT_CONCEDED]
    again = concede(stub, game.name, tokens[1], request_id="c-1")  # a retry: answered once
    assert again == done
    refused(lambda: concede(stub, game.name, tokens[1]), grpc.StatusCode.FAILED_PRECONDITION, "SEAT_CONCEDED")
    legal = stub.ListLegalActions(svc.ListLegalActionsRequest(name=game.name), metadata=bearer(tokens[1]))
    assert list(legal.actions) == []
    view = stub.GetGame(svc.GetGameRequest(name=game.name), metadata=bearer(tokens[0]))
    assert view.game.version == done.game.version  # the retry wrote nothing
    kinds = [e.kind for e in lifecycle(stub, game.name, tokens[0])]
    assert kinds.count(LIFECYCLE.KIND_SEAT_CONCEDED) == 1
    conceded = [e for e in lifecycle(stub, game.name, tokens[2]) if e.kind == LIFECYCLE.KIND_SEAT_CONCEDED]
    assert conceded[0].seat == 1 and not conceded[0].timed_out


def test_a_conceded_seat_cannot_act(stub: Any) -> None:
    game, tokens = create_game(stub, seats=3, seed=12)
    legal = stub.ListLegalActions(svc.ListLegalActionsRequest(name=game.name), metadata=bearer(tokens[0]))
    concede(stub, game.name, tokens[0])
    refused(lambda: stub.SubmitAction(svc.SubmitActionRequest(name=game.name, action=legal.actions[0]),
                                      metadata=bearer(tokens[0])), grpc.StatusCode.FAILED_PRECONDITION, "SEAT_CONCEDED")


def test_the_last_seat_standing_wins_and_the_log_replays_with_the_concession(stub: Any, redis_url: str) -> None:
    game, tokens = create_game(stub, seats=2, seed=13)
    play(stub, game.name, tokens, 10, random.Random(2))
    done = concede(stub, game.name, tokens[0])
    assert done.game.status == game_pb2.GAME_STATUS_FINISHED
    assert list(done.view.ttr_europe.winners) == [1]
    pages = read_all(stub, game.name)
    steps: list[tuple[int, Any]] = []
    ruleset = registry.get("ttr-europe")
    for entry in (e for p in pages for e in p.entries):
        if entry.HasField("action"):
            steps.append((entry.seat, ruleset.decode_action(entry.action.ttr_europe)))
        elif any(e.lifecycle.kind == LIFECYCLE.KIND_SEAT_CONCEDED for e in entry.events):
            steps.append((entry.seat, None))
    stored = json.loads(redis.Redis.from_url(redis_url).hget(keys.game(game.name.split("/")[1]), "doc"))
    assert replay(ruleset, stored["options"], 2, pages[0].seed, steps) == stored["state"]


def test_bang_concession_reveals_the_role_to_everyone(stub: Any) -> None:
    game, tokens = create_game(stub, ruleset="bang", seats=5, seed=14)
    view = stub.GetGame(svc.GetGameRequest(name=game.name), metadata=bearer(tokens[0])).view.bang
    sheriff = next(p.seat for p in view.players if p.role == bang_pb2.BANG_ROLE_SHERIFF)
    seat = (sheriff + 1) % 5
    done = concede(stub, game.name, tokens[seat])
    seen = stub.GetGame(svc.GetGameRequest(name=game.name), metadata=bearer(tokens[sheriff])).view.bang
    assert not seen.players[seat].alive and seen.players[seat].role
    assert done.game.seats[seat].conceded


def test_concede_refusals(stub: Any) -> None:
    waiting = stub.CreateGame(svc.CreateGameRequest(ruleset="ttr-europe", seat_count=3, display_names=["a"]))
    token = waiting.credentials[0].player_token
    refused(lambda: concede(stub, waiting.game.name, token), grpc.StatusCode.FAILED_PRECONDITION, "GAME_NOT_STARTED")
    refused(lambda: stub.ConcedeGame(svc.ConcedeGameRequest(name=waiting.game.name)),
            grpc.StatusCode.UNAUTHENTICATED, "MISSING_TOKEN")
    refused(lambda: concede(stub, "games/nosuchgame", token), grpc.StatusCode.NOT_FOUND, "GAME_NOT_FOUND")
    other, _ = create_game(stub, seats=2, seed=15)
    refused(lambda: concede(stub, other.name, token), grpc.StatusCode.PERMISSION_DENIED, "TOKEN_FOR_OTHER_GAME")
    refused(lambda: stub.ConcedeGame(svc.ConcedeGameRequest(name="nope")), grpc.StatusCode.INVALID_ARGUMENT,
            "INVALID_NAME")


def test_leave_points_a_started_game_to_concede(stub: Any) -> None:
    game, tokens = create_game(stub, seats=2, seed=16)
    with pytest.raises(grpc.RpcError) as err:
        stub.LeaveGame(svc.LeaveGameRequest(name=game.name), metadata=bearer(tokens[0]))
    assert error_info(err.value).reason == "GAME_ALREADY_STARTED" and "ConcedeGame" in err.value.details()


def finished_bang(stub: Any, seats: int = 4, **kw: Any) -> tuple[game_pb2.Game, dict[int, str], int]:
    """A BANG! game ended by the Sheriff conceding; returns the game, tokens and the Sheriff's seat."""
    game, tokens = create_game(stub, ruleset="bang", seats=seats, seed=17, **kw)
    view = stub.GetGame(svc.GetGameRequest(name=game.name), metadata=bearer(tokens[0])).view.bang
    sheriff = next(p.seat for p in view.players if p.role == bang_pb2.BANG_ROLE_SHERIFF)
    done = concede(stub, game.name, tokens[sheriff])
    assert done.game.status == game_pb2.GAME_STATUS_FINISHED
    return done.game, tokens, sheriff


def test_a_rematch_is_created_once_and_each_seat_takes_its_own_seat(stub: Any) -> None:
    old, tokens, sheriff = finished_bang(stub)
    first = stub.RematchGame(svc.RematchGameRequest(name=old.name), metadata=bearer(tokens[2]))
    new = first.game
    assert new.rematch_of == old.name and new.status == game_pb2.GAME_STATUS_WAITING
    assert first.credential.seat == 2
    assert [s.display_name for s in new.seats] == [s.display_name for s in old.seats]
    assert [s.reserved for s in new.seats] == [i != 2 for i in range(4)]
    assert new.options.bang.sheriff_seat == (sheriff + 1) % 4  # BANG-033: the role passes on
    told = stub.GetGame(svc.GetGameRequest(name=old.name), metadata=bearer(tokens[0])).game
    assert told.rematch == new.name
    rematch_events = [e for e in lifecycle(stub, old.name) if e.kind == LIFECYCLE.KIND_REMATCH]
    assert [e.game for e in rematch_events] == [new.name]
    refused(lambda: stub.JoinGame(svc.JoinGameRequest(name=new.name, display_name="stranger")),
            grpc.StatusCode.FAILED_PRECONDITION, "SEAT_TAKEN")
    refused(lambda: stub.RematchGame(svc.RematchGameRequest(name=old.name), metadata=bearer(tokens[2])),
            grpc.StatusCode.FAILED_PRECONDITION, "SEAT_TAKEN")
    creds = {2: first.credential.player_token}
    for seat in (0, 1, 3):
        got = stub.RematchGame(svc.RematchGameRequest(name=old.name), metadata=bearer(tokens[seat]))
        assert got.game.name == new.name and got.credential.seat == seat
        creds[seat] = got.credential.player_token
    started = stub.GetGame(svc.GetGameRequest(name=new.name), metadata=bearer(creds[0]))
    assert started.game.status == game_pb2.GAME_STATUS_ACTIVE
    assert started.view.bang.players[(sheriff + 1) % 4].role == bang_pb2.BANG_ROLE_SHERIFF  # shown to all
    assert [e.kind for e in lifecycle(stub, old.name)].count(LIFECYCLE.KIND_REMATCH) == 1


def test_two_seats_asking_at_once_get_the_same_rematch(stub: Any) -> None:
    old, tokens, _ = finished_bang(stub)
    results: dict[int, svc.RematchGameResponse] = {}

    def ask(seat: int) -> None:
        results[seat] = stub.RematchGame(svc.RematchGameRequest(name=old.name), metadata=bearer(tokens[seat]))
    threads = [threading.Thread(target=ask, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len({r.game.name for r in results.values()}) == 1
    assert sorted(r.credential.seat for r in results.values()) == [0, 1, 2, 3]
    name = results[0].game.name
    assert stub.GetGame(svc.GetGameRequest(name=name)).game.status == game_pb2.GAME_STATUS_ACTIVE
    assert [e.kind for e in lifecycle(stub, old.name)].count(LIFECYCLE.KIND_REMATCH) == 1


def test_a_rematch_keeps_bots_and_options_and_needs_a_finished_game(stub: Any) -> None:
    created = stub.CreateGame(svc.CreateGameRequest(
        ruleset="ttr-europe", seat_count=3, display_names=["ann", "bob"], seed=18,
        bots=[game_pb2.SeatBot(seat=2, bot="random")],
        options=game_pb2.GameOptions(ttr_europe={"tunnel_failure_discards": True})))
    tokens = {c.seat: c.player_token for c in created.credentials}
    name = created.game.name
    refused(lambda: stub.RematchGame(svc.RematchGameRequest(name=name), metadata=bearer(tokens[0])),
            grpc.StatusCode.FAILED_PRECONDITION, "GAME_NOT_FINISHED")
    concede(stub, name, tokens[0])
    concede(stub, name, tokens[1])
    new = stub.RematchGame(svc.RematchGameRequest(name=name), metadata=bearer(tokens[1])).game
    assert new.seats[2].bot == "random" and new.seats[2].occupied and not new.seats[2].reserved
    assert new.options.ttr_europe.tunnel_failure_discards
    refused(lambda: stub.RematchGame(svc.RematchGameRequest(name=name)), grpc.StatusCode.UNAUTHENTICATED,
            "MISSING_TOKEN")
    last = stub.RematchGame(svc.RematchGameRequest(name=name), metadata=bearer(tokens[0])).game
    assert last.status == game_pb2.GAME_STATUS_ACTIVE


def test_a_reserved_seat_given_up_opens_for_anyone(stub: Any) -> None:
    old, tokens, _ = finished_bang(stub)
    got = stub.RematchGame(svc.RematchGameRequest(name=old.name), metadata=bearer(tokens[0]))
    stub.LeaveGame(svc.LeaveGameRequest(name=got.game.name), metadata=bearer(got.credential.player_token))
    joined = stub.JoinGame(svc.JoinGameRequest(name=got.game.name, display_name="newcomer"))
    assert joined.credential.seat == 0


@pytest.mark.parametrize(("ruleset", "seats"), [("ttr-europe", 2), ("bang", 4)])
def test_a_timer_with_concede_after_concedes_the_seat(redis_url: str, ruleset: str, seats: int) -> None:
    server = start_grpc(redis_url, bot_delay_seconds=0.0, timer_poll_seconds=0.02)
    try:
        with grpc.insecure_channel(server.target) as channel:
            from tabletop.v1 import game_service_pb2_grpc
            stub = game_service_pb2_grpc.GameServiceStub(channel)
            created = stub.CreateGame(svc.CreateGameRequest(
                ruleset=ruleset, seat_count=seats, display_names=[f"p{i}" for i in range(seats)], seed=19,
                turn_timer=game_pb2.TurnTimer(decision_seconds=1, concede_after=1)))
            assert created.game.turn_timer.concede_after == 1
            name = created.game.name
            deadline = time.time() + 10
            while time.time() < deadline:
                game = stub.GetGame(svc.GetGameRequest(name=name)).game
                if any(s.conceded for s in game.seats):
                    break
                time.sleep(0.05)
            out = [s.index for s in game.seats if s.conceded]
            assert out, "the seat whose decision timed out conceded"
            events = [e for e in lifecycle(stub, name) if e.kind == LIFECYCLE.KIND_SEAT_CONCEDED]
            assert events and all(e.timed_out for e in events)
            assert not any(e.kind == LIFECYCLE.KIND_BOT_PLAYED for e in lifecycle(stub, name))
    finally:
        server.running.stop(0)
