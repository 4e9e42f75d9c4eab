"""Card effects: named handlers in a registry (DESIGN 7, 16).

A card row names its handler (``"effect": "bang"``); the handler checks what is
particular to the card (after the generic targeting checks in ``targeting.py``) and
does it. Paying is not the handler's business (DESIGN 16): ``play.py`` pays first
(the card from the hand, a green card from play, an ability's discards) and then calls
``resolve``, so one effect serves every source. Cards that go into play (blue, green)
are ``placed``: putting them in front of a player is their effect and nothing is paid.
One module per card family; an expansion adds a module and rows, and cards reuse
handlers by name. Registering a name twice raises.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from tabletop_server.service.engine.handlers import Registry
from tabletop_server.service.games.bang.layout import Action, Event, State
from tabletop_server.service.games.bang.tables import TYPE_OF

E = TypeVar("E", bound=type["Effect"])


class Effect:
    """What a card does when played in its player's turn."""

    # Whether the card takes a card of its target (the action's ``pick``): Panic!, Cat Balou.
    takes_pick: bool = False
    # Whether resolving puts the card itself in play (blue and green cards): nothing is paid.
    placed: bool = False

    def check(self, state: State, seat: int, card: str, action: Action) -> None:
        """Raise RuleError for what is particular to this card (targeting is checked already)."""

    def resolve(self, state: State, seat: int, card: str, action: Action, events: list[Event]) -> None:
        """Do the effect. The source is paid already (``card`` names it; a placed card is still in hand)."""
        raise NotImplementedError

    def picks(self, state: State, seat: int, target: int) -> list[str]:
        """For cards that take or discard a card of a player: the choices (``hand`` or a card)."""
        return []


EFFECTS: Registry[Effect] = Registry("effect")


def effect_args(card: str, action: Action) -> Mapping[str, Any]:
    """The row arguments of the effect being resolved: the card's, its ``use``'s when used from
    play, its ``response``'s when it answers a request."""
    t = TYPE_OF[card]
    kind = action.get("type")
    part = t.use if kind == "use" else t.response if kind == "respond" else None
    return part.args if part is not None else t.args


def effect(name: str) -> Callable[[E], E]:
    """Register an effect handler class under ``name``."""
    def deco(cls: E) -> E:
        EFFECTS.add(name, cls())
        return cls
    return deco
