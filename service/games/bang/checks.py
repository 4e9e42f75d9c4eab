""""Draw!" checks: Dynamite, Jail and Barrel (BANG-049, 069..076, Lucky Duke BANG-095).

A check flips the top card onto the discard pile and reads its sign. Lucky Duke flips
two and chooses (a ``pick`` request), unless both give the same outcome, in which case
the engine picks for him (the only possible answer). Each check's outcome is a named
handler in ``CHECKS``; expansions add rows (Bomb, Tumbleweed re-draws) here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from service.engine.errors import RuleError
from service.engine.handlers import Registry
from service.engine.ruleset import Action, Event, State
from service.games.bang.catalog import RANK_VALUE
from service.games.bang.pending import RequestKind, request
from service.games.bang.reasons import Reason
from service.games.bang.state import Request, flip, push, trait
from service.games.bang.tables import CARDS


@dataclass(frozen=True)
class Check:
    """A kind of draw!: which cards are good for the player and what follows."""

    good: Callable[[str], bool]
    resolve: Callable[[State, int, bool, list[Event]], None]


CHECKS: Registry[Check] = Registry("check")


def check(name: str, good: Callable[[str], bool]) -> Callable[[Callable[[State, int, bool, list[Event]], None]],
                                                             Callable[[State, int, bool, list[Event]], None]]:
    """Register the outcome of a draw! kind; registering twice raises."""
    def deco(fn: Callable[[State, int, bool, list[Event]], None]) -> Callable[[State, int, bool, list[Event]], None]:
        CHECKS.add(name, Check(good, fn))
        return fn
    return deco


def is_heart(card: str) -> bool:
    """Jail and Barrel succeed on a heart."""
    return CARDS[card].suit == "hearts"


def dynamite_safe(card: str) -> bool:
    """Dynamite explodes on spades 2 to 9 (BANG-070)."""
    c = CARDS[card]
    return not (c.suit == "spades" and 2 <= RANK_VALUE[c.rank] <= 9)


def draw_check(state: State, seat: int, name: str, events: list[Event]) -> None:
    """Run a draw! for ``seat``: flip, then resolve (or ask Lucky Duke to choose)."""
    flips = flip(state, int(trait(state, seat, "draw_checks") or 1), events)
    spec = CHECKS[name]
    events.append({"kind": "check", "seat": seat, "cards": list(flips), "reason": name})
    if not flips:
        spec.resolve(state, seat, name == "dynamite", events)
        return
    outcomes = {spec.good(c) for c in flips}
    if len(outcomes) == 1:
        spec.resolve(state, seat, outcomes.pop(), events)
        return
    push(state, "pick", seat, seat, flipped=flips, check=name)


@request("pick")
class PickCheck(RequestKind):
    """Lucky Duke chooses which of his two flipped cards counts."""

    answers = frozenset({"choose"})

    def legal(self, state: State, req: Request) -> list[Action]:
        return [{"type": "choose", "card": c} for c in req["args"]["flipped"]]

    def check(self, state: State, req: Request, action: Action) -> None:
        if action["card"] not in req["args"]["flipped"]:
            raise RuleError(Reason.NOT_A_CHOICE, "Choose one of the two flipped cards", card=action["card"])

    def resolve(self, state: State, req: Request, action: Action, events: list[Event]) -> None:
        state["pending"].pop()
        spec = CHECKS[req["args"]["check"]]
        events.append({"kind": "choose", "seat": req["seat"], "cards": [action["card"]],
                       "reason": req["args"]["check"]})
        spec.resolve(state, req["seat"], spec.good(action["card"]), events)
