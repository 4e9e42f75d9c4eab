"""Replay: the seed and the action log reproduce every state (Principle 2)."""

from __future__ import annotations

from collections.abc import Iterable

from tabletop_server.service.engine.ruleset import Action, Event, Options, Ruleset, State


def new_game(ruleset: Ruleset, options: Options, seat_count: int, seed: int,
             rules_version: str | None = None) -> tuple[State, list[Event]]:
    """The dealt state and the events setup made in the open (``opening_events``, optional).
    ``rules_version``: deal as that version of the rules did (the newest when None)."""
    state = (ruleset.setup(options, seat_count, seed) if rules_version is None
             else ruleset.setup(options, seat_count, seed, rules_version))
    opening = getattr(ruleset, "opening_events", None)
    return state, (list(opening(state)) if opening is not None else [])


def replay(ruleset: Ruleset, options: Options, seat_count: int, seed: int,
           actions: Iterable[tuple[int, Action | None]], rules_version: str | None = None) -> State:
    """Set the game up from its seed and apply every ``(seat, action)`` in order; an action of
    None is the seat conceding (``ruleset.concede``: a log entry with a KIND_SEAT_CONCEDED event)."""
    state, _ = new_game(ruleset, options, seat_count, seed, rules_version)
    for seat, action in actions:
        step(ruleset, state, seat, action)
    return state


def step(ruleset: Ruleset, state: State, seat: int, action: Action | None) -> list[Event]:
    """Apply one logged step to ``state``: ``seat``'s action, or its conceding when ``action`` is None;
    the events it made (unprojected). Raises ``RuleError`` as ``apply`` and ``concede`` do."""
    if action is None:
        return list(ruleset.concede(state, seat))  # type: ignore[attr-defined]  # optional in the contract
    return list(ruleset.apply(state, seat, action))
