"""Claiming routes (TTR_NOTES section 5, action 2; TTR-024..TTR-031, TTR-040..TTR-042).

A claim pays the route's length in cards of its colour (gray: any one colour),
locomotives wild; a ferry needs its locomotive symbols paid with locomotives. The
claimant needs as many trains as spaces. Of a double route one player never owns
both, and with 2 or 3 players the second route closes once the first is taken.
A tunnel claim is checked here and continues in ``tunnels.py``.
"""

from __future__ import annotations

from typing import Any

from tabletop_server.service.engine.errors import MalformedAction, RuleError
from tabletop_server.service.games.ttr_europe import payment
from tabletop_server.service.games.ttr_europe.board import LOCO, PARTNER, ROUTES, RULES, Route
from tabletop_server.service.games.ttr_europe.cards import take_from_hand
from tabletop_server.service.games.ttr_europe.layout import State
from tabletop_server.service.games.ttr_europe.reasons import TtrReason
from tabletop_server.service.games.ttr_europe.turns import end_turn

Event = dict[str, Any]
Plan = tuple[Route, payment.Payment]
FIELD = "action.ttr_europe.claim_route"


def check_claim_route(state: State, seat: int, action: dict[str, Any]) -> Plan:
    """Check a claim; returns the route and the parsed payment."""
    route = route_of(action.get("route"))
    pay = payment.parse(action, FIELD)
    check_route_open(state, seat, route)
    payment.check(state["hands"][seat], pay, route.length, route.color, route.locomotives)
    return route, pay


def check_route_open(state: State, seat: int, route: Route) -> None:
    """Raise unless ``seat`` may take ``route`` at all (free, double-route rules, trains)."""
    owner: list[int] = state["owner"]
    if owner[route.id - 1] >= 0:
        raise RuleError(TtrReason.ROUTE_ALREADY_CLAIMED, "that route is taken; choose another",
                        route_id=route.id, owner=owner[route.id - 1])
    partner = PARTNER.get(route.id)
    if partner is not None:
        other = owner[partner - 1]
        if other == seat:
            raise RuleError(TtrReason.DOUBLE_ROUTE_OWNED, "you already own the other route of this "
                            "double route", route_id=route.id, partner=partner)
        if other >= 0 and state["n"] <= RULES.doubles_single_use_max:
            raise RuleError(TtrReason.DOUBLE_ROUTE_CLOSED, "with 2 or 3 players only one route of a "
                            "double route can be used", route_id=route.id, partner=partner)
    if state["trains"][seat] < route.length:
        raise RuleError(TtrReason.NOT_ENOUGH_TRAINS, f"this route needs {route.length} trains",
                        route_id=route.id, trains=state["trains"][seat])


def claim_route(state: State, seat: int, plan: Plan, events: list[Event]) -> None:
    """Pay for an ordinary route or ferry, take it, and end the turn (tunnels: tunnels.py)."""
    route, pay = plan
    state["discard"].extend(take_from_hand(state, seat, *pay))
    place_route(state, seat, route, pay, events)
    end_turn(state, events)


def place_route(state: State, seat: int, route: Route, pay: payment.Payment, events: list[Event]) -> None:
    """Put the trains on the route and score it at once (TTR-029)."""
    state["owner"][route.id - 1] = seat
    state["trains"][seat] -= route.length
    state["score"][seat] += route.points
    events.append({"type": "route_claimed", "seat": seat, "route": route.id, **payment.spell(pay),
                   "points": route.points})


def claim_options(state: State, seat: int) -> list[dict[str, Any]]:
    """Every route ``seat`` may claim now, with every distinct payment.

    The same conditions as ``check_route_open`` and ``payment.check``, inlined with a
    cheap affordability bound first: this runs on every ListLegalActions.
    """
    hand = state["hands"][seat]
    owner = state["owner"]
    trains = state["trains"][seat]
    closes = state["n"] <= RULES.doubles_single_use_max
    locos = hand[LOCO]
    best = max(hand[:LOCO]) + locos
    memo: dict[tuple[int, int, int], list[dict[str, Any]]] = {}
    found: list[dict[str, Any]] = []
    for route, index, partner in _ROWS:
        length = route.length
        if owner[index] >= 0 or length > trains or locos < route.locomotives:
            continue
        if (hand[route.color] + locos if route.color >= 0 else best) < length:
            continue
        if partner >= 0 and (owner[partner] == seat or (closes and owner[partner] >= 0)):
            continue
        key = (length, route.color, route.locomotives)
        pays = memo.get(key)
        if pays is None:
            pays = memo[key] = [payment.spell(p) for p in payment.options(hand, *key)]
        rid = route.id
        found.extend({"kind": "claim_route", "route": rid, **pay} for pay in pays)
    return found


def route_of(route_id: object) -> Route:
    """The route with this id; raises MalformedAction for anything else."""
    route = ROUTES.get(route_id) if type(route_id) is int else None
    if route is None:
        raise MalformedAction(TtrReason.UNKNOWN_ROUTE, "route_id must be 1..101",
                              field=f"{FIELD}.route_id", route_id=route_id)
    return route


# Per route: the route, its index in ``state["owner"]``, and its partner's index (-1: single).
_ROWS: tuple[tuple[Route, int, int], ...] = tuple(
    (route, route.id - 1, PARTNER[route.id] - 1 if route.id in PARTNER else -1) for route in ROUTES.values())
