"""Destination tickets (TTR_NOTES section 5, setup and action 3; TTR-007..TTR-010, TTR-043..TTR-047).

At setup every player chooses, simultaneously and secretly, at least 2 of their 4
starting tickets; the rest go to the box. During play a player draws the top 3
(fewer if fewer remain) and keeps at least 1; the rest go under the pile. Kept
tickets are never discarded. The choice is a pending decision: ``state["offered"]``.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

from tabletop_server.service.engine.errors import MalformedAction, RuleError
from tabletop_server.service.games.ttr_europe.board import RULES, TICKETS
from tabletop_server.service.games.ttr_europe.layout import State
from tabletop_server.service.games.ttr_europe.reasons import TtrReason
from tabletop_server.service.games.ttr_europe.turns import end_turn, start_play

Event = dict[str, Any]
FIELD = "action.ttr_europe.keep_tickets.ticket_ids"


def check_draw_tickets(state: State, seat: int, action: dict[str, Any]) -> None:
    """Drawing tickets needs a ticket left in the pile (TTR-045)."""
    if not state["ticket_pile"]:
        raise RuleError(TtrReason.NO_TICKETS_LEFT, "the ticket pile is empty; choose another action")


def draw_tickets(state: State, seat: int, plan: None, events: list[Event]) -> None:
    """Offer the top tickets; the turn goes on until the seat keeps some."""
    pile: list[int] = state["ticket_pile"]
    drawn = pile[:RULES.draw_tickets]
    del pile[:RULES.draw_tickets]
    state["offered"][seat] = drawn
    # The event gets its own list: an event records what happened, the state moves on.
    events.append({"type": "tickets_drawn", "seat": seat, "count": len(drawn), "tickets": list(drawn)})


def min_keep(state: State, seat: int) -> int:
    """How many of the offered tickets must be kept now."""
    rule = RULES.setup_keep if state["phase"] == "tickets" else RULES.draw_keep
    return min(rule, len(state["offered"][seat]))


def check_keep_tickets(state: State, seat: int, action: dict[str, Any]) -> list[int]:
    """Check the kept ids: offered ones, no repeats, at least the minimum."""
    ids = action.get("tickets")
    if not isinstance(ids, list) or any(type(t) is not int or t not in TICKETS for t in ids):
        raise MalformedAction(TtrReason.UNKNOWN_TICKET, "ticket_ids must be ticket ids", field=FIELD)
    if len(set(ids)) != len(ids):
        raise MalformedAction(TtrReason.UNKNOWN_TICKET, "name each kept ticket once", field=FIELD)
    offered = state["offered"][seat]
    for ticket in ids:
        if ticket not in offered:
            raise RuleError(TtrReason.TICKET_NOT_OFFERED, "keep only tickets you were offered",
                            ticket_id=ticket)
    need = min_keep(state, seat)
    if len(ids) < need:
        raise RuleError(TtrReason.TOO_FEW_TICKETS_KEPT, f"keep at least {need} tickets", needed=need,
                        kept=len(ids))
    return list(ids)


def keep_tickets(state: State, seat: int, kept: list[int], events: list[Event]) -> None:
    """Keep; starting tickets not kept go to the box, later ones under the pile."""
    offered = state["offered"][seat]
    returned = [t for t in offered if t not in kept]
    state["tickets"][seat].extend(t for t in offered if t in kept)
    state["offered"][seat] = []
    events.append({"type": "tickets_kept", "seat": seat, "kept": len(kept), "returned": len(returned),
                   "tickets": [t for t in offered if t in kept]})
    if state["phase"] == "tickets":
        state["box"].extend(returned)
        if not any(state["offered"]):
            start_play(state, events)
        return
    state["ticket_pile"].extend(returned)
    end_turn(state, events)


def keep_options(state: State, seat: int) -> list[dict[str, Any]]:
    """Every allowed subset of the offered tickets, in offered order."""
    offered = state["offered"][seat]
    return [{"kind": "keep_tickets", "tickets": list(kept)}
            for size in range(min_keep(state, seat), len(offered) + 1)
            for kept in combinations(offered, size)]


def ticket_total(state: State) -> int:
    """Every ticket the state holds, wherever it is (the 46-ticket invariant)."""
    total = len(state["ticket_pile"]) + len(state["box"])
    total += sum(len(t) for t in state["tickets"]) + sum(len(t) for t in state["offered"])
    return int(total)
