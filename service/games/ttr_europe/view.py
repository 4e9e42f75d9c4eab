"""What each seat may see: the view message and event projection (DESIGN 10).

A seat sees its own hand, tickets and offered tickets; of the others only counts
and what is public (claimed routes, stations, face-up cards, the tunnel being
decided and its revealed cards, pile sizes). The deck order is never sent. Events
lose blind-drawn card colours and ticket ids for everyone but the acting seat. At
the end the final scores reveal every ticket and its result (TTR-012).
"""

from __future__ import annotations

from typing import Any

from tabletop.v1 import ttr_europe_pb2 as pb

from service.games.ttr_europe.board import LOCO, TICKETS
from service.games.ttr_europe.turns import to_act

State = dict[str, Any]
Event = dict[str, Any]

PHASES = {"tickets": pb.TTR_PHASE_INITIAL_TICKETS, "play": pb.TTR_PHASE_PLAYING,
          "last": pb.TTR_PHASE_LAST_ROUND, "over": pb.TTR_PHASE_FINISHED}
# Card code -> TtrColor (the enum is the code plus one); -1 (empty) and -2 (none) -> unspecified.
COLOR_PB: dict[int, pb.TtrColor.ValueType] = {code: pb.TtrColor.ValueType(code + 1) for code in range(LOCO + 1)}
NO_PB_COLOR = pb.TtrColor.ValueType(0)
# Event keys that only the acting seat may see.
_SECRET_KEYS = {"card_drawn": "card", "tickets_drawn": "tickets", "tickets_kept": "tickets"}


def view(state: State, seat: int | None) -> pb.TtrEuropeView:
    """The game as ``seat`` (None: a spectator) may see it."""
    phase = state["phase"]
    n = state["n"]
    msg = pb.TtrEuropeView(
        phase=PHASES[phase], awaiting_seats=to_act(state),
        face_up=[COLOR_PB.get(c, NO_PB_COLOR) for c in state["face_up"]],
        deck_count=len(state["deck"]), discard_count=len(state["discard"]),
        ticket_pile_count=len(state["ticket_pile"]), cards_drawn_this_turn=state["drawn"],
        players=[pb.TtrPlayer(seat=s, trains=state["trains"][s], stations=state["stations"][s],
                              score=state["score"][s], train_card_count=sum(state["hands"][s]),
                              ticket_count=len(state["tickets"][s]),
                              offered_ticket_count=len(state["offered"][s])) for s in range(n)],
        claimed_routes=[pb.TtrClaimedRoute(route_id=i + 1, seat=o) for i, o in enumerate(state["owner"])
                        if o >= 0],
        stations=[pb.TtrStation(city=city, seat=s) for city, s in state["station_at"].items()],
    )
    if phase in ("play", "last"):
        msg.current_seat = state["turn"]
    if state["last"] is not None:
        msg.last_round_trigger_seat = state["last"]["trigger"]
    tunnel = state["tunnel"]
    if tunnel is not None:
        msg.tunnel.CopyFrom(pb.TtrTunnel(
            seat=tunnel["seat"], route_id=tunnel["route"], extra_cost=tunnel["extra"],
            payment=_payment(tunnel["color"], tunnel["cards"], tunnel["locos"]),
            revealed=[COLOR_PB[c] for c in tunnel["revealed"]]))
    if seat is not None and 0 <= seat < n:
        hand = state["hands"][seat]
        msg.private.CopyFrom(pb.TtrPrivate(
            seat=seat, hand=[pb.TtrCardCount(color=COLOR_PB[c], count=k) for c, k in enumerate(hand) if k],
            tickets=[ticket_pb(t) for t in state["tickets"][seat]],
            offered_tickets=[ticket_pb(t) for t in state["offered"][seat]]))
    result = state["result"]
    if result is not None:
        msg.final_scores.extend(score_pb(entry) for entry in result["scores"])
        msg.winners.extend(result["winners"])
        for player in msg.players:
            player.score = result["scores"][player.seat]["total"]
    return msg


def project(event: Event, seat: int | None) -> Event | None:
    """The event as ``seat`` may see it: secrets kept only for the acting seat."""
    key = _SECRET_KEYS.get(event["type"])
    if key is None or event["seat"] == seat:
        return event
    if event["type"] == "card_drawn" and event["slot"] is not None:
        return event  # a face-up card was public before it was taken
    hidden = dict(event)
    hidden[key] = None if key == "card" else []
    return hidden


def ticket_pb(ticket_id: int) -> pb.TtrTicket:
    """A ticket as a message."""
    t = TICKETS[ticket_id]
    return pb.TtrTicket(id=t.id, city_a=t.a, city_b=t.b, points=t.points, long=t.long)


def score_pb(entry: dict[str, Any]) -> pb.TtrScore:
    """One player's final score breakdown as a message."""
    return pb.TtrScore(
        seat=entry["seat"], route_points=entry["routes"], ticket_points=entry["tickets"],
        station_points=entry["stations"], express_bonus=entry["express"], total=entry["total"],
        longest_path=entry["longest"], completed_tickets=entry["completed"],
        stations_used=entry["stations_used"], borrowed_route_ids=entry["borrowed"],
        tickets=[pb.TtrTicketResult(ticket=ticket_pb(t), completed=ok) for t, ok in entry["results"]])


# Helpers


def _payment(color: int, cards: int, locos: int) -> pb.TtrPayment:
    return pb.TtrPayment(color=COLOR_PB[color] if cards else NO_PB_COLOR, color_cards=cards, locomotives=locos)
