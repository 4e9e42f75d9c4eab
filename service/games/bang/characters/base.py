"""The 16 characters of the base game (S2 rulings, NOTES c "Characters that need care").

Passive characters (Paul Regret, Rose Doolan, Willy the Kid, Slab the Killer,
Jourdonnais, Lucky Duke, Calamity Janet) are ``traits`` in their data rows, read where
the rule applies; their handlers here are empty but registered, so every row names a
handler. The others implement the hooks of :class:`~service.games.bang.characters.Ability`.
"""

from __future__ import annotations

from itertools import combinations

from tabletop_server.service.engine.errors import MalformedAction, RuleError
from tabletop_server.service.games.bang.abilities import Ability, ability, ability_of
from tabletop_server.service.games.bang.catalog import CardType
from tabletop_server.service.games.bang.damage import heal, revive
from tabletop_server.service.games.bang.layout import Action, CardsRequest, Event, PlainRequest, State
from tabletop_server.service.games.bang.pending import RequestKind, request
from tabletop_server.service.games.bang.reasons import Reason
from tabletop_server.service.games.bang.state import (
    clear_table,
    draw,
    game_rng,
    player,
    pop_deck,
    push,
    seats_from,
)
from tabletop_server.service.games.bang.tables import CARDS, TYPES
from tabletop_server.service.games.bang.turn import DRAW_COUNT, draw_phase_done

SID_CARDS = 2


@ability("bart_cassidy")
class BartCassidy(Ability):
    """Draws one card per life lost, after surviving the hit (BANG-084, 085)."""

    def on_hit(self, state: State, seat: int, amount: int, source: int | None, events: list[Event]) -> None:
        draw(state, seat, amount, events, reason="bart_cassidy")


@ability("black_jack")
class BlackJack(Ability):
    """Shows his second card; on a heart or diamond he draws one more, unseen (BANG-086)."""

    def draw_phase(self, state: State, seat: int, events: list[Event]) -> bool:
        draw(state, seat, 1, events)
        second = draw(state, seat, 1, events, reason="black_jack_shown")
        if second and CARDS[second[0]].suit in ("hearts", "diamonds"):
            draw(state, seat, 1, events, reason="black_jack")
        draw_phase_done(state)
        return True


@ability("el_gringo")
class ElGringo(Ability):
    """Takes a random card from the hand of the player who hit him, per life lost (BANG-089..091)."""

    def on_hit(self, state: State, seat: int, amount: int, source: int | None, events: list[Event]) -> None:
        if source is None or source == seat or not player(state, source)["alive"]:
            return
        victim = player(state, source)
        for _ in range(amount):
            if not victim["hand"]:
                break
            card = victim["hand"].pop(game_rng(state).below(len(victim["hand"])))
            player(state, seat)["hand"].append(card)
            events.append({"kind": "take", "seat": seat, "other": source, "cards": [card], "reason": "hand"})


@ability("jesse_jones")
class JesseJones(Ability):
    """May take his first card at random from another player's hand (BANG-092)."""

    def draw_phase(self, state: State, seat: int, events: list[Event]) -> bool:
        if len(self.draw_options(state, seat)) <= 1:
            return False
        push(state, "draw", seat, seat)
        return True

    def draw_options(self, state: State, seat: int) -> list[Action]:
        deck: list[Action] = [{"type": "draw", "source": "deck"}]
        return deck + [
            {"type": "draw", "source": "player", "target": s}
            for s in seats_from(state, seat, include_self=False) if player(state, s)["hand"]]

    def draw_choice(self, state: State, seat: int, action: Action, events: list[Event]) -> None:
        if action["source"] == "player":
            victim = player(state, action["target"])
            card = victim["hand"].pop(game_rng(state).below(len(victim["hand"])))
            player(state, seat)["hand"].append(card)
            events.append({"kind": "take", "seat": seat, "other": action["target"], "cards": [card],
                           "reason": "hand"})
            draw(state, seat, 1, events)
        else:
            draw(state, seat, DRAW_COUNT, events)


@ability("pedro_ramirez")
class PedroRamirez(Ability):
    """May take his first card from the top of the discard pile (BANG-097)."""

    def draw_phase(self, state: State, seat: int, events: list[Event]) -> bool:
        if not state["discard"]:
            return False
        push(state, "draw", seat, seat)
        return True

    def draw_options(self, state: State, seat: int) -> list[Action]:
        out: list[Action] = [{"type": "draw", "source": "deck"}]
        if state["discard"]:
            out.append({"type": "draw", "source": "discard"})
        return out

    def draw_choice(self, state: State, seat: int, action: Action, events: list[Event]) -> None:
        if action["source"] == "discard":
            card = state["discard"].pop()
            player(state, seat)["hand"].append(card)
            events.append({"kind": "draw", "seat": seat, "cards": [card], "count": 1, "reason": "discard_pile"})
            draw(state, seat, 1, events)
        else:
            draw(state, seat, DRAW_COUNT, events)


@ability("kit_carlson")
class KitCarlson(Ability):
    """Looks at the top three cards, keeps two and puts one back on top (BANG-094)."""

    def draw_phase(self, state: State, seat: int, events: list[Event]) -> bool:
        cards = [c for c in (pop_deck(state, events) for _ in range(3)) if c is not None]
        if len(cards) < 3:
            player(state, seat)["hand"].extend(cards)
            if cards:
                events.append({"kind": "draw", "seat": seat, "cards": cards, "count": len(cards), "reason": "draw"})
            draw_phase_done(state)
            return True
        events.append({"kind": "look", "seat": seat, "cards": list(cards), "count": 3, "reason": "kit_carlson"})
        push(state, "kit_carlson", seat, seat, cards=cards)
        return True


@request("kit_carlson")
class KitPick(RequestKind[CardsRequest]):
    """Kit Carlson names the card he puts back on the deck; he keeps the other two."""

    answers = frozenset({"choose"})
    private_offer = True  # his three cards: only he sees them

    def legal(self, state: State, req: CardsRequest) -> list[Action]:
        return [{"type": "choose", "card": c} for c in req["args"]["cards"]]

    def check(self, state: State, req: CardsRequest, action: Action) -> None:
        if action["card"] not in req["args"]["cards"]:
            raise RuleError(Reason.NOT_A_CHOICE, "Choose one of the three cards to put back", card=action["card"])

    def resolve(self, state: State, req: CardsRequest, action: Action, events: list[Event]) -> None:
        state["pending"].pop()
        seat, back = req["seat"], action["card"]
        keep = [c for c in req["args"]["cards"] if c != back]
        player(state, seat)["hand"].extend(keep)
        state["deck"].append(back)
        events.append({"kind": "draw", "seat": seat, "cards": keep, "count": len(keep), "reason": "kit_carlson"})
        events.append({"kind": "put_back", "seat": seat, "cards": [back], "count": 1})
        draw_phase_done(state)

    def forfeit(self, state: State, req: CardsRequest, seat: int) -> bool:
        """Conceding while choosing: the three cards go with his hand (discarded, or to Vulture Sam)."""
        if req["seat"] == seat:
            player(state, seat)["hand"].extend(req["args"]["cards"])
        return bool(req["seat"] == seat)


@request("draw")
class DrawChoice(RequestKind[PlainRequest]):
    """Phase 1 choice of a character (Jesse Jones, Pedro Ramirez; Pat Brennan: ``choose`` ``pick`` a card in play)."""

    answers = frozenset({"draw", "choose"})
    choose_field = "pick"

    def legal(self, state: State, req: PlainRequest) -> list[Action]:
        return ability_of(state, req["seat"]).draw_options(state, req["seat"])

    def check(self, state: State, req: PlainRequest, action: Action) -> None:
        options = self.legal(state, req)
        if action["type"] == "choose":
            if {"type": "choose", "pick": action["pick"]} not in options:
                raise RuleError(Reason.NOT_A_CHOICE, "Choose a card in play, or draw from the deck",
                                pick=action["pick"])
            return
        wanted: Action = {"type": "draw", "source": action.get("source", "")}
        if action.get("target") is not None:
            wanted["target"] = action["target"]
        if wanted not in options:
            if action.get("source") == "discard":
                raise RuleError(Reason.EMPTY_DISCARD_PILE, "The discard pile is empty or not yours to draw from")
            if action.get("source") == "player":
                raise RuleError(Reason.EMPTY_HAND, "Choose another living player who has cards in hand")
            raise MalformedAction(Reason.UNKNOWN_ACTION, "source must be deck, discard or player", field="source")

    def resolve(self, state: State, req: PlainRequest, action: Action, events: list[Event]) -> None:
        state["pending"].pop()
        ability_of(state, req["seat"]).draw_choice(state, req["seat"], action, events)
        draw_phase_done(state)


@ability("sid_ketchum")
class SidKetchum(Ability):
    """Discards 2 cards to regain 1 life, whenever he holds a decision (BANG-099)."""

    def activations(self, state: State, seat: int) -> list[Action]:
        p = player(state, seat)
        if p["life"] >= p["max"] or len(p["hand"]) < SID_CARDS:
            return []
        return [{"type": "ability", "cards": list(pair)} for pair in combinations(p["hand"], SID_CARDS)]

    def check_activate(self, state: State, seat: int, action: Action) -> None:
        p = player(state, seat)
        cards = action.get("cards") or []
        if len(cards) != SID_CARDS or len(set(cards)) != SID_CARDS:
            raise RuleError(Reason.NEED_TWO_CARDS, "Discard exactly two different cards from your hand")
        for c in cards:
            if c not in p["hand"]:
                raise RuleError(Reason.CARD_NOT_IN_HAND, "Both cards must be in your hand", card=c)
        if p["life"] >= p["max"]:
            raise RuleError(Reason.LIFE_AT_MAXIMUM, "You are already at your maximum life")

    def activate(self, state: State, seat: int, action: Action, events: list[Event]) -> None:
        p = player(state, seat)
        for c in action["cards"]:
            p["hand"].remove(c)
            state["discard"].append(c)
        events.append({"kind": "discard", "seat": seat, "cards": list(action["cards"]), "reason": "sid_ketchum"})
        top = state["pending"][-1] if state["pending"] else None
        if top is not None and top["kind"] == "dying" and top["seat"] == seat:
            revive(state, top, 1, events, reason="sid_ketchum")
        else:
            heal(state, seat, 1, events, reason="sid_ketchum")


@ability("suzy_lafayette")
class SuzyLafayette(Ability):
    """Draws a card as soon as her hand is empty, also out of turn (BANG-101; after a Duel, BANG-102)."""

    def on_empty_hand(self, state: State, seat: int, events: list[Event]) -> None:
        draw(state, seat, 1, events, reason="suzy_lafayette")


@ability("vulture_sam")
class VultureSam(Ability):
    """Takes every card of an eliminated player into his hand (BANG-104, 105).

    With two Vulture Sams (Vera Custer copying him) they share the cards one at a time,
    hand first, starting with the one closer to the eliminated player in turn order
    (DC-040): the first one to be asked deals them all; the other then finds none.
    """

    def on_other_eliminated(self, state: State, seat: int, dead: int, events: list[Event]) -> None:
        victim = player(state, dead)
        hand, table = victim["hand"], clear_table(state, dead)
        victim["hand"] = []
        sams = [s for s in seats_from(state, dead, include_self=False) if ability_of(state, s) is self]
        for i, s in enumerate(sams):
            mine = (hand + table)[i::len(sams)]
            got_hand, got_table = [c for c in mine if c in hand], [c for c in mine if c in table]
            player(state, s)["hand"].extend(mine)
            if got_hand:
                events.append({"kind": "take", "seat": s, "other": dead, "cards": got_hand, "reason": "hand"})
            if got_table:
                events.append({"kind": "take", "seat": s, "other": dead, "cards": got_table, "reason": "table"})


@ability("calamity_janet")
class CalamityJanet(Ability):
    """BANG! as Missed! and Missed! as BANG! (trait ``bang_missed_swap``, read by the answers in
    ``effects/attacks.py``; BANG-087, 088)."""

    def plays_as(self, card_type: CardType) -> CardType:
        """Her Missed! plays as a BANG! card: for the limit, the target's answers and a weapon (BANG-088)."""
        return TYPES["bang"] if card_type.effect == "missed" else card_type


@ability("jourdonnais")
class Jourdonnais(Ability):
    """A built-in Barrel (trait ``barrel``), drawn besides a real one (BANG-093)."""


@ability("lucky_duke")
class LuckyDuke(Ability):
    """Flips two cards on every draw! and chooses (trait ``draw_checks``, BANG-095)."""


@ability("paul_regret")
class PaulRegret(Ability):
    """A built-in Mustang (trait ``distance_in``, BANG-096)."""


@ability("rose_doolan")
class RoseDoolan(Ability):
    """A built-in Scope (trait ``distance_out``, BANG-098)."""


@ability("slab_the_killer")
class SlabTheKiller(Ability):
    """His BANG! cards need two Missed! effects (trait ``missed_needed``, BANG-100)."""


@ability("willy_the_kid")
class WillyTheKid(Ability):
    """Any number of BANG! cards (trait ``unlimited_bang``, BANG-106)."""
