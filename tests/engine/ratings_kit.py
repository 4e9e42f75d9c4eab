"""Finished games for the rating tests, played to the end by the rules' own bots (no server)."""

from __future__ import annotations

from typing import Any

from tabletop_server.service.engine import bots, registry
from tabletop_server.service.engine.ruleset import Ruleset, State


def played(ruleset_id: str, seats: int, seed: int, bot: str = "basic", **options: Any) -> tuple[Ruleset, State]:
    """A game of ``seats`` played to its end by ``bot`` at every seat."""
    ruleset = registry.get(ruleset_id)
    assert ruleset is not None
    state = ruleset.setup({**ruleset.decode_options(None), **options}, seats, seed)
    step = 0
    while not ruleset.is_over(state):
        seat = ruleset.to_act(state)[0]
        ruleset.apply(state, seat, bots.choose(ruleset, state, seat, bot, seed * 7919 + step))
        step += 1
    return ruleset, state


def finished_doc(ruleset_id: str, seats: int, seed: int, players: list[str | None], **fields: Any) -> dict[str, Any]:
    """A stored game document of a finished game, seats bound to ``players`` (None: an anonymous seat)."""
    options = fields.pop("options", {})
    _, state = played(ruleset_id, seats, seed, **options)
    doc = {"id": f"rated-{ruleset_id}-{seed}-{'-'.join(p or 'x' for p in players)}", "ruleset": ruleset_id,
           "status": "FINISHED", "end": "COMPLETED", "seed_chosen": False, "state": state,
           "seats": [{"name": p or "anon", **({"player": p} if p else {})} for p in players]}
    return {**doc, **fields}
