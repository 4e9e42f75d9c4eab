"""The deadline index is written before the game: a sweeper can look before the write lands (and the
quick-play queue index before its ticket).

The host indexes a game's next due decision *before* the compare-and-set that sets it, so a crash
between the two leaves an entry and never a game nobody looks at (``store/deadlines.py``). The other
side of that order: the sweeper may take the entry while the write is still on its way (a game of
bots created under load: its first decision is due at once). It then finds the game missing, or
nothing due in the document as it was, and before this fix dropped the entry: the game never moved
again (seen once in about 90 runs of a two-bot game on a loaded machine). Now a first look that
decides nothing holds the claim for ``recheck`` seconds and looks once more.

Real Redis (a server of the test's own, so no other test's sweeper takes the entries), the real host
and sweeper; the late write is a real write, made once the sweeper has had its first look.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, TypeVar

import pytest
from tabletop.v1 import game_pb2, matchmaking_pb2
from tabletop.v1 import game_service_pb2 as svc

from tabletop_server.service.api import quickplay, timers
from tabletop_server.service.api.host import MAX_BOT_MOVES, GameHost
from tabletop_server.service.api.identity import Player
from tabletop_server.service.api.matcher import Matcher
from tabletop_server.service.api.quickplay import Quickplay
from tabletop_server.service.config import Config
from tabletop_server.service.store import keys
from tabletop_server.service.store.deadlines import Deadlines
from tabletop_server.service.store.redis_store import GameStore, connect
from tabletop_server.service.store.tickets import Tickets
from tests.service.webhook_kit import private_redis_server

T = TypeVar("T")


@pytest.fixture
def own_redis(tmp_path: Any) -> Iterator[str]:
    with private_redis_server(tmp_path) as (url, _):
        yield url


class LateStore(GameStore):
    """A store whose creation writes land only after the sweeper's first look at the game."""

    def __init__(self, client: Any, first_look: asyncio.Event) -> None:
        super().__init__(client)
        self.first_look = first_look

    async def write(self, game_id: str, expected: int, *args: Any, **kwargs: Any) -> tuple[bool, int]:
        if expected == 0:
            await asyncio.wait_for(self.first_look.wait(), 10)
        return await super().write(game_id, expected, *args, **kwargs)


async def _sweeping(index: Any, work: Callable[[str], Awaitable[float | None]], recheck: float, looks: list[str],
                    looked: asyncio.Event) -> asyncio.Future[None]:
    """A sweeper of ``index`` running ``work``: each look noted in ``looks``, and ``looked`` set after it."""
    async def look(key: str) -> float | None:
        looks.append(key)
        try:
            return await work(key)
        finally:
            looked.set()
    sweeper = timers.Sweeper(index, look, poll=0.01, lease=5, batch=10, recheck=recheck)
    return asyncio.ensure_future(sweeper.run())


async def _until(read: Callable[[], Awaitable[T]], done: Callable[[T], bool], seconds: float) -> T:
    """Read every 20 ms until ``done`` holds or ``seconds`` have passed; the last value read."""
    deadline = time.monotonic() + seconds
    while True:
        value = await read()
        if done(value) or time.monotonic() > deadline:
            return value
        await asyncio.sleep(0.02)


@pytest.mark.parametrize("recheck", [0.3, 0.0])
def test_a_game_written_after_the_sweepers_first_look_is_played_at_the_second(own_redis: str, recheck: float) -> None:
    async def scenario() -> tuple[int, list[str]]:
        looked, looks = asyncio.Event(), []
        host = GameHost(LateStore(connect(own_redis), looked), Config(bot_delay_seconds=0.0, player_index=False))
        sweeper = await _sweeping(host.deadlines, host.play_due, recheck, looks, looked)
        try:
            created = await host.create(svc.CreateGameRequest(
                ruleset="ttr-europe", seat_count=2, seed=11,
                bots=[game_pb2.SeatBot(seat=i, bot="random") for i in range(2)]))

            async def game_version() -> int:
                return (await host.get(created.game.name, None)).game.version
            return await _until(game_version, lambda v: v >= 2, 3.0), looks
        finally:
            sweeper.cancel()
    version, looks = asyncio.run(scenario())
    if recheck:
        assert version >= 2, "the second look found the game written and played its due decisions"
        assert len(looks) >= 2
    else:  # the old behaviour, kept reachable by recheck=0: the entry is dropped and the game stalls
        assert version == 1 and len(looks) == 1


def test_a_game_still_missing_at_the_second_look_leaves_the_index(own_redis: str) -> None:
    """A game that never comes (expired, or its creation failed) is looked at twice, then dropped."""
    async def scenario() -> tuple[list[str], Any, Any]:
        looked, looks = asyncio.Event(), []
        client = connect(own_redis)
        host = GameHost(GameStore(client), Config(bot_delay_seconds=0.0, player_index=False))
        game_id = secrets.token_hex(8)
        await host.deadlines.schedule(game_id, time.time())
        sweeper = await _sweeping(host.deadlines, host.play_due, 0.2, looks, looked)
        try:
            await asyncio.sleep(1.0)  # two looks (0 s and 0.2 s), then nothing for the rest of the second
        finally:
            sweeper.cancel()
        due = await client.execute("ZSCORE", keys.deadlines_due(), game_id)
        claimed = await client.execute("ZSCORE", keys.deadlines_claimed(), game_id)
        return looks, due, claimed
    looks, due, claimed = asyncio.run(scenario())
    assert len(looks) == 2 and due is None and claimed is None


def test_a_missing_game_is_nothing_due_for_the_host(own_redis: str) -> None:
    host = GameHost(GameStore(connect(own_redis)), Config(player_index=False))
    with pytest.raises(timers.NothingDue) as nothing:
        asyncio.run(host.play_due(secrets.token_hex(8)))
    assert nothing.value.due is None


class LateTickets(Tickets):
    """Tickets whose add lands only after the matcher's first look at the queue (the queue index is written
    before the ticket, ``quickplay.Quickplay.find``)."""

    def __init__(self, client: Any, first_look: asyncio.Event) -> None:
        super().__init__(client, 3600)
        self.first_look = first_look

    async def add(self, *args: Any, **kwargs: Any) -> str:
        await asyncio.wait_for(self.first_look.wait(), 10)
        return await super().add(*args, **kwargs)


@pytest.mark.parametrize("recheck", [0.3, 0.0])
def test_a_ticket_written_after_the_matchers_first_look_is_still_seated(own_redis: str, recheck: float) -> None:
    """The same race in quick play: the matcher takes the queue's entry before the ticket is added, finds
    nothing waiting and (before the fix) let the entry go: a lone ticket was never filled with bots."""
    async def scenario() -> int:
        looked, looks = asyncio.Event(), []
        client = connect(own_redis)
        play = Quickplay(client)
        play.tickets = LateTickets(client, looked)
        matcher = Matcher(GameHost(GameStore(client), Config(player_index=False, bot_delay_seconds=3600)),
                          Tickets(client, 3600))
        sweeper = await _sweeping(quickplay.queues(client), matcher.match, recheck, looks, looked)
        ann = Player("ann-1", "ann", "test")
        try:
            ticket = (await play.find(ann, matchmaking_pb2.FindGameRequest(
                ruleset="ttr-europe", min_seats=2, max_seats=2, bots_after_seconds=1))).ticket

            async def ticket_state() -> int:
                return (await play.get(ann, ticket.name)).ticket.state
            waiting = matchmaking_pb2.TicketState.TICKET_STATE_WAITING
            return await _until(ticket_state, lambda state: state != waiting, 4.0)
        finally:
            sweeper.cancel()
    state = asyncio.run(scenario())
    seated = matchmaking_pb2.TicketState.TICKET_STATE_SEATED
    assert state == seated if recheck else state == matchmaking_pb2.TicketState.TICKET_STATE_WAITING


class PeekingStore(GameStore):
    """A store that, after each bot move it writes, lets ``peek`` look at Redis (another replica's sweep)."""

    def __init__(self, client: Any, peek: Callable[[], Awaitable[None]]) -> None:
        super().__init__(client)
        self.peek = peek

    async def write(self, game_id: str, expected: int, *args: Any, **kwargs: Any) -> tuple[bool, int]:
        written = await super().write(game_id, expected, *args, **kwargs)
        if expected >= 1:  # a move (version 1 is the game as created)
            await self.peek()
        return written


@pytest.mark.parametrize("indexed_elsewhere", [False, True])
def test_a_game_whose_bots_one_replica_is_playing_is_not_claimed_by_another(own_redis: str,
                                                                            indexed_elsewhere: bool) -> None:
    """Bots due one after another are played by the replica that holds the game's claim, in one sweep: each
    of its moves must not index the game due again meanwhile, or another replica's sweeper claims it too, and
    the two decide the same moves and lose compare-and-sets to each other (``CONFLICT``: seen at bot delay 0,
    the suite's setting, with the claim then held for its whole lease). ``indexed_elsewhere``: the game is
    indexed due meanwhile by another replica's write (a person's move there indexes the bots' turn) before
    each sweep of the other replica; the claim script leaves that entry for after the claim is let go."""
    async def scenario() -> tuple[int, list[list[str]], Any, Any]:
        client = connect(own_redis)
        other = Deadlines(client)  # the other replica's sweeper
        taken: list[list[str]] = []

        async def other_replica_sweeps() -> None:
            now = time.time()
            if indexed_elsewhere:
                await other.schedule(game_id, now)
            taken.append([claim.member for claim in await other.claim(now + 1, now + 15, 10)])

        host = GameHost(PeekingStore(client, other_replica_sweeps), Config(bot_delay_seconds=0.0, player_index=False))
        created = await host.create(svc.CreateGameRequest(
            ruleset="ttr-europe", seat_count=2, seed=11, bots=[game_pb2.SeatBot(seat=i, bot="random") for i in range(2)]))
        game_id = created.game.name.removeprefix("games/")
        sweeper = timers.Sweeper(host.deadlines, host.play_due, poll=0.01, lease=15, batch=10)
        await sweeper.sweep()  # this replica: claims the game and plays its bots (MAX_BOT_MOVES of them)
        version = (await host.get(created.game.name, None)).game.version
        due = await client.execute("ZSCORE", keys.deadlines_due(), game_id)
        claimed = await client.execute("ZSCORE", keys.deadlines_claimed(), game_id)
        return version, taken, due, claimed
    version, taken, due, claimed = asyncio.run(scenario())
    assert version == 1 + MAX_BOT_MOVES and len(taken) == MAX_BOT_MOVES
    assert taken == [[]] * len(taken), "another replica claimed the game while its bots were being played"
    assert due is not None and claimed is None, "the sweep indexed what follows and let its claim go"
