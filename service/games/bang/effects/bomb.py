"""The Bomb (Armed & Dangerous; AD-006, 050..052): all it does, in one place.

It is an orange card (``dangerous.Dangerous`` puts it in play with 3 cubes), played in front of any
player (AD-006). At the start of its holder's turn, after Dynamite and Jail (AD-052; a failed Jail skips
it, RULINGS AD-052: ``skippable``), he draws! (``t_bomb``): Hearts or Diamonds, he passes it with
its cubes to another player without one (``pass_bomb``); Clubs or Spades, it loses 2 cubes. When it runs
out it explodes (``cubes.when_emptied``): its holder loses 2 life, caused by no one (AD-050, 051).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tabletop_server.service.engine.errors import RuleError
from tabletop_server.service.games.bang import cubes
from tabletop_server.service.games.bang.checks import check, draw_check
from tabletop_server.service.games.bang.damage import damage
from tabletop_server.service.games.bang.layout import Action, CardRequest, Event, PlainStep, State
from tabletop_server.service.games.bang.pending import RequestKind, Step, request, step
from tabletop_server.service.games.bang.reasons import Reason
from tabletop_server.service.games.bang.state import (
    card_in_effect,
    player,
    push,
    seats_from,
    source_seat,
)
from tabletop_server.service.games.bang.tables import CARDS, TYPE_OF
from tabletop_server.service.games.bang.turn import add_start_step

BOMB_DAMAGE = 2


@check("bomb", lambda card: CARDS[card].suit in ("hearts", "diamonds"))
def bomb(state: State, seat: int, good: bool, events: list[Event], ctx: Mapping[str, Any]) -> None:
    """Red: pass it on (its holder chooses to whom); black: it loses 2 cubes, and explodes when empty."""
    card = card_in_effect(state, seat, "bomb")
    if card is None:
        return
    if good:
        if _receivers(state, seat):
            push(state, "pass_bomb", seat, seat, card=card)
        return
    cubes.remove(state, seat, card, BOMB_FAIL_CUBES, events, "bomb")


BOMB_FAIL_CUBES = 2


@step("t_bomb")
class BombCheck(Step[PlainStep]):
    """Draw! for a Bomb in front of the turn player, after Dynamite and Jail (AD-052)."""

    def run(self, state: State, req: PlainStep, events: list[Event]) -> None:
        seat = source_seat(req)
        if player(state, seat)["alive"] and card_in_effect(state, seat, "bomb"):
            draw_check(state, seat, "bomb", events)


add_start_step("t_bomb", before="t_draw", expansion="armed_and_dangerous", skippable=True)


@request("pass_bomb")
class PassBomb(RequestKind[CardRequest]):
    """``choose`` ``target``: the other living player who gets the Bomb, with its cubes."""

    answers = frozenset({"choose"})
    choose_field = "target"

    def legal(self, state: State, req: CardRequest) -> list[Action]:
        return [{"type": "choose", "target": t} for t in _receivers(state, req["seat"])]

    def check(self, state: State, req: CardRequest, action: Action) -> None:
        if action["target"] not in _receivers(state, req["seat"]):
            raise RuleError(Reason.NOT_A_CHOICE, "Pass the Bomb to another living player", target=action["target"])

    def resolve(self, state: State, req: CardRequest, action: Action, events: list[Event]) -> None:
        state["pending"].pop()
        seat, card, target = req["seat"], req["args"]["card"], action["target"]
        if card not in player(state, seat)["table"]:
            return
        player(state, seat)["table"].remove(card)  # moving between tables keeps its marks (its cubes)
        player(state, target)["table"].append(card)
        events.append({"kind": "move", "seat": seat, "other": target, "cards": [card], "reason": "bomb"})

    def settled(self, state: State, req: CardRequest) -> bool:
        return req["args"]["card"] not in player(state, req["seat"])["table"] or not _receivers(state, req["seat"])

    def auto(self, state: State, req: CardRequest) -> Action | None:
        receivers = _receivers(state, req["seat"])
        return {"type": "choose", "target": receivers[0]} if len(receivers) == 1 else None


def _receivers(state: State, seat: int) -> list[int]:
    """Other living players without a Bomb (NOTES b #16)."""
    return [s for s in seats_from(state, seat, include_self=False)
            if not any(TYPE_OF[c].key == "bomb" for c in player(state, s)["table"])]


@cubes.when_emptied("bomb")
def explode(state: State, seat: int, card: str, events: list[Event]) -> None:
    """Its last cube is gone: it explodes, its holder loses 2 life, caused by no one (AD-050, 051)."""
    events.append({"kind": "explode", "seat": seat, "cards": [card]})
    damage(state, seat, BOMB_DAMAGE, None, events)
