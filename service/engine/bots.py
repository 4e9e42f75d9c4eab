"""Bots: who plays a seat when no person does (a bot seat, a timed-out decision).

A bot is a pure function of what its seat may see: the seat's view (the ruleset's own view
message, ``ruleset.view(state, seat)``), the seat's legal actions and a random generator the
caller seeds (the engine's :class:`~service.engine.rng.Rng`, as every random choice of a game). It never receives the state, so it cannot use hidden information by
construction (principle 3). It returns one of the legal actions it was given.

A ruleset lists its bots in an optional ``BOTS`` mapping (name -> bot) beside its rules;
every ruleset has ``random`` at least (:func:`random_bot`, used when a ruleset lists none).
:func:`choose` is the one place the service asks a bot: the seed comes from the game's seed,
the seat and the game's version, so a bot's move replays exactly, like every other
random choice of the game.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from google.protobuf.message import Message

from tabletop_server.service.engine.rng import Rng, seed_state
from tabletop_server.service.engine.ruleset import Action, Ruleset, State

Bot = Callable[[Message, list[Action], Rng], Action]
DEFAULT_BOT = "random"


def random_bot(view: Message, legal: list[Action], rng: Rng) -> Action:
    """Uniform over the legal actions."""
    return legal[rng.below(len(legal))]


def bots_of(ruleset: Any) -> Mapping[str, Bot]:
    """The bots a ruleset offers (``random`` always among them)."""
    return {DEFAULT_BOT: random_bot, **getattr(ruleset, "BOTS", {})}


def choose(ruleset: Ruleset, state: State, seat: int, bot: str, seed: int, *,
           legal: list[Action] | None = None, view: Message | None = None) -> Action:
    """The action the named bot takes for ``seat``; raises KeyError for a bot the ruleset lacks and
    ValueError when the seat has nothing to decide. ``legal`` and ``view``, when given, are the seat's legal
    actions and view of this very state, which the caller has already built (a replay that checks them)."""
    legal = ruleset.legal_actions(state, seat) if legal is None else legal
    if not legal:
        raise ValueError(f"seat {seat} has no decision to make")
    seen = ruleset.view(state, seat) if view is None else view
    action = bots_of(ruleset)[bot](seen, legal, Rng({"rng": seed_state(seed)}))
    if action not in legal:  # a bot bug must never become an illegal move
        raise ValueError(f"bot {bot!r} chose an action that is not legal: {action!r}")
    return action
