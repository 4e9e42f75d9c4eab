"""A made-up card for issue 30's shape test, in a module of its own: Smoke Signal.

Brown, no target: for the rest of the turn every player is at distance 1 from every other, so it changes
what the cards played after it reach (as the Bell Tower does). It is its row and this module: an effect
that starts a lasting modifier, and the modifier (``modifiers.Modifier``), registered by name. No existing
module is touched (``test_bang_shape.py`` adds the row to the tables for its tests).
"""

from __future__ import annotations

from typing import Any

from tabletop_server.service.engine.ruleset import Action, Event, State
from tabletop_server.service.games.bang.effects import Effect, effect
from tabletop_server.service.games.bang.modifiers import Modifier, modifier

KEY = "x_smoke_signal"
ROW: dict[str, Any] = {"key": KEY, "name": "Smoke Signal", "color": "brown", "effect": KEY, "target": "none",
                       "text": "Until the end of this turn, every player is at distance 1 from every other."}


@effect(KEY)
class SmokeSignal(Effect):
    """Start the modifier (its value: who played it)."""

    def resolve(self, state: State, seat: int, card: str, action: Action, events: list[Event]) -> None:
        state[KEY] = seat


@modifier(KEY)
class SmokeInTheAir(Modifier):
    """Everyone at distance 1, until the turn ends."""

    key = KEY

    def distance(self, state: State, a: int) -> int | None:
        return 1

    def turn_started(self, state: State) -> None:
        state.pop(KEY, None)
