"""The matchmaker (issue 28, docs/matchmaking.md): groups waiting tickets of a queue into tables.

Every replica runs it: queues to look at are a deadline index (``{mm}:due``) swept by the same
``timers.Sweeper`` that makes bots' due moves, so a queue is claimed under a lease by one replica at a
time, and a replica that dies holding one loses it when the lease ends. Seating is exactly once even if
two matchers race over a queue anyway (a stalled replica past its lease): ``tickets.SEAT`` seats a group
only if every ticket is still waiting. The game is created afterwards from the seating record, from
version 0 (once, whoever tries), by the matcher that seated it or, if it died, by the next look.

A look reads the oldest :data:`SCAN` waiting tickets and, when more wait, a page of SCAN further back (the
next page at each look, around again past the end), so no ticket is left unread behind SCAN old ones that
cannot meet. Grouping, oldest first: the oldest waiting ticket anchors a table; younger tickets join it while their
seat ranges overlap, their ratings are within every member's window (each widens by
:data:`WIDEN_PER_SECOND` per second waited; 0 is any rating) and no player comes twice. A full table
(the most seats all accept) starts at once; a smaller one starts at :data:`START_AT_MIN_AFTER` seconds
of the anchor's wait if it has the fewest seats all accept; a table still short starts with bots for the
rest when every member asked for bots and the anchor has waited its ``bots_after_seconds``.
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Callable
from typing import Any

from tabletop_server.service.api.host import GameHost
from tabletop_server.service.engine import registry
from tabletop_server.service.engine.errors import RuleError
from tabletop_server.service.store.tickets import Tickets

log = logging.getLogger("tabletop.matcher")

SCAN = 500  # waiting tickets read per look at a queue (the oldest)
START_AT_MIN_AFTER = 10.0  # default of TABLETOP_MATCH_START_AT_MIN_SECONDS: a short table starts after this wait
WIDEN_PER_SECOND = 1.0  # default of TABLETOP_MATCH_WIDEN_PER_SECOND: rating points a window widens per second
LOOK_AGAIN = 0.5  # seconds: the next look at a queue that still has waiting tickets
FILL_BOT = "basic"


class Matcher:
    """The matcher's work on one queue at a time (``match`` is ``timers.Sweeper``'s ``play_due``)."""

    def __init__(self, host: GameHost, tickets: Tickets, clock: Callable[[], float] = time.time,
                 on_seated: Callable[[int, int, float], None] | None = None,
                 on_waiting: Callable[[str, str, int], None] | None = None) -> None:
        self.host, self.tickets, self.clock = host, tickets, clock
        self.on_waiting = on_waiting  # metrics: (ruleset, queue, tickets waiting after a look)
        self.start_at_min = host.config.match_start_at_min_seconds
        self.widen = host.config.match_widen_per_second
        self.on_seated = on_seated  # metrics: (tickets seated, bots, seconds the anchor waited)
        self.pages: dict[str, int] = {}  # per queue: where this replica's next look reads past the oldest SCAN

    async def match(self, queue_id: str) -> float | None:
        """Seat what can be seated in the queue now; when to look again (None: nothing waits)."""
        meta = await self.tickets.meta(queue_id)
        if meta is None:
            return None
        await self._create_unmade(queue_id)
        now = self.clock()
        waiting = await self.tickets.waiting(queue_id, SCAN)
        total = len(waiting)
        if total == SCAN:  # more may wait: a page further back too, a new one each look
            total, more = await self._page(queue_id)
            known = {t["id"] for t in waiting}
            waiting += [t for t in more if t["id"] not in known]
        taken: set[str] = set()
        for anchor in waiting:
            if anchor["id"] in taken:
                continue
            group, seats, bots = plan_table(anchor, [t for t in waiting if t["id"] not in taken], now,
                                            self.start_at_min, self.widen)
            if not seats:
                continue
            if await self._seat(queue_id, meta, group, seats, bots, now):
                taken.update(t["id"] for t in group)
        left = max(total, len(waiting)) - len(taken)
        if self.on_waiting is not None:
            self.on_waiting(meta["ruleset"], queue_id, left)
        return now + LOOK_AGAIN if left else None

    async def _page(self, queue_id: str) -> tuple[int, list[dict[str, Any]]]:
        """The tickets waiting in the queue, and SCAN of them past the oldest SCAN: the page after the last
        look's, from the start again past the end. So every waiting ticket is read within a few looks, even
        while the oldest SCAN cannot meet each other (their rating windows keep them apart)."""
        total = await self.tickets.count(queue_id)
        start = self.pages.get(queue_id, SCAN)
        if start >= total:
            start = SCAN
        self.pages[queue_id] = start + SCAN
        return total, await self.tickets.waiting(queue_id, SCAN, start)

    async def _seat(self, queue_id: str, meta: dict[str, Any], group: list[dict[str, Any]], seats: int,
                    bots: int, now: float) -> bool:
        game_id = secrets.token_hex(8)
        order = list(range(seats))
        secrets.SystemRandom().shuffle(order)  # who sits where (the first seat often starts) is drawn
        seating = {"ruleset": meta["ruleset"], "options": meta["options"], "seats": seats,
                   "tickets": [{"id": t["id"], "player": t["player"], "name": t["name"], "seat": order[i]}
                               for i, t in enumerate(group)]}
        if not await self.tickets.seat(queue_id, game_id, seating, int(now * 1000)):
            return False  # another matcher seated one of them first
        await self._create(queue_id, game_id, seating)
        if self.on_seated is not None:
            self.on_seated(len(group), bots, now - group[0]["created"] / 1000)
        return True

    async def _create_unmade(self, queue_id: str) -> None:
        """Games seated by a matcher that died before creating them."""
        for game_id, seating in await self.tickets.unmade(queue_id):
            await self._create(queue_id, game_id, seating)

    async def _create(self, queue_id: str, game_id: str, seating: dict[str, Any]) -> None:
        ruleset = registry.get(seating["ruleset"])
        if ruleset is not None:
            seated: list[tuple[str, str] | None] = [None] * seating["seats"]
            for t in seating["tickets"]:
                seated[t["seat"]] = (t["player"], t["name"])
            try:
                await self.host.create_seated(game_id, ruleset, seating["options"], seated, FILL_BOT)
            except RuleError:  # never dealable (options or seats the rules refuse): retried, it would stop the queue
                log.exception("quick play: the rules refuse seating %s of queue %s; its tickets are cancelled",
                              game_id, queue_id)
                await self.tickets.drop(queue_id, game_id, seating, int(self.clock() * 1000))
                return
        await self.tickets.made(queue_id, game_id)


def plan_table(anchor: dict[str, Any], waiting: list[dict[str, Any]], now: float,
               start_at_min: float = START_AT_MIN_AFTER, widen: float = WIDEN_PER_SECOND,
               ) -> tuple[list[dict[str, Any]], int, int]:
    """The tickets seated with ``anchor`` (oldest first), the seat count and the bots; 0 seats: not yet."""
    group, low, high = [anchor], anchor["min"], anchor["max"]
    reach = _reach(anchor, now, widen)
    if reach is not None:  # only tickets within the anchor's own window can join: one cheap pass (a look is n anchors)
        rated = anchor["rating"]
        waiting = [t for t in waiting if abs(t["rating"] - rated) <= reach]
    for ticket in waiting:
        if len(group) == high:
            break
        if ticket["id"] == anchor["id"] or any(t["player"] == ticket["player"] for t in group):
            continue
        if max(low, ticket["min"]) > min(high, ticket["max"]) or len(group) >= ticket["max"] \
                or not all(_near(t, ticket, now, widen) for t in group):
            continue  # a ticket joins only a table it accepts at its new size (a 2-2 never joins three)
        group.append(ticket)
        low, high = max(low, ticket["min"]), min(high, ticket["max"])
    waited = now - anchor["created"] / 1000
    if len(group) == high or (len(group) >= low and waited >= start_at_min):
        return group, len(group), 0
    wants_bots = all(t["bots_after"] > 0 for t in group) and waited >= anchor["bots_after"]
    if wants_bots:
        seats = max(low, len(group))
        return group, seats, seats - len(group)
    return group, 0, 0


# Helpers

def _reach(ticket: dict[str, Any], now: float, widen: float) -> float | None:
    """How far from its rating a ticket accepts players now (its window widened by its wait); None: any."""
    if ticket["window"] <= 0:
        return None
    return float(ticket["window"] + widen * (now - ticket["created"] / 1000))


def _near(a: dict[str, Any], b: dict[str, Any], now: float, widen: float) -> bool:
    """Both players accept each other's rating: within each one's window, widened by its wait."""
    gap = abs(a["rating"] - b["rating"])
    return all(t["window"] <= 0 or gap <= t["window"] + widen * (now - t["created"] / 1000)
               for t in (a, b))
