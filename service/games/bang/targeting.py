"""Generic targeting of a card played in phase 2 (BANG-053): who, and how far.

A card row says ``target`` (``none``, ``other``: another living player, ``any``: any
living player, yourself included) and ``range`` (``any``, ``reach``: within weapon
range, ``distance_1``: distance modifiers only). Card handlers add their own checks.

Between targeting and the effect stands one predicate, :func:`affects`: whether a card
played by one seat acts on another (Apache Kid: not the diamonds of other players;
later Ms. Abigail). A single-target card on a player it cannot affect is refused
(``TARGET_UNAFFECTED``, never listed: it would be paid for nothing); a card for every
other player (Gatling, Indians!) passes over him, announced by an ``unaffected`` event.
"""

from __future__ import annotations

from tabletop_server.service.engine.errors import MalformedAction, RuleError
from tabletop_server.service.games.bang.abilities import ability_of
from tabletop_server.service.games.bang.catalog import CardType
from tabletop_server.service.games.bang.distance import distance, in_reach
from tabletop_server.service.games.bang.layout import Action, Event, State
from tabletop_server.service.games.bang.reasons import Reason
from tabletop_server.service.games.bang.state import alive_seats


def check_target(state: State, seat: int, ctype: CardType, action: Action) -> None:
    """Raise unless ``action["target"]`` suits the card's target kind and range."""
    target = action.get("target")
    if ctype.target == "none":
        if target is not None:
            raise MalformedAction(Reason.UNEXPECTED_TARGET, f"{ctype.name} takes no target", field="target")
        return
    if target is None:
        raise MalformedAction(Reason.MISSING_TARGET, f"{ctype.name} needs a target seat", field="target")
    if not isinstance(target, int) or not 0 <= target < len(state["p"]):
        raise MalformedAction(Reason.BAD_TARGET, f"No seat {target!r} at this table", field="target")
    if not state["p"][target]["alive"]:
        raise RuleError(Reason.TARGET_DEAD, "That player is out of the game", target=target)
    if ctype.target == "other" and target == seat:
        raise RuleError(Reason.TARGET_SELF, f"{ctype.name} must target another player")
    if ctype.range == "reach" and target != seat and not in_reach(state, seat, target):
        raise RuleError(Reason.OUT_OF_RANGE, f"Seat {target} is beyond your weapon's reach",
                        target=target, distance=distance(state, seat, target))
    if ctype.range == "distance_1" and distance(state, seat, target) > 1:
        raise RuleError(Reason.OUT_OF_RANGE, f"{ctype.name} reaches distance 1 only",
                        target=target, distance=distance(state, seat, target))


def affects(state: State, by: int, target: int, card: str) -> bool:
    """Whether ``card`` played (or used) by ``by`` acts on ``target``; one's own cards always do."""
    return by == target or not ability_of(state, target).unaffected_by(card)


def check_affects(state: State, seat: int, card: str, action: Action) -> None:
    """Refuse a single-target card on a player it does not affect."""
    target = action.get("target")
    if target is not None and not affects(state, seat, target, card):
        raise RuleError(Reason.TARGET_UNAFFECTED, f"Seat {target} is not affected by that card", target=target)


def affected(state: State, seat: int, card: str, targets: list[int], events: list[Event]) -> list[int]:
    """The targets of a card for several players that it affects; the others are announced."""
    out = []
    for t in targets:
        if affects(state, seat, t, card):
            out.append(t)
        else:
            events.append({"kind": "unaffected", "seat": t, "other": seat, "cards": [card]})
    return out


def candidate_targets(state: State, seat: int, ctype: CardType) -> list[int | None]:
    """Targets worth trying for this card (checked again by the caller)."""
    if ctype.target == "none":
        return [None]
    return [s for s in alive_seats(state) if ctype.target == "any" or s != seat]
