"""One replica at a time works on a claimed game: the deadline index's claim script (``store/deadlines.lua``).

A due entry can be written while a replica works on the game's claim (a person's move on another replica
during the bots' turn indexes the bots' next decision). Before, the next sweep anywhere moved that entry
into the claimed set over the live claim, and two replicas played the same game: they decided the same
bot moves and lost compare-and-sets to each other (``CONFLICT``, then a lease's wait). Now the entry
waits until the claim is let go, except that a claim only *held* for a second look is taken over by it.

Real Redis (a server of the test's own: no other test's sweeper takes the entries), the index's own calls.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, TypeVar

import pytest

from tabletop_server.service.store import keys
from tabletop_server.service.store.deadlines import Claim, Deadlines
from tabletop_server.service.store.redis_store import connect
from tests.service.webhook_kit import private_redis_server

T = TypeVar("T")
LEASE = 15.0


@pytest.fixture
def own_redis(tmp_path: Any) -> Iterator[str]:
    with private_redis_server(tmp_path) as (url, _):
        yield url


def _run(own_redis: str, scenario: Callable[[Deadlines, Deadlines, Any], Awaitable[T]]) -> T:
    """``scenario(this replica's index, another replica's index, a client)`` on one loop."""
    async def run() -> T:
        client = connect(own_redis)
        return await scenario(Deadlines(client), Deadlines(client), client)
    return asyncio.run(run())


async def _claim(index: Deadlines, limit: int = 10, lease: float = LEASE) -> list[Claim]:
    now = time.time()
    return await index.claim(now, now + lease, limit)


def test_a_due_entry_of_a_game_another_replica_is_working_on_waits_until_its_claim_is_let_go(own_redis: str) -> None:
    async def scenario(this: Deadlines, other: Deadlines, client: Any) -> tuple[Any, ...]:
        await this.schedule("g1", time.time() - 1)
        [working] = await _claim(this)
        await this.schedule("g1", time.time() - 1)  # a person's move on a third replica indexes the bots' turn
        while_working = await _claim(other)
        kept = await client.execute("ZSCORE", keys.deadlines_due(), "g1")
        await this.release("g1", working.lease)
        after = await _claim(other)
        return working, while_working, kept, after
    working, while_working, kept, after = _run(own_redis, scenario)
    assert working.member == "g1" and not working.again
    assert while_working == [], "another replica claimed a game whose claim was being worked on"
    assert kept is not None, "the entry waits in the due set, not lost"
    assert [(c.member, c.again) for c in after] == [("g1", False)], "let go: the waiting entry is claimed"


def test_a_claim_held_for_a_second_look_is_taken_over_by_a_new_due_entry(own_redis: str) -> None:
    """A hold is only "look again later" (``timers.Sweeper``, 6 s by default): a bot's turn that comes due
    meanwhile is played at once by whichever replica sweeps, and that look is the second look."""
    async def scenario(this: Deadlines, other: Deadlines, client: Any) -> tuple[Any, ...]:
        await this.schedule("g1", time.time() - 1)
        [first] = await _claim(this)
        await this.hold("g1", first.lease, time.time() + 60)
        held_alone = await _claim(other)  # nothing due: the hold stands
        await this.schedule("g1", time.time() - 1)
        taken = await _claim(other, lease=LEASE + 1)  # a lease of its own, whatever the clock says
        held = await client.execute("ZSCORE", keys.deadlines_held(), "g1")
        await this.release("g1", first.lease)  # the first claim's lease: no longer the claim, so nothing happens
        claimed = await client.execute("ZSCORE", keys.deadlines_claimed(), "g1")
        return held_alone, taken, held, claimed
    held_alone, taken, held, claimed = _run(own_redis, scenario)
    assert held_alone == []
    assert [(c.member, c.again) for c in taken] == [("g1", False)]
    assert held is None, "the new claim is one being worked on"
    assert claimed is not None and int(float(claimed)) == taken[0].lease


def test_a_hold_that_runs_out_is_claimed_again_and_claims_let_go_leave_no_trace(own_redis: str) -> None:
    async def scenario(this: Deadlines, other: Deadlines, client: Any) -> tuple[Any, ...]:
        await this.schedule("g1", time.time() - 1)
        await this.schedule("g2", time.time() - 1)
        first, second = await _claim(this)
        await this.hold(first.member, first.lease, time.time() - 0.5)  # run out already
        until = time.time() + 60
        await this.hold(second.member, second.lease, until)
        await this.release(second.member, int(until * 1000))  # the hold's end is the claim's lease now
        again = await _claim(other)
        held = await client.execute("ZSCORE", keys.deadlines_held(), "g1")
        await other.release("g1", again[0].lease)
        left = [await client.execute("ZCARD", key)
                for key in (keys.deadlines_due(), keys.deadlines_claimed(), keys.deadlines_held())]
        return again, held, left
    again, held, left = _run(own_redis, scenario)
    assert [(c.member, c.again) for c in again] == [("g1", True)]
    assert held is None and left == [0, 0, 0]


def test_entries_waiting_for_claims_being_worked_on_do_not_fill_a_sweeps_batch(own_redis: str) -> None:
    """A batch of one: the earliest due entries are of games claimed elsewhere, so the sweep reads past them."""
    async def scenario(this: Deadlines, other: Deadlines, client: Any) -> list[str]:
        for game in ("g1", "g2"):
            await this.schedule(game, time.time() - 5)
            await _claim(this, limit=1)
            await this.schedule(game, time.time() - 5)  # due again, earliest, while this replica works on it
        await this.schedule("g3", time.time() - 1)
        return [c.member for c in await _claim(other, limit=1)]
    assert _run(own_redis, scenario) == ["g3"]


def test_a_replica_does_not_claim_a_game_twice_in_one_sweep(own_redis: str) -> None:
    """A claim run out and a due entry of the same game, taken in one look: claimed once (again), the due
    entry left for after (before, the game came back in both lists and was played twice at once)."""
    async def scenario(this: Deadlines, other: Deadlines, client: Any) -> tuple[list[tuple[str, bool]], Any]:
        now = time.time()
        await this.schedule("g1", now - 1)
        await this.claim(now - 1, now - 0.5, 10)  # a claim whose lease has run out (its replica died)
        await this.schedule("g1", now - 1)
        claimed = [(c.member, c.again) for c in await _claim(other)]
        return claimed, await client.execute("ZSCORE", keys.deadlines_due(), "g1")
    claimed, due = _run(own_redis, scenario)
    assert claimed == [("g1", True)] and due is not None


def test_a_due_entry_of_a_claim_run_out_past_the_batch_is_claimed(own_redis: str) -> None:
    """Claims run out (their replicas died) are taken again a batch at a time; one left past the batch whose
    game is due again is nobody's: the sweep takes it from the due set instead of waiting a poll."""
    async def scenario(this: Deadlines, other: Deadlines, client: Any) -> list[tuple[str, bool]]:
        now = time.time()
        for game in ("g1", "g2"):
            await this.schedule(game, now - 5)
        await this.claim(now - 5, now - 1, 10)  # both claimed by a replica that died: leases ran out
        await this.schedule("g2", now - 1)
        return [(c.member, c.again) for c in await _claim(other, limit=1)]
    assert _run(own_redis, scenario) == [("g1", True), ("g2", False)]
