"""Bot seats and turn timers: who decides when nobody does (issue 16).

A game document may hold, beside the ruleset's state:

- ``bots``: ``{seat: bot name}``, the seats bots play (from creation, or taken over);
- ``timer``: ``{"seconds", "bot", "takeover_after", "concede_after"}``, a limit on every decision;
- ``waiting``: ``{seat: due}``, each seat whose decision is awaited and a bot makes at ``due``
  (epoch seconds): a bot's own seat after ``bot_delay`` (so watchers see the moves arrive), a
  person's seat after the timer's seconds. A seat's due time is set when its decision starts
  and kept while it thinks (another seat acting does not reset it);
- ``strikes``: ``{seat: timed-out decisions in a row}``.

:func:`plan` keeps ``waiting`` up to date after every accepted change (the host calls it in
the same compare-and-set), and returns the earliest due time for the deadline index. A
due decision is made by :func:`bot_move` inside the host's compare-and-set, which reads the
due times from the document it writes: a decision already made, by its seat or by another
replica's sweeper, is no longer due, so no decision is ever made twice. :class:`Sweeper`
runs on every replica and asks the index (``store/deadlines.py``) which games to look at.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
from collections.abc import Callable
from typing import Any

from tabletop.v1 import game_service_pb2 as svc

from tabletop_server.service.api.errors import FailedPrecondition, InvalidArgument, ServiceReason
from tabletop_server.service.engine import bots
from tabletop_server.service.engine.ruleset import Ruleset
from tabletop_server.service.store.deadlines import Claim

log = logging.getLogger("tabletop.timers")


def plan(doc: dict[str, Any], ruleset: Ruleset, actor: int | None, now: float, bot_delay: float) -> float | None:
    """Update ``doc["waiting"]`` after a change made by ``actor``; the earliest due time, or None."""
    waiting: dict[str, float] = doc.get("waiting", {})
    timer = doc.get("timer")
    bot_seats = doc.get("bots", {})
    if doc["status"] != "ACTIVE" or not (timer or bot_seats):
        doc.pop("waiting", None)
        return None
    fresh: dict[str, float] = {}
    for seat in ruleset.to_act(doc["state"]):
        key = str(seat)
        if key in waiting and seat != actor:
            fresh[key] = waiting[key]  # still thinking about the same decision
        elif key in bot_seats:
            fresh[key] = now + bot_delay
        elif timer:
            fresh[key] = now + timer["seconds"]
    if fresh:
        doc["waiting"] = fresh
    else:
        doc.pop("waiting", None)
    return min(fresh.values()) if fresh else None


def due_seat(doc: dict[str, Any], now: float) -> int | None:
    """The seat whose decision is due first at ``now`` (None: none is)."""
    due = [(at, int(seat)) for seat, at in doc.get("waiting", {}).items() if at <= now]
    return min(due)[1] if due else None


def bot_move(doc: dict[str, Any], ruleset: Ruleset, seat: int, version: int) -> tuple[Any, list[Any]]:
    """The due decision of ``seat``, made by its bot: the action and the lifecycle events before its own.

    A person's seat counts a strike. After ``concede_after`` strikes in a row the seat concedes
    instead: the action is None (the host concedes it, ``table.concede``); after ``takeover_after``
    the timer's bot keeps the seat. The bot's random choices come from the game's seed, the version
    and the seat, so a replayed game makes them again."""
    key = str(seat)
    own = doc.get("bots", {}).get(key)
    timer = doc.get("timer") or {}
    bot = own or timer.get("bot") or bots.DEFAULT_BOT
    strikes = doc.setdefault("strikes", {}) if own is None else {}
    if own is None and timer.get("concede_after") and strikes.get(key, 0) + 1 >= timer["concede_after"]:
        return None, []
    action = bots.choose(ruleset, doc["state"], seat, bot, _seed(doc["seed"], version, seat))
    events: list[Any] = [["l", {"kind": "BOT_PLAYED", "seat": seat, "bot": bot, "timed_out": own is None}]]
    if own is None:
        strikes[key] = strikes.get(key, 0) + 1
        if timer.get("takeover_after") and strikes[key] >= timer["takeover_after"]:
            doc.setdefault("bots", {})[key] = bot
            del strikes[key]
            events.append(["l", {"kind": "SEAT_TAKEN_OVER", "seat": seat, "bot": bot}])
    return action, events


def person_acted(doc: dict[str, Any], seat: int) -> None:
    """A person made a decision in time: the strikes of the seat start again."""
    strikes = doc.get("strikes")
    if strikes:
        strikes.pop(str(seat), None)


def due_decision(doc: dict[str, Any], ruleset: Ruleset, version: int, now: float) -> tuple[int, Any, list[Any], float]:
    """The first due decision, made by its bot: (seat, action, lifecycle events, lag after its due time);
    the action is None when the seat concedes instead (``bot_move``). Raises :class:`NothingDue`
    (with the next due time) when none is due."""
    seat = due_seat(doc, now) if doc["status"] == "ACTIVE" else None
    if seat is None:
        raise NothingDue(min(doc.get("waiting", {}).values(), default=None))
    lag = now - doc["waiting"][str(seat)]
    action, events = bot_move(doc, ruleset, seat, version)
    return seat, action, events, lag


def hand_over(doc: dict[str, Any], ruleset: Ruleset, seat: int, bot: str) -> dict[str, Any]:
    """SetSeatBot: ``bot`` plays the seat from now on, or (empty) its person again; the lifecycle event."""
    seat_bots = doc.setdefault("bots", {})
    key = str(seat)
    person_acted(doc, seat)
    if bot:
        seat_bots[key] = offered_bot(ruleset, bot, "bot")
        return {"kind": "SEAT_TAKEN_OVER", "seat": seat, "bot": bot}
    if seat_bots.pop(key, None) is None:
        raise FailedPrecondition(ServiceReason.NOT_A_BOT_SEAT, f"Seat {seat} is not played by a bot.")
    return {"kind": "SEAT_TAKEN_BACK", "seat": seat}


class NothingDue(Exception):
    """``GameHost.play_due`` found no decision due (another replica or the seat made it); ``due``: the next one."""

    def __init__(self, due: float | None) -> None:
        super().__init__()
        self.due = due


def seat_bots(req: svc.CreateGameRequest, ruleset: Ruleset) -> dict[str, str]:
    """``{seat: bot}`` of CreateGameRequest.bots: seats of the table, each once, bots the ruleset has. A seat
    may also have a display name: the bot plays it under that name (issue 26: what users try)."""
    out: dict[str, str] = {}
    for entry in req.bots:
        if not 0 <= entry.seat < req.seat_count:
            raise InvalidArgument(ServiceReason.SEAT_OUT_OF_RANGE, f"bots[].seat {entry.seat} is not a seat of this "
                                  f"table: seats are 0 to {req.seat_count - 1}.", field="bots")
        if str(entry.seat) in out:
            raise InvalidArgument(ServiceReason.SEAT_TAKEN, f"Seat {entry.seat} is given two bots.", field="bots")
        out[str(entry.seat)] = offered_bot(ruleset, entry.bot, "bots")
    return out


def offered_bot(ruleset: Ruleset, bot: str, field: str) -> str:
    """``bot`` when the ruleset offers it (else INVALID_ARGUMENT UNKNOWN_BOT naming the offered ones)."""
    offered = bots.bots_of(ruleset)
    if bot not in offered:
        raise InvalidArgument(ServiceReason.UNKNOWN_BOT, f"No bot {bot!r} for {ruleset.INFO.id}; "
                              f"offered: {', '.join(sorted(offered))}.", field=field)
    return bot


def turn_timer(req: svc.CreateGameRequest, ruleset: Ruleset) -> dict[str, Any] | None:
    """The stored TurnTimer (None: no time limit)."""
    if not req.HasField("turn_timer"):
        return None
    timer = req.turn_timer
    bot = offered_bot(ruleset, timer.bot or bots.DEFAULT_BOT, "turn_timer.bot")
    if timer.concede_after and getattr(ruleset, "concede", None) is None:
        raise InvalidArgument(ServiceReason.CONCEDE_NOT_SUPPORTED, f"{ruleset.INFO.id} games cannot be conceded: "
                              "leave turn_timer.concede_after at 0.", field="turn_timer.concede_after")
    return {"seconds": timer.decision_seconds, "bot": bot, "takeover_after": timer.takeover_after,
            **({"concede_after": timer.concede_after} if timer.concede_after else {})}


def _seed(game_seed: int, version: int, seat: int) -> int:
    digest = hashlib.sha256(f"{game_seed}:{version}:{seat}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


class Sweeper:
    """Every replica's loop over due games: claim a batch, let the host make their due decisions.

    ``play_due(game_id) -> next due or None`` is the host's (``GameHost.play_due``); a failure
    (Redis away, a bug) leaves the claim to run out and be taken again, so nothing is lost.

    ``play_due`` raises :class:`NothingDue` when it decided nothing (the game is missing or shows
    nothing due), and returns None when nothing is left to look at. Both are what a sweeper sees when
    it takes an entry before the write that made it has landed: the index is written first
    (``store/deadlines.py``; the quick-play queues likewise, before their ticket). So with ``recheck``
    a first look that ends either way holds its claim that long and looks once more; only a second
    look lets the entry go. ``recheck`` must outlast a write in flight: the store's command timeout
    (5 s) and a margin."""

    def __init__(self, index: Any, play_due: Callable[[str], Any], poll: float, lease: float, batch: int,
                 clock: Callable[[], float] = time.time, on_error: Callable[[], None] | None = None,
                 on_due: Callable[[int], None] | None = None, recheck: float = 0.0) -> None:
        self.index, self.play_due = index, play_due
        self.poll, self.lease, self.batch, self.clock, self.recheck = poll, lease, batch, clock, recheck
        self.on_error = on_error  # metrics: a failed sweep
        self.on_due = on_due  # metrics: games with a decision scheduled, after each sweep

    async def run(self) -> None:
        """Sweep until cancelled: at once again after a full batch, else after ``poll``."""
        while True:
            claimed = 0
            try:
                claimed = await self.sweep()
                if self.on_due is not None:
                    self.on_due(await self.index.due())
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 - logged; the claims run out and are taken again
                if not _loop_running():
                    return  # closed after its loop ended (see _loop_running): nothing to retry on
                self._failed("timer sweep failed; retrying")
            if claimed < self.batch:
                await asyncio.sleep(self.poll)

    async def sweep(self) -> int:
        """One look: the number of games claimed. Their due decisions are made concurrently (each
        game under its own compare-and-set); a game that fails keeps its claim until the lease ends."""
        now = self.clock()
        claimed = await self.index.claim(now, now + self.lease, self.batch)
        results = await asyncio.gather(*(self._play(claim) for claim in claimed), return_exceptions=True)
        for result in results:
            if isinstance(result, BaseException):
                if isinstance(result, asyncio.CancelledError):
                    raise result
                self._failed("a due game failed; its claim runs out and is taken again", result)
        return len(claimed)

    async def _play(self, claim: Claim) -> None:
        game_id = claim.member
        try:
            following, decided = await self.play_due(game_id), True
        except NothingDue as nothing:
            following, decided = nothing.due, False
        if following is not None:
            await self.index.schedule(game_id, following)
        if self.recheck > 0 and not claim.again and (following is None or not decided):
            await self.index.hold(game_id, claim.lease, self.clock() + self.recheck)  # a write may be on its way
            return
        await self.index.release(game_id, claim.lease)

    def _failed(self, message: str, error: BaseException | None = None) -> None:
        log.error(message, exc_info=error or True)
        if self.on_error is not None:
            self.on_error()


def _loop_running() -> bool:
    """Whether an event loop runs this code. Not when a sweeper whose loop ended is closed by the garbage
    collector: redis-py's cluster client answers the close of a read with a disconnect that needs a running
    loop, and its ``RuntimeError`` reached ``Sweeper.run`` as a failed sweep, which then slept, outside any
    loop (an "Exception ignored" warning in a later test)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True
