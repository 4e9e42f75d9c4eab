"""Pending decisions as data (DESIGN 8): the registry of request kinds and engine steps.

A request ``{"kind", "seat", "source", "args"}`` waits for ``seat``; its kind's handler
says which answers are legal (``legal``), checks one (``check``), applies it
(``resolve``) and names the only possible answer when every seat can see it is forced
(``auto``, cheap: it never enumerates; it reads public facts only, so that whether the
engine waits never tells the table what a hand holds). An engine step has ``seat`` None and a ``run`` handler;
it queues causal order explicitly (damage, then the dying window, then on-hit
abilities). Registering a name twice raises.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, Generic, TypeVar

from tabletop_server.service.engine.errors import RuleError
from tabletop_server.service.engine.handlers import Registry
from tabletop_server.service.games.bang.layout import Action, Event, PlayStep, RequestEntry, State, StepEntry
from tabletop_server.service.games.bang.reasons import Reason

# The entry a handler takes: its kind's own (``layout.BangRequest``...), so mypy names a key the kind does not keep.
E = TypeVar("E", bound=RequestEntry)
F = TypeVar("F", bound=StepEntry)


class RequestKind(Generic[E]):
    """A decision a seat owes: its legal answers and how each resolves (``E``: its kind's entry)."""

    answers: frozenset[str] = frozenset()
    # Whether activated abilities (Sid Ketchum) may be used while this request is open.
    abilities: bool = True
    # The field a ``choose`` answer names: ``card`` (an offered card) or ``pick`` (a victim's card).
    choose_field: str = "card"
    # The ``BangRequestKind`` a seat's view names it by (lower case, less the prefix); None: its own name.
    shown_as: str | None = None
    # Whether the cards it offers are seen by the asked seat only (the others see their count).
    private_offer: bool = False
    # Whether a hand emptied while it is open is refilled only once it is over (a Duel: RULINGS BANG-102).
    holds_empty_hands: bool = False

    def legal(self, state: State, req: E) -> list[Action]:
        """Every legal answer (abilities such as Sid Ketchum's are added by the caller)."""
        raise NotImplementedError

    def check(self, state: State, req: E, action: Action) -> None:
        """Raise RuleError when ``action`` is not a legal answer."""
        raise NotImplementedError

    def resolve(self, state: State, req: E, action: Action, events: list[Event]) -> None:
        """Apply a checked answer; pops the request when it is settled."""
        raise NotImplementedError

    def auto(self, state: State, req: E) -> Action | None:
        """The answer to apply without waiting, when every seat can see it is the only one.

        Only public facts may decide it (an empty hand, the cards in play, the life
        points): whether the engine waits must never reveal what a hand holds.
        """
        return None

    def settled(self, state: State, req: E) -> bool:
        """Whether the request no longer needs an answer (an ability changed the situation)."""
        return False

    def forfeit(self, state: State, req: E, seat: int) -> bool:
        """``seat`` concedes (``concede.py``; still alive when asked) while this request is pending:
        close what the request holds for it; True to drop the request.

        By default a request the seat owes is dropped, as for a player eliminated meanwhile;
        a kind that holds cards, or whose order runs through the seat, says otherwise."""
        return bool(req["seat"] == seat)


class DiscardFromHand(RequestKind[E]):
    """A request answered by discarding a card of the player's choice from his hand, one at a time: phase 3's
    excess cards (``turn.DiscardExcess``), a Buntline Special's cancelled shot (``DiscardOne``). Its legal
    answers and their check; the kind says what the discard does and when it is over."""

    answers = frozenset({"discard"})

    def legal(self, state: State, req: E) -> list[Action]:
        return [{"type": "discard", "card": c} for c in dict.fromkeys(state["p"][req["seat"]]["hand"])]

    def check(self, state: State, req: E, action: Action) -> None:
        if action["card"] not in state["p"][req["seat"]]["hand"]:
            raise RuleError(Reason.CARD_NOT_IN_HAND, "Discard a card from your hand", card=action["card"])


class Step(Generic[F]):
    """An engine step: resolves without a player, in stack order (``F``: its kind's entry)."""

    def run(self, state: State, req: F, events: list[Event]) -> None:
        """Do the step (it has already been popped)."""
        raise NotImplementedError


REQUESTS: Registry[RequestKind[Any]] = Registry("request kind")
STEPS: Registry[Step[Any]] = Registry("step kind")
R = TypeVar("R", bound=type[RequestKind[Any]])
S = TypeVar("S", bound=type[Step[Any]])


def request(kind: str) -> Callable[[R], R]:
    """Register a request kind handler class under ``kind``."""
    def deco(cls: R) -> R:
        if kind in STEPS:  # the two share one namespace: a pending entry names either
            raise ValueError(f"request kind {kind!r} registered twice")
        REQUESTS.add(kind, cls())
        return cls
    return deco


PLAY: Final = "play"  # the engine step that carries a committed play through its stages (registered by play.py)


def play_step(seat: int, action: Action, stage: str) -> PlayStep:
    """A play in progress as data: the ``play`` step that runs ``seat``'s committed ``action`` (its card,
    target and what was decided for it) from the pipeline's ``stage`` on (``play.STAGES``)."""
    return {"kind": PLAY, "seat": None, "source": seat, "args": {"stage": stage, "action": action}}


def continue_play(state: State, seat: int, action: Action, stage: str, events: list[Event]) -> None:
    """Go on with a committed play from ``stage``, now: a stage's question was answered.

    The step runs at once (it is not queued: nothing the engine does between two requests, such as an
    emptied hand's draw, may come between an answer and the play it lets go on). A module below the
    pipeline (a cost, an upgrade, a weapon, an ignore) names the next stage and never imports ``play``."""
    STEPS[PLAY].run(state, play_step(seat, action, stage), events)


def step(kind: str) -> Callable[[S], S]:
    """Register an engine step handler class under ``kind``."""
    def deco(cls: S) -> S:
        if kind in REQUESTS:
            raise ValueError(f"step kind {kind!r} registered twice")
        STEPS.add(kind, cls())
        return cls
    return deco
