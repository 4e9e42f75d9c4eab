"""Replay: the seed and the action log reproduce every state (Principle 2)."""

from __future__ import annotations

from collections.abc import Iterable

from service.engine.ruleset import Action, Options, Ruleset, State


def replay(ruleset: Ruleset, options: Options, seat_count: int, seed: int,
           actions: Iterable[tuple[int, Action]]) -> State:
    """Set the game up from its seed and apply every ``(seat, action)`` in order."""
    state = ruleset.setup(options, seat_count, seed)
    for seat, action in actions:
        ruleset.apply(state, seat, action)
    return state
