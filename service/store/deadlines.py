"""The deadline index: which games have a decision that a bot makes at a set time (issue 16).

The game document holds each waiting seat's due time (``timers.py``); this index only says
when to look at a game. It is written *before* the game's compare-and-set that sets a due
time (``writes.Writes.transact``), so a crash between the two leaves at worst an entry for a
write that never happened: the sweeper finds nothing due in the game and drops it. Entries
only ever move earlier (``ZADD LT``): a racing writer's entry can make the sweeper look
early (it then schedules the real due time), never late. The one writer that does not index is the
replica holding the game's claim, playing its due bot moves: it indexes what follows when it lets the
claim go (``writes.Writes.transact``'s ``claimed``), so no other replica claims the game meanwhile.

The same order means the sweeper can take an entry *before* the write it was made for lands
(a game created with a bot to play at once, under load): it then finds the game missing, or
nothing due in the document as it was. So a first look that decides nothing does not drop the
entry: it keeps its claim a little longer (:meth:`Deadlines.hold`), and the claim, run out, is
taken again for a second look (``Claim.again``), which decides for good (``timers.Sweeper``).
A claim being worked on is never taken by another replica before its lease ends: a due entry
written meanwhile (a person's move on another replica during the bots' turn) stays due until the
claim is let go. A claim only held for a second look is taken over by such an entry: that look is
the second look, made at once. Three sorted sets under one hash tag:

- ``{t}:due``: game id -> epoch ms of its earliest due decision;
- ``{t}:claimed``: game id -> end of the lease of the replica working on it. A replica that
  dies holding a claim loses it when the lease ends, and another replica claims it again.
  Acting twice is impossible anyway: a bot acts only for a decision the document, read and
  written under the game's compare-and-set, still shows as due;
- ``{t}:held``: the claims of ``{t}:claimed`` only held for a second look, with the same score.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

from tabletop_server.service.store import keys, resp

CLAIM = resp.Script((Path(__file__).with_name("deadlines.lua")).read_text())
HOLD = resp.Script("if tonumber(redis.call('ZSCORE', KEYS[1], ARGV[1])) == tonumber(ARGV[2]) then "
                   "redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1]) redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1]) end\n"
                   "return 1")
RELEASE = resp.Script("if tonumber(redis.call('ZSCORE', KEYS[1], ARGV[1])) == tonumber(ARGV[2]) then "
                      "redis.call('ZREM', KEYS[1], ARGV[1]) redis.call('ZREM', KEYS[2], ARGV[1]) end\nreturn 1")


class Claim(NamedTuple):
    """One claimed entry: the game (or queue) id, the claim's lease end (ms), and whether it was claimed
    again after a lease ran out (a replica died or held it for a second look) rather than from the due set."""

    member: str
    lease: int
    again: bool


class Deadlines:
    """The index over a store client (``redis_store.connect``)."""

    def __init__(self, client: Any, due_key: str = "", claimed_key: str = "", held_key: str = "") -> None:
        self.client = client
        self.due_key = due_key or keys.deadlines_due()  # other keys: another index (player_index's near)
        self.claimed_key = claimed_key or keys.deadlines_claimed()
        self.held_key = held_key or keys.deadlines_held()

    async def schedule(self, game_id: str, due: float) -> None:
        """Look at ``game_id`` at ``due`` (epoch seconds) at the latest."""
        await self.client.execute("ZADD", self.due_key, "LT", _ms(due), game_id)

    async def claim(self, now: float, lease_end: float, limit: int) -> list[Claim]:
        """Claims whose lease ended, then due games, for this replica (each list up to ``limit``)."""
        lease = _ms(lease_end)
        again, fresh = await self.client.evalsha(CLAIM, [self.due_key, self.claimed_key, self.held_key],
                                                [_ms(now), lease, limit])
        return ([Claim(_text(m), lease, True) for m in again]
                + [Claim(_text(m), lease, False) for m in fresh])

    async def hold(self, game_id: str, lease: int, until: float) -> None:
        """Keep this claim until ``until`` (epoch seconds), when it runs out and is taken again: a second look."""
        await self.client.evalsha(HOLD, [self.claimed_key, self.held_key], [game_id, lease, _ms(until)])

    async def release(self, game_id: str, lease: int) -> None:
        """Done with a claim (only this claim: a later claim by another replica stays)."""
        await self.client.evalsha(RELEASE, [self.claimed_key, self.held_key], [game_id, lease])

    async def due(self) -> int:
        """How many games have a decision scheduled (the gauge)."""
        return int(await self.client.execute("ZCARD", self.due_key))


def _text(member: Any) -> str:
    return member.decode() if isinstance(member, bytes) else str(member)


def _ms(seconds: float) -> int:
    return int(seconds * 1000)
