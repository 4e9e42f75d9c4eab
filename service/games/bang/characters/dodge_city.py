"""The 15 characters of Dodge City: passive, phase 1 and triggered abilities (issue 10).

Facts from ``shared/reference/bang/characters.json`` (rows in ``data/characters_dodge_city.json``),
rulings from ``RULES_CHECKLIST.md`` DC-019..040 and ``RULINGS.md`` (Dodge City table); NOTES (c)
"Characters that need care". Elena Fuente, Tequila Joe and part of Sean Mallory are traits in
their rows, read where the rule applies (``counts_as_missed``, ``beer_heal``, ``hand_limit``); their
handlers are registered so that every row names one. Belle Star's trait is read by her modifier handler
here (``modifiers.silenced``, asked by ``state.in_effect``). The activated abilities
(Chuck Wengam, Doc Holyday, José Delgado) and Vera Custer's copy are in ``dodge_city_turn.py``.

House rules (RULINGS.md Dodge City table) are boolean game options read here:
``pixie_pete_draws_four`` (the seed's 4 cards) and ``sean_mallory_unlimited`` (the seed's "any number").
"""

from __future__ import annotations

from tabletop_server.service.games.bang.abilities import Ability, ability
from tabletop_server.service.games.bang.damage import heal
from tabletop_server.service.games.bang.layout import Action, DuelRequest, Event, MollyStarkStep, State
from tabletop_server.service.games.bang.modifiers import Modifier, modifier
from tabletop_server.service.games.bang.pending import Step, step
from tabletop_server.service.games.bang.state import (
    all_cards,
    draw,
    leave_play,
    player,
    push,
    seats_from,
    source_seat,
    trait,
)
from tabletop_server.service.games.bang.tables import CARDS, CHARACTERS, TYPE_OF
from tabletop_server.service.games.bang.turn import DRAW_COUNT, draw_phase_done

DIGGER_HEAL = 2
HUNTER_DRAW = 2
PIXIE_HOUSE_DRAW = 4  # RULINGS DC-035 house rule: the seed's count


@ability("apache_kid")
class ApacheKid(Ability):
    """Cards of diamonds played by other players have no effect on him (DC-019), except in a Duel (DC-020).

    The Duel exception follows the official text (NOTES b #5): a Duel of diamonds (Q♦) does
    challenge him, and the BANG! cards discarded in a Duel are never checked. The suit is the
    printed one. Doc Holyday's two discards reach him when one of them is not a diamond (DC-025,
    ``dodge_city_turn.DocHolyday``).
    """

    def unaffected_by(self, card: str) -> bool:
        return CARDS[card].suit == "diamonds" and TYPE_OF[card].effect != "duel"


@ability("belle_star")
class BelleStar(Ability):
    """In her turn the cards in play of every other player have no effect (DC-021): :class:`BelleStarSilence`."""


@modifier("belle_star")
class BelleStarSilence(Modifier):
    """Belle Star's silence, the rule of her row's trait ``silence_others`` (so a character copying her, Vera
    Custer, silences too): in the turn of a character with it, the cards in play of every other player
    have no effect (DC-021; orange cards too, NOTES c). Her own cards, and every ability, still act."""

    def silences(self, state: State, seat: int) -> bool:
        turn = state["turn"]
        if seat == turn:
            return False
        q = state["p"][turn]  # trait(), inlined: ``in_effect`` asks for every seat a distance measures
        return bool(CHARACTERS[q.get("as") or q["char"]].traits.get("silence_others"))


@ability("bill_noface")
class BillNoface(Ability):
    """Phase 1: draws 1 card plus 1 per life point he is missing (DC-022)."""

    def draw_phase(self, state: State, seat: int, events: list[Event]) -> bool:
        p = player(state, seat)
        draw(state, seat, 1 + max(0, p["max"] - p["life"]), events)
        draw_phase_done(state)
        return True


@ability("elena_fuente")
class ElenaFuente(Ability):
    """Any card of her hand answers a BANG! effect as a Missed! (trait ``any_card_missed``, DC-026).

    Only a BANG! effect: Indians! and a Duel still want a BANG! card (``counts_as_bang``).
    """


@ability("greg_digger")
class GregDigger(Ability):
    """Regains 2 life whenever another character is eliminated, never above his maximum (DC-027)."""

    def on_other_eliminated(self, state: State, seat: int, dead: int, events: list[Event]) -> None:
        heal(state, seat, DIGGER_HEAL, events, reason="greg_digger")


@ability("herb_hunter")
class HerbHunter(Ability):
    """Draws 2 cards whenever another character is eliminated, before any reward (DC-028: 5 for an Outlaw he kills)."""

    def on_other_eliminated(self, state: State, seat: int, dead: int, events: list[Event]) -> None:
        draw(state, seat, HUNTER_DRAW, events, reason="herb_hunter")


@ability("molly_stark")
class MollyStark(Ability):
    """Draws a card for each card she uses from her hand out of her turn (DC-031).

    A card answering a request (Missed!, Dodge, a BANG! against Indians!, Beer in the dying window)
    calls ``on_respond``; cards taken or discarded by others' effects never do (DC-033). In a Duel
    the replacements wait until the Duel is over (DC-032): they are counted on the Duel request
    (``owed``) and drawn by an engine step queued under the loser's damage, so they come after
    the dying window and can never be the Beer that saves her from the lost Duel (as Suzy
    Lafayette's draw, RULINGS BANG-102).
    """

    def on_respond(self, state: State, seat: int, events: list[Event]) -> None:
        if state["turn"] == seat:
            return
        top = state["pending"][-1] if state["pending"] else None
        if top is not None and top["kind"] == "duel":
            top["args"].setdefault("owed", []).append(seat)
            return
        draw(state, seat, 1, events, reason="molly_stark")

    def on_duel_over(self, state: State, seat: int, duel: DuelRequest) -> None:
        owed = duel["args"].get("owed", []).count(seat)
        if owed:
            push(state, "molly_stark", None, seat, count=owed)


@step("molly_stark")
class MollyAfterDuel(Step[MollyStarkStep]):
    """Molly Stark's replacements for the cards she gave in a Duel, once it is over (DC-032)."""

    def run(self, state: State, req: MollyStarkStep, events: list[Event]) -> None:
        seat = source_seat(req)
        if player(state, seat)["alive"]:
            draw(state, seat, int(req["args"]["count"]), events, reason="molly_stark")


@ability("pat_brennan")
class PatBrennan(Ability):
    """Phase 1: instead of drawing 2 he may take one card in play, in front of any player, into his hand (DC-034).

    "Any one player" includes himself (NOTES b #15). The choice is the ``draw`` request's:
    ``draw`` ``source`` ``deck``, or ``choose`` ``pick`` a card in play (one card, so taking two
    is not an answer at all). The card leaves play with its marks: a green card taken into the
    hand must be played again (NOTES c).
    """

    def draw_phase(self, state: State, seat: int, events: list[Event]) -> bool:
        if not any(player(state, s)["table"] for s in seats_from(state, seat, include_self=True)):
            return False
        push(state, "draw", seat, seat)
        return True

    def draw_options(self, state: State, seat: int) -> list[Action]:
        out: list[Action] = [{"type": "draw", "source": "deck"}]
        for s in seats_from(state, seat, include_self=True):
            out += [{"type": "choose", "pick": c} for c in player(state, s)["table"]]
        return out

    def draw_choice(self, state: State, seat: int, action: Action, events: list[Event]) -> None:
        if action["type"] != "choose":
            draw(state, seat, DRAW_COUNT, events)
            return
        card = action["pick"]
        owner = next(s for s in seats_from(state, seat, include_self=True) if card in player(state, s)["table"])
        leave_play(state, owner, card)
        player(state, seat)["hand"].append(card)
        events.append({"kind": "take", "seat": seat, "other": owner, "cards": [card], "reason": "table"})


@ability("pixie_pete")
class PixiePete(Ability):
    """Phase 1: draws 3 cards instead of 2 (DC-035; trait ``draw_count``); 4 with ``pixie_pete_draws_four``."""

    def draw_phase(self, state: State, seat: int, events: list[Event]) -> bool:
        count = PIXIE_HOUSE_DRAW if state["opts"].get("pixie_pete_draws_four") else trait(state, seat, "draw_count")
        draw(state, seat, int(count), events)
        draw_phase_done(state)
        return True


@ability("sean_mallory")
class SeanMallory(Ability):
    """His phase 3 hand limit is 10 (DC-036; trait ``hand_limit``); none with ``sean_mallory_unlimited``.

    The house rule's "any number" is a limit no hand can reach: every card of the game.
    """

    def hand_limit(self, state: State, fixed: int) -> int:
        return len(all_cards(state)) if state["opts"].get("sean_mallory_unlimited") else fixed


@ability("tequila_joe")
class TequilaJoe(Ability):
    """A Beer heals him 2, also in the dying window; other healing cards 1 (trait ``beer_heal``, DC-037)."""
