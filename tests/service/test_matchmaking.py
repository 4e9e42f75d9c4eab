"""Quick play on a real Redis (issue 28, docs/matchmaking.md): matchers racing over hundreds of tickets seat
each exactly once, a seating whose matcher died is finished by the next, and through the running service a
lone ticket is filled with bots and its game played to the end."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from typing import Any

import grpc
import orjson
import pytest
from tabletop.v1 import game_pb2, game_service_pb2_grpc, matchmaking_pb2, player_pb2, rating_pb2
from tabletop.v1 import game_service_pb2 as svc

from tabletop_server.service.api.host import GameHost
from tabletop_server.service.api.identity import Player
from tabletop_server.service.api.matcher import Matcher
from tabletop_server.service.api.quickplay import Quickplay
from tabletop_server.service.config import Config
from tabletop_server.service.store import keys
from tabletop_server.service.store.redis_store import GameStore, connect
from tests.conftest import start_grpc
from tests.helpers import bearer, error_info
from tests.jwks import session_key_pem
from tests.service.test_my_games import guest
from tests.service.webhook_kit import private_redis

Stub = game_service_pb2_grpc.GameServiceStub
STATE = matchmaking_pb2.TicketState


@pytest.fixture(scope="module")
def own_redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with private_redis(tmp_path_factory.mktemp("redis")) as url:
        yield url


# (ruleset, options, min, max, bots_after): the tickets' mix, cycled
MIX = [("ttr-europe", None, 2, 5, 0), ("ttr-europe", None, 3, 4, 0), ("bang", None, 4, 7, 0),
       ("bang", None, 5, 5, 0), ("ttr-europe", None, 2, 2, 0), ("bang", None, 4, 4, 0)]


async def _race(url: str, count: int, matchers: int) -> dict[str, Any]:
    clients = [connect(url) for _ in range(matchers + 1)]
    later = lambda: time.time() + 60  # every anchor has waited long enough to start at its minimum
    try:
        play = Quickplay(clients[0])
        names = []
        for i in range(count):
            ruleset, _, low, high, bots = MIX[i % len(MIX)]
            req = matchmaking_pb2.FindGameRequest(ruleset=ruleset, min_seats=low, max_seats=high, bots_after_seconds=bots)
            player = f"p{i - 6 if i % 50 == 49 else i}"  # now and then a player asks twice in one queue
            names.append((await play.find(Player(player, f"n{i}", "test"), req)).ticket.name)
        names = list(dict.fromkeys(names))  # a player's second ticket in one queue is his first (kept once)
        queues = sorted({n.removeprefix("tickets/").split(".")[0] for n in names})
        config = Config(redis_url=url, player_index=False, bot_delay_seconds=3600)
        racers = [Matcher(GameHost(GameStore(c), config), play.tickets, clock=later) for c in clients[1:]]
        started = time.perf_counter()
        for _ in range(6):
            await asyncio.gather(*(m.match(q) for m in racers for q in queues))
        seconds = time.perf_counter() - started
        tickets = [await play.tickets.get(*n.removeprefix("tickets/").split(".")) for n in names]
        games = {t["game"] for t in tickets if t and t["state"] == "SEATED"}
        docs = {}
        for game in games:
            docs[game] = orjson.loads(await clients[0].execute("HGET", keys.game(game), "doc"))
        waiting = {q: await play.tickets.count(q) for q in queues}
        unmade = {q: await play.tickets.unmade(q) for q in queues}
        return {"tickets": tickets, "docs": docs, "waiting": waiting, "unmade": unmade, "seconds": seconds}
    finally:
        for c in clients:
            await c.close()


def test_racing_matchers_seat_every_ticket_exactly_once(own_redis: str) -> None:
    out = asyncio.run(_race(own_redis, 300, 4))
    tickets, docs = out["tickets"], out["docs"]
    assert all(t is not None for t in tickets)
    seated = [t for t in tickets if t["state"] == "SEATED"]
    by_game: dict[str, list[dict[str, Any]]] = {}
    for t in seated:
        by_game.setdefault(t["game"], []).append(t)
    for game, group in by_game.items():
        doc = docs[game]
        players = [s.get("player") for s in doc["seats"] if s.get("player")]
        assert len(players) == len(set(players)), f"a player twice in {game}"
        assert len({t["seat"] for t in group}) == len(group), f"a seat given twice in {game}"
        assert sorted(players) == sorted(t["player"] for t in group)  # every seat of a player is a ticket's
        for t in group:
            assert doc["seats"][t["seat"]]["player"] == t["player"]
            assert t["min"] <= len(doc["seats"]) <= t["max"]
        assert doc["status"] == "ACTIVE" and not doc["seed_chosen"] and "bots" not in doc
    waiting = [t for t in tickets if t["state"] == "WAITING"]
    assert sum(out["waiting"].values()) == len(waiting)
    assert all(not u for u in out["unmade"].values())
    assert len(tickets) > 250 and len(waiting) < 20  # only what cannot make a table is left (each queue's tail)
    print(f"\n300 tickets, 4 racing matchers: {len(seated)} seated in {len(by_game)} games, {len(waiting)} "
          f"waiting, {out['seconds']:.2f} s")


def test_tickets_behind_five_hundred_that_cannot_meet_are_still_seated(own_redis: str) -> None:
    asyncio.run(_behind_the_stuck(own_redis))


async def _behind_the_stuck(url: str) -> None:
    client = connect(url)
    later = lambda: time.time() + 60
    try:
        play = Quickplay(client)
        queue = "behindstuck00001"
        await play.tickets.describe(queue, {"ruleset": "ttr-europe", "options": {}})
        made = int(time.time() * 1000) - 1000
        stuck = [{"id": f"s{i:04d}", "player": f"s{i}", "rating": 1000.0 + 100 * i, "window": 1.0} for i in range(700)]
        late = [{"id": f"n{i}", "player": f"n{i}", "rating": 0.0, "window": 0.0} for i in range(2)]
        for i, ticket in enumerate(stuck + late):  # 700 rated far apart with narrow windows, then two who can meet
            ticket.update(queue=queue, name=ticket["player"], min=2, max=2, bots_after=0, created=made + i,
                          updated=made + i, state="WAITING")
            await play.tickets.add(queue, ticket["id"], ticket, made + i)
        matcher = Matcher(GameHost(GameStore(client), Config(redis_url=url, player_index=False,
                                                             bot_delay_seconds=3600)), play.tickets, clock=later)
        for _ in range(2):  # the page past the oldest 500 moves at every look: 500-999, then 500 again
            await matcher.match(queue)
        seated = [await play.tickets.get(queue, t["id"]) for t in late]
        assert [t and t["state"] for t in seated] == ["SEATED", "SEATED"] and seated[0]["game"] == seated[1]["game"]
        assert await play.tickets.count(queue) == 700
    finally:
        await client.close()


def test_a_seating_the_rules_refuse_cancels_its_tickets_and_the_queue_goes_on(own_redis: str) -> None:
    async def go() -> tuple[list[Any], list[Any], list[Any]]:
        client = connect(own_redis)
        try:
            play = Quickplay(client)
            queue = "refusedseating01"  # its own queue: no other test's tickets meet these
            await play.tickets.describe(queue, {"ruleset": "ttr-europe", "options": {}})
            made = int(time.time() * 1000) - 1000
            ids = [f"r{i}" for i in range(8)]
            for i, ticket_id in enumerate(ids):
                ticket = {"id": ticket_id, "queue": queue, "player": ticket_id, "name": ticket_id, "min": 2, "max": 2,
                          "window": 0.0, "bots_after": 0, "rating": 0.0, "created": made + i, "updated": made + i,
                          "state": "WAITING"}
                await play.tickets.add(queue, ticket_id, ticket, made + i)
            seating = {"ruleset": "ttr-europe", "options": {}, "seats": 6,
                       "tickets": [{"id": t, "player": t, "name": t, "seat": i} for i, t in enumerate(ids[:6])]}
            assert await play.tickets.seat(queue, "deadbeef0000006a", seating, 1)  # six at Ticket to Ride: never dealt
            config = Config(redis_url=own_redis, player_index=False, bot_delay_seconds=3600)
            await Matcher(GameHost(GameStore(client), config), play.tickets).match(queue)
            tickets = [await play.tickets.get(queue, t) for t in ids]
            return tickets[:6], tickets[6:], await play.tickets.unmade(queue)
        finally:
            await client.close()

    refused, after, unmade = asyncio.run(go())
    assert [t["state"] for t in refused] == ["CANCELLED"] * 6 and not any(t.get("game") for t in refused)
    assert [t["state"] for t in after] == ["SEATED", "SEATED"] and after[0]["game"] == after[1]["game"]
    assert unmade == []


def test_a_seating_whose_matcher_died_is_created_by_the_next(own_redis: str) -> None:
    async def go() -> Any:
        client = connect(own_redis)
        try:
            play = Quickplay(client)
            names = [(await play.find(Player(f"d{i}", f"d{i}", "test"), matchmaking_pb2.FindGameRequest(
                ruleset="ttr-europe", min_seats=2, max_seats=2))).ticket.name for i in range(2)]
            queue, first = names[0].removeprefix("tickets/").split(".")
            second = names[1].split(".")[1]
            seating = {"ruleset": "ttr-europe", "options": (await play.tickets.meta(queue) or {})["options"], "seats": 2,
                       "tickets": [{"id": first, "player": "d0", "name": "d0", "seat": 1},
                                   {"id": second, "player": "d1", "name": "d1", "seat": 0}]}
            assert await play.tickets.seat(queue, "deadbeef00000001", seating, 1)  # then the matcher died
            assert not await play.tickets.seat(queue, "deadbeef00000002", seating, 2)  # nobody seats them again
            before = (await play.get(Player("d0", "d0", "test"), names[0])).ticket  # no game to open yet
            config = Config(redis_url=own_redis, player_index=False)
            await Matcher(GameHost(GameStore(client), config), play.tickets).match(queue)
            after = (await play.get(Player("d0", "d0", "test"), names[0])).ticket
            doc = orjson.loads(await client.execute("HGET", keys.game("deadbeef00000001"), "doc"))
            return doc, await play.tickets.unmade(queue), before, after
        finally:
            await client.close()

    doc, unmade, before, after = asyncio.run(go())
    assert [s["player"] for s in doc["seats"]] == ["d1", "d0"] and unmade == []
    assert (before.state, before.game) == (STATE.TICKET_STATE_WAITING, "")  # seated, but GetGame would not find it
    assert (after.state, after.game, after.seat) == (STATE.TICKET_STATE_SEATED, "games/deadbeef00000001", 1)


@pytest.fixture(scope="module")
def stub(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stub]:
    key = tmp_path_factory.mktemp("session") / "session.pem"
    key.write_bytes(session_key_pem())
    server = start_grpc(redis_url, session_key_file=str(key), guest_sessions=True)
    channel = grpc.insecure_channel(server.target)
    yield game_service_pb2_grpc.GameServiceStub(channel)
    channel.close()
    server.running.stop(0)


def _until(check: Any, bound: float) -> Any:
    end = time.monotonic() + bound
    while True:
        got = check()
        if got or time.monotonic() > end:
            return got
        time.sleep(0.05)


def test_a_lone_ticket_is_filled_with_bots_and_its_game_played_to_the_end(stub: Stub) -> None:
    ann = guest(stub, "ann")
    auth = bearer(ann.access_token)
    ticket = stub.FindGame(matchmaking_pb2.FindGameRequest(ruleset="ttr-europe", min_seats=2, max_seats=3,
                                                           bots_after_seconds=1), metadata=auth, timeout=10).ticket
    assert ticket.state == STATE.TICKET_STATE_WAITING and (ticket.min_seats, ticket.max_seats) == (2, 3)
    again = stub.FindGame(matchmaking_pb2.FindGameRequest(ruleset="ttr-europe", min_seats=2, max_seats=3),
                          metadata=auth, timeout=10).ticket
    assert again.name == ticket.name  # one waiting ticket per player and queue

    def seated() -> Any:
        got = stub.GetTicket(matchmaking_pb2.GetTicketRequest(name=ticket.name), metadata=auth, timeout=10).ticket
        return got if got.state == STATE.TICKET_STATE_SEATED else None

    done = _until(seated, 10)
    assert done, "not seated with bots"
    game = stub.GetGame(svc.GetGameRequest(name=done.game), metadata=auth, timeout=10)
    seats = game.game.seats
    assert len(seats) == 2 and seats[done.seat].player_bound and seats[1 - done.seat].bot == "basic"
    assert game.game.status == game_pb2.GAME_STATUS_ACTIVE and not game.game.seed_chosen
    stub.SetSeatBot(svc.SetSeatBotRequest(name=done.game, bot="basic"), metadata=auth, timeout=10)

    def finished() -> bool:
        now = stub.GetGame(svc.GetGameRequest(name=done.game), timeout=10).game
        return now.status == game_pb2.GAME_STATUS_FINISHED

    assert _until(finished, 60), "the game did not end"
    profile = stub.GetPlayerProfile(rating_pb2.GetPlayerProfileRequest(name="players/me"), metadata=auth,
                                    timeout=10).profile
    assert profile.games_played == 0  # a game with a bot is never rated (docs/ratings.md)


def test_two_players_meet_and_a_cancelled_ticket_is_never_seated(stub: Stub) -> None:
    bob, cy, dan = guest(stub, "bob"), guest(stub, "cy"), guest(stub, "dan")
    req = matchmaking_pb2.FindGameRequest(ruleset="bang", min_seats=4, max_seats=4)
    gone = stub.FindGame(req, metadata=bearer(dan.access_token), timeout=10).ticket
    cancelled = stub.CancelTicket(matchmaking_pb2.CancelTicketRequest(name=gone.name),
                                  metadata=bearer(dan.access_token), timeout=10).ticket
    assert cancelled.state == STATE.TICKET_STATE_CANCELLED
    with pytest.raises(grpc.RpcError) as caught:
        stub.GetTicket(matchmaking_pb2.GetTicketRequest(name=gone.name), metadata=bearer(bob.access_token), timeout=10)
    assert error_info(caught.value).reason == "TICKET_NOT_FOUND"
    pair = matchmaking_pb2.FindGameRequest(ruleset="ttr-europe", min_seats=2, max_seats=2)
    tickets = [stub.FindGame(pair, metadata=bearer(p.access_token), timeout=10).ticket for p in (bob, cy)]

    def both() -> Any:
        got = [stub.GetTicket(matchmaking_pb2.GetTicketRequest(name=t.name), metadata=bearer(p.access_token),
                              timeout=10).ticket for t, p in zip(tickets, (bob, cy), strict=True)]
        return got if all(t.state == STATE.TICKET_STATE_SEATED for t in got) else None

    got = _until(both, 10)
    assert got and got[0].game == got[1].game and {t.seat for t in got} == {0, 1}

    def told() -> Any:
        notes = stub.ListNotifications(player_pb2.ListNotificationsRequest(), metadata=bearer(cy.access_token),
                                       timeout=10).notifications
        return [n for n in notes if n.kind == player_pb2.NOTIFICATION_KIND_TICKET_SEATED]

    seated_notes = _until(told, 5)
    assert [n.game for n in seated_notes] == [got[1].game]  # once, with the game
    assert seated_notes[0].player_game.seat == got[1].seat
    for bad, reason in ((matchmaking_pb2.FindGameRequest(ruleset="ttr-europe", min_seats=6), "INVALID_TICKET"),
                        (matchmaking_pb2.FindGameRequest(ruleset="bang", min_seats=3), "INVALID_TICKET"),
                        (matchmaking_pb2.FindGameRequest(ruleset="chess"), "UNKNOWN_RULESET")):
        with pytest.raises(grpc.RpcError) as caught:
            stub.FindGame(bad, metadata=bearer(bob.access_token), timeout=10)
        assert error_info(caught.value).reason == reason
    with pytest.raises(grpc.RpcError) as caught:
        stub.FindGame(pair, timeout=10)
    assert error_info(caught.value).reason == "PLAYER_REQUIRED"
