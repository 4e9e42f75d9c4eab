"""Lasting modifiers: one vocabulary for an effect that changes how the rules see the table (DESIGN 17, 18):
a card's lasting effect, a character's standing one, a shot's; and the accessors every rule consults.

Each is a handler registered here by name, in the file of the card or character it belongs to; the rules
never name one, they ask here:

- distance (``distance.distance``) asks :func:`distance_override` (the Bell Tower: everyone at distance 1);
- which cards in play act (``state.in_effect``, the one accessor of them: distance, reach, Barrels,
  Missed! cards in play, Jail, Dynamite) asks :func:`silenced` (Belle Star: in her turn the others' cards
  in play have no effect, DC-021);
- answering a shot (Barrels, Missed! effects, the target's ability on a hit) and whether its target may
  ignore the play (Ms. Abigail) ask :func:`ignores_target` (a Big Fifty's paid shot: AD-047);
- a card played from the hand is announced to them (:func:`card_played`) and, once it resolves or is
  ignored, :func:`card_played_out`; a new turn ends them (:func:`turn_started`);
- a reach that is no card's (an ability's shot, a green card's use in play: AD-038, AD-067) is measured
  in :func:`seen_without_card_modifiers`, the state without the modifiers that apply to cards only.

A modifier that a card starts lives in the state under its own ``key`` (absent: not in force) and its
handler says what it changes and when it ends; the state-driven hooks are called only while it is in
force. A modifier in force by a rule of its own (a character's turn, a flag its shot carries) has no key:
its :meth:`Modifier.silences` or :meth:`Modifier.ignores_target` hook says when it applies, and those two
hooks are asked of every handler that overrides them. Registering a name or a key twice raises, and so
does a handler that would never be asked.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TypeVar, cast

from tabletop_server.service.engine.handlers import Registry
from tabletop_server.service.games.bang.layout import State

M = TypeVar("M", bound=type["Modifier"])


class Modifier:
    """A modifier's handler; the hooks say what it changes. The defaults change nothing."""

    # The state key a card's lasting effect is kept under ("": none, it is in force by a rule of its own).
    key: str = ""
    # Whether it applies to cards only: a reach that is no card's does not see it.
    cards_only: bool = False

    def distance(self, state: State, a: int) -> int | None:
        """How far ``a`` sees every other player while it is in force (None: it does not say)."""
        return None

    def card_played(self, state: State, seat: int, card: str) -> None:
        """``seat`` plays ``card`` from his hand (checked, before it is paid for)."""

    def card_played_out(self, state: State) -> None:
        """The card played last resolved, or was ignored."""

    def turn_started(self, state: State) -> None:
        """A new turn starts."""

    def silences(self, state: State, seat: int) -> bool:
        """Whether the cards in play in front of ``seat`` have no effect now (asked whatever the state holds)."""
        return False

    def ignores_target(self, shot: Mapping[str, object]) -> bool:
        """Whether a shot ignores its target's cards in play and ability (asked whatever the state holds).
        ``shot``: the flags a shot carries (its ``bang`` request's args), or the play about to shoot it
        (its action: ``weapon`` names the Dangerous weapon's shot paid for it)."""
        return False


MODIFIERS: Registry[Modifier] = Registry("modifier")
_BY_KEY: dict[str, Modifier] = {}  # by state key, for the check every distance makes
# The handlers asked whatever the state holds, by hook: only those that override it (``in_effect`` asks for
# every seat a distance measures, so the others are not called to say no).
_SILENCERS: list[Modifier] = []
_IGNORERS: list[Modifier] = []
_ASKED_ALWAYS = {"silences": _SILENCERS, "ignores_target": _IGNORERS}


def modifier(name: str) -> Callable[[M], M]:
    """Register a modifier handler class under ``name``: a ``key`` must be its own, and a handler without
    one must override a hook asked whatever the state holds (else nothing would ever ask it)."""
    def deco(cls: M) -> M:
        handler = MODIFIERS.add(name, cls())
        asked = [handlers for hook, handlers in _ASKED_ALWAYS.items() if getattr(cls, hook) is not getattr(Modifier, hook)]
        if handler.key in _BY_KEY or not (handler.key or asked):
            raise ValueError(f"modifier {name!r} needs a state key of its own or a hook asked without one")
        if handler.key:
            _BY_KEY[handler.key] = handler
        for handlers in asked:
            handlers.append(handler)
        return cls
    return deco


def in_force(state: State) -> list[Modifier]:
    """The modifiers kept in the state now: the one accessor of them. (The hooks below walk the same registry
    without building this list: a hook is called for a modifier in force when its turn comes, so one that ends
    another is seen.)"""
    return [m for m in MODIFIERS.values() if m.key in state]


def distance_override(state: State, a: int) -> int | None:
    """The distance a modifier in force sets from ``a`` to every other player (None: none does)."""
    for key, m in _BY_KEY.items():
        if key in state:
            d = m.distance(state, a)
            if d is not None:
                return d
    return None


def card_played(state: State, seat: int, card: str) -> None:
    """Tell every modifier in force that ``seat`` plays ``card``."""
    for key, m in _BY_KEY.items():  # ``in_force``'s order, without its list (every play and turn asks)
        if key in state:
            m.card_played(state, seat, card)


def card_played_out(state: State) -> None:
    """Tell every modifier in force that the card played last is played out."""
    for key, m in _BY_KEY.items():  # ``in_force``'s order, without its list (every play and turn asks)
        if key in state:
            m.card_played_out(state)


def turn_started(state: State) -> None:
    """Tell every modifier in force that a new turn starts."""
    for key, m in _BY_KEY.items():  # ``in_force``'s order, without its list (every play and turn asks)
        if key in state:
            m.turn_started(state)


def silenced(state: State, seat: int) -> bool:
    """Whether the cards in play in front of ``seat`` have no effect now (``state.in_effect`` asks)."""
    for m in _SILENCERS:
        if m.silences(state, seat):
            return True
    return False


def ignores_target(shot: Mapping[str, object]) -> bool:
    """Whether a shot (its request's args, or the play about to shoot it) ignores its target's cards in play
    and ability (:meth:`Modifier.ignores_target`)."""
    for m in _IGNORERS:
        if m.ignores_target(shot):
            return True
    return False


def seen_without_card_modifiers(state: State) -> State:
    """The state as a reach that is no card's sees it: without the modifiers that apply to cards only."""
    hidden = [m.key for m in in_force(state) if m.cards_only]
    return cast(State, {k: v for k, v in state.items() if k not in hidden}) if hidden else state

