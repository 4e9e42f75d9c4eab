""""Draw!" checks: Dynamite, Jail and Barrel (BANG-049, 069..076, Lucky Duke BANG-095).

A check flips the top card onto the discard pile and reads its sign. Lucky Duke flips
two and chooses (a ``pick`` request), unless both give the same outcome, in which case
the engine picks for him (the only possible answer). Each check's outcome is a named
handler in ``CHECKS``, called with the check's context (``ctx``: what the check is about,
such as the player who hit Julie Cutter); expansions add rows (the Bomb, Julie Cutter).

Before the flipped cards count, each registered redraw offer may hold the check open (``REDRAWS``:
a card that can have a draw! made again registers one, the Tumbleweed in ``effects/tumbleweed.py``);
the check then resumes with ``draw_check`` (made again) or ``settle_check`` (it stands).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from tabletop_server.service.engine.errors import RuleError
from tabletop_server.service.engine.handlers import Registry
from tabletop_server.service.games.bang.catalog import RANK_VALUE
from tabletop_server.service.games.bang.layout import Action, Event, PickRequest, State
from tabletop_server.service.games.bang.pending import RequestKind, request
from tabletop_server.service.games.bang.reasons import Reason
from tabletop_server.service.games.bang.state import flip, push, trait
from tabletop_server.service.games.bang.tables import CARDS

Outcome = Callable[[State, int, bool, list[Event], Mapping[str, Any]], None]


@dataclass(frozen=True)
class Check:
    """A kind of draw!: which cards are good for the player and what follows."""

    good: Callable[[str], bool]
    resolve: Outcome
    # The outcome when no card can be flipped (deck and discard pile empty): the Dynamite does not explode.
    no_card_good: bool = False


CHECKS: Registry[Check] = Registry("check")

# A redraw offer: given a draw! just flipped (seat, its kind, the cards, its context), it may push a
# request that holds the check open and answer True; False lets the flipped cards count now.
RedrawOffer = Callable[[State, int, str, list[str], Mapping[str, Any]], bool]
REDRAWS: Registry[RedrawOffer] = Registry("redraw offer")


def check(name: str, good: Callable[[str], bool], no_card_good: bool = False) -> Callable[[Outcome], Outcome]:
    """Register the outcome of a draw! kind (``no_card_good``: its outcome when nothing can be flipped);
    registering twice raises."""
    def deco(fn: Outcome) -> Outcome:
        CHECKS.add(name, Check(good, fn, no_card_good))
        return fn
    return deco


def is_heart(card: str) -> bool:
    """Jail and Barrel succeed on a heart."""
    return CARDS[card].suit == "hearts"


def dynamite_safe(card: str) -> bool:
    """Dynamite explodes on spades 2 to 9 (BANG-070)."""
    c = CARDS[card]
    return not (c.suit == "spades" and 2 <= RANK_VALUE[c.rank] <= 9)


def draw_check(state: State, seat: int, name: str, events: list[Event], ctx: Mapping[str, Any] | None = None) -> None:
    """Run a draw! for ``seat``: flip, let a redraw offer hold it open, then resolve (or ask Lucky Duke)."""
    flips = flip(state, int(trait(state, seat, "draw_checks") or 1), events)
    events.append({"kind": "check", "seat": seat, "cards": list(flips), "reason": name})
    if flips and any(offer(state, seat, name, flips, ctx or {}) for offer in REDRAWS.values()):
        return
    settle_check(state, seat, name, flips, events, ctx or {})


def settle_check(state: State, seat: int, name: str, flips: list[str], events: list[Event],
                 ctx: Mapping[str, Any]) -> None:
    """The flipped cards count: resolve the check, or let Lucky Duke choose between two outcomes."""
    spec = CHECKS[name]
    if not flips:
        spec.resolve(state, seat, spec.no_card_good, events, ctx)
        return
    outcomes = {spec.good(c) for c in flips}
    if len(outcomes) == 1:
        spec.resolve(state, seat, outcomes.pop(), events, ctx)
        return
    if ctx:
        push(state, "pick", seat, seat, flipped=flips, check=name, ctx=dict(ctx))
    else:
        push(state, "pick", seat, seat, flipped=flips, check=name)


@request("pick")
class PickCheck(RequestKind[PickRequest]):
    """Lucky Duke chooses which of his two flipped cards counts."""

    answers = frozenset({"choose"})

    def legal(self, state: State, req: PickRequest) -> list[Action]:
        return [{"type": "choose", "card": c} for c in req["args"]["flipped"]]

    def check(self, state: State, req: PickRequest, action: Action) -> None:
        if action["card"] not in req["args"]["flipped"]:
            raise RuleError(Reason.NOT_A_CHOICE, "Choose one of the two flipped cards", card=action["card"])

    def resolve(self, state: State, req: PickRequest, action: Action, events: list[Event]) -> None:
        state["pending"].pop()
        spec = CHECKS[req["args"]["check"]]
        events.append({"kind": "choose", "seat": req["seat"], "cards": [action["card"]],
                       "reason": req["args"]["check"]})
        spec.resolve(state, req["seat"], spec.good(action["card"]), events, req["args"].get("ctx", {}))
