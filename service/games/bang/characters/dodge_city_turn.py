"""Dodge City abilities used in their owner's turn: Chuck Wengam, Doc Holyday, José Delgado, Vera Custer.

The three activated abilities are ``ability`` actions in the owner's phase 2 with nothing pending
("during his turn"); their per-turn limits are the ``uses_per_turn`` trait of the row, counted
by ``turn.count_use`` (Doc Holyday once, José Delgado twice, Chuck Wengam no limit).
Vera Custer's copy is two start-of-turn steps (``turn.add_start_step``): the old copy is
dropped before the draw! checks, and she chooses after them, just before phase 1 (DC-038,
DC-039). Facts and rulings: DC-023..025, 029, 030, 038..040; RULINGS.md (Dodge City table).
"""

from __future__ import annotations

from typing import Final

from tabletop_server.service.engine.errors import MalformedAction, RuleError
from tabletop_server.service.games.bang.abilities import Ability, ability
from tabletop_server.service.games.bang.distance import in_reach
from tabletop_server.service.games.bang.effects import EFFECTS
from tabletop_server.service.games.bang.effects import checks as _draw_checks  # noqa: F401  (its start steps, which Vera's surround)
from tabletop_server.service.games.bang.layout import (
    Action,
    DocHolydayRequest,
    Event,
    PlainRequest,
    PlainStep,
    State,
)
from tabletop_server.service.games.bang.modifiers import seen_without_card_modifiers
from tabletop_server.service.games.bang.pending import RequestKind, Step, request, step
from tabletop_server.service.games.bang.reasons import Reason
from tabletop_server.service.games.bang.state import (
    discard_from_hand,
    discard_from_table,
    draw,
    player,
    push,
    seats_from,
    source_seat,
    trait,
)
from tabletop_server.service.games.bang.tables import CHARACTERS, TYPE_OF, TYPES
from tabletop_server.service.games.bang.targeting import affects, check_target
from tabletop_server.service.games.bang.turn import add_start_step, check_uses_left, count_use, uses

CHUCK_DRAW = 2
JOSE_DRAW = 2
DOC_DISCARDS = 2
VERA: Final = "vera_custer"


@ability("chuck_wengam")
class ChuckWengam(Ability):
    """In his turn: lose 1 life to draw 2 cards, as often as he likes, never his last life (DC-023).

    Losing the life is not a hit: no one is its source and no on-hit ability runs.
    """

    def activations(self, state: State, seat: int) -> list[Action]:
        if not own_phase_2(state, seat) or player(state, seat)["life"] <= 1:
            return []
        return [{"type": "ability", "cards": []}]

    def check_activate(self, state: State, seat: int, action: Action) -> None:
        check_own_phase_2(state, seat, "Chuck Wengam")
        if action.get("cards"):
            raise MalformedAction(Reason.UNEXPECTED_FIELD, "Chuck Wengam's ability discards no cards", field="cards")
        if player(state, seat)["life"] <= 1:
            raise RuleError(Reason.LAST_LIFE, "Chuck Wengam may not lose his last life point")

    def activate(self, state: State, seat: int, action: Action, events: list[Event]) -> None:
        p = player(state, seat)
        p["life"] -= 1
        events.append({"kind": "damage", "seat": seat, "amount": 1, "life": p["life"], "other": seat,
                       "reason": "chuck_wengam"})
        draw(state, seat, CHUCK_DRAW, events, reason="chuck_wengam")


@ability("jose_delgado")
class JoseDelgado(Ability):
    """In his turn, at most twice: discard a blue card from his hand to draw 2 cards (DC-029, DC-030).

    Blue only: green (and orange) cards are not blue-bordered. With the house rule
    ``jose_delgado_in_play`` (the seed's reading) the blue card is one he has in play instead.
    """

    def activations(self, state: State, seat: int) -> list[Action]:
        if not own_phase_2(state, seat) or used_up(state, seat, "jose_delgado"):
            return []
        return [{"type": "ability", "cards": [c]} for c in dict.fromkeys(_zone(state, seat)) if _blue(c)]

    def check_activate(self, state: State, seat: int, action: Action) -> None:
        check_own_phase_2(state, seat, "José Delgado")
        cards = action.get("cards") or []
        if len(cards) != 1:
            raise RuleError(Reason.NEED_ONE_CARD, "José Delgado discards exactly one blue card")
        if cards[0] not in _zone(state, seat):
            if state["opts"].get("jose_delgado_in_play"):
                raise RuleError(Reason.CARD_NOT_IN_PLAY, "Discard a blue card you have in play (house rule)",
                                card=cards[0])
            raise RuleError(Reason.CARD_NOT_IN_HAND, "Discard a blue card from your hand", card=cards[0])
        if not _blue(cards[0]):
            raise RuleError(Reason.NOT_A_BLUE_CARD, "Only a blue-bordered card can be discarded", card=cards[0])
        check_uses_left(state, seat, "jose_delgado", limit_of(state, seat))

    def activate(self, state: State, seat: int, action: Action, events: list[Event]) -> None:
        card = action["cards"][0]
        count_use(state, seat, "jose_delgado")
        if state["opts"].get("jose_delgado_in_play"):
            discard_from_table(state, seat, card)
        else:
            discard_from_hand(state, seat, card)
        events.append({"kind": "discard", "seat": seat, "cards": [card], "reason": "jose_delgado"})
        draw(state, seat, JOSE_DRAW, events, reason="jose_delgado")


@ability("doc_holyday")
class DocHolyday(Ability):
    """Once per turn: discard 2 cards from his hand for a BANG! effect on a player in reach (DC-024, DC-025).

    Not a BANG! card: the one-BANG! limit neither stops nor counts it, and Slab the Killer's
    "two Missed!" does not apply. The discards are a cost paid after committing to the target
    (``ability`` with ``target``, then a ``doc_holyday`` request for two ``discard`` answers),
    so legal actions list one use per target, not per pair of cards. Against a player whom a
    card does not affect (Apache Kid and diamonds) at least one discard must affect him: the
    target is refused without such a card in hand, and the last discard must be one.
    """

    takes_target = True

    def activations(self, state: State, seat: int) -> list[Action]:
        if (not own_phase_2(state, seat) or len(player(state, seat)["hand"]) < DOC_DISCARDS
                or used_up(state, seat, "doc_holyday")):
            return []
        return [{"type": "ability", "cards": [], "target": t} for t in seats_from(state, seat, include_self=False)
                if in_reach(seen_without_card_modifiers(state), seat, t) and _reachable_with_hand(state, seat, t)]

    def check_activate(self, state: State, seat: int, action: Action) -> None:
        check_own_phase_2(state, seat, "Doc Holyday")
        if action.get("cards"):
            raise MalformedAction(Reason.UNEXPECTED_FIELD, "Name only the target; the two discards are asked next",
                                  field="cards")
        check_target(seen_without_card_modifiers(state), seat, TYPES["bang"], action)  # a Bell Tower is for a card (AD-067)
        if len(player(state, seat)["hand"]) < DOC_DISCARDS:
            raise RuleError(Reason.NEED_TWO_CARDS, "Doc Holyday needs two cards in hand to discard")
        if not _reachable_with_hand(state, seat, action["target"]):
            raise RuleError(Reason.TARGET_UNAFFECTED, f"Seat {action['target']} is not affected by any card "
                            "you could discard", target=action["target"])
        check_uses_left(state, seat, "doc_holyday", limit_of(state, seat))

    def activate(self, state: State, seat: int, action: Action, events: list[Event]) -> None:
        count_use(state, seat, "doc_holyday")
        push(state, "doc_holyday", seat, seat, victim=action["target"], discard=DOC_DISCARDS, paid=[])


@request("doc_holyday")
class DocDiscards(RequestKind[DocHolydayRequest]):
    """Doc Holyday pays his committed shot: two discards from the hand, one at a time; then the BANG! effect."""

    answers = frozenset({"discard"})
    abilities = False
    shown_as = "cost"  # a cost like a card's (his target is committed)

    def legal(self, state: State, req: DocHolydayRequest) -> list[Action]:
        return [{"type": "discard", "card": c} for c in dict.fromkeys(player(state, req["seat"])["hand"])
                if _may_pay(state, req, c)]

    def check(self, state: State, req: DocHolydayRequest, action: Action) -> None:
        card = action["card"]
        if card not in player(state, req["seat"])["hand"]:
            raise RuleError(Reason.CARD_NOT_IN_HAND, "Pay with a card from your hand", card=card)
        if not _may_pay(state, req, card):
            raise RuleError(Reason.TARGET_UNAFFECTED, "One of the two cards must be one that affects your target",
                            card=card, target=req["args"]["victim"])

    def resolve(self, state: State, req: DocHolydayRequest, action: Action, events: list[Event]) -> None:
        seat, args = req["seat"], req["args"]
        discard_from_hand(state, seat, action["card"])
        args["paid"].append(action["card"])
        args["discard"] -= 1
        events.append({"kind": "discard", "seat": seat, "cards": [action["card"]], "reason": "doc_holyday",
                       "other": args["victim"]})
        if args["discard"] > 0:
            return
        state["pending"].pop()
        target = args["victim"]
        # The shot's source card is one that affects the target (checked), for what follows it.
        card = next(c for c in args["paid"] if affects(state, seat, target, c))
        EFFECTS["bang"].resolve(state, seat, card, {"type": "ability", "target": target}, events)

    def auto(self, state: State, req: DocHolydayRequest) -> Action | None:
        hand = player(state, req["seat"])["hand"]
        # The whole hand goes (the hand count is public); it holds a card that affects the target (checked).
        if len(hand) <= req["args"]["discard"]:
            return {"type": "discard", "card": next(c for c in hand if _may_pay(state, req, c))}
        return None


@ability("vera_custer")
class VeraCuster(Ability):
    """At the start of her turn, after the draw! checks, she copies another living character until her next turn.

    DC-038, DC-039 (NOTES c, Dodge City FAQ Q13): the copy is dropped at the start of her next
    turn, before the checks (so a copied Lucky Duke does not flip twice for her Dynamite); she
    chooses just before phase 1; a failed Jail skips her whole turn, the choice included, so she
    has no copied ability until her next turn. The copy sets ``"as"`` in her player entry
    (``state.acting_character``): every hook and trait then reads the copied character, her
    life stays her own. Copying Vulture Sam shares the cards (``VultureSam``, DC-040).
    """


@step("vera_forget")
class VeraForget(Step[PlainStep]):
    """Start of her turn: the ability she copied last turn is gone."""

    def run(self, state: State, req: PlainStep, events: list[Event]) -> None:
        p = player(state, source_seat(req))
        if p["char"] == VERA:
            p.pop("as", None)


@step("vera_choose")
class VeraChoose(Step[PlainStep]):
    """After the draw! checks, before phase 1: Vera Custer chooses whom to copy (skipped by a failed Jail)."""

    def run(self, state: State, req: PlainStep, events: list[Event]) -> None:
        seat = source_seat(req)
        p = player(state, seat)
        if p["char"] != VERA or not p["alive"] or state["turn"] != seat or state["phase"] != "draw":
            return  # a failed Jail ended the turn already (phase 3 or over)
        if _copy_choices(state, seat):
            push(state, VERA, seat, seat)


@request(VERA)
class VeraChoice(RequestKind[PlainRequest]):
    """Vera Custer names the character to copy: ``choose`` ``pick`` a character key."""

    answers = frozenset({"choose"})
    abilities = False
    choose_field = "pick"
    shown_as = "copy_character"

    def legal(self, state: State, req: PlainRequest) -> list[Action]:
        return [{"type": "choose", "pick": k} for k in _copy_choices(state, req["seat"])]

    def check(self, state: State, req: PlainRequest, action: Action) -> None:
        if action["pick"] not in _copy_choices(state, req["seat"]):
            raise RuleError(Reason.NOT_A_CHOICE, "Choose the character of another living player", pick=action["pick"])

    def resolve(self, state: State, req: PlainRequest, action: Action, events: list[Event]) -> None:
        state["pending"].pop()
        seat, key = req["seat"], action["pick"]
        player(state, seat)["as"] = key
        other = next(s for s in seats_from(state, seat, include_self=False) if player(state, s)["char"] == key)
        events.append({"kind": "choose", "seat": seat, "other": other, "reason": VERA})

    def auto(self, state: State, req: PlainRequest) -> Action | None:
        choices = _copy_choices(state, req["seat"])
        return {"type": "choose", "pick": choices[0]} if len(choices) == 1 else None


add_start_step("vera_forget", before="t_dynamite", character=VERA)
add_start_step("vera_choose", before="t_draw", character=VERA)


# Helpers

def own_phase_2(state: State, seat: int) -> bool:
    return bool(state["turn"] == seat and state["phase"] == "play" and not state["pending"])


def check_own_phase_2(state: State, seat: int, name: str) -> None:
    if not own_phase_2(state, seat):
        raise RuleError(Reason.ABILITY_NOT_NOW, f"{name}'s ability is used in his own turn, with nothing pending")


def limit_of(state: State, seat: int) -> int | None:
    limit = trait(state, seat, "uses_per_turn")
    return None if limit is None else int(limit)


def used_up(state: State, seat: int, name: str) -> bool:
    limit = limit_of(state, seat)
    return limit is not None and uses(state, seat, name) >= limit


def _zone(state: State, seat: int) -> list[str]:
    """Where José Delgado's blue cards come from: the hand, or play with the house rule."""
    p = player(state, seat)
    return list(p["table"] if state["opts"].get("jose_delgado_in_play") else p["hand"])


def _blue(card: str) -> bool:
    return TYPE_OF[card].color == "blue"


def _reachable_with_hand(state: State, seat: int, target: int) -> bool:
    return any(affects(state, seat, target, c) for c in player(state, seat)["hand"])


def _may_pay(state: State, req: DocHolydayRequest, card: str) -> bool:
    """The last discard must affect the target unless one already paid does."""
    seat, args = req["seat"], req["args"]
    if args["discard"] > 1 or any(affects(state, seat, args["victim"], c) for c in args["paid"]):
        return True
    return affects(state, seat, args["victim"], card)


def _copy_choices(state: State, seat: int) -> list[str]:
    return [player(state, s)["char"] for s in seats_from(state, seat, include_self=False)
            if player(state, s)["char"] in CHARACTERS]
