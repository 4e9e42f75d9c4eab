""""Draw!" checks: Dynamite, Jail and Barrel (BANG-049, 069..076, Lucky Duke BANG-095).

A check flips the top card onto the discard pile and reads its sign. Lucky Duke flips
two and chooses (a ``pick`` request), unless both give the same outcome, in which case
the engine picks for him (the only possible answer). Each check's outcome is a named
handler in ``CHECKS``, called with the check's context (``ctx``: what the check is about,
such as the player who hit Julie Cutter); expansions add rows (the Bomb, Julie Cutter).

Armed & Dangerous: while a Tumbleweed with a cube is in effect, its holder is asked after
every draw! (anyone's, his own included, in or out of his turn) whether he pays 1 of its cubes
to have the whole draw! made again, the earlier result no longer counting (AD-064; Lucky Duke
flips two new cards and then chooses, AD-043): a ``redraw`` request.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from tabletop_server.service.engine.errors import MalformedAction, RuleError
from tabletop_server.service.engine.handlers import Registry
from tabletop_server.service.engine.ruleset import Action, Event, State
from tabletop_server.service.games.bang.catalog import RANK_VALUE
from tabletop_server.service.games.bang.pending import RequestKind, Step, request, step
from tabletop_server.service.games.bang.reasons import Reason
from tabletop_server.service.games.bang.state import (
    Request,
    alive_seats,
    card_in_effect,
    flip,
    player,
    push,
    trait,
)
from tabletop_server.service.games.bang.tables import CARDS

Outcome = Callable[[State, int, bool, list[Event], Mapping[str, Any]], None]


@dataclass(frozen=True)
class Check:
    """A kind of draw!: which cards are good for the player and what follows."""

    good: Callable[[str], bool]
    resolve: Outcome


CHECKS: Registry[Check] = Registry("check")


def check(name: str, good: Callable[[str], bool]) -> Callable[[Outcome], Outcome]:
    """Register the outcome of a draw! kind; registering twice raises."""
    def deco(fn: Outcome) -> Outcome:
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


def draw_check(state: State, seat: int, name: str, events: list[Event], ctx: Mapping[str, Any] | None = None) -> None:
    """Run a draw! for ``seat``: flip, offer a Tumbleweed's redraw, then resolve (or ask Lucky Duke)."""
    flips = flip(state, int(trait(state, seat, "draw_checks") or 1), events)
    events.append({"kind": "check", "seat": seat, "cards": list(flips), "reason": name})
    weed = tumbleweed(state) if flips and "supply" in state else None
    if weed is not None:
        push(state, "redraw", weed[0], seat, card=weed[1], drawer=seat, flipped=flips, check=name, ctx=dict(ctx or {}))
        return
    settle_check(state, seat, name, flips, events, ctx or {})


def settle_check(state: State, seat: int, name: str, flips: list[str], events: list[Event],
                 ctx: Mapping[str, Any]) -> None:
    """The flipped cards count: resolve the check, or let Lucky Duke choose between two outcomes."""
    spec = CHECKS[name]
    if not flips:
        spec.resolve(state, seat, name == "dynamite", events, ctx)
        return
    outcomes = {spec.good(c) for c in flips}
    if len(outcomes) == 1:
        spec.resolve(state, seat, outcomes.pop(), events, ctx)
        return
    req = push(state, "pick", seat, seat, flipped=flips, check=name)
    if ctx:
        req["args"]["ctx"] = dict(ctx)


def tumbleweed(state: State) -> tuple[int, str] | None:
    """The seat whose Tumbleweed in effect can pay for a redraw, and the card (one in the game)."""
    for seat in alive_seats(state):
        card = card_in_effect(state, seat, "tumbleweed") if player(state, seat)["table"] else None
        if card is not None and int(state.get("marks", {}).get(card, {}).get("cubes", 0)) >= 1:
            return seat, card
    return None


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
        spec.resolve(state, req["seat"], spec.good(action["card"]), events, req["args"].get("ctx", {}))


@request("redraw")
class Redraw(RequestKind):
    """Tumbleweed's holder: ``use`` it (1 of its cubes) to have the draw! made again, or ``pass``."""

    answers = frozenset({"use", "pass"})
    abilities = False

    def legal(self, state: State, req: Request) -> list[Action]:
        return [{"type": "use", "card": req["args"]["card"]}, {"type": "pass"}]

    def check(self, state: State, req: Request, action: Action) -> None:
        if action["type"] == "use" and action["card"] != req["args"]["card"]:
            raise RuleError(Reason.WRONG_ANSWER, "Answer with your Tumbleweed, or pass", card=action["card"])
        if action["type"] == "use" and ("target" in action or "pick" in action):
            raise MalformedAction(Reason.UNEXPECTED_TARGET, "Tumbleweed takes no target", field="target")

    def resolve(self, state: State, req: Request, action: Action, events: list[Event]) -> None:
        state["pending"].pop()
        args = req["args"]
        if action["type"] == "pass":
            settle_check(state, args["drawer"], args["check"], args["flipped"], events, args["ctx"])
            return
        from tabletop_server.service.games.bang.cubes import pay_use
        pay_use(state, req["seat"], args["card"], events, reason="tumbleweed", target=args["drawer"])
        draw_check(state, args["drawer"], args["check"], events, args["ctx"])

    def forfeit(self, state: State, req: Request, seat: int) -> bool:
        """The holder concedes while asked: the draw! stands, as if he had passed (an engine step settles it)."""
        if req["seat"] == seat:
            req["kind"], req["seat"] = "redraw_declined", None
        return False


@step("redraw_declined")
class RedrawDeclined(Step):
    """A redraw nobody asks for any more (its holder conceded): the flipped cards count."""

    def run(self, state: State, req: Request, events: list[Event]) -> None:
        args = req["args"]
        settle_check(state, args["drawer"], args["check"], args["flipped"], events, args["ctx"])
