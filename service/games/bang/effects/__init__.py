"""Card effects: named handlers in a registry (DESIGN 7).

A card row names its handler (``"effect": "bang"``); the handler checks what is
particular to the card (after the generic targeting checks in ``targeting.py``) and
plays it. One module per card family; an expansion adds a module and rows, and cards
reuse handlers by name. Registering a name twice raises.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from service.engine.handlers import Registry
from service.engine.ruleset import Action, Event, State

E = TypeVar("E", bound=type["Effect"])


class Effect:
    """What a card does when played in its player's turn."""

    # Whether the card takes a card of its target (the action's ``pick``): Panic!, Cat Balou.
    takes_pick: bool = False

    def check(self, state: State, seat: int, card: str, action: Action) -> None:
        """Raise RuleError for what is particular to this card (targeting is checked already)."""

    def play(self, state: State, seat: int, card: str, action: Action, events: list[Event]) -> None:
        """Apply the card; the card is still in the player's hand."""
        raise NotImplementedError

    def picks(self, state: State, seat: int, target: int) -> list[str]:
        """For cards that take or discard a card of a player: the choices (``hand`` or a card)."""
        return []


EFFECTS: Registry[Effect] = Registry("effect")


def effect(name: str) -> Callable[[E], E]:
    """Register an effect handler class under ``name``."""
    def deco(cls: E) -> E:
        EFFECTS.add(name, cls())
        return cls
    return deco
