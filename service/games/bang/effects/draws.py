"""Drawing and taking cards: Stagecoach, Wells Fargo, General Store, Panic!, Cat Balou.

BANG-051/052 (a card of a player: a random card from the hand, or a chosen card in
play), 054..056, 061 (General Store: one revealed card per living player, taken
clockwise starting with its player), 065/066 (Panic! at distance 1; on yourself it
may take back a card you have in play; Cat Balou on yourself may discard one of your
own cards, hand included, RULINGS BANG-066).
"""

from __future__ import annotations

from service.engine.errors import MalformedAction, RuleError
from service.engine.rng import Rng
from service.engine.ruleset import Action, Event, State
from service.games.bang.effects import Effect, effect
from service.games.bang.pending import RequestKind, request
from service.games.bang.reasons import Reason
from service.games.bang.state import (
    Request,
    alive_seats,
    discard_from_hand,
    draw,
    leave_play,
    next_alive,
    player,
    pop_deck,
    push,
)
from service.games.bang.tables import CARDS, TYPE_OF

HAND = "hand"


@effect("draw_cards")
class DrawCards(Effect):
    """Stagecoach (2) and Wells Fargo (3): the count is the row's ``args.count``."""

    def play(self, state: State, seat: int, card: str, action: Action, events: list[Event]) -> None:
        discard_from_hand(state, seat, card)
        events.append({"kind": "play", "seat": seat, "cards": [card]})
        draw(state, seat, int(TYPE_OF[card].args["count"]), events)


@effect("general_store")
class GeneralStore(Effect):
    """Reveal one card per living player; each takes one, clockwise from the player."""

    def play(self, state: State, seat: int, card: str, action: Action, events: list[Event]) -> None:
        discard_from_hand(state, seat, card)
        events.append({"kind": "play", "seat": seat, "cards": [card]})
        shown = [c for c in (pop_deck(state, events) for _ in alive_seats(state)) if c is not None]
        events.append({"kind": "reveal", "seat": seat, "cards": list(shown), "reason": "general_store"})
        if shown:
            push(state, "store", seat, seat, cards=shown)


@request("store")
class StorePick(RequestKind):
    """Take one of the revealed General Store cards; the last one is given without asking."""

    answers = frozenset({"choose"})

    def legal(self, state: State, req: Request) -> list[Action]:
        return [{"type": "choose", "card": c} for c in req["args"]["cards"]]

    def check(self, state: State, req: Request, action: Action) -> None:
        if action["card"] not in req["args"]["cards"]:
            raise RuleError(Reason.NOT_A_CHOICE, "Take one of the revealed cards", card=action["card"])

    def resolve(self, state: State, req: Request, action: Action, events: list[Event]) -> None:
        seat, cards = req["seat"], req["args"]["cards"]
        cards.remove(action["card"])
        player(state, seat)["hand"].append(action["card"])
        events.append({"kind": "take", "seat": seat, "cards": [action["card"]], "reason": "general_store"})
        nxt = next_alive(state, seat)
        if not cards:
            state["pending"].pop()
        elif nxt == req["source"]:
            # Fewer players than cards (someone died meanwhile): the rest go to the discard pile.
            state["discard"].extend(cards)
            state["pending"].pop()
        else:
            req["seat"] = nxt

    def auto(self, state: State, req: Request) -> Action | None:
        cards = req["args"]["cards"]
        return {"type": "choose", "card": cards[0]} if len(cards) == 1 else None


class _TakeOrDiscard(Effect):
    """A card of a player: ``pick`` is ``hand`` (random) or a card he has in play.

    On yourself (RULINGS BANG-066) Panic! takes back a card you have in play only: a
    card from your own hand into your hand would do nothing. Cat Balou may also discard
    a random card of your own hand (``own_hand``), one other than the Cat Balou itself.
    """

    takes_pick = True
    own_hand = False

    def check(self, state: State, seat: int, card: str, action: Action) -> None:
        target, pick = action["target"], action.get("pick")
        victim = player(state, target)
        if pick == HAND:
            if target == seat and not self.own_hand:
                raise RuleError(Reason.NOTHING_TO_TAKE, "On yourself, choose a card you have in play")
            # The played card leaves the hand first, so it is never the card taken.
            if not [c for c in victim["hand"] if c != card]:
                raise RuleError(Reason.NOTHING_TO_TAKE, f"Seat {target} has no cards in hand", target=target)
            return
        if not isinstance(pick, str) or pick not in CARDS:
            raise MalformedAction(Reason.BAD_TARGET, "pick must be 'hand' or a card id in play", field="pick")
        if pick not in victim["table"]:
            raise RuleError(Reason.CARD_NOT_IN_PLAY, f"Seat {target} has no such card in play", card=pick)

    def picks(self, state: State, seat: int, target: int) -> list[str]:
        victim = player(state, target)
        return ([HAND] if victim["hand"] and (target != seat or self.own_hand) else []) + list(victim["table"])

    def _take_card(self, state: State, action: Action) -> str:
        target, pick = action["target"], action["pick"]
        victim = player(state, target)
        if pick == HAND:
            taken: str = victim["hand"].pop(Rng(state).below(len(victim["hand"])))
        else:
            leave_play(state, target, pick)
            taken = pick
        return taken


@effect("panic")
class Panic(_TakeOrDiscard):
    """Panic!: take the card into your hand."""

    def play(self, state: State, seat: int, card: str, action: Action, events: list[Event]) -> None:
        discard_from_hand(state, seat, card)
        events.append({"kind": "play", "seat": seat, "cards": [card], "other": action["target"]})
        taken = self._take_card(state, action)
        player(state, seat)["hand"].append(taken)
        zone = "hand" if action["pick"] == HAND else "table"
        events.append({"kind": "take", "seat": seat, "other": action["target"], "cards": [taken], "reason": zone})


@effect("cat_balou")
class CatBalou(_TakeOrDiscard):
    """Cat Balou: the card goes to the discard pile (face up, so public); also your own hand."""

    own_hand = True

    def play(self, state: State, seat: int, card: str, action: Action, events: list[Event]) -> None:
        discard_from_hand(state, seat, card)
        events.append({"kind": "play", "seat": seat, "cards": [card], "other": action["target"]})
        taken = self._take_card(state, action)
        state["discard"].append(taken)
        events.append({"kind": "discard", "seat": action["target"], "cards": [taken], "reason": "cat_balou"})
