"""Armed & Dangerous decisions around a committed card: upgrades, Dangerous weapons, Ms. Abigail,
and what follows a cancelled shot or a card put in play (AD-009, 019..024, 039, 053, 056, 069).

Each is a request asked after the card and its target are committed (``play.STAGES``), so the
enumerated legal actions stay card x target:

- ``upgrade``: an upgradable brown card (its row's ``upgrade``) may be bought up once or, when
  ``repeat``, several times; each purchase is paid with ``pay_cubes`` (any holders, any split;
  AD-022). Decided as the card is played, before it resolves (AD-024); Duck! as it answers,
  and the Flintlock once its shot is cancelled (RULINGS AD-056).
- ``weapon``: the player of a real BANG! card with a Dangerous weapon may pay 1 of its cubes for
  its effect on this shot, before the target reacts (AD-019, 020). The weapon's row says the
  effect (``use.args.shot``: ``ignore`` the target's cards and ability, Big Fifty; ``buntline``;
  ``sure``: no cancelling, Double Barrel, for a BANG! of the row's ``suit``, Diamonds, AD-054;
  ``take_back`` the BANG! card, Thunderer), which the shot's request carries as a flag. What a
  shot does beyond its flag is its registered ``Shot`` handler, in its card's module: a target
  only the shot reaches (``Shot.reaches``, ``Shot.forced``: ``effects/big_fifty.py``), something
  done once the cube is paid (``Shot.paid``: ``effects/thunderer.py``), what a cancelled shot
  triggers (``Shot.cancelled``: ``effects/buntline_special.py``, its target's ``discard_one``).
- ``ignore``: Ms. Abigail, the only target of a brown J, Q, K or A of another player, may
  ignore it (AD-039: never a card that hits every player; Big Fifty overrides her).

A blue card put in play earns its player 1 cube (an orange card does not: RULINGS AD-010),
and a blue or orange card put in play gives every other character a chance to react (Al
Preacher): :func:`after_placed`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tabletop_server.service.engine.errors import MalformedAction, RuleError
from tabletop_server.service.engine.handlers import Registry
from tabletop_server.service.games.bang import cubes
from tabletop_server.service.games.bang.abilities import ability_name, ability_of
from tabletop_server.service.games.bang.cube_requests import ask_payment, ask_recharge
from tabletop_server.service.games.bang.layout import (
    Action,
    BangRequest,
    CardBackStep,
    Event,
    IgnoreRequest,
    State,
    UpgradeRequest,
    WeaponRequest,
)
from tabletop_server.service.games.bang.modifiers import card_played_out
from tabletop_server.service.games.bang.pending import RequestKind, Step, continue_play, request, step
from tabletop_server.service.games.bang.reasons import Reason
from tabletop_server.service.games.bang.state import (
    alive_seats,
    player,
    push,
    seats_from,
    source_seat,
    suit,
    weapon,
)
from tabletop_server.service.games.bang.tables import TYPE_OF
from tabletop_server.service.games.bang.targeting import check_affects, check_target


def upgrade_of(card: str) -> Mapping[str, Any]:
    """The card's upgrade row (empty: none)."""
    return TYPE_OF[card].upgrade


def offer_upgrade(state: State, seat: int, action: Action) -> bool:
    """Open the ``upgrade`` question for a card just played, when its player can pay for one."""
    card = action["card"]
    up = upgrade_of(card)
    if not up or up.get("when", "played") != "played" or not _can_buy(state, seat, card, 0, _taken(action)):
        return False
    push(state, "upgrade", seat, seat, card=card, action=action.copy(), bought=0, extra=[])
    return True


def offer_late_upgrade(state: State, seat: int, card: str, when: str) -> None:
    """The upgrade of a card already resolved (Duck! answering, a cancelled Flintlock): take it back."""
    up = upgrade_of(card)
    if up and up.get("when") == when and cubes.armed(state) and cubes.owned(state, seat) >= int(up["cubes"]):
        push(state, "upgrade", seat, seat, card=card, bought=0, extra=[], late=True)


@request("upgrade")
class Upgrade(RequestKind[UpgradeRequest]):
    """Buy the card's upgrade (``upgrade``, with ``target`` for an extra target) or play it as it is (``pass``)."""

    answers = frozenset({"upgrade", "pass"})
    abilities = False

    def legal(self, state: State, req: UpgradeRequest) -> list[Action]:
        seat, args = req["seat"], req["args"]
        out: list[Action] = [{"type": "pass"}]
        if not _can_buy(state, seat, args["card"], args["bought"], _taken(args.get("action"), args["extra"])):
            return out
        if upgrade_of(args["card"]).get("adds") == "target":
            return out + [{"type": "upgrade", "target": t} for t in _extra_targets(state, seat, req)]
        return out + [{"type": "upgrade"}]

    def check(self, state: State, req: UpgradeRequest, action: Action) -> None:
        if action["type"] == "pass":
            return
        seat, args = req["seat"], req["args"]
        card = args["card"]
        up = upgrade_of(card)
        if args["bought"] and not up.get("repeat"):
            raise RuleError(Reason.UPGRADE_NOT_AVAILABLE, f"{TYPE_OF[card].name}'s upgrade is bought once only")
        if cubes.owned(state, seat) < int(up["cubes"]):
            raise RuleError(Reason.NOT_ENOUGH_CUBES, f"The upgrade costs {up['cubes']} cube(s)", need=int(up["cubes"]))
        if up.get("adds") == "target":
            _check_extra_target(state, seat, req, action)
        elif "target" in action:
            raise MalformedAction(Reason.UNEXPECTED_TARGET, f"{TYPE_OF[card].name}'s upgrade takes no target",
                                  field="target")

    def resolve(self, state: State, req: UpgradeRequest, action: Action, events: list[Event]) -> None:
        seat, args = req["seat"], req["args"]
        if action["type"] == "pass":
            state["pending"].pop()
            if not args.get("late"):
                played = args["action"].copy()
                if args["bought"]:
                    played["bought"], played["extra"] = args["bought"], args["extra"]
                continue_play(state, seat, played, "weapon", events)
            return
        args["bought"] += 1
        if "target" in action:
            args["extra"].append(action["target"])
        if args.get("late"):
            state["pending"].pop()
            push(state, "card_back", None, seat, card=args["card"])
        ask_payment(state, seat, int(upgrade_of(args["card"])["cubes"]), "upgrade")

    def auto(self, state: State, req: UpgradeRequest) -> Action | None:
        args = req["args"]
        if not _can_buy(state, req["seat"], args["card"], args["bought"], _taken(args.get("action"), args["extra"])):
            return {"type": "pass"}
        return None


@step("card_back")
class CardBack(Step[CardBackStep]):
    """A late upgrade, paid: the card goes from the discard pile back into its player's hand."""

    def run(self, state: State, req: CardBackStep, events: list[Event]) -> None:
        seat, card = source_seat(req), req["args"]["card"]
        if player(state, seat)["alive"] and card in state["discard"]:
            state["discard"].remove(card)
            player(state, seat)["hand"].append(card)
            events.append({"kind": "take", "seat": seat, "cards": [card], "reason": "upgrade"})


def weapon_for(state: State, seat: int, card: str) -> str | None:
    """The Dangerous weapon whose effect the seat can pay for this real BANG! card, if any."""
    w = weapon(state, seat)
    if w is None or not cubes.orange(w):
        return None
    use = TYPE_OF[w].use
    if use is None or use.when != "bang_card" or not cubes.use_payable(state, seat, w):
        return None
    if use.args.get("suit") and suit(card) != use.args["suit"]:
        return None  # Double Barrel: a BANG! of Diamonds only (AD-054)
    return w


class Shot:
    """What a Dangerous weapon's paid effect on a BANG! card (its row's ``use.args.shot``) does besides the
    flag its shot carries. Registered under the shot's name in ``SHOTS``; the defaults do nothing."""

    def reaches(self, state: State, seat: int, target: int) -> bool:
        """Whether this shot reaches or affects ``target`` though the card alone does not."""
        return False

    def forced(self, state: State, seat: int, action: Action) -> bool:
        """Whether the weapon must pay for this play (its target is reached only by the shot)."""
        return False

    def paid(self, state: State, seat: int, played: Action, events: list[Event]) -> None:
        """What happens as soon as the weapon's cube is paid, before the target reacts."""

    def cancelled(self, state: State, shot: BangRequest) -> None:
        """What happens when a shot carrying this flag is cancelled (before its shooter's ability reacts)."""


SHOTS: Registry[Shot] = Registry("weapon shot")


def shot_of(state: State, seat: int, card: str) -> Shot | None:
    """The registered shot of the Dangerous weapon that can pay for this BANG! card, if any."""
    w = weapon_for(state, seat, card)
    use = TYPE_OF[w].use if w is not None else None
    return SHOTS.get(str(use.args.get("shot"))) if use is not None else None


def reached_by_shot(state: State, seat: int, action: Action) -> bool:
    """A BANG! card's target out of reach or unaffected, reached by its weapon's shot (a Big Fifty's)."""
    shot = shot_of(state, seat, action["card"])
    return shot is not None and shot.reaches(state, seat, int(action["target"]))


def offer_weapon(state: State, seat: int, action: Action) -> bool:
    """Ask the player of a real BANG! card whether his Dangerous weapon pays for this shot (``forced``:
    a target only its shot reaches, ``Shot.forced``)."""
    w = weapon_for(state, seat, action["card"])
    if w is None:
        return False
    shot = shot_of(state, seat, action["card"])
    forced = shot is not None and shot.forced(state, seat, action)
    if forced:
        push(state, "weapon", seat, seat, card=w, action=action.copy(), forced=True)
    else:
        push(state, "weapon", seat, seat, card=w, action=action.copy())
    return True


@request("weapon")
class WeaponOption(RequestKind[WeaponRequest]):
    """``use`` the Dangerous weapon for this BANG! card (1 of its cubes), or ``pass``."""

    answers = frozenset({"use", "pass"})
    abilities = False

    def legal(self, state: State, req: WeaponRequest) -> list[Action]:
        if req["args"].get("forced"):
            return [{"type": "use", "card": req["args"]["card"]}]
        return [{"type": "use", "card": req["args"]["card"]}, {"type": "pass"}]

    def check(self, state: State, req: WeaponRequest, action: Action) -> None:
        if action["type"] == "pass" and req["args"].get("forced"):
            raise RuleError(Reason.WRONG_ANSWER,
                            f"Only a {TYPE_OF[req['args']['card']].name} shot reaches or affects this target: use it")
        if action["type"] == "use" and action["card"] != req["args"]["card"]:
            raise RuleError(Reason.WRONG_ANSWER, "Answer with your Dangerous weapon, or pass", card=action["card"])
        if action["type"] == "use" and ("target" in action or "pick" in action):
            raise MalformedAction(Reason.UNEXPECTED_TARGET, "The weapon's effect takes no target here", field="target")

    def resolve(self, state: State, req: WeaponRequest, action: Action, events: list[Event]) -> None:
        state["pending"].pop()
        seat, args = req["seat"], req["args"]
        played = args["action"].copy()
        if action["type"] == "use":
            w = args["card"]
            cubes.pay_use(state, seat, w, events, reason="weapon", target=played.get("target"))
            use = TYPE_OF[w].use
            assert use is not None  # offered: a weapon with a use
            played["weapon"] = str(use.args["shot"])
            shot = SHOTS.get(played["weapon"])
            if shot is not None:
                shot.paid(state, seat, played, events)
        continue_play(state, seat, played, "ignore", events)

    def auto(self, state: State, req: WeaponRequest) -> Action | None:
        # The target was chosen reached only by the weapon's shot (Big Fifty): paying is the only answer (public).
        return {"type": "use", "card": req["args"]["card"]} if req["args"].get("forced") else None


@request("ignore")
class Ignore(RequestKind[IgnoreRequest]):
    """Ms. Abigail: ``ability`` (no cards) ignores the card aimed at her alone; ``pass`` lets it act."""

    answers = frozenset({"ability", "pass"})
    abilities = False

    def legal(self, state: State, req: IgnoreRequest) -> list[Action]:
        return [{"type": "ability", "cards": []}, {"type": "pass"}]

    def check(self, state: State, req: IgnoreRequest, action: Action) -> None:
        if action["type"] == "ability" and (action.get("cards") or "target" in action):
            raise MalformedAction(Reason.UNEXPECTED_FIELD, "Ignoring the card takes no cards or target", field="cards")

    def resolve(self, state: State, req: IgnoreRequest, action: Action, events: list[Event]) -> None:
        state["pending"].pop()
        if action["type"] == "ability":
            card_played_out(state)  # the card is played out (a Bell Tower's for it ends)
            events.append({"kind": "unaffected", "seat": req["seat"], "other": req["source"],
                           "cards": [req["args"]["card"]], "reason": ability_name(state, req["seat"])})
            return
        continue_play(state, source_seat(req), req["args"]["action"], "effect", events)


def shot_cancelled(state: State, req: BangRequest, events: list[Event]) -> None:
    """A BANG! effect was cancelled (any Missed! effect, a Barrel, ...): what that triggers."""
    args, shooter = req["args"], req["source"]
    for flag, shot in SHOTS.items():  # the shot's own consequence first (a Buntline Special's discard)
        if args.get(flag):
            shot.cancelled(state, req)
    if shooter is None or not player(state, shooter)["alive"]:
        return
    ability_of(state, shooter).on_shot_cancelled(state, shooter, req, events)
    card = args.get("card")
    if card and args.get("played"):
        offer_late_upgrade(state, shooter, card, "cancelled")


def after_placed(state: State, seat: int, card: str, events: list[Event]) -> None:
    """A card just put in play: a blue one offers its player 1 cube (AD-009; orange: none, RULINGS AD-010);
    blue or orange, the other characters may react (Al Preacher, AD-031..033)."""
    color = TYPE_OF[card].color
    if color == "blue":
        ask_recharge(state, seat, "recharge")
    if color in ("blue", "orange"):
        for other in reversed(seats_from(state, seat, include_self=False)):
            ability_of(state, other).on_card_placed(state, other, seat, card)


# Helpers

def _taken(action: Action | None, extra: list[int] | None = None) -> list[int]:
    targets = [] if action is None or action.get("target") is None else [int(action["target"])]
    return targets + list(extra or [])


def _can_buy(state: State, seat: int, card: str, bought: int, taken: list[int]) -> bool:
    up = upgrade_of(card)
    if not up or (bought and not up.get("repeat")) or cubes.owned(state, seat) < int(up["cubes"]):
        return False
    if up.get("adds") == "target":
        return any(t not in taken and _extra_ok(state, seat, card, t) for t in alive_seats(state))
    return True


def _extra_ok(state: State, seat: int, card: str, target: int) -> bool:
    try:
        check_target(state, seat, TYPE_OF[card], {"type": "upgrade", "target": target})
        check_affects(state, seat, card, {"type": "upgrade", "target": target})
    except RuleError:
        return False
    return True


def _extra_targets(state: State, seat: int, req: UpgradeRequest) -> list[int]:
    taken = _taken(req["args"].get("action"), req["args"]["extra"])
    return [t for t in alive_seats(state) if t not in taken and _extra_ok(state, seat, req["args"]["card"], t)]


def _check_extra_target(state: State, seat: int, req: UpgradeRequest, action: Action) -> None:
    if "target" not in action:
        raise MalformedAction(Reason.MISSING_TARGET, "Name the extra target", field="target")
    target = action["target"]
    if target in _taken(req["args"].get("action"), req["args"]["extra"]):
        raise RuleError(Reason.TARGET_ALREADY_CHOSEN, "Every target must be a different player", target=target)
    card = req["args"]["card"]
    check_target(state, seat, TYPE_OF[card], action)
    check_affects(state, seat, card, action)
