"""Conceding through the ruleset contract (``Ruleset.concede``), for every ruleset that defines it:
at a random moment of a random game a random seat still playing concedes (whoever is to decide);
the game goes on without it and ends, that seat is never asked again, every view encodes, and the
seed with the steps (a concession replayed as ``(seat, None)``) reproduces the final state."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from tabletop_server.service.engine import registry
from tabletop_server.service.engine.errors import RuleError
from tabletop_server.service.engine.replay import new_game, replay
from tests.conformance.test_rulesets import CASES, MAX_STEPS, options_message, seat_counts
from tests.volume import volumes


@pytest.mark.parametrize("games", volumes(12, 60))
@pytest.mark.parametrize(("ruleset_id", "variant"), CASES)
def test_random_concessions_end_and_replay(ruleset_id: str, variant: str, games: int) -> None:
    ruleset: Any = registry.get(ruleset_id)
    if not hasattr(ruleset, "concede"):
        pytest.skip(f"{ruleset_id} defines no conceding")
    message = options_message(ruleset_id, variant)
    counts = seat_counts(ruleset.INFO, message)
    options = ruleset.decode_options(message)
    for n in range(games):
        seed, seats = 7919 * n + 3, counts[n % len(counts)]
        rng = random.Random(seed)
        state, _ = new_game(ruleset, options, seats, seed)
        moment, out, steps = rng.randrange(200), set(), []
        for step in range(MAX_STEPS):
            if ruleset.is_over(state):
                break
            if step == moment or (step > moment and rng.random() < 0.01):
                candidates = [s for s in range(seats) if s not in out]
                seat = rng.choice(candidates)
                try:
                    ruleset.concede(state, seat)
                except RuleError as refused:  # a seat out of the game already (a BANG! death)
                    assert refused.reason == "PLAYER_ELIMINATED", refused
                    out.add(seat)
                    continue
                out.add(seat)
                steps.append((seat, None))
                continue
            seat = rng.choice(ruleset.to_act(state))
            assert seat not in out, f"seed {seed}: seat {seat} conceded but is asked to decide"
            action = rng.choice(ruleset.legal_actions(state, seat))
            ruleset.apply(state, seat, action)
            steps.append((seat, action))
        assert ruleset.is_over(state), f"seed {seed}: no end"
        assert json.loads(json.dumps(state)) == state
        for seat in [*range(seats), None]:
            ruleset.view(state, seat).SerializeToString()
        assert replay(ruleset, options, seats, seed, steps) == state
