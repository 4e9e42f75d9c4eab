"""Lasting modifiers: one vocabulary for an effect that outlives its card and changes how the rules see
the table (DESIGN 17), and the one accessor every rule consults.

A modifier lives in the state under its own key (absent: not in force), set by the card that starts it;
its handler, registered here by name, says what it changes and when it ends. The rules never name one:

- distance (``distance.distance``) asks :func:`distance_override` (the Bell Tower: everyone at distance 1);
- a card played from the hand is announced to them (:func:`card_played`) and, once it resolves or is
  ignored, :func:`card_played_out`; a new turn ends them (:func:`turn_started`);
- a reach that is no card's (an ability's shot, a green card's use in play: AD-038, AD-067) is measured
  in :func:`seen_without_card_modifiers`, the state without the modifiers that apply to cards only.

The modifiers that live elsewhere, each in one place: Belle Star's silence is her row's trait
``silence_others``, read by ``state.in_effect`` (the one accessor of the cards in play that act); a Big
Fifty's ignore is its row's ``use.args.shot`` and rides on the shot it paid for (``effects/big_fifty.py``).
Registering a name twice raises.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar, cast

from tabletop_server.service.engine.handlers import Registry
from tabletop_server.service.games.bang.layout import State

M = TypeVar("M", bound=type["Modifier"])


class Modifier:
    """A lasting effect kept in ``state[key]``; the hooks say what it changes. The defaults change nothing."""

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


MODIFIERS: Registry[Modifier] = Registry("modifier")
_BY_KEY: dict[str, Modifier] = {}  # by state key, for the check every distance makes


def modifier(name: str) -> Callable[[M], M]:
    """Register a modifier handler class under ``name`` (its instance's ``key`` must be set and unique)."""
    def deco(cls: M) -> M:
        handler = MODIFIERS.add(name, cls())
        if not handler.key or handler.key in _BY_KEY:
            raise ValueError(f"modifier {name!r} needs a state key of its own")
        _BY_KEY[handler.key] = handler
        return cls
    return deco


def in_force(state: State) -> list[Modifier]:
    """The modifiers in force now: the one accessor. (The hooks below walk the same registry without building
    this list: a hook is called for a modifier in force when its turn comes, so one that ends another is seen.)"""
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


def seen_without_card_modifiers(state: State) -> State:
    """The state as a reach that is no card's sees it: without the modifiers that apply to cards only."""
    hidden = [m.key for m in in_force(state) if m.cards_only]
    return cast(State, {k: v for k, v in state.items() if k not in hidden}) if hidden else state

