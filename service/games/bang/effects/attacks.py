"""Attacks: BANG!, Missed!, Gatling, Indians! and Duel, with their response windows.

NOTES (c) "BANG! card vs BANG! effect" and "Response windows": a BANG! effect opens a ``bang`` request for its
target (Missed! effects, Barrel draws, or take the hit; Slab the Killer's BANG! cards need two Missed!
effects); Indians! asks each other player for a BANG! card; a Duel alternates BANG! discards starting with the
challenged player. Multi-target cards queue one request per target, clockwise from the left of the attacker,
and resolve one player at a time.

Every source of a Missed! effect answers a shot (issue 10): a Missed! card (Calamity Janet: a BANG!; a
character with ``any_card_missed``: any card), a Barrel, a ready green card in play whose ``use`` has
``missed`` (the ``use`` answer: discarded from play, then its use effect runs). A card answering from the hand
runs its row's ``response`` effect (Dodge: draw a card) and its player's ``on_respond`` hook (Molly Stark).
"""

from __future__ import annotations

from typing import Any

from tabletop_server.service.engine.errors import MalformedAction, RuleError
from tabletop_server.service.engine.handlers import Registry
from tabletop_server.service.games.bang.abilities import ability_of
from tabletop_server.service.games.bang.checks import draw_check
from tabletop_server.service.games.bang.cubes import pay_use, use_payable
from tabletop_server.service.games.bang.damage import damage
from tabletop_server.service.games.bang.effects import EFFECTS, Effect, effect, effect_args
from tabletop_server.service.games.bang.layout import (
    Action,
    BangRequest,
    CardRequest,
    DuelRequest,
    Event,
    State,
)
from tabletop_server.service.games.bang.modifiers import ignores_target
from tabletop_server.service.games.bang.pending import E, RequestKind, request
from tabletop_server.service.games.bang.reasons import Reason
from tabletop_server.service.games.bang.state import (
    discard_from_hand,
    draw,
    in_effect,
    passive_sum,
    player,
    push,
    ready,
    seats_from,
    trait,
)
from tabletop_server.service.games.bang.tables import TYPE_OF
from tabletop_server.service.games.bang.targeting import affected
from tabletop_server.service.games.bang.upgrades import offer_late_upgrade, shot_cancelled

CHARACTER_BARREL = "character"


def counts_as_missed(state: State, seat: int, card: str, ignored: bool = False) -> bool:
    """A card from the hand that cancels a BANG! effect: Missed!, a BANG! for Calamity Janet, any for Elena
    (their abilities do not count against a shot that ignores them: Big Fifty, AD-047)."""
    t = TYPE_OF[card]
    if t.missed or ignored:
        return t.missed
    return (t.bang_card and bool(trait(state, seat, "bang_missed_swap"))) or bool(trait(state, seat, "any_card_missed"))


def missed_in_play(state: State, seat: int) -> list[str]:
    """Ready cards in play whose use is a Missed! effect (Bible, Iron Plate, Sombrero, Ten Gallon Hat;
    Crate, while it holds the cubes it costs)."""
    out = []
    for c in in_effect(state, seat):
        use = TYPE_OF[c].use
        if use is not None and use.missed and ready(state, c) and use_payable(state, seat, c):
            out.append(c)
    return out


def answer_with_card(state: State, seat: int, card: str, reason: str, events: list[Event],
                     ignored: bool = False) -> None:
    """Discard a card from the hand as an answer; its ``response`` effect and ``on_respond`` follow
    (not the ability of a target whose ability the shot ignores: Molly Stark against a Big Fifty, AD-047)."""
    discard_from_hand(state, seat, card)
    events.append({"kind": "respond", "seat": seat, "cards": [card], "reason": reason})
    extra = TYPE_OF[card].response
    if extra is not None:
        EFFECTS[extra.effect].resolve(state, seat, card, {"type": "respond", "card": card}, events)
    if not ignored:
        ability_of(state, seat).on_respond(state, seat, events)


def counts_as_bang(state: State, seat: int, card: str) -> bool:
    """A card that answers Indians! or a Duel: BANG!, or a Missed! card for Calamity Janet.

    Her swap is of the Missed! *card* (its ``missed`` effect): Dodge is a Missed! effect
    but not a Missed! card, so it never counts as a BANG! for her (DC-053).
    """
    t = TYPE_OF[card]
    return t.bang_card or (t.effect == "missed" and bool(trait(state, seat, "bang_missed_swap")))


def may_shoot_again(state: State, seat: int) -> bool:
    """One BANG! card per turn, unless Volcanic or Willy the Kid (BANG-018, 078, 106), or once more
    through an extra BANG! that can pay (a Bandolier, AD-045)."""
    return (state["bangs"] == 0 or passive_sum(state, seat, "unlimited_bang") > 0
            or any(extra.payable(state, seat) for extra in EXTRA_BANGS.values()))


class ExtraBang:
    """A card that lets its player play one more BANG! card this turn, for a price (the Bandolier)."""

    def payable(self, state: State, seat: int) -> bool:
        """Whether it can pay for one more BANG! card of ``seat`` now."""
        raise NotImplementedError

    def pay(self, state: State, seat: int, events: list[Event]) -> None:
        """Pay for the BANG! card played beyond the limit."""
        raise NotImplementedError


EXTRA_BANGS: Registry[ExtraBang] = Registry("extra BANG!")


def pay_extra_bang(state: State, seat: int, events: list[Event]) -> None:
    """A BANG! card played beyond the limit (checked: ``may_shoot_again``) is paid by the first extra BANG!
    that can (none pays when nothing is registered for the game's cards)."""
    for extra in EXTRA_BANGS.values():
        if extra.payable(state, seat):
            extra.pay(state, seat, events)
            return


def barrel_sources(state: State, seat: int, ignored: bool = False) -> list[str]:
    """Barrels a target may still draw for: each card in play and Jourdonnais, once each (none if ``ignored``)."""
    if ignored:
        return []
    sources = [c for c in in_effect(state, seat) if TYPE_OF[c].passive.get("barrel")]
    if trait(state, seat, "barrel"):
        sources.append(CHARACTER_BARREL)
    return sources


def shoot(state: State, attacker: int, target: int, card: str | None, need: int, **flags: Any) -> None:
    """Open a BANG! response window for ``target``; ``flags`` are what the shot carries (``ShotArgs``: a Dangerous
    weapon's effect, ``played``: a card from the hand, ``bang_card``: a real BANG! card; an ability's: card None)."""
    push(state, "bang", target, attacker, card=card, need=need, got=0, used=[], **flags)


# What a Dangerous weapon paid for a BANG! card puts on its shot (its row's ``use.args.shot``;
# ``take_back``, the Thunderer's, is done at once by ``upgrades.WeaponOption``).
SHOT_FLAGS = frozenset({"ignore", "buntline", "sure"})


@effect("bang")
class Bang(Effect):
    """A BANG! effect on the target, who may cancel it (BANG-042..044).

    Whether a card is the turn's BANG! *card* (one per turn, BANG-018) is its row's
    ``bang_card``, not the handler's: Punch, Springfield and the green guns reuse this
    effect and are not BANG! cards (DC-016, 052, 055).
    """

    def resolve(self, state: State, seat: int, card: str, action: Action, events: list[Event]) -> None:
        # Slab the Killer's ability is about his BANG! *cards*: a BANG! effect from another
        # source (a card in play, an ability, Punch or Springfield) needs one Missed! as usual.
        played = action.get("type") == "play"
        own_card = played and TYPE_OF[card].bang_card
        need = int(trait(state, seat, "missed_needed") or 1) if own_card else 1
        if "supply" not in state:  # no Armed & Dangerous: nothing more on the shot
            shoot(state, seat, action["target"], card, need)
            return
        flags: dict[str, Any] = {}
        if played:  # only what an A&D rule reads
            flags["played"] = True
            if own_card:
                flags["bang_card"] = True
            if action.get("weapon") in SHOT_FLAGS:
                flags[action["weapon"]] = True
        # Quick Shot's extra targets (its upgrade, AD-062): one shot each, in the order chosen.
        for target in reversed([action["target"], *action.get("extra", [])]):
            shoot(state, seat, target, card, need, **flags)


@effect("derringer")
class Derringer(Effect):
    """Derringer (DC-010): a BANG! effect on the target, and its player draws ``args.count`` (1)."""

    def resolve(self, state: State, seat: int, card: str, action: Action, events: list[Event]) -> None:
        Bang().resolve(state, seat, card, action, events)
        draw(state, seat, int(effect_args(card, action)["count"]), events)


@effect("missed")
class Missed(Effect):
    """Missed! is a response; Calamity Janet may play it as a BANG! (BANG-088)."""

    def check(self, state: State, seat: int, card: str, action: Action) -> None:
        if not trait(state, seat, "bang_missed_swap"):
            raise RuleError(Reason.CARD_NOT_PLAYABLE_NOW, "Missed! is played only to cancel a shot at you")

    def resolve(self, state: State, seat: int, card: str, action: Action, events: list[Event]) -> None:
        Bang().resolve(state, seat, card, action, events)


@effect("dodge")
class Dodge(Effect):
    """Dodge (DC-053): answers a BANG! effect from the hand (its row: ``missed``, and a
    ``response`` that draws a card); never played in one's own turn, by anyone: it is not
    the Missed! card that Calamity Janet plays as a BANG!."""

    def check(self, state: State, seat: int, card: str, action: Action) -> None:
        raise RuleError(Reason.CARD_NOT_PLAYABLE_NOW, f"{TYPE_OF[card].name} is played only to cancel a shot at you")

    def resolve(self, state: State, seat: int, card: str, action: Action, events: list[Event]) -> None:
        raise AssertionError("Dodge and Duck! are never played: check refuses them")  # pragma: no cover


@effect("gatling")
class Gatling(Effect):
    """Gatling: a BANG! effect on every other player; not a BANG! card (BANG-022, 062)."""

    def resolve(self, state: State, seat: int, card: str, action: Action, events: list[Event]) -> None:
        for target in reversed(affected(state, seat, card, seats_from(state, seat, include_self=False), events)):
            shoot(state, seat, target, card, 1)


@effect("indians")
class Indians(Effect):
    """Indians!: every other player discards a BANG! or loses 1 life (BANG-063, 064)."""

    def resolve(self, state: State, seat: int, card: str, action: Action, events: list[Event]) -> None:
        for target in reversed(affected(state, seat, card, seats_from(state, seat, include_self=False), events)):
            push(state, "indians", target, seat, card=card)


@effect("duel")
class Duel(Effect):
    """Duel: the challenged player discards a BANG! first, then the challenger, ... (BANG-057..060)."""

    def resolve(self, state: State, seat: int, card: str, action: Action, events: list[Event]) -> None:
        push(state, "duel", action["target"], seat, card=card, opp=seat)


@request("bang")
class BangResponse(RequestKind[BangRequest]):
    """Answer a BANG! effect: Missed! effects, Barrel draws, or take the hit."""

    answers = frozenset({"respond", "barrel", "pass", "use"})

    def legal(self, state: State, req: BangRequest) -> list[Action]:
        seat, ignored = req["seat"], ignores_target(req["args"])
        out: list[Action] = [{"type": "pass"}]
        if req["args"].get("sure"):
            return out  # Double Barrel: nothing cancels it (AD-054)
        out += [{"type": "respond", "card": c} for c in player(state, seat)["hand"]
                if counts_as_missed(state, seat, c, ignored)]
        if player(state, seat)["table"] and not ignored:
            out += [{"type": "use", "card": c} for c in missed_in_play(state, seat)]
        for b in barrel_sources(state, seat, ignored):
            if b not in req["args"]["used"]:
                # Jourdonnais' own Barrel is the barrel action without a card.
                out.append({"type": "barrel"} if b == CHARACTER_BARREL else {"type": "barrel", "card": b})
        return out

    def check(self, state: State, req: BangRequest, action: Action) -> None:
        seat, ignored = req["seat"], ignores_target(req["args"])
        if action["type"] != "pass" and req["args"].get("sure"):
            raise RuleError(Reason.SHOT_UNCANCELLABLE, "This shot cannot be cancelled: take the hit")
        if action["type"] == "respond" and not counts_as_missed(state, seat, action["card"], ignored):
            raise RuleError(Reason.WRONG_ANSWER, "Only a Missed! effect cancels a BANG!", card=action["card"])
        if action["type"] == "use":
            if ignored:
                raise RuleError(Reason.CARD_SILENCED, "This shot ignores your cards in play", card=action["card"])
            check_missed_in_play(state, seat, action)
        if action["type"] == "barrel":
            source = action.get("card") or CHARACTER_BARREL
            if source not in barrel_sources(state, seat, ignored):
                raise RuleError(Reason.NO_BARREL, "You have no such Barrel", card=source)
            if source in req["args"]["used"]:
                raise RuleError(Reason.BARREL_ALREADY_USED, "Each Barrel draws once per shot", card=source)

    def resolve(self, state: State, req: BangRequest, action: Action, events: list[Event]) -> None:
        seat, args = req["seat"], req["args"]
        if action["type"] == "pass":
            state["pending"].pop()
            events.append({"kind": "pass", "seat": seat, "reason": "bang"})
            damage(state, seat, 1, req["source"], events, quiet=ignores_target(args))
        elif action["type"] == "respond":
            missed_once(state, req, events)
            answer_with_card(state, seat, action["card"], "missed", events, ignored=ignores_target(args))
            if "supply" in state:  # Duck!'s upgrade: back into the hand (AD-069)
                offer_late_upgrade(state, seat, action["card"], "answered")
        elif action["type"] == "use":
            card = action["card"]
            use = TYPE_OF[card].use
            assert use is not None  # checked
            pay_use(state, seat, card, events, reason="missed")
            missed_once(state, req, events)
            EFFECTS[use.effect].resolve(state, seat, card, action, events)
        else:
            args["used"].append(action.get("card") or CHARACTER_BARREL)
            draw_check(state, seat, "barrel", events)

    def auto(self, state: State, req: BangRequest) -> Action | None:
        seat, args = req["seat"], req["args"]
        if "sure" in args:  # public: the weapon's cube was paid in the open; only an ability is left
            return None if ability_of(state, seat).activations(state, seat) else {"type": "pass"}
        if player(state, seat)["hand"]:
            return None  # asked even without a Missed!: waiting must not reveal his hand
        ignored = ignores_target(args)
        if any(b not in req["args"]["used"] for b in barrel_sources(state, seat, ignored)):
            return None
        if not ignored and missed_in_play(state, seat):
            return None
        if ability_of(state, seat).activations(state, seat):
            return None
        return {"type": "pass"}


def check_missed_in_play(state: State, seat: int, action: Action) -> None:
    """A ``use`` answer: a ready card in play whose use is a Missed! effect."""
    card = action["card"]
    if card not in player(state, seat)["table"]:
        raise RuleError(Reason.CARD_NOT_IN_PLAY, "That card is not in play in front of you", card=card)
    if card not in in_effect(state, seat):
        raise RuleError(Reason.CARD_SILENCED, "Your cards in play have no effect in this turn", card=card)
    use = TYPE_OF[card].use
    if use is None or not use.missed:
        raise RuleError(Reason.WRONG_ANSWER, "Only a Missed! effect cancels a BANG!", card=card)
    if not ready(state, card):
        raise RuleError(Reason.CARD_NOT_READY, f"{use.name} can be used from the turn after it was played",
                        card=card)
    if not use_payable(state, seat, card):
        raise RuleError(Reason.NOT_ENOUGH_CUBES, f"{use.name} needs {use.cost['cubes']} of its own cubes", card=card)
    if "target" in action or "pick" in action:
        raise MalformedAction(Reason.UNEXPECTED_TARGET, f"{use.name} takes no target here",
                              field="target" if "target" in action else "pick")


def missed_once(state: State, req: BangRequest, events: list[Event]) -> None:
    """Count one Missed! effect on a shot; the shot is cancelled once it has enough."""
    req["args"]["got"] += 1
    if req["args"]["got"] >= req["args"]["need"] and state["pending"] and state["pending"][-1] is req:
        state["pending"].pop()
        if "supply" in state:
            shot_cancelled(state, req, events)


class _DiscardBang(RequestKind[E]):
    """Shared by Indians! and Duel: discard a BANG! card (Janet: Missed!) or lose 1 life."""

    answers = frozenset({"respond", "pass"})

    def legal(self, state: State, req: E) -> list[Action]:
        seat = req["seat"]
        out: list[Action] = [{"type": "pass"}]
        return out + [{"type": "respond", "card": c} for c in player(state, seat)["hand"] if counts_as_bang(state, seat, c)]

    def check(self, state: State, req: E, action: Action) -> None:
        if action["type"] == "respond" and not counts_as_bang(state, req["seat"], action["card"]):
            raise RuleError(Reason.WRONG_ANSWER, "Only a BANG! card answers this", card=action["card"])

    def auto(self, state: State, req: E) -> Action | None:
        seat = req["seat"]
        if player(state, seat)["hand"]:
            return None  # asked even without a BANG!: waiting must not reveal his hand
        if ability_of(state, seat).activations(state, seat):
            return None
        return {"type": "pass"}


@request("indians")
class IndiansResponse(_DiscardBang[CardRequest]):
    """Answer Indians!."""

    def resolve(self, state: State, req: CardRequest, action: Action, events: list[Event]) -> None:
        seat = req["seat"]
        state["pending"].pop()
        if action["type"] == "pass":
            events.append({"kind": "pass", "seat": seat, "reason": "indians"})
            damage(state, seat, 1, req["source"], events)
            return
        answer_with_card(state, seat, action["card"], "indians", events)


@request("duel")
class DuelResponse(_DiscardBang[DuelRequest]):
    """One step of a Duel: the seat to answer alternates; the damage comes from the challenger."""

    holds_empty_hands = True  # Suzy Lafayette draws once the Duel is over, not during it (RULINGS BANG-102)

    def resolve(self, state: State, req: DuelRequest, action: Action, events: list[Event]) -> None:
        seat = req["seat"]
        if action["type"] == "pass":
            state["pending"].pop()
            events.append({"kind": "pass", "seat": seat, "reason": "duel"})
            for s in (seat, req["args"]["opp"]):  # before the damage: what they queue comes after it
                ability_of(state, s).on_duel_over(state, s, req)
            # The challenger is responsible for the loser's damage, even his own (NOTES b #7;
            # so El Gringo takes nothing when he loses his own Duel, BANG-090).
            damage(state, seat, 1, req["source"], events)
            return
        req["seat"], req["args"]["opp"] = req["args"]["opp"], seat
        answer_with_card(state, seat, action["card"], "duel", events)
