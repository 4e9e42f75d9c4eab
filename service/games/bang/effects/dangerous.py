"""Armed & Dangerous: the Dangerous (orange) cards in play, and the Bomb (AD-004..008, 014..016, 044..067).

An orange card behaves like a blue one (same-name rule, a weapon replaces the weapon in play,
removable by Panic!, Cat Balou and the like) and enters play with 3 cubes from the supply; it
cannot be played when the supply holds fewer (AD-014). Using it is the ``use`` action: its
row's ``use`` says the effect and the cubes it costs, paid from the card itself
(``cubes.pay_use``). The uses that are not a phase-2 action are asked where they apply:
Crate answers a shot (``attacks.missed_in_play``), Tumbleweed a draw! (``checks.Redraw``),
Bandolier pays for a second BANG! card (``play``), the weapons' effects are offered with a
BANG! card (``upgrades.WeaponOption``). Bell Tower (``bell_tower``): for the next card its
player plays, every player is at distance 1 (``distance.distance`` reads ``state["bell"]``).

The Bomb is played in front of any player (AD-006). At the start of its holder's turn, after
Dynamite and Jail (AD-052; a failed Jail skips it, RULINGS AD-052), he draws!: Hearts or
Diamonds, he passes it with its cubes to another player (``pass_bomb``); Clubs or Spades, it
loses 2 cubes, and exploding when it runs out costs its holder 2 life, caused by no one
(AD-050, 051; ``cubes.emptied``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tabletop_server.service.engine.errors import RuleError
from tabletop_server.service.engine.rng import Rng
from tabletop_server.service.engine.ruleset import Action, Event, State
from tabletop_server.service.games.bang import cubes
from tabletop_server.service.games.bang.checks import check, draw_check
from tabletop_server.service.games.bang.effects import Effect, effect
from tabletop_server.service.games.bang.effects.equipment import check_no_duplicate, put_in_play
from tabletop_server.service.games.bang.pending import RequestKind, Step, request, step
from tabletop_server.service.games.bang.reasons import Reason
from tabletop_server.service.games.bang.state import (
    Request,
    card_in_effect,
    leave_play,
    player,
    push,
    seats_from,
    weapon,
)
from tabletop_server.service.games.bang.tables import CARDS, TYPE_OF
from tabletop_server.service.games.bang.turn import add_start_step


@effect("dangerous")
class Dangerous(Effect):
    """An orange card goes into play with 3 cubes, in front of its player (the Bomb: of any player)."""

    placed = True

    def check(self, state: State, seat: int, card: str, action: Action) -> None:
        check_no_duplicate(state, action.get("target", seat), card)
        if int(state["supply"]) < cubes.DANGEROUS_CUBES:
            raise RuleError(Reason.CUBE_SUPPLY_SHORT, f"The supply holds {state['supply']} cubes; "
                            f"{TYPE_OF[card].name} needs {cubes.DANGEROUS_CUBES}", supply=int(state["supply"]))

    def resolve(self, state: State, seat: int, card: str, action: Action, events: list[Event]) -> None:
        owner = action.get("target", seat)
        old = weapon(state, owner) if TYPE_OF[card].weapon_range else None
        if old is not None:
            leave_play(state, owner, old)  # an orange weapon's cubes go back with it (AD-018)
            state["discard"].append(old)
            events.append({"kind": "discard", "seat": owner, "cards": [old], "reason": "weapon_replaced"})
        put_in_play(state, seat, owner, card, events)
        cubes.load(state, card)
        events.append({"kind": "cubes", "seat": owner, "cards": [card], "amount": cubes.DANGEROUS_CUBES,
                       "reason": "loaded"})


@effect("bell_tower")
class BellTower(Effect):
    """Bell Tower (AD-067): for the next card its player plays, everyone is at distance 1 from him."""

    def resolve(self, state: State, seat: int, card: str, action: Action, events: list[Event]) -> None:
        state["bell"] = seat


@effect("lockpick")
class Lockpick(Effect):
    """Lockpick (AD-059): a random card from the hand of any other player, at any distance."""

    def check(self, state: State, seat: int, card: str, action: Action) -> None:
        if not player(state, action["target"])["hand"]:
            raise RuleError(Reason.NOTHING_TO_TAKE, f"Seat {action['target']} has no cards in hand",
                            target=action["target"])

    def resolve(self, state: State, seat: int, card: str, action: Action, events: list[Event]) -> None:
        hand = player(state, action["target"])["hand"]
        if not hand:
            return
        taken = hand.pop(Rng(state).below(len(hand)))
        player(state, seat)["hand"].append(taken)
        events.append({"kind": "take", "seat": seat, "other": action["target"], "cards": [taken], "reason": "hand"})


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
class BombCheck(Step):
    """Draw! for a Bomb in front of the turn player, after Dynamite and Jail (AD-052)."""

    def run(self, state: State, req: Request, events: list[Event]) -> None:
        seat = req["source"]
        if player(state, seat)["alive"] and card_in_effect(state, seat, "bomb"):
            draw_check(state, seat, "bomb", events)


add_start_step("t_bomb", before="t_draw", expansion="armed_and_dangerous")


@request("pass_bomb")
class PassBomb(RequestKind):
    """``choose`` ``target``: the other living player who gets the Bomb, with its cubes."""

    answers = frozenset({"choose"})
    choose_field = "target"

    def legal(self, state: State, req: Request) -> list[Action]:
        return [{"type": "choose", "target": t} for t in _receivers(state, req["seat"])]

    def check(self, state: State, req: Request, action: Action) -> None:
        if action["target"] not in _receivers(state, req["seat"]):
            raise RuleError(Reason.NOT_A_CHOICE, "Pass the Bomb to another living player", target=action["target"])

    def resolve(self, state: State, req: Request, action: Action, events: list[Event]) -> None:
        state["pending"].pop()
        seat, card, target = req["seat"], req["args"]["card"], action["target"]
        if card not in player(state, seat)["table"]:
            return
        player(state, seat)["table"].remove(card)  # moving between tables keeps its marks (its cubes)
        player(state, target)["table"].append(card)
        events.append({"kind": "move", "seat": seat, "other": target, "cards": [card], "reason": "bomb"})

    def settled(self, state: State, req: Request) -> bool:
        return req["args"]["card"] not in player(state, req["seat"])["table"] or not _receivers(state, req["seat"])

    def auto(self, state: State, req: Request) -> Action | None:
        receivers = _receivers(state, req["seat"])
        return {"type": "choose", "target": receivers[0]} if len(receivers) == 1 else None


def _receivers(state: State, seat: int) -> list[int]:
    """Other living players without a Bomb (NOTES b #16)."""
    return [s for s in seats_from(state, seat, include_self=False)
            if not any(TYPE_OF[c].key == "bomb" for c in player(state, s)["table"])]
