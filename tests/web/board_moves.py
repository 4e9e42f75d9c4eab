"""How the whole-game browser tests choose their moves, and where on the page each move is clicked.

A move is chosen from the seat's legal actions (the server's list, which is the page's own list in the same
order) by a seeded policy that prefers what a player does on the board: claim a route, take a card, play a
card from the hand. So a game with a fixed seed is the same game at every run, and the same policy can be
played without a browser to pick seeds whose game ends soon (``play_out``). Each move is then made where a
person makes it: ``target`` says which board element stands for it, or ``None`` when none does (then the
page's list is the only way, and the test says so).
"""

from __future__ import annotations

import random
from typing import Any

from tabletop.v1 import bang_pb2
from tabletop.v1 import game_service_pb2 as svc

from tests.helpers import bearer, deciding_seat

CLAIM_SHARE = 0.75  # TTR: claim a route when one can be claimed, most of the time
BOARD_SHARE = 0.85  # BANG!: a card on the table, most of the time, rather than ending the turn
BANG_CARD_KINDS = ("play", "respond", "discard", "use", "barrel")
DECK_SOURCES = (bang_pb2.BANG_DRAW_SOURCE_DECK, bang_pb2.BANG_DRAW_SOURCE_UNSPECIFIED)


def target(action: Any, view: Any) -> str | None:
    """The CSS selector of the board element a player clicks for ``action`` (the seat's view: the BANG!
    request's cards), or None when the board has none for it."""
    if action.HasField("ttr_europe"):
        kind = action.ttr_europe.WhichOneof("kind")
        move = getattr(action.ttr_europe, kind)
        if kind == "claim_route":
            return f"svg.board g.route.claimable[data-route='{move.route_id}']"
        if kind == "draw_train_card":
            return (f"[data-testid=face-up] .actionable[data-slot='{move.face_up_slot}']"
                    if move.HasField("face_up_slot") else "[data-testid=draw-deck]")
        if kind == "keep_tickets":
            return "[data-testid=keep-form]"
        if kind == "build_station":  # the city's dot on the map (then how to pay)
            return f"svg.board g.buildable[data-city=\"{move.city}\"] circle.hit"
        if kind == "draw_tickets":
            return "[data-testid=draw-tickets]"
        return None  # pay or withdraw a tunnel, pass: the list
    kind = action.bang.WhichOneof("kind")
    move = getattr(action.bang, kind)
    if kind in BANG_CARD_KINDS:
        return f"#app .play .actionable[data-card='{move.card}']"
    if kind == "draw" and move.source in DECK_SOURCES:
        return "[data-testid=bang-deck].actionable"
    if kind == "draw" and move.source == bang_pb2.BANG_DRAW_SOURCE_DISCARD:
        return "[data-testid=discard].actionable"
    if kind == "choose" and move.card and view.pending and move.card in {c.id for c in view.pending[-1].cards}:
        return f"[data-testid=question] .actionable[data-card='{move.card}']"
    seat = _seat_target(action)
    if seat is not None:
        return seat
    return None  # end the turn, take the hit, abilities, upgrades, cubes: the list


def _seat_target(action: Any) -> str | None:
    """BANG!: a seat chosen (Jesse Jones drawing from a player, passing the Bomb) is clicked on the table: the
    seat itself, or its name when it holds buttons of its own (the viewer's seat)."""
    kind = action.bang.WhichOneof("kind")
    move = getattr(action.bang, kind)
    chosen = kind == "choose" and move.HasField("target_seat")
    drawn = kind == "draw" and move.source == bang_pb2.BANG_DRAW_SOURCE_PLAYER
    if not (chosen or drawn):
        return None
    seat = f"[data-testid=table] .seat[data-seat='{move.target_seat}']"
    return f"{seat}.actionable, {seat} > strong.actionable"


def choose(actions: list[Any], view: Any, rng: random.Random) -> Any:
    """The move the policy makes among ``actions`` (the seat's legal actions, in the server's order)."""
    if actions[0].HasField("ttr_europe"):
        kinds = [a.ttr_europe.WhichOneof("kind") for a in actions]
        claims = [a for a, k in zip(actions, kinds, strict=True) if k == "claim_route"]
        draws = [a for a, k in zip(actions, kinds, strict=True) if k == "draw_train_card"]
        keeps = [a for a, k in zip(actions, kinds, strict=True) if k == "keep_tickets"]
        if keeps:
            return rng.choice(keeps)
        if claims and (not draws or rng.random() < CLAIM_SHARE):
            return rng.choice(claims)
        if draws:
            return rng.choice(draws)
        return rng.choice(actions)
    # The board as it was when the seeds were picked (seat clicks came later): the same seed, the same game.
    board = [a for a in actions if target(a, view) is not None and _seat_target(a) is None]
    if board and rng.random() < BOARD_SHARE:
        return rng.choice(board)
    return rng.choice(actions)


def view_of(stub: Any, name: str, token: str) -> Any:
    reply = stub.GetGame(svc.GetGameRequest(name=name), metadata=bearer(token))
    return reply.view.bang if reply.view.HasField("bang") else reply.view.ttr_europe


def play_out(stub: Any, name: str, tokens: dict[int, str], rng: random.Random, limit: int) -> int:
    """Play the policy over gRPC alone until the game ends (or ``limit`` moves): how many moves it took."""
    for moves in range(limit):
        seat, actions = deciding_seat(stub, name, tokens)
        if seat is None:
            return moves
        action = choose(actions, view_of(stub, name, tokens[seat]), rng)
        stub.SubmitAction(svc.SubmitActionRequest(name=name, action=action), metadata=bearer(tokens[seat]))
    return limit
