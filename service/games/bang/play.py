"""Playing a card: pay for it, then do its effect (DESIGN 16; NOTES c "BANG! card vs BANG! effect").

The effect handlers in ``effects/`` never touch the source of the effect: paying is done
here, once per kind of source, and then the handler's ``resolve`` runs the same way
whatever paid for it. Sources:

- a card from the hand (``play``): discarded, announced by a ``play`` event (with
  ``other`` when it has a target); blue and green cards are ``placed`` instead (going
  into play is their effect, nothing is paid);
- a card in play (``use``, green cards now, orange cards later): discarded from play
  (orange: its cubes), see :func:`use_from_play`;
- an ability (Doc Holyday's two discards): the ability pays, then calls the effect.

A row's extra ``cost`` (discard more cards) is asked after the card is paid for, as a
follow-up request (``costs.py``), and the effect resolves once it is paid.

The BANG! card limit (one per turn, BANG-018) belongs to playing a BANG! *card* from the
hand, so it is checked and counted here, not in the BANG! effect (a BANG! effect from a
card in play or an ability does not count).
"""

from __future__ import annotations

from service.engine.errors import MalformedAction, RuleError
from service.engine.ruleset import Action, Event, State
from service.games.bang.catalog import CardType
from service.games.bang.costs import ask_cost, check_payable
from service.games.bang.effects import EFFECTS, Effect
from service.games.bang.effects.attacks import may_shoot_again
from service.games.bang.reasons import Reason
from service.games.bang.state import discard_from_hand, discard_from_table, in_effect, player, ready, trait
from service.games.bang.tables import TYPE_OF, TYPES
from service.games.bang.targeting import check_affects, check_target


def play_type(state: State, seat: int, card: str) -> CardType:
    """How a card plays: Calamity Janet's Missed! plays as a BANG! (BANG-088)."""
    t = TYPE_OF[card]
    if t.effect == "missed" and trait(state, seat, "bang_missed_swap"):
        return TYPES["bang"]
    return t


def check_play(state: State, seat: int, action: Action) -> None:
    """Check a card played from the hand in phase 2: in hand, targeting, the BANG! limit, the card's rules."""
    card = action["card"]
    if card not in player(state, seat)["hand"]:
        raise RuleError(Reason.CARD_NOT_IN_HAND, "That card is not in your hand", card=card)
    t = play_type(state, seat, card)
    check_target(state, seat, t, action)
    check_affects(state, seat, card, action)
    handler = EFFECTS[TYPE_OF[card].effect]
    check_effect(state, seat, t.name, handler, card, action)
    if t.bang_card and not may_shoot_again(state, seat):
        raise RuleError(Reason.BANG_ALREADY_PLAYED, "You have already played a BANG! this turn")
    handler.check(state, seat, card, action)
    if t.cost:
        check_payable(state, seat, card, t.cost, in_hand=True)


def check_effect(state: State, seat: int, name: str, handler: Effect, card: str, action: Action) -> None:
    """The fields every source shares: a ``pick`` only for cards that take one."""
    if "pick" in action and not handler.takes_pick:
        # A field the card cannot use is refused, never ignored (it would be kept in the log).
        raise MalformedAction(Reason.UNEXPECTED_TARGET, f"{name} takes no card of a player", field="pick")


def play_from_hand(state: State, seat: int, action: Action, events: list[Event]) -> None:
    """Pay for a checked card from the hand, then resolve its effect."""
    card = action["card"]
    handler = EFFECTS[TYPE_OF[card].effect]
    if not handler.placed:
        pay_from_hand(state, seat, card, action, events)
    t = play_type(state, seat, card)
    if t.bang_card:  # the row's fact (DC-016): Punch and Springfield are BANG! effects, not BANG! cards
        state["bangs"] += 1
    if not (t.cost and ask_cost(state, seat, action, t.cost)):
        handler.resolve(state, seat, card, action, events)


def pay_from_hand(state: State, seat: int, card: str, action: Action, events: list[Event]) -> None:
    """Discard the played card from the hand, face up: the table sees it (and its target)."""
    discard_from_hand(state, seat, card)
    event: Event = {"kind": "play", "seat": seat, "cards": [card]}
    if action.get("target") is not None:
        event["other"] = action["target"]
    events.append(event)


def check_use(state: State, seat: int, action: Action, answering: bool = False) -> CardType:
    """Check a card used from play: in front of the seat, usable, ready, then like a played card."""
    card = action["card"]
    if card not in player(state, seat)["table"]:
        raise RuleError(Reason.CARD_NOT_IN_PLAY, "That card is not in play in front of you", card=card)
    use = TYPE_OF[card].use
    if use is None:
        raise RuleError(Reason.CARD_NOT_PLAYABLE_NOW, f"{TYPE_OF[card].name} is not used from play", card=card)
    if card not in in_effect(state, seat):
        raise RuleError(Reason.CARD_SILENCED, "Your cards in play have no effect in this turn", card=card)
    if not ready(state, card):
        raise RuleError(Reason.CARD_NOT_READY, f"{use.name} can be used from the turn after it was played",
                        card=card)
    if use.missed and not answering:
        raise RuleError(Reason.CARD_NOT_PLAYABLE_NOW, f"{use.name} is used only to cancel a shot at you", card=card)
    check_target(state, seat, use, action)
    check_affects(state, seat, card, action)
    handler = EFFECTS[use.effect]
    check_effect(state, seat, use.name, handler, card, action)
    handler.check(state, seat, card, action)
    if use.cost:
        check_payable(state, seat, card, use.cost, in_hand=False)
    return use


def use_from_play(state: State, seat: int, action: Action, events: list[Event]) -> None:
    """Pay for a checked card in play (discard it from play), then resolve its use."""
    card = action["card"]
    use = TYPE_OF[card].use
    assert use is not None  # checked
    pay_from_play(state, seat, card, action, events)
    if not (use.cost and ask_cost(state, seat, action, use.cost)):
        EFFECTS[use.effect].resolve(state, seat, card, action, events)


def pay_from_play(state: State, seat: int, card: str, action: Action, events: list[Event]) -> None:
    """Discard a card from play to use it (green cards); the ``use`` event shows it and its target."""
    discard_from_table(state, seat, card)
    event: Event = {"kind": "use", "seat": seat, "cards": [card]}
    if action.get("target") is not None:
        event["other"] = action["target"]
    events.append(event)
