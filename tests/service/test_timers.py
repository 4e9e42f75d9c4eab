"""Bot seats and turn timers through the running service (issue 16): real gRPC, real Redis.

Every replica sweeps the one deadline index, so the servers here race on purpose: a decision is
made once, by a bot, at its due time, whichever replica (or none, for a while) is up.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import grpc
import pytest
from tabletop.v1 import game_pb2, game_service_pb2_grpc
from tabletop.v1 import game_service_pb2 as svc

from tabletop_server.service.api import timers
from tabletop_server.service.engine import bots, registry
from tabletop_server.service.store.deadlines import Claim
from tests.conftest import GrpcServer, start_grpc
from tests.helpers import bearer, error_info, read_all
from tests.service.webhook_kit import private_redis_server

FAST = {"bot_delay_seconds": 0.0, "timer_poll_seconds": 0.02}
LIFECYCLE = game_pb2.LifecycleEvent


@pytest.fixture
def private_redis(tmp_path: Any) -> Iterator[tuple[str, Any]]:
    """A redis-server of the test's own: no other test's sweeper reaches it (and it can be stopped)."""
    with private_redis_server(tmp_path) as (url, proc):
        yield url, proc


@pytest.fixture
def fast_server(redis_url: str) -> Iterator[GrpcServer]:
    server = start_grpc(redis_url, **FAST)
    yield server
    server.running.stop(0)


def _stub(server: GrpcServer) -> tuple[grpc.Channel, Any]:
    channel = grpc.insecure_channel(server.target)
    return channel, game_service_pb2_grpc.GameServiceStub(channel)


@contextmanager
def _stopping(server: GrpcServer) -> Iterator[None]:
    try:
        yield
    finally:
        server.running.stop(0)


def _wait(stub: Any, name: str, done: Any, seconds: float = 30.0) -> svc.GetGameResponse:
    """The game once ``done`` holds, read every 50 ms; after ``seconds`` the game as it is (the test's assertion
    then says what is missing). 30 s is sized for a loaded 2-core machine: a bot due at once played 3 s late in
    a run of the README's command beside a busy loop and other tests, and a wait that ends early costs nothing."""
    deadline = time.monotonic() + seconds
    while True:
        game = stub.GetGame(svc.GetGameRequest(name=name))
        if done(game) or time.monotonic() > deadline:
            return game
        time.sleep(0.05)


def _wait_finished(stub: Any, name: str, stall: float = 30.0, limit: float = 900.0) -> svc.GetGameResponse:
    """The game once finished, waiting as long as it moves on.

    A game of bots is hundreds of moves; on a loaded machine (CI runs the suite on every core) it
    may take minutes. What the tests check is that it plays to the end on its own, so they fail
    when it stops moving for `stall` seconds, never because the machine was busy.
    """
    deadline, seen, moved = time.monotonic() + limit, -1, time.monotonic()
    while True:
        game = stub.GetGame(svc.GetGameRequest(name=name))
        now = time.monotonic()
        if game.game.version != seen:
            seen, moved = game.game.version, now
        if game.game.status == game_pb2.GAME_STATUS_FINISHED or now - moved > stall or now > deadline:
            return game
        time.sleep(0.05)


def _bot_entries(stub: Any, name: str) -> list[tuple[Any, LIFECYCLE]]:
    """(log entry, its BOT_PLAYED event) of every bot move, in order."""
    out = []
    for page in read_all(stub, name):
        for entry in page.entries:
            for event in entry.events:
                if event.WhichOneof("kind") == "lifecycle" and event.lifecycle.kind == LIFECYCLE.KIND_BOT_PLAYED:
                    out.append((entry, event.lifecycle))
    return out


@pytest.mark.parametrize(("ruleset", "seats"), [("ttr-europe", 2), ("ttr-europe", 5), ("bang", 4), ("bang", 7)])
def test_a_game_of_bots_plays_to_the_end_on_its_own(private_redis: tuple[str, Any], ruleset: str, seats: int) -> None:
    # A Redis of its own: in the suite's Redis, any other test's server may claim this game's due decisions
    # and be stopped before making them, and each such claim holds the game for a lease of 15 s (two made the
    # game look stalled for 30 s under load). What this test checks is one server playing a game to its end.
    server = start_grpc(private_redis[0], **FAST)
    channel, stub = _stub(server)
    with channel, _stopping(server):
        created = stub.CreateGame(svc.CreateGameRequest(
            ruleset=ruleset, seat_count=seats, seed=11,
            bots=[game_pb2.SeatBot(seat=i, bot="random") for i in range(seats)]))
        assert created.game.status == game_pb2.GAME_STATUS_ACTIVE and not created.credentials
        assert [s.bot for s in created.game.seats] == ["random"] * seats and created.game.deadlines
        watch = stub.WatchGame(svc.WatchGameRequest(name=created.game.name), timeout=900)
        game = _wait_finished(stub, created.game.name)
        assert game.game.status == game_pb2.GAME_STATUS_FINISHED and not game.game.deadlines
        versions = []
        for update in watch:  # the watcher saw every move arrive, in order, once
            versions.append(update.version)
            if update.version == game.game.version:
                break
        watch.cancel()
        assert versions == sorted(set(versions)) and versions[-1] == game.game.version
        moves = _bot_entries(stub, created.game.name)
        assert len(moves) == game.game.action_count and all(not e.timed_out for _, e in moves)


def test_a_persons_decision_times_out_to_the_bot_and_the_bot_keeps_the_seat_after_the_strikes(
        fast_server: GrpcServer) -> None:
    channel, stub = _stub(fast_server)
    with channel:
        created = stub.CreateGame(svc.CreateGameRequest(
            ruleset="ttr-europe", seat_count=2, display_names=["ann", "bob"], seed=3,
            turn_timer=game_pb2.TurnTimer(decision_seconds=1, bot="random", takeover_after=2)))
        name = created.game.name
        assert created.game.turn_timer.decision_seconds == 1
        due = {d.seat: d.due_time.ToMicroseconds() / 1e6 for d in created.game.deadlines}
        assert set(due) == {0, 1}  # both keep their first tickets at once, each on its own clock
        assert all(0 < t - time.time() <= 1.05 for t in due.values())  # due 1 s after creation
        game = _wait(stub, name, lambda g: any(s.bot for s in g.game.seats))
        moves = _bot_entries(stub, name)
        assert [e.timed_out for _, e in moves][:2] == [True, True]
        taken = [s.index for s in game.game.seats if s.bot == "random"]
        assert taken, "after two timed-out decisions in a row the bot keeps the seat"
        events = [e.lifecycle for p in read_all(stub, name) for entry in p.entries for e in entry.events
                  if e.WhichOneof("kind") == "lifecycle"]
        assert LIFECYCLE.KIND_SEAT_TAKEN_OVER in [e.kind for e in events]


def test_a_decision_made_in_time_is_not_made_again_by_the_bot(fast_server: GrpcServer) -> None:
    channel, stub = _stub(fast_server)
    with channel:
        created = stub.CreateGame(svc.CreateGameRequest(
            ruleset="ttr-europe", seat_count=2, display_names=["ann", "bob"], seed=3,
            turn_timer=game_pb2.TurnTimer(decision_seconds=2)))
        name, tokens = created.game.name, {c.seat: c.player_token for c in created.credentials}
        for token in tokens.values():  # both keep their tickets in time
            action = stub.ListLegalActions(svc.ListLegalActionsRequest(name=name), metadata=bearer(token)).actions[0]
            stub.SubmitAction(svc.SubmitActionRequest(name=name, action=action), metadata=bearer(token))
        version = stub.GetGame(svc.GetGameRequest(name=name)).game.version
        time.sleep(0.6)  # well before the next decision's 2 s, after the kept tickets' deadlines moved
        assert stub.GetGame(svc.GetGameRequest(name=name)).game.version == version
        assert _bot_entries(stub, name) == []


def test_a_timer_survives_every_replica_stopping_and_fires_once_after(private_redis: tuple[str, Any]) -> None:
    redis_url, _ = private_redis  # no other test's replica may sweep it meanwhile
    first = start_grpc(redis_url, **FAST)
    channel, stub = _stub(first)
    with channel:
        created = stub.CreateGame(svc.CreateGameRequest(
            ruleset="ttr-europe", seat_count=2, display_names=["ann", "bob"], seed=5,
            turn_timer=game_pb2.TurnTimer(decision_seconds=1)))
    first.running.stop(0)  # nobody is up when it is due
    time.sleep(1.5)
    second = start_grpc(redis_url, **FAST)
    try:
        channel, stub = _stub(second)
        with channel:
            _wait(stub, created.game.name, lambda g: g.game.version >= 3)
            moves = _bot_entries(stub, created.game.name)
            assert sorted(e.seat for _, e in moves[:2]) == [0, 1]  # each first decision once, late but made
            assert len({(e.seat, entry.version) for entry, e in moves}) == len(moves)
    finally:
        second.running.stop(0)


def test_three_replicas_racing_make_each_decision_once(private_redis: tuple[str, Any]) -> None:
    """Hundreds of decisions due in the same second, three sweepers: a seat's decisions are at least a
    timer apart (a double firing would make the next one at once) and none is missed."""
    redis_url, _ = private_redis
    servers = [start_grpc(redis_url, **FAST) for _ in range(3)]
    try:
        channel, stub = _stub(servers[0])
        with channel:
            names = [stub.CreateGame(svc.CreateGameRequest(
                ruleset="ttr-europe", seat_count=2, display_names=["a", "b"], seed=i,
                turn_timer=game_pb2.TurnTimer(decision_seconds=1))).game.name for i in range(120)]
            time.sleep(3.8)
            for name in names:
                moves = _bot_entries(stub, name)
                assert len(moves) >= 3, name  # the first two at ~1 s, the next at ~2 s, ~3 s
                by_seat: dict[int, list[float]] = {}
                for entry, event in moves:
                    by_seat.setdefault(event.seat, []).append(entry.time.ToMicroseconds() / 1e6)
                for times in by_seat.values():
                    assert all(b - a >= 0.9 for a, b in itertools.pairwise(times)), (name, times)
    finally:
        for server in servers:
            server.running.stop(0)


@pytest.mark.parametrize(("bots_", "reason"), [
    ([game_pb2.SeatBot(seat=1, bot="random"), game_pb2.SeatBot(seat=1, bot="random")], "SEAT_TAKEN"),
    ([game_pb2.SeatBot(seat=1, bot="genius")], "UNKNOWN_BOT"),
    ([game_pb2.SeatBot(seat=2, bot="random")], "SEAT_OUT_OF_RANGE"),  # no seat 2 at a 2-seat table
])
def test_bot_seats_are_checked(stub: Any, bots_: list[game_pb2.SeatBot], reason: str) -> None:
    with pytest.raises(grpc.RpcError) as err:
        stub.CreateGame(svc.CreateGameRequest(ruleset="ttr-europe", seat_count=2, display_names=["ann"], bots=bots_))
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT and error_info(err.value).reason == reason


def test_a_turn_timers_bot_must_exist(stub: Any) -> None:
    with pytest.raises(grpc.RpcError) as err:
        stub.CreateGame(svc.CreateGameRequest(ruleset="ttr-europe", seat_count=2,
                                              turn_timer=game_pb2.TurnTimer(decision_seconds=5, bot="genius")))
    assert error_info(err.value).reason == "UNKNOWN_BOT"


def test_a_game_with_a_bot_seat_waits_for_its_people_then_the_bot_plays(fast_server: GrpcServer) -> None:
    channel, stub = _stub(fast_server)
    with channel:
        created = stub.CreateGame(svc.CreateGameRequest(ruleset="ttr-europe", seat_count=2, seed=2,
                                                        bots=[game_pb2.SeatBot(seat=1, bot="random")]))
        assert created.game.status == game_pb2.GAME_STATUS_WAITING and not created.game.deadlines
        joined = stub.JoinGame(svc.JoinGameRequest(name=created.game.name, display_name="ann"))
        assert joined.credential.seat == 0
        game = _wait(stub, created.game.name, lambda g: 1 not in {d.seat for d in g.game.deadlines})
        moves = _bot_entries(stub, created.game.name)
        assert [e.seat for _, e in moves] == [1] and [d.seat for d in game.game.deadlines] == []


# The pure parts, on a real game document

def _doc(seats: int = 2, **extra: Any) -> tuple[dict[str, Any], Any]:
    ruleset = registry.get("ttr-europe")
    assert ruleset is not None
    return {"status": "ACTIVE", "seed": 9, "state": ruleset.setup({}, seats, 9), **extra}, ruleset


def test_plan_keeps_a_seats_clock_while_it_thinks_and_restarts_it_for_its_next_decision() -> None:
    doc, ruleset = _doc(timer={"seconds": 30, "bot": "random", "takeover_after": 0})
    assert timers.plan(doc, ruleset, None, 100.0, 1.0) == 130.0
    assert doc["waiting"] == {"0": 130.0, "1": 130.0}
    assert timers.plan(doc, ruleset, None, 110.0, 1.0) == 130.0  # nobody decided: clocks kept
    assert timers.plan(doc, ruleset, 0, 110.0, 1.0) == 130.0 and doc["waiting"]["0"] == 140.0
    doc["status"] = "FINISHED"
    assert timers.plan(doc, ruleset, None, 120.0, 1.0) is None and "waiting" not in doc


def test_plan_gives_a_bots_seat_the_bot_delay_and_a_game_without_either_no_deadline() -> None:
    doc, ruleset = _doc(bots={"1": "random"})
    assert timers.plan(doc, ruleset, None, 100.0, 0.5) == 100.5 and doc["waiting"] == {"1": 100.5}
    plain, _ = _doc()
    assert timers.plan(plain, ruleset, None, 100.0, 0.5) is None and "waiting" not in plain


def test_the_first_due_seat_is_the_earliest_and_none_before_its_time() -> None:
    doc = {"waiting": {"0": 12.0, "1": 11.0}}
    assert timers.due_seat(doc, 10.9) is None
    assert timers.due_seat(doc, 11.0) == 1 and timers.due_seat(doc, 12.5) == 1


def test_a_bot_move_is_legal_and_replays_and_counts_strikes_to_the_takeover() -> None:
    doc, ruleset = _doc(timer={"seconds": 30, "bot": "random", "takeover_after": 2})
    legal = ruleset.legal_actions(doc["state"], 0)
    action, events = timers.bot_move(doc, ruleset, 0, 4)
    assert action in legal and timers.bot_move(dict(doc, strikes={}), ruleset, 0, 4)[0] == action
    assert events == [["l", {"kind": "BOT_PLAYED", "seat": 0, "bot": "random", "timed_out": True}]]
    assert doc["strikes"] == {"0": 1}
    timers.person_acted(doc, 0)
    assert doc["strikes"] == {}
    timers.bot_move(doc, ruleset, 0, 5)
    _, events = timers.bot_move(doc, ruleset, 0, 6)
    assert events[-1] == ["l", {"kind": "SEAT_TAKEN_OVER", "seat": 0, "bot": "random"}]
    assert doc["bots"] == {"0": "random"} and "0" not in doc["strikes"]
    _, events = timers.bot_move(doc, ruleset, 0, 7)  # now the bot's own seat: no strike, not timed out
    assert events == [["l", {"kind": "BOT_PLAYED", "seat": 0, "bot": "random", "timed_out": False}]]


def test_a_bot_that_chooses_an_illegal_action_is_refused() -> None:
    doc, ruleset = _doc()

    class Ruleset:
        def __init__(self) -> None:
            self.BOTS = {"bad": lambda view, legal, rng: {"type": "nonsense"}}

        def __getattr__(self, name: str) -> Any:
            return getattr(ruleset, name)

    with pytest.raises(ValueError, match="not legal"):
        bots.choose(Ruleset(), doc["state"], 0, "bad", 1)  # type: ignore[arg-type]
    with pytest.raises(KeyError):
        bots.choose(ruleset, doc["state"], 0, "genius", 1)


def test_a_sweep_that_fails_is_counted_and_the_due_game_is_played_once_redis_is_back() -> None:
    """Redis away while a decision is due: the sweep fails (counted), nothing is dropped, and the
    game is played at the first sweep after Redis returns."""
    import asyncio

    class Index:
        def __init__(self) -> None:
            self.down, self.entries = 3, {"g1": 1.0}
            self.released: list[str] = []

        async def claim(self, now: float, lease_end: float, limit: int) -> list[Claim]:
            if self.down:
                self.down -= 1
                raise ConnectionError("Redis is away")
            claimed = [Claim(g, int(lease_end), False) for g, due in self.entries.items() if due <= now]
            for claim in claimed:
                del self.entries[claim.member]
            return claimed

        async def schedule(self, game_id: str, due: float) -> None:
            self.entries[game_id] = due

        async def release(self, game_id: str, lease: int) -> None:
            self.released.append(game_id)

    index, played, errors = Index(), [], []

    async def play_due(game_id: str) -> float | None:
        played.append(game_id)
        return None

    sweeper = timers.Sweeper(index, play_due, poll=0.001, lease=5, batch=10, clock=lambda: 2.0,
                             on_error=lambda: errors.append(1))

    async def run() -> None:
        task = asyncio.ensure_future(sweeper.run())
        await asyncio.sleep(0.2)
        task.cancel()
    asyncio.run(run())
    assert len(errors) == 3 and played == ["g1"] and index.released == ["g1"]


def test_bot_moves_and_their_lag_are_in_the_metrics(fast_server: GrpcServer) -> None:
    channel, stub = _stub(fast_server)
    metrics = fast_server.running.metrics
    before = metrics.bot_moves.labels("bot_seat")._value.get()
    with channel:
        created = stub.CreateGame(svc.CreateGameRequest(ruleset="ttr-europe", seat_count=2, seed=4,
                                                        bots=[game_pb2.SeatBot(seat=i, bot="random") for i in range(2)]))
        _wait_finished(stub, created.game.name)  # hundreds of moves
    assert metrics.bot_moves.labels("bot_seat")._value.get() > before
    assert metrics.timer_lag._sum.get() >= 0
    time.sleep(0.2)  # a sweep or two later, the gauge has been read from the index
    assert metrics.timers_due._value.get() >= 0


def test_a_seat_handed_to_a_bot_is_played_by_it_and_taken_back_with_the_same_token(fast_server: GrpcServer) -> None:
    channel, stub = _stub(fast_server)
    with channel:
        created = stub.CreateGame(svc.CreateGameRequest(ruleset="ttr-europe", seat_count=2, seed=8,
                                                        display_names=["ann", "bob"]))
        name, tokens = created.game.name, {c.seat: c.player_token for c in created.credentials}
        handed = stub.SetSeatBot(svc.SetSeatBotRequest(name=name, bot="random"), metadata=bearer(tokens[1]))
        assert [s.bot for s in handed.game.seats] == ["", "random"]
        _wait(stub, name, lambda g: 1 not in {d.seat for d in g.game.deadlines})
        assert [e.seat for _, e in _bot_entries(stub, name)] == [1]  # it kept bob's tickets; ann still thinks
        back = stub.SetSeatBot(svc.SetSeatBotRequest(name=name), metadata=bearer(tokens[1]))
        assert [s.bot for s in back.game.seats] == ["", ""]
        kinds = [e.lifecycle.kind for p in read_all(stub, name) for entry in p.entries for e in entry.events
                 if e.WhichOneof("kind") == "lifecycle"]
        assert [k for k in kinds if k in (LIFECYCLE.KIND_SEAT_TAKEN_OVER, LIFECYCLE.KIND_SEAT_TAKEN_BACK)] == [
            LIFECYCLE.KIND_SEAT_TAKEN_OVER, LIFECYCLE.KIND_SEAT_TAKEN_BACK]
        with pytest.raises(grpc.RpcError) as err:  # no bot plays it now
            stub.SetSeatBot(svc.SetSeatBotRequest(name=name), metadata=bearer(tokens[1]))
        assert err.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert error_info(err.value).reason == "NOT_A_BOT_SEAT"
        with pytest.raises(grpc.RpcError) as err:
            stub.SetSeatBot(svc.SetSeatBotRequest(name=name, bot="genius"), metadata=bearer(tokens[1]))
        assert error_info(err.value).reason == "UNKNOWN_BOT"
        with pytest.raises(grpc.RpcError) as err:
            stub.SetSeatBot(svc.SetSeatBotRequest(name=name, bot="random"))
        assert err.value.code() == grpc.StatusCode.UNAUTHENTICATED


def test_a_bot_can_join_an_open_seat_and_the_joiner_can_take_it_back(fast_server: GrpcServer) -> None:
    channel, stub = _stub(fast_server)
    with channel:
        created = stub.CreateGame(svc.CreateGameRequest(ruleset="ttr-europe", seat_count=2, seed=8,
                                                        display_names=["ann"]))
        joined = stub.JoinGame(svc.JoinGameRequest(name=created.game.name, display_name="robo", bot="random"))
        assert joined.game.status == game_pb2.GAME_STATUS_ACTIVE and joined.game.seats[1].bot == "random"
        _wait(stub, created.game.name, lambda g: 1 not in {d.seat for d in g.game.deadlines})
        back = stub.SetSeatBot(svc.SetSeatBotRequest(name=created.game.name),
                               metadata=bearer(joined.credential.player_token))
        assert back.game.seats[1].bot == ""


def test_a_claim_left_by_a_replica_that_died_is_taken_again_after_its_lease(
        private_redis: tuple[str, Any]) -> None:
    """A replica claims a due game and dies before acting: another replica takes the claim once the lease
    has run out, and the decision is made once."""
    url, _ = private_redis
    server = start_grpc(url, **FAST, timer_lease_seconds=0.5)
    channel, stub = _stub(server)
    try:
        with channel:
            sweeper = server.running.sweeper
            assert sweeper is not None
            server.running.loop.call_soon_threadsafe(sweeper.cancel)  # this replica's sweeper "died"
            created = stub.CreateGame(svc.CreateGameRequest(
                ruleset="ttr-europe", seat_count=2, display_names=["ann", "bob"], seed=6,
                turn_timer=game_pb2.TurnTimer(decision_seconds=1)))
            game_id = created.game.name.removeprefix("games/")
            index = _index(server)
            time.sleep(1.1)
            claimed = server.running.call(index.claim(time.time(), time.time() + 0.5, 1000))
            assert game_id in [c.member for c in claimed]  # claimed, never released, nothing done
            time.sleep(0.2)
            assert _bot_entries(stub, created.game.name) == []
            rescuer = start_grpc(url, **FAST)
            try:
                _wait(stub, created.game.name, lambda g: g.game.version >= 3)
                moves = _bot_entries(stub, created.game.name)
                assert sorted(e.seat for _, e in moves[:2]) == [0, 1]
            finally:
                rescuer.running.stop(0)
    finally:
        server.running.stop(0)


def _index(server: GrpcServer) -> Any:
    from tabletop_server.service.store.deadlines import Deadlines
    return Deadlines(server.running.store.client)


def test_timers_due_while_redis_is_away_fire_once_it_is_back(private_redis: tuple[str, Any]) -> None:
    """The redis-server stopped (SIGSTOP) across the due time, longer than the client's timeout:
    sweeps fail and are counted, and once Redis answers again each due decision is made once."""
    import signal

    url, redis_proc = private_redis
    server = start_grpc(url, **FAST)
    try:
        channel, stub = _stub(server)
        with channel:
            created = stub.CreateGame(svc.CreateGameRequest(
                ruleset="ttr-europe", seat_count=2, display_names=["ann", "bob"], seed=6,
                turn_timer=game_pb2.TurnTimer(decision_seconds=1)))
            redis_proc.send_signal(signal.SIGSTOP)
            try:
                time.sleep(6.5)  # past the due time and past the Redis client's 5 s timeout
            finally:
                redis_proc.send_signal(signal.SIGCONT)
            game = _wait(stub, created.game.name, lambda g: g.game.version >= 3)
            assert game.game.version >= 3
            moves = _bot_entries(stub, created.game.name)
            assert sorted(e.seat for _, e in moves[:2]) == [0, 1]
            assert server.running.metrics.timer_sweep_errors._value.get() >= 1
    finally:
        server.running.stop(0)
