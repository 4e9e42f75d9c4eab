"""The 8 characters of Armed & Dangerous (AD-028..040; facts from ``shared/reference/bang/characters.json``).

Cubes for an ability come from the character and/or the player's orange cards (``pay_cubes``),
and abilities work only in their owner's turn unless stated otherwise (AD-028): Al Preacher
reacts in anyone's turn; Bloody Mary, Julie Cutter and Ms. Abigail are triggered. The activated
ones are ``ability`` actions in the owner's phase 2 with their ``uses_per_turn`` (once).

Vera Custer copying one of them (``state.acting_character``) keeps her own cubes, on her own
character; the per-turn counters are per ability name, so a copied ability is once per turn as
printed. Red Ringo's 4 starting cubes are dealt at setup to the printed Red Ringo only (a copy
starts nothing: it is not the start of the game).
"""

from __future__ import annotations

from typing import Any

from tabletop_server.service.engine.errors import MalformedAction, RuleError
from tabletop_server.service.games.bang import cubes
from tabletop_server.service.games.bang.abilities import Ability, ability
from tabletop_server.service.games.bang.characters.dodge_city_turn import (
    check_own_phase_2,
    limit_of,
    own_phase_2,
    used_up,
)
from tabletop_server.service.games.bang.checks import check, draw_check
from tabletop_server.service.games.bang.cube_requests import ask_payment, ask_placement
from tabletop_server.service.games.bang.distance import in_reach
from tabletop_server.service.games.bang.effects.attacks import shoot
from tabletop_server.service.games.bang.layout import Action, BangRequest, CardRequest, Event, State
from tabletop_server.service.games.bang.modifiers import seen_without_card_modifiers
from tabletop_server.service.games.bang.pending import RequestKind, request
from tabletop_server.service.games.bang.reasons import Reason
from tabletop_server.service.games.bang.state import (
    discard_from_hand,
    draw,
    player,
    push,
    seats_from,
)
from tabletop_server.service.games.bang.tables import CARDS, TYPE_OF, TYPES
from tabletop_server.service.games.bang.targeting import check_target
from tabletop_server.service.games.bang.turn import check_uses_left, count_use

PREACHER_COST = 2
BASS_CUBES = 2
MEXICALI_COST = 2
RINGO_MOVES = 2
FACE_CARDS = frozenset({"J", "Q", "K", "A"})


@ability("al_preacher")
class AlPreacher(Ability):
    """Another player puts a blue or orange card in play: he may pay 2 cubes to draw 1, at once (AD-031..033)."""

    def on_card_placed(self, state: State, seat: int, by: int, card: str) -> None:
        if cubes.owned(state, seat) >= PREACHER_COST:
            push(state, "preacher", seat, by, card=card)


@request("preacher")
class PreacherWindow(RequestKind[CardRequest]):
    """``ability`` (no cards): pay 2 cubes and draw 1 card; ``pass``. Asked before anything else happens,
    so the window closes with the next card (AD-033); one card per card put in play (AD-032)."""

    answers = frozenset({"ability", "pass"})
    abilities = False
    shown_as = "draw_for_cubes"

    def legal(self, state: State, req: CardRequest) -> list[Action]:
        return [{"type": "ability", "cards": []}, {"type": "pass"}]

    def check(self, state: State, req: CardRequest, action: Action) -> None:
        if action["type"] == "ability" and (action.get("cards") or "target" in action):
            raise MalformedAction(Reason.UNEXPECTED_FIELD, "Al Preacher's ability takes no cards or target",
                                  field="cards")

    def resolve(self, state: State, req: CardRequest, action: Action, events: list[Event]) -> None:
        state["pending"].pop()
        if action["type"] == "ability":
            push(state, "draw_step", None, req["seat"], count=1, reason="al_preacher")
            ask_payment(state, req["seat"], PREACHER_COST, "al_preacher")

    def auto(self, state: State, req: CardRequest) -> Action | None:
        return {"type": "pass"} if cubes.owned(state, req["seat"]) < PREACHER_COST else None


@ability("bass_greeves")
class BassGreeves(Ability):
    """Once in his turn: discard 1 card from his hand for 2 cubes from the supply on one of his holders (AD-034)."""

    def activations(self, state: State, seat: int) -> list[Action]:
        if not own_phase_2(state, seat) or used_up(state, seat, "bass_greeves") or not cubes.with_room(state, seat):
            return []
        return [{"type": "ability", "cards": [c]} for c in dict.fromkeys(player(state, seat)["hand"])]

    def check_activate(self, state: State, seat: int, action: Action) -> None:
        check_own_phase_2(state, seat, "Bass Greeves")
        cards = action.get("cards") or []
        if len(cards) != 1:
            raise RuleError(Reason.NEED_ONE_CARD, "Bass Greeves discards exactly one card from his hand")
        if cards[0] not in player(state, seat)["hand"]:
            raise RuleError(Reason.CARD_NOT_IN_HAND, "Discard a card from your hand", card=cards[0])
        if not cubes.with_room(state, seat):
            raise RuleError(Reason.NO_ROOM_FOR_CUBES, "No cube fits on your cards (4 each, or the supply is empty)")
        check_uses_left(state, seat, "bass_greeves", limit_of(state, seat))

    def activate(self, state: State, seat: int, action: Action, events: list[Event]) -> None:
        count_use(state, seat, "bass_greeves")
        card = action["cards"][0]
        discard_from_hand(state, seat, card)
        events.append({"kind": "discard", "seat": seat, "cards": [card], "reason": "bass_greeves"})
        ask_placement(state, seat, BASS_CUBES, "bass_greeves", split=False)


@ability("bloody_mary")
class BloodyMary(Ability):
    """Each time a BANG! card she played is cancelled she draws 1 (AD-035; not other BANG! effects)."""

    def on_shot_cancelled(self, state: State, seat: int, shot: BangRequest, events: list[Event]) -> None:
        if shot["args"].get("bang_card"):
            draw(state, seat, 1, events, reason="bloody_mary")


@ability("frankie_canton")
class FrankieCanton(Ability):
    """Once in his turn: 1 cube from any orange card in play, or from another character, onto his own (AD-036)."""

    takes_target = True

    def activations(self, state: State, seat: int) -> list[Action]:
        if (not own_phase_2(state, seat) or used_up(state, seat, "frankie_canton")
                or cubes.room(state, seat, cubes.CHARACTER) <= 0):
            return []
        out: list[Action] = []
        for s, p in enumerate(state["p"]):
            if not p["alive"]:
                continue
            out += [{"type": "ability", "cards": [c]} for c in p["table"] if cubes.orange(c) and cubes.on(state, s, c)]
            if s != seat and p.get("cubes"):
                out.append({"type": "ability", "cards": [], "target": s})
        return out

    def check_activate(self, state: State, seat: int, action: Action) -> None:
        check_own_phase_2(state, seat, "Frankie Canton")
        check_uses_left(state, seat, "frankie_canton", limit_of(state, seat))
        if cubes.room(state, seat, cubes.CHARACTER) <= 0:
            raise RuleError(Reason.NO_ROOM_FOR_CUBES, "Your character holds 4 cubes already")
        owner, holder = _frankie_source(state, seat, action)
        if owner is None or not cubes.on(state, owner, holder):
            raise RuleError(Reason.NOT_A_CUBE_HOLDER, "Take a cube from an orange card in play or another "
                            "player's character that holds one")

    def activate(self, state: State, seat: int, action: Action, events: list[Event]) -> None:
        count_use(state, seat, "frankie_canton")
        owner, holder = _frankie_source(state, seat, action)
        assert owner is not None  # checked
        taken = cubes.take(state, owner, holder, 1, events, "frankie_canton")
        cubes.place_taken(state, seat, taken, events, "frankie_canton")


@ability("julie_cutter")
class JulieCutter(Ability):
    """Another player made her lose life: she draws!, and on Hearts or Diamonds he faces one BANG! effect
    from her, at any distance (AD-037; not for Dynamite or the Bomb: no player)."""

    def on_hit(self, state: State, seat: int, amount: int, source: int | None, events: list[Event]) -> None:
        if source is not None and source != seat and player(state, source)["alive"]:
            draw_check(state, seat, "julie_cutter", events, {"attacker": source})


@check("julie_cutter", lambda card: CARDS[card].suit in ("hearts", "diamonds"))
def julie_cutter(state: State, seat: int, good: bool, events: list[Event], ctx: Any) -> None:
    """Julie Cutter's draw!: red, the player who hit her is the target of a BANG! effect from her."""
    attacker = int(ctx["attacker"])
    if good and player(state, seat)["alive"] and player(state, attacker)["alive"]:
        shoot(state, seat, attacker, None, 1)


@ability("mexicali_kid")
class MexicaliKid(Ability):
    """Once in his turn: 2 cubes for a BANG! effect on a player in reach, no card (AD-038; not a BANG! card,
    no Dangerous weapon effect, never out of his turn)."""

    takes_target = True

    def activations(self, state: State, seat: int) -> list[Action]:
        if (not own_phase_2(state, seat) or used_up(state, seat, "mexicali_kid")
                or cubes.owned(state, seat) < MEXICALI_COST):
            return []
        unbelled = seen_without_card_modifiers(state)
        return [{"type": "ability", "cards": [], "target": t} for t in seats_from(state, seat, include_self=False)
                if in_reach(unbelled, seat, t)]

    def check_activate(self, state: State, seat: int, action: Action) -> None:
        check_own_phase_2(state, seat, "Mexicali Kid")
        if action.get("cards"):
            raise MalformedAction(Reason.UNEXPECTED_FIELD, "Name only the target; the cubes are asked next",
                                  field="cards")
        check_target(seen_without_card_modifiers(state), seat, TYPES["bang"], action)
        if cubes.owned(state, seat) < MEXICALI_COST:
            raise RuleError(Reason.NOT_ENOUGH_CUBES, f"Mexicali Kid's shot costs {MEXICALI_COST} cubes",
                            need=MEXICALI_COST)
        check_uses_left(state, seat, "mexicali_kid", limit_of(state, seat))

    def activate(self, state: State, seat: int, action: Action, events: list[Event]) -> None:
        count_use(state, seat, "mexicali_kid")
        shoot(state, seat, action["target"], None, 1)
        ask_payment(state, seat, MEXICALI_COST, "mexicali_kid")  # paid first (on top), then the target answers


@ability("ms_abigail")
class MsAbigail(Ability):
    """She may ignore a brown card of rank J, Q, K or A of another player of which she is the only target
    (AD-039; RULINGS AD-039: never a card for every player, even with two players left)."""

    def may_ignore(self, seat: int, by: int, card: str) -> bool:
        return by != seat and TYPE_OF[card].color == "brown" and CARDS[card].rank in FACE_CARDS


@ability("red_ringo")
class RedRingo(Ability):
    """Starts with 4 cubes (setup); once in his turn he moves up to 2 of them onto his orange cards, one
    card or two (AD-040; never back onto his character)."""

    def activations(self, state: State, seat: int) -> list[Action]:
        have = cubes.on(state, seat, cubes.CHARACTER)
        if not own_phase_2(state, seat) or used_up(state, seat, "red_ringo") or not have:
            return []
        cards = [c for c in cubes.holders(state, seat)[1:] if cubes.room(state, seat, c) > 0]
        out: list[Action] = [{"type": "ability", "cards": [c]} for c in cards]
        if have >= RINGO_MOVES:
            for i, a in enumerate(cards):
                out += [{"type": "ability", "cards": [a, b]} for b in cards[i:]
                        if a != b or cubes.room(state, seat, a) >= RINGO_MOVES]
        return out

    def check_activate(self, state: State, seat: int, action: Action) -> None:
        check_own_phase_2(state, seat, "Red Ringo")
        check_uses_left(state, seat, "red_ringo", limit_of(state, seat))
        cards = action.get("cards") or []
        if not 1 <= len(cards) <= RINGO_MOVES:
            raise RuleError(Reason.NEED_ONE_CARD, "Name one or two of your orange cards (one per cube moved)")
        if cubes.on(state, seat, cubes.CHARACTER) < len(cards):
            raise RuleError(Reason.NOT_ENOUGH_CUBES, "Your character does not hold that many cubes", need=len(cards))
        for c in set(cards):
            if c not in cubes.holders(state, seat)[1:]:
                raise RuleError(Reason.NOT_A_CUBE_HOLDER, "Move cubes onto your own orange cards in play", card=c)
            if cubes.room(state, seat, c) < cards.count(c):
                raise RuleError(Reason.NO_ROOM_FOR_CUBES, f"{TYPE_OF[c].name} holds at most 4 cubes", card=c)

    def activate(self, state: State, seat: int, action: Action, events: list[Event]) -> None:
        count_use(state, seat, "red_ringo")
        for c in action["cards"]:
            cubes.shift(state, seat, cubes.CHARACTER, c, 1, events, "red_ringo")


# Helpers

def _frankie_source(state: State, seat: int, action: Action) -> tuple[int | None, str]:
    """Whose holder Frankie takes from: an orange card (``cards``) or another character (``target``)."""
    cards = action.get("cards") or []
    if cards and "target" in action:
        raise MalformedAction(Reason.UNEXPECTED_TARGET, "Name a card or a player, not both", field="target")
    if len(cards) > 1:
        raise RuleError(Reason.NEED_ONE_CARD, "Frankie Canton takes one cube from one card")
    if cards:
        return cubes.owner_of(state, cards[0]), cards[0]
    target = action.get("target")
    if target is None:
        raise MalformedAction(Reason.MISSING_TARGET, "Name the card or the player to take a cube from",
                              field="target")
    if not isinstance(target, int) or not 0 <= target < len(state["p"]) or target == seat:
        raise MalformedAction(Reason.BAD_TARGET, "Take from another player's character", field="target")
    return (target if state["p"][target]["alive"] else None), cubes.CHARACTER
