"""Drawing and taking cards: Stagecoach, Wells Fargo, General Store, Panic!, Cat Balou, and
cards that take or discard a card of several victims (``brawl``, Dodge City's Brawl).

BANG-051/052 (a card of a player: a random card from the hand, or a chosen card in
play), 054..056, 061 (General Store: one revealed card per living player, taken
clockwise starting with its player), 065/066 (Panic! at distance 1; on yourself it
may take back a card you have in play; Cat Balou on yourself may discard one of your
own cards, hand included, RULINGS BANG-066).

A card for several victims does not multiply its legal actions by every victim's cards
(issue 10): it is played once, then its player answers one ``victim_card`` request per
victim, clockwise, with ``choose`` ``pick`` (``hand`` or a card in play); a victim with
nothing to lose is skipped, one with a single choice is answered without asking.
"""

from __future__ import annotations

from tabletop_server.service.engine.errors import MalformedAction, RuleError
from tabletop_server.service.games.bang.effects import Effect, effect, effect_args
from tabletop_server.service.games.bang.layout import Action, CardsRequest, Event, State, VictimCardRequest
from tabletop_server.service.games.bang.pending import RequestKind, request
from tabletop_server.service.games.bang.reasons import Reason
from tabletop_server.service.games.bang.state import (
    alive_seats,
    draw,
    game_rng,
    leave_play,
    next_alive,
    player,
    pop_deck,
    push,
    seats_from,
)
from tabletop_server.service.games.bang.tables import CARDS, KEY_OF
from tabletop_server.service.games.bang.targeting import affected

HAND = "hand"


@effect("draw_cards")
class DrawCards(Effect):
    """Stagecoach (2) and Wells Fargo (3): the count is the row's ``args.count`` (Caravan: one more per
    upgrade bought, AD-068)."""

    def resolve(self, state: State, seat: int, card: str, action: Action, events: list[Event]) -> None:
        draw(state, seat, int(effect_args(card, action)["count"]) + int(action.get("bought", 0)), events)


@effect("general_store")
class GeneralStore(Effect):
    """Reveal one card per living player; each takes one, clockwise from the player."""

    def resolve(self, state: State, seat: int, card: str, action: Action, events: list[Event]) -> None:
        shown = [c for c in (pop_deck(state, events) for _ in alive_seats(state)) if c is not None]
        events.append({"kind": "reveal", "seat": seat, "cards": list(shown), "reason": "general_store"})
        if shown:
            push(state, "store", seat, seat, cards=shown)


@request("store")
class StorePick(RequestKind[CardsRequest]):
    """Take one of the revealed General Store cards; the last one is given without asking."""

    answers = frozenset({"choose"})

    def legal(self, state: State, req: CardsRequest) -> list[Action]:
        return [{"type": "choose", "card": c} for c in req["args"]["cards"]]

    def check(self, state: State, req: CardsRequest, action: Action) -> None:
        if action["card"] not in req["args"]["cards"]:
            raise RuleError(Reason.NOT_A_CHOICE, "Take one of the revealed cards", card=action["card"])

    def resolve(self, state: State, req: CardsRequest, action: Action, events: list[Event]) -> None:
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

    def auto(self, state: State, req: CardsRequest) -> Action | None:
        cards = req["args"]["cards"]
        return {"type": "choose", "card": cards[0]} if len(cards) == 1 else None

    def forfeit(self, state: State, req: CardsRequest, seat: int) -> bool:
        """The store passes over a player who concedes while it is his pick: the next living one
        chooses, or the round is over and the rest is discarded. A source who concedes at his own
        (first) pick hands the round's start on. (One who concedes later needs nothing: the cards
        left are as many as the players still to pick.)"""
        if req["seat"] != seat:
            return False
        nxt = next_alive(state, seat)
        if req["source"] == seat:
            req["source"] = nxt
        elif nxt == req["source"]:
            state["discard"].extend(req["args"]["cards"])
            return True
        req["seat"] = nxt
        return False


class TakeOrDiscard(Effect):
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
        if pick not in victim["table"] or pick == card:  # a card used from play is gone before it takes
            raise RuleError(Reason.CARD_NOT_IN_PLAY, f"Seat {target} has no such card in play", card=pick)

    def picks(self, state: State, seat: int, target: int) -> list[str]:
        victim = player(state, target)
        return ([HAND] if victim["hand"] and (target != seat or self.own_hand) else []) + list(victim["table"])

    def _take_card(self, state: State, seat: int, action: Action, events: list[Event]) -> str:
        target, pick = action["target"], action["pick"]
        victim = player(state, target)
        if pick == HAND:
            taken: str = victim["hand"].pop(game_rng(state).below(len(victim["hand"])))
        else:
            leave_play(state, target, pick)
            taken = pick
        return taken


@effect("panic")
class Panic(TakeOrDiscard):
    """Panic!: take the card into your hand."""

    def resolve(self, state: State, seat: int, card: str, action: Action, events: list[Event]) -> None:
        taken = self._take_card(state, seat, action, events)
        player(state, seat)["hand"].append(taken)
        zone = "hand" if action["pick"] == HAND else "table"
        events.append({"kind": "take", "seat": seat, "other": action["target"], "cards": [taken], "reason": zone})


@effect("cat_balou")
class CatBalou(TakeOrDiscard):
    """Cat Balou: the card goes to the discard pile (face up, so public); also your own hand."""

    own_hand = True

    def resolve(self, state: State, seat: int, card: str, action: Action, events: list[Event]) -> None:
        taken = self._take_card(state, seat, action, events)
        state["discard"].append(taken)
        events.append({"kind": "discard", "seat": action["target"], "cards": [taken], "reason": "cat_balou"})


@effect("brawl")
class Brawl(Effect):
    """Every other player it affects discards a card of its player's choice (hand: at random)."""

    def resolve(self, state: State, seat: int, card: str, action: Action, events: list[Event]) -> None:
        victims = affected(state, seat, card, seats_from(state, seat, include_self=False), events)
        for victim in reversed(victims):
            push(state, "victim_card", seat, seat, card=card, victim=victim)


@request("victim_card")
class VictimCard(RequestKind[VictimCardRequest]):
    """Which card of ``args.victim`` the played card discards: ``hand`` (random) or a card in play."""

    answers = frozenset({"choose"})
    choose_field = "pick"

    def legal(self, state: State, req: VictimCardRequest) -> list[Action]:
        return [{"type": "choose", "pick": p} for p in _victim_picks(state, req["args"]["victim"])]

    def check(self, state: State, req: VictimCardRequest, action: Action) -> None:
        victim, pick = req["args"]["victim"], action["pick"]
        if pick == HAND and not player(state, victim)["hand"]:
            raise RuleError(Reason.NOTHING_TO_TAKE, f"Seat {victim} has no cards in hand", target=victim)
        if pick != HAND and pick not in player(state, victim)["table"]:
            raise RuleError(Reason.CARD_NOT_IN_PLAY, f"Seat {victim} has no such card in play", card=pick)

    def resolve(self, state: State, req: VictimCardRequest, action: Action, events: list[Event]) -> None:
        state["pending"].pop()
        victim, pick = req["args"]["victim"], action["pick"]
        hand = player(state, victim)["hand"]
        if pick == HAND:
            lost: str = hand.pop(game_rng(state).below(len(hand)))
        else:
            leave_play(state, victim, pick)
            lost = pick
        state["discard"].append(lost)
        events.append({"kind": "discard", "seat": victim, "cards": [lost],
                       "reason": KEY_OF[req["args"]["card"]]})

    def settled(self, state: State, req: VictimCardRequest) -> bool:
        victim = req["args"]["victim"]
        return not player(state, victim)["alive"] or not _victim_picks(state, victim)

    def auto(self, state: State, req: VictimCardRequest) -> Action | None:
        picks = _victim_picks(state, req["args"]["victim"])  # public: a hand count and cards in play
        return {"type": "choose", "pick": picks[0]} if len(picks) == 1 else None


def _victim_picks(state: State, victim: int) -> list[str]:
    p = player(state, victim)
    return ([HAND] if p["hand"] else []) + list(p["table"])
