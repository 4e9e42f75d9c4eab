"""End to end over real gRPC and a real Redis: create, join, view, legal actions, act, watch, log."""

from __future__ import annotations

import random
import threading

import grpc
import pytest
from tabletop.v1 import game_pb2
from tabletop.v1 import game_service_pb2 as svc

from tests.helpers import bearer, create_game, deciding_seat, error_info, play


def test_list_rulesets_offers_ttr_europe(stub) -> None:
    rulesets = {r.id: r for r in stub.ListRulesets(svc.ListRulesetsRequest()).rulesets}
    ttr = rulesets["ttr-europe"]
    assert (ttr.min_seats, ttr.max_seats) == (2, 5)
    assert ttr.rules_version
    assert any("tunnel" in o.name.lower() for o in ttr.options)


def test_create_with_names_starts_at_once(stub) -> None:
    game, tokens = create_game(stub, seats=3)
    assert game.name.startswith("games/")
    assert game.status == game_pb2.GAME_STATUS_ACTIVE
    assert game.version == 1
    assert sorted(tokens) == [0, 1, 2]
    assert [s.display_name for s in game.seats] == ["p0", "p1", "p2"]


def test_join_fills_seats_then_game_starts(stub) -> None:
    created = stub.CreateGame(svc.CreateGameRequest(ruleset="ttr-europe", seat_count=2, display_names=["ann"]))
    assert created.game.status == game_pb2.GAME_STATUS_WAITING
    name = created.game.name
    token0 = created.credentials[0].player_token
    # no decision before every seat is taken
    assert not stub.ListLegalActions(svc.ListLegalActionsRequest(name=name), metadata=bearer(token0)).actions
    any_action = game_pb2.Action(ttr_europe={"draw_tickets": {}})
    with pytest.raises(grpc.RpcError) as err:
        stub.SubmitAction(svc.SubmitActionRequest(name=name, action=any_action), metadata=bearer(token0))
    assert err.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert error_info(err.value).reason == "GAME_NOT_STARTED"
    joined = stub.JoinGame(svc.JoinGameRequest(name=name, display_name="bob"))
    assert joined.credential.seat == 1
    assert joined.game.status == game_pb2.GAME_STATUS_ACTIVE
    assert joined.game.version == 2
    with pytest.raises(grpc.RpcError) as err:
        stub.JoinGame(svc.JoinGameRequest(name=name, display_name="cy"))
    assert err.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert error_info(err.value).reason == "GAME_ALREADY_STARTED"


def test_seat_view_has_private_part_spectator_does_not(stub) -> None:
    game, tokens = create_game(stub, seats=3)
    mine = stub.GetGame(svc.GetGameRequest(name=game.name), metadata=bearer(tokens[1]))
    assert mine.viewer_seat == 1
    assert mine.view.ttr_europe.HasField("private")
    assert mine.view.ttr_europe.private.seat == 1
    assert sum(c.count for c in mine.view.ttr_europe.private.hand) == 4
    spectator = stub.GetGame(svc.GetGameRequest(name=game.name))
    assert not spectator.HasField("viewer_seat")
    assert not spectator.view.ttr_europe.HasField("private")


def test_legal_actions_can_be_sent_back_unchanged(stub) -> None:
    game, tokens = create_game(stub, seats=3)
    version = game.version
    for seat, token in tokens.items():  # initial ticket choice: simultaneous, any order
        actions = stub.ListLegalActions(svc.ListLegalActionsRequest(name=game.name), metadata=bearer(token)).actions
        assert actions and all(a.ttr_europe.HasField("keep_tickets") for a in actions)
        reply = stub.SubmitAction(svc.SubmitActionRequest(name=game.name, action=actions[-1]), metadata=bearer(token))
        version += 1
        assert reply.game.version == version
    seat, actions = deciding_seat(stub, game.name, tokens)
    draw = next(a for a in actions if a.ttr_europe.HasField("draw_train_card"))
    reply = stub.SubmitAction(svc.SubmitActionRequest(name=game.name, action=draw), metadata=bearer(tokens[seat]))
    assert reply.game.version == version + 1
    assert any(e.ttr_europe.HasField("train_card_drawn") for e in reply.events)
    assert all(e.version == version + 1 for e in reply.events)


def test_watch_streams_every_later_version(stub) -> None:
    game, tokens = create_game(stub, seats=2, seed=11)
    received: list[svc.WatchGameResponse] = []
    call = stub.WatchGame(svc.WatchGameRequest(name=game.name, from_version=0), metadata=bearer(tokens[0]))

    def consume() -> None:
        try:
            for message in call:
                received.append(message)
                if message.version >= 5:
                    call.cancel()
        except grpc.RpcError:
            pass
    thread = threading.Thread(target=consume)
    thread.start()
    play(stub, game.name, tokens, 4, random.Random(1))
    thread.join(10)
    assert not thread.is_alive()
    versions = [m.version for m in received]
    assert versions == sorted(versions) and versions[:5] == [1, 2, 3, 4, 5]
    assert received[0].events[0].lifecycle.kind == game_pb2.LifecycleEvent.KIND_CREATED


def test_watch_resumes_from_a_version(stub) -> None:
    game, tokens = create_game(stub, seats=2, seed=12)
    play(stub, game.name, tokens, 4, random.Random(2))
    call = stub.WatchGame(svc.WatchGameRequest(name=game.name, from_version=3), metadata=bearer(tokens[1]))
    first = next(iter(call))
    call.cancel()
    assert first.version == 4


def test_watch_far_behind_gets_a_snapshot(grpc_server, redis_url) -> None:
    from tests.conftest import start_grpc
    small = start_grpc(redis_url, watch_backlog=2)
    try:
        with grpc.insecure_channel(small.target) as ch:
            from tabletop.v1 import game_service_pb2_grpc
            stub = game_service_pb2_grpc.GameServiceStub(ch)
            game, tokens = create_game(stub, seats=2, seed=13)
            play(stub, game.name, tokens, 5, random.Random(3))
            call = stub.WatchGame(svc.WatchGameRequest(name=game.name), metadata=bearer(tokens[0]))
            first = next(iter(call))
            call.cancel()
            assert first.HasField("snapshot") and first.version == 6
            assert first.snapshot.view.ttr_europe.private.seat == 0
    finally:
        small.running.stop(0)


def test_log_shows_own_actions_only_until_the_end(stub) -> None:
    game, tokens = create_game(stub, seats=2, seed=14)
    play(stub, game.name, tokens, 2, random.Random(4))
    log = stub.GetGameLog(svc.GetGameLogRequest(name=game.name), metadata=bearer(tokens[0]))
    assert not log.complete and not log.HasField("seed")
    assert [e.version for e in log.entries] == [1, 2, 3]
    for entry in log.entries[1:]:
        assert entry.HasField("action") == (entry.seat == 0)


def test_unknown_game_is_not_found(stub) -> None:
    with pytest.raises(grpc.RpcError) as err:
        stub.GetGame(svc.GetGameRequest(name="games/doesnotexist"))
    assert err.value.code() == grpc.StatusCode.NOT_FOUND
    assert error_info(err.value).reason == "GAME_NOT_FOUND"


def test_max_connection_age_reconnects_transparently(redis_url) -> None:
    """Old connections are closed (a watch on one ends, resumable), new calls just work."""
    import time

    from tabletop.v1 import game_service_pb2_grpc

    from tests.conftest import start_grpc
    aged = start_grpc(redis_url, max_connection_age_seconds=0.5, shutdown_grace_seconds=0.5)
    try:
        with grpc.insecure_channel(aged.target) as ch:
            stub = game_service_pb2_grpc.GameServiceStub(ch)
            game, tokens = create_game(stub, seats=2, seed=15)
            started = time.monotonic()
            with pytest.raises(grpc.RpcError) as err:
                for _ in stub.WatchGame(svc.WatchGameRequest(name=game.name), metadata=bearer(tokens[0]), timeout=10):
                    pass
            assert err.value.code() == grpc.StatusCode.UNAVAILABLE
            assert time.monotonic() - started < 5
            for _ in range(4):  # later calls reconnect by themselves
                assert stub.ListRulesets(svc.ListRulesetsRequest(), wait_for_ready=True).rulesets
                time.sleep(0.3)
    finally:
        aged.running.stop(0)


def test_a_seed_chosen_by_the_creator_is_disclosed(stub) -> None:
    chosen, _ = create_game(stub, seats=2, seed=5)
    drawn, _ = create_game(stub, seats=2, seed=None)
    assert chosen.seed_chosen and not drawn.seed_chosen
    assert stub.GetGame(svc.GetGameRequest(name=chosen.name)).game.seed_chosen
