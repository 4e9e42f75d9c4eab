"""Hidden information (view and projection, TTR-012) and the proto codec."""

from __future__ import annotations

import json
from typing import Any

import pytest
from tabletop.v1 import ttr_europe_pb2 as pb
from ttr_helpers import random_game, route_id, set_face_up, set_hand, stack_deck, started

import tabletop_server.service.games.ttr_europe as ttr
from tabletop_server.service.engine.errors import EngineReason, MalformedAction

State = dict[str, Any]


def _swap_secrets(state: State, seat: int) -> State:
    """The same public position with ``seat``'s hand colours, tickets and the deck order changed."""
    other: State = json.loads(json.dumps(state))
    hand = other["hands"][seat]
    other["hands"][seat] = hand[1:8] + hand[:1] + hand[8:]  # same count, other colours
    other["deck"].reverse()
    held, pile = other["tickets"][seat], other["ticket_pile"]
    k = min(len(held), len(pile))
    held[:k], pile[:k] = pile[:k], held[:k]
    return other


@pytest.mark.rule("TTR-012")
def test_view_hides_other_hands_tickets_and_deck_order() -> None:
    # A mid-game position: the state after 120 actions of a bot game.
    snapshots: list[State] = []
    random_game(5, 4, check=lambda s: snapshots.append(json.loads(json.dumps(s))) if len(snapshots) < 120 else None)
    mid = snapshots[-1]
    changed = _swap_secrets(mid, 0)
    for viewer in (1, 2, 3, None):
        assert ttr.view(mid, viewer) == ttr.view(changed, viewer)
    assert ttr.view(mid, 0) != ttr.view(changed, 0)
    mine = ttr.view(mid, 0)
    assert mine.private.seat == 0
    assert sorted(t.id for t in mine.private.tickets) == sorted(mid["tickets"][0])
    assert {c.color - 1: c.count for c in mine.private.hand} == {
        code: n for code, n in enumerate(mid["hands"][0]) if n}
    assert mine.deck_count == len(mid["deck"])


def test_view_public_parts(game3: State) -> None:
    set_hand(game3, 0, {"orange": 3})
    ttr.apply(game3, 0, {"kind": "claim_route", "route": route_id("Munchen", "Wien"), "color": "orange",
                         "cards": 3, "locos": 0})
    view = ttr.view(game3, 2)
    assert view.phase == pb.TTR_PHASE_PLAYING and view.current_seat == 1 and list(view.awaiting_seats) == [1]
    assert view.route_owners[route_id("Munchen", "Wien") - 1] == 0 and len(view.route_owners) == 101
    first = view.players[0]
    assert (first.seat, first.trains, first.score) == (0, 42, 4)
    assert view.players[0].train_card_count == 0 and view.players[0].ticket_count == 2
    assert view.discard_count == 3 and len(view.face_up) == 5


def _seen(event: dict[str, Any], seat: int | None) -> dict[str, Any]:
    projected = ttr.project(event, seat)
    assert projected is not None
    return projected


@pytest.mark.rule("TTR-012")
def test_projection_hides_blind_cards_and_tickets(game3: State) -> None:
    set_face_up(game3, ["blue", "white", "green", "black", "yellow"])
    stack_deck(game3, ["red"])
    events = ttr.apply(game3, 0, {"kind": "draw_card", "slot": None})
    drawn = events[0]
    assert ttr.project(drawn, 0) == drawn and drawn["card"] == "red"
    assert _seen(drawn, 1)["card"] is None and _seen(drawn, None)["card"] is None
    assert drawn["card"] == "red", "projection must not mutate the event"
    events = ttr.apply(game3, 0, {"kind": "draw_card", "slot": 1})
    assert ttr.project(events[0], 2) == events[0]  # a face-up card was public already
    events = ttr.apply(game3, 1, {"kind": "draw_tickets"})
    assert _seen(events[0], 1)["tickets"] == game3["offered"][1]
    # The drawer learns its tickets from the event itself, encoded.
    assert [t.id for t in ttr.encode_event(_seen(events[0], 1)).tickets_drawn.tickets] == game3["offered"][1]
    assert _seen(events[0], 0)["tickets"] == [] and _seen(events[0], 0)["count"] == 3
    events = ttr.apply(game3, 1, {"kind": "keep_tickets", "tickets": game3["offered"][1][:2]})
    assert _seen(events[0], None)["tickets"] == [] and _seen(events[0], None)["kept"] == 2
    encoded = ttr.encode_event(_seen(events[0], 0))
    assert encoded.tickets_kept.kept_count == 2 and not encoded.tickets_kept.tickets


def test_every_event_encodes_for_every_viewer() -> None:
    from tabletop_server.service.engine.rng import Rng

    seen: set[str] = set()
    bot_state, _ = random_game(4, 3)
    # Replay the same bot game, this time with its events in hand.
    state = ttr.setup({"tunnel_failure_discards": False}, 3, 4)
    bot = Rng({"rng": 4 * 7919 + 1})
    while not ttr.is_over(state):
        seat = bot.choice(ttr.to_act(state))
        actions = ttr.legal_actions(state, seat)
        claims = [a for a in actions if a["kind"] in ("claim_route", "pay_tunnel")]
        action = bot.choice(claims) if claims and bot.below(3) else bot.choice(actions)
        for event in ttr.apply(state, seat, action):
            seen.add(event["type"])
            for viewer in (0, 1, 2, None):
                projected = ttr.project(event, viewer)
                assert projected is not None
                assert ttr.encode_event(projected).WhichOneof("kind")
    assert state == bot_state
    assert {"card_drawn", "face_up", "route_claimed", "tickets_drawn", "tickets_kept", "turn_started",
            "last_round", "game_scored"} <= seen


def test_actions_round_trip_through_the_codec() -> None:
    count = 0

    def round_trip(state: State) -> None:
        nonlocal count
        for seat in ttr.to_act(state):
            for action in ttr.legal_actions(state, seat):
                assert ttr.decode_action(ttr.encode_action(action)) == action
                count += 1

    random_game(8, 4, check=round_trip)
    assert count > 1000
    for action in ({"kind": "withdraw_tunnel"}, {"kind": "pass"}, {"kind": "draw_tickets"},
                   {"kind": "pay_tunnel", "color": None, "cards": 0, "locos": 2}):
        assert ttr.decode_action(ttr.encode_action(action)) == action


CLAIM = "action.ttr_europe.claim_route"
NO_COLOUR = "color_cards need one train colour (locomotives go in locomotives)"


@pytest.mark.parametrize("message, reason, field, text, details", [
    (pb.TtrEuropeAction(), "UNKNOWN_ACTION", "action.ttr_europe", "choose one action kind", {}),
    (pb.TtrEuropeOptions(), "UNKNOWN_ACTION", "action.ttr_europe", "expected a TtrEuropeAction", {}),
    (pb.TtrEuropeAction(claim_route=pb.TtrClaimRoute(route_id=0)), "UNKNOWN_ROUTE", f"{CLAIM}.route_id",
     "route_id must be 1..101", {"route_id": "0"}),
    (pb.TtrEuropeAction(claim_route=pb.TtrClaimRoute(route_id=999)), "UNKNOWN_ROUTE", f"{CLAIM}.route_id",
     "route_id must be 1..101", {"route_id": "999"}),
    (pb.TtrEuropeAction(build_station=pb.TtrBuildStation(city="Praha")), "UNKNOWN_CITY",
     "action.ttr_europe.build_station.city", "name a city of the board (for example Munchen)", {"city": "Praha"}),
    (pb.TtrEuropeAction(draw_train_card=pb.TtrDrawTrainCard(face_up_slot=5)), "INVALID_SLOT",
     "action.ttr_europe.draw_train_card.face_up_slot", "face_up_slot must be 0..4", {"slot": "5"}),
    (pb.TtrEuropeAction(draw_train_card=pb.TtrDrawTrainCard(face_up_slot=-1)), "INVALID_SLOT",
     "action.ttr_europe.draw_train_card.face_up_slot", "face_up_slot must be 0..4", {"slot": "-1"}),
    (pb.TtrEuropeAction(claim_route=pb.TtrClaimRoute(route_id=3, payment=pb.TtrPayment(
        color=pb.TTR_COLOR_GRAY, color_cards=2))), "INVALID_PAYMENT", f"{CLAIM}.payment.color", NO_COLOUR, {}),
    (pb.TtrEuropeAction(pay_tunnel=pb.TtrPayTunnel(payment=pb.TtrPayment(
        color=pb.TTR_COLOR_LOCOMOTIVE, color_cards=1))), "INVALID_PAYMENT",
     "action.ttr_europe.pay_tunnel.payment.color", NO_COLOUR, {}),
    (pb.TtrEuropeAction(claim_route=pb.TtrClaimRoute(route_id=3, payment=pb.TtrPayment(
        color_cards=-1))), "INVALID_PAYMENT", f"{CLAIM}.payment", "card counts cannot be negative", {}),
    (pb.TtrEuropeAction(claim_route=pb.TtrClaimRoute(route_id=3, payment=pb.TtrPayment(
        color=pb.TTR_COLOR_RED, color_cards=2, locomotives=-1))), "INVALID_PAYMENT", f"{CLAIM}.payment",
     "card counts cannot be negative", {}),
    # One spelling per payment, as in the rules' own parser: a colour with no coloured cards is refused,
    # not silently dropped.
    (pb.TtrEuropeAction(build_station=pb.TtrBuildStation(city="Wien", payment=pb.TtrPayment(
        color=pb.TTR_COLOR_RED, locomotives=1))), "INVALID_PAYMENT", "action.ttr_europe.build_station.payment.color",
     "leave the colour unset when paying only locomotives", {}),
])
def test_malformed_messages(message: Any, reason: str, field: str, text: str, details: dict[str, str]) -> None:
    """The reason, the field, the message a player reads and the details: all four are the client's contract."""
    with pytest.raises(MalformedAction) as err:
        ttr.decode_action(message)
    assert (err.value.reason, err.value.field, err.value.message, err.value.details) == (reason, field, text, details)


def test_well_formed_messages_decode_to_their_actions() -> None:
    payment = pb.TtrPayment(color=pb.TTR_COLOR_RED, color_cards=2, locomotives=1)
    assert ttr.decode_action(pb.TtrEuropeAction(claim_route=pb.TtrClaimRoute(route_id=101, payment=payment))) == {
        "kind": "claim_route", "route": 101, "color": "red", "cards": 2, "locos": 1}
    assert ttr.decode_action(pb.TtrEuropeAction(build_station=pb.TtrBuildStation(
        city="Wien", payment=pb.TtrPayment(locomotives=1)))) == {
        "kind": "build_station", "city": "Wien", "color": None, "cards": 0, "locos": 1}
    assert ttr.decode_action(pb.TtrEuropeAction(draw_train_card=pb.TtrDrawTrainCard(face_up_slot=0))) == {
        "kind": "draw_card", "slot": 0}
    assert ttr.decode_action(pb.TtrEuropeAction(draw_train_card=pb.TtrDrawTrainCard(face_up_slot=4))) == {
        "kind": "draw_card", "slot": 4}
    assert ttr.decode_action(pb.TtrEuropeAction(draw_train_card=pb.TtrDrawTrainCard())) == {
        "kind": "draw_card", "slot": None}
    assert ttr.decode_action(pb.TtrEuropeAction(claim_route=pb.TtrClaimRoute(route_id=1))) == {
        "kind": "claim_route", "route": 1, "color": None, "cards": 0, "locos": 0}


def test_options_codec() -> None:
    assert ttr.decode_options(None) == {"tunnel_failure_discards": False}
    assert ttr.decode_options(pb.TtrEuropeOptions(tunnel_failure_discards=True)) == {
        "tunnel_failure_discards": True}
    assert ttr.encode_options({"tunnel_failure_discards": True}).tunnel_failure_discards
    with pytest.raises(MalformedAction) as err:
        ttr.decode_options(pb.TtrEuropeAction())
    assert (err.value.reason, err.value.field, err.value.message) == (
        EngineReason.INVALID_OPTION, "options", "expected TtrEuropeOptions")
    assert ttr.INFO.id == "ttr-europe" and ttr.INFO.proto_field == "ttr_europe"
    assert [o.name for o in ttr.INFO.options] == ["tunnel_failure_discards"]
    assert (ttr.INFO.min_seats, ttr.INFO.max_seats) == (2, 5)
    state = started(2, tunnel_failure_discards=True)
    assert state["opts"] == {"tunnel_failure_discards": True}


def test_a_seat_outside_the_table_sees_what_a_spectator_sees() -> None:
    state = started(3)
    assert not ttr.view(state, 3).HasField("private") and not ttr.view(state, -1).HasField("private")
    assert ttr.view(state, 2).HasField("private")
    assert ttr.view(state, 3).SerializeToString() == ttr.view(state, None).SerializeToString()
