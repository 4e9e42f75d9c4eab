"""The action registry: one check, one perform and one enumerator per action kind.

``apply`` gates the kind on the moment (``turns.gate``), runs the kind's
``check_*`` (which raises before any write, DESIGN 5), then performs it.
``legal_actions`` is built from the same gate and the enumerators, which use the
same predicates as the checks (DESIGN 4). Actions are plain JSON dicts with a
``kind``:

- ``{"kind": "draw_card", "slot": 0..4 | None}``
- ``{"kind": "claim_route", "route": id, "color": name | None, "cards": n, "locos": n}``
- ``{"kind": "build_station", "city": name, "color": name | None, "cards": n, "locos": n}``
- ``{"kind": "draw_tickets"}``, ``{"kind": "keep_tickets", "tickets": [id, ...]}``
- ``{"kind": "pay_tunnel", "color": name | None, "cards": n, "locos": n}``, ``{"kind": "withdraw_tunnel"}``
- ``{"kind": "pass"}``: only when nothing else is possible (a house necessity the rules
  never meet: no cards anywhere, no tickets, nothing affordable), so a game cannot stall.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tabletop_server.service.engine.errors import MalformedAction, RuleError
from tabletop_server.service.engine.handlers import Registry
from tabletop_server.service.games.ttr_europe import claim, draw, stations, tickets, tunnels
from tabletop_server.service.games.ttr_europe.layout import State
from tabletop_server.service.games.ttr_europe.reasons import TtrReason
from tabletop_server.service.games.ttr_europe.setup import check_rules_version
from tabletop_server.service.games.ttr_europe.turns import end_turn, gate, open_kinds

Action = dict[str, Any]
Event = dict[str, Any]


@dataclass(frozen=True)
class ActionKind:
    """How one kind of action is checked, performed and enumerated."""

    check: Callable[[State, int, Action], Any]
    perform: Callable[[State, int, Any, list[Event]], None]
    options: Callable[[State, int], list[Action]]


KINDS: Registry[ActionKind] = Registry("action kind")
_PAYMENT = ("color", "cards", "locos")
_FIELDS: dict[str, frozenset[str]] = {kind: frozenset(("kind", *fields)) for kind, fields in {
    "draw_card": ("slot",), "claim_route": ("route", *_PAYMENT), "build_station": ("city", *_PAYMENT),
    "draw_tickets": (), "keep_tickets": ("tickets",), "pay_tunnel": _PAYMENT, "withdraw_tunnel": (),
    "pass": (),
}.items()}


def register(name: str, kind: ActionKind) -> None:
    """Add an action kind; a name registered twice is a bug."""
    KINDS.add(name, kind)


def apply(state: State, seat: int, action: Action) -> list[Event]:
    """Check the action completely, then perform it; returns the unprojected events."""
    check_rules_version(state)
    kind = _kind(action)
    if type(seat) is not int or not 0 <= seat < state["n"]:
        raise MalformedAction(TtrReason.UNKNOWN_ACTION, "no such seat", field="seat", seat=seat)
    gate(state, seat, kind)
    handler = KINDS[kind]
    plan = handler.check(state, seat, action)
    events: list[Event] = []
    handler.perform(state, seat, plan, events)
    return events


def legal_actions(state: State, seat: int) -> list[Action]:
    """Every action ``seat`` may take now (empty when it is not the seat's move; a game of rules this code
    does not play raises, as ``apply`` does)."""
    check_rules_version(state)
    found: list[Action] = []
    kinds = open_kinds(state, seat)
    for name in kinds:
        found.extend(KINDS[name].options(state, seat))
    if not found and "pass" in kinds:
        found.append({"kind": "pass"})
    return found


# Helpers


def _kind(action: Action) -> str:
    """The action's kind; its fields must be exactly that kind's (one spelling per action)."""
    kind = action.get("kind") if isinstance(action, dict) else None
    if not isinstance(kind, str) or kind not in KINDS:
        raise MalformedAction(TtrReason.UNKNOWN_ACTION, "choose one action kind", field="action.ttr_europe",
                              kind=kind)
    if action.keys() != _FIELDS[kind]:
        raise MalformedAction(TtrReason.UNKNOWN_ACTION, f"a {kind} action has exactly the fields "
                              f"{sorted(_FIELDS[kind])}", field="action.ttr_europe", kind=kind)
    return kind


def _check_pass(state: State, seat: int, action: Action) -> None:
    if legal_actions(state, seat) != [{"kind": "pass"}]:
        raise RuleError(TtrReason.CANNOT_PASS, "you can still act: draw, claim, build or take tickets")


def _pass(state: State, seat: int, plan: None, events: list[Event]) -> None:
    events.append({"type": "passed", "seat": seat})
    end_turn(state, events, passed=True)


def _draw_tickets_options(state: State, seat: int) -> list[Action]:
    return [{"kind": "draw_tickets"}] if state["ticket_pile"] else []


def _claim_route(state: State, seat: int, plan: claim.Plan, events: list[Event]) -> None:
    route, pay = plan
    if route.tunnel:
        tunnels.start_tunnel(state, seat, route, pay, events)
    else:
        claim.claim_route(state, seat, plan, events)


register("draw_card", ActionKind(draw.check_draw_card, draw.draw_card, draw.draw_options))
register("claim_route", ActionKind(claim.check_claim_route, _claim_route, claim.claim_options))
register("build_station", ActionKind(stations.check_build_station, stations.build_station,
                                     stations.station_options))
register("draw_tickets", ActionKind(tickets.check_draw_tickets, tickets.draw_tickets, _draw_tickets_options))
register("keep_tickets", ActionKind(tickets.check_keep_tickets, tickets.keep_tickets, tickets.keep_options))
register("pay_tunnel", ActionKind(tunnels.check_pay_tunnel, tunnels.pay_tunnel, tunnels.tunnel_options))
register("withdraw_tunnel", ActionKind(tunnels.check_withdraw_tunnel, tunnels.withdraw_tunnel,
                                       tunnels.withdraw_options))
register("pass", ActionKind(_check_pass, _pass, lambda state, seat: []))
