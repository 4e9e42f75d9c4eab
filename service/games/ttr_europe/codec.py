"""Codec between the ``tabletop.v1`` messages and the rules' JSON actions and events.

Decoding checks the shape (a kind chosen, a known route, city or colour, a slot in
0..4) and raises ``MalformedAction`` naming the field; whether the action is legal
now is for ``apply``. Events are encoded after projection, so hidden parts arrive
here already blanked.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from google.protobuf.message import Message
from tabletop.v1 import ttr_europe_pb2 as pb

from tabletop_server.service.engine.errors import EngineReason, MalformedAction
from tabletop_server.service.games.ttr_europe.board import CARD_NAMES, CITIES, COLORS, ROUTES, RULES
from tabletop_server.service.games.ttr_europe.reasons import TtrReason
from tabletop_server.service.games.ttr_europe.view import score_pb, ticket_pb

Action = dict[str, Any]
Event = dict[str, Any]
NAME_PB: dict[str, pb.TtrColor.ValueType] = {name: pb.TtrColor.ValueType(code + 1) for code, name in enumerate(CARD_NAMES)}
PB_NAME = {value: name for name, value in NAME_PB.items()}
FIELD = "action.ttr_europe"


def decode_options(options: Message | None) -> dict[str, Any]:
    """Options with defaults filled (official tunnel rule unless the house rule is asked for)."""
    if options is None:
        return {"tunnel_failure_discards": False}
    if not isinstance(options, pb.TtrEuropeOptions):
        raise MalformedAction(EngineReason.INVALID_OPTION, "expected TtrEuropeOptions", field="options")
    return {"tunnel_failure_discards": bool(options.tunnel_failure_discards)}


def encode_options(options: dict[str, Any]) -> pb.TtrEuropeOptions:
    """The options message."""
    return pb.TtrEuropeOptions(tunnel_failure_discards=bool(options.get("tunnel_failure_discards")))


def decode_action(action: Message) -> Action:
    """The JSON action for a ``TtrEuropeAction``; raises MalformedAction on a bad shape."""
    if not isinstance(action, pb.TtrEuropeAction):
        raise MalformedAction(TtrReason.UNKNOWN_ACTION, "expected a TtrEuropeAction", field=FIELD)
    kind = action.WhichOneof("kind")
    if kind is None:
        raise MalformedAction(TtrReason.UNKNOWN_ACTION, "choose one action kind", field=FIELD)
    return _DECODERS[kind](getattr(action, kind))


def encode_action(action: Action) -> pb.TtrEuropeAction:
    """The message for a JSON action."""
    kind = action["kind"]
    if kind == "draw_card":
        return pb.TtrEuropeAction(draw_train_card=pb.TtrDrawTrainCard(face_up_slot=action["slot"]))
    if kind == "claim_route":
        return pb.TtrEuropeAction(claim_route=pb.TtrClaimRoute(route_id=action["route"],
                                                               payment=_payment_pb(action)))
    if kind == "build_station":
        return pb.TtrEuropeAction(build_station=pb.TtrBuildStation(city=action["city"],
                                                                   payment=_payment_pb(action)))
    if kind == "keep_tickets":
        return pb.TtrEuropeAction(keep_tickets=pb.TtrKeepTickets(ticket_ids=action["tickets"]))
    if kind == "pay_tunnel":
        return pb.TtrEuropeAction(pay_tunnel=pb.TtrPayTunnel(payment=_payment_pb(action)))
    if kind == "draw_tickets":
        return pb.TtrEuropeAction(draw_tickets=pb.TtrDrawTickets())
    if kind == "withdraw_tunnel":
        return pb.TtrEuropeAction(withdraw_tunnel=pb.TtrWithdrawTunnel())
    return pb.TtrEuropeAction(pass_turn=pb.TtrPassTurn())


def encode_event(event: Event) -> pb.TtrEuropeEvent:
    """The message for a (projected) JSON event."""
    return _ENCODERS[event["type"]](event)


# Helpers


def _payment(payment: pb.TtrPayment, field: str) -> dict[str, Any]:
    cards, locos = payment.color_cards, payment.locomotives
    if cards < 0 or locos < 0:
        raise MalformedAction(TtrReason.INVALID_PAYMENT, "card counts cannot be negative",
                              field=f"{field}.payment")
    if cards == 0:
        if payment.color:
            # One spelling per payment (payment.parse refuses the same in JSON): no silent drop.
            raise MalformedAction(TtrReason.INVALID_PAYMENT, "leave the colour unset when paying only "
                                  "locomotives", field=f"{field}.payment.color")
        return {"color": None, "cards": 0, "locos": locos}
    name = PB_NAME.get(payment.color)
    if name is None or name not in COLORS:
        raise MalformedAction(TtrReason.INVALID_PAYMENT, "color_cards need one train colour (locomotives "
                              "go in locomotives)", field=f"{field}.payment.color")
    return {"color": name, "cards": cards, "locos": locos}


def _payment_pb(action: Action) -> pb.TtrPayment:
    color = action["color"]
    return pb.TtrPayment(color=_color(color), color_cards=action["cards"],
                         locomotives=action["locos"])


def _draw(msg: pb.TtrDrawTrainCard) -> Action:
    if not msg.HasField("face_up_slot"):
        return {"kind": "draw_card", "slot": None}
    slot = msg.face_up_slot
    if not 0 <= slot < RULES.face_up:
        raise MalformedAction(TtrReason.INVALID_SLOT, f"face_up_slot must be 0..{RULES.face_up - 1}",
                              field=f"{FIELD}.draw_train_card.face_up_slot", slot=slot)
    return {"kind": "draw_card", "slot": slot}


def _claim(msg: pb.TtrClaimRoute) -> Action:
    if msg.route_id not in ROUTES:
        raise MalformedAction(TtrReason.UNKNOWN_ROUTE, "route_id must be 1..101",
                              field=f"{FIELD}.claim_route.route_id", route_id=msg.route_id)
    return {"kind": "claim_route", "route": msg.route_id, **_payment(msg.payment, f"{FIELD}.claim_route")}


def _station(msg: pb.TtrBuildStation) -> Action:
    if msg.city not in CITIES:
        raise MalformedAction(TtrReason.UNKNOWN_CITY, "name a city of the board (for example Munchen)",
                              field=f"{FIELD}.build_station.city", city=msg.city)
    return {"kind": "build_station", "city": msg.city, **_payment(msg.payment, f"{FIELD}.build_station")}


def _keep(msg: pb.TtrKeepTickets) -> Action:
    return {"kind": "keep_tickets", "tickets": list(msg.ticket_ids)}


def _pay(msg: pb.TtrPayTunnel) -> Action:
    return {"kind": "pay_tunnel", **_payment(msg.payment, f"{FIELD}.pay_tunnel")}


_DECODERS: dict[str, Callable[[Any], Action]] = {
    "draw_train_card": _draw, "claim_route": _claim, "build_station": _station,
    "draw_tickets": lambda msg: {"kind": "draw_tickets"}, "keep_tickets": _keep, "pay_tunnel": _pay,
    "withdraw_tunnel": lambda msg: {"kind": "withdraw_tunnel"}, "pass_turn": lambda msg: {"kind": "pass"},
}


def _color(name: str | None) -> pb.TtrColor.ValueType:
    return NAME_PB[name] if name else pb.TtrColor.ValueType(0)


def _event_payment(e: Event) -> pb.TtrPayment:
    return pb.TtrPayment(color=_color(e["color"]), color_cards=e["cards"], locomotives=e["locos"])


_ENCODERS: dict[str, Callable[[Event], pb.TtrEuropeEvent]] = {
    "card_drawn": lambda e: pb.TtrEuropeEvent(train_card_drawn=pb.TtrTrainCardDrawn(
        seat=e["seat"], face_up_slot=e["slot"], color=_color(e["card"]))),
    "face_up": lambda e: pb.TtrEuropeEvent(face_up_changed=pb.TtrFaceUpChanged(
        face_up=[_color(c) for c in e["cards"]], reset=e["reset"])),
    "reshuffled": lambda e: pb.TtrEuropeEvent(deck_reshuffled=pb.TtrDeckReshuffled(deck_count=e["deck"])),
    "route_claimed": lambda e: pb.TtrEuropeEvent(route_claimed=pb.TtrRouteClaimed(
        seat=e["seat"], route_id=e["route"], payment=_event_payment(e), points=e["points"])),
    "station_built": lambda e: pb.TtrEuropeEvent(station_built=pb.TtrStationBuilt(
        seat=e["seat"], city=e["city"], payment=_event_payment(e))),
    "tickets_drawn": lambda e: pb.TtrEuropeEvent(tickets_drawn=pb.TtrTicketsDrawn(
        seat=e["seat"], count=e["count"], tickets=[ticket_pb(t) for t in e["tickets"]])),
    "tickets_kept": lambda e: pb.TtrEuropeEvent(tickets_kept=pb.TtrTicketsKept(
        seat=e["seat"], kept_count=e["kept"], returned_count=e["returned"],
        tickets=[ticket_pb(t) for t in e["tickets"]])),
    "tunnel_revealed": lambda e: pb.TtrEuropeEvent(tunnel_revealed=pb.TtrTunnelRevealed(
        seat=e["seat"], route_id=e["route"], revealed=[_color(c) for c in e["revealed"]],
        extra_cost=e["extra"])),
    "tunnel_withdrawn": lambda e: pb.TtrEuropeEvent(tunnel_withdrawn=pb.TtrTunnelWithdrawn(
        seat=e["seat"], route_id=e["route"], cards_discarded=e["discarded"])),
    "turn_started": lambda e: pb.TtrEuropeEvent(turn_started=pb.TtrTurnStarted(seat=e["seat"])),
    "last_round": lambda e: pb.TtrEuropeEvent(last_round_started=pb.TtrLastRoundStarted(
        seat=e["seat"], trains=e["trains"])),
    "game_scored": lambda e: pb.TtrEuropeEvent(game_scored=pb.TtrGameScored(
        scores=[score_pb(s) for s in e["scores"]], winners=e["winners"])),
    "passed": lambda e: pb.TtrEuropeEvent(turn_passed=pb.TtrTurnPassed(seat=e["seat"])),
}
