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

from tabletop_server.service.games.ttr_europe.board import LOCO, TICKETS
from tabletop_server.service.games.ttr_europe.layout import State, Tunnel
from tabletop_server.service.games.ttr_europe.turns import to_act

Event = dict[str, Any]

PHASES = {"tickets": pb.TTR_PHASE_INITIAL_TICKETS, "play": pb.TTR_PHASE_PLAYING,
          "last": pb.TTR_PHASE_LAST_ROUND, "over": pb.TTR_PHASE_FINISHED}
# Card code -> TtrColor (the enum is the code plus one); -1 (empty) and -2 (none) -> unspecified.
COLOR_PB: dict[int, pb.TtrColor.ValueType] = {code: pb.TtrColor.ValueType(code + 1) for code in range(LOCO + 1)}
NO_PB_COLOR = pb.TtrColor.ValueType(0)
TICKET_PB = {t.id: pb.TtrTicket(id=t.id, city_a=t.a, city_b=t.b, points=t.points, long=t.long)
             for t in TICKETS.values()}
# Event keys that only the acting seat may see.
_SECRET_KEYS = {"card_drawn": "card", "tickets_drawn": "tickets", "tickets_kept": "tickets"}


def view(state: State, seat: int | None) -> pb.TtrEuropeView:
    """The game as ``seat`` (None: a spectator) may see it."""
    phase = state["phase"]
    msg = pb.TtrEuropeView(
        phase=PHASES[phase], awaiting_seats=to_act(state),
        face_up=[COLOR_PB.get(c, NO_PB_COLOR) for c in state["face_up"]],
        deck_count=len(state["deck"]), discard_count=len(state["discard"]),
        ticket_pile_count=len(state["ticket_pile"]), cards_drawn_this_turn=state["drawn"],
        route_owners=state["owner"],
    )
    add_player = msg.players.add
    out = state.get("conceded", ())
    for s, (trains, stations, score, hand, tickets, offered) in enumerate(zip(
            state["trains"], state["stations"], state["score"], state["hands"], state["tickets"],
            state["offered"])):
        add_player(seat=s, trains=trains, stations=stations, score=score, train_card_count=sum(hand),
                   ticket_count=len(tickets), offered_ticket_count=len(offered), conceded=s in out)
    add_station = msg.stations.add
    for city, owner in state["station_at"].items():
        add_station(city=city, seat=owner)
    if phase in ("play", "last"):
        msg.current_seat = state["turn"]
    if state["last"] is not None:
        msg.last_round_trigger_seat = state["last"]["trigger"]
    if state["tunnel"] is not None:
        _tunnel(msg.tunnel, state["tunnel"])
    if seat is not None and 0 <= seat < state["n"]:
        _private(msg.private, state, seat)
    if state["result"] is not None:
        _final(msg, state["result"])
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
    """A ticket as a message (built once per ticket; callers copy it into their message)."""
    return TICKET_PB[ticket_id]


def score_pb(entry: dict[str, Any]) -> pb.TtrScore:
    """One player's final score breakdown as a message."""
    return pb.TtrScore(
        seat=entry["seat"], route_points=entry["routes"], ticket_points=entry["tickets"],
        station_points=entry["stations"], express_bonus=entry["express"], total=entry["total"],
        longest_path=entry["longest"], completed_tickets=entry["completed"],
        stations_used=entry["stations_used"], borrowed_route_ids=entry["borrowed"],
        tickets=[pb.TtrTicketResult(ticket=ticket_pb(t), completed=ok) for t, ok in entry["results"]])


# Helpers


def _tunnel(msg: pb.TtrTunnel, tunnel: Tunnel) -> None:
    msg.seat = tunnel["seat"]
    msg.route_id = tunnel["route"]
    msg.extra_cost = tunnel["extra"]
    msg.payment.CopyFrom(_payment(tunnel["color"], tunnel["cards"], tunnel["locos"]))
    msg.revealed.extend(COLOR_PB[c] for c in tunnel["revealed"])


def _private(msg: pb.TtrPrivate, state: State, seat: int) -> None:
    msg.seat = seat
    add_card = msg.hand.add
    for code, count in enumerate(state["hands"][seat]):
        if count:
            add_card(color=COLOR_PB[code], count=count)
    msg.tickets.extend([TICKET_PB[t] for t in state["tickets"][seat]])
    msg.offered_tickets.extend([TICKET_PB[t] for t in state["offered"][seat]])


def _final(msg: pb.TtrEuropeView, result: dict[str, Any]) -> None:
    """Final scores reveal every ticket; the players' scores become the totals."""
    msg.final_scores.extend(score_pb(entry) for entry in result["scores"])
    msg.winners.extend(result["winners"])
    for player in msg.players:
        player.score = result["scores"][player.seat]["total"]


def _payment(color: int, cards: int, locos: int) -> pb.TtrPayment:
    return pb.TtrPayment(color=COLOR_PB[color] if cards else NO_PB_COLOR, color_cards=cards, locomotives=locos)
