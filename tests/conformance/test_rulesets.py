"""The conformance suite every ruleset passes (after OpenSpiel's random_sim_test).

Random bots play whole games over many seeds and seat counts through the engine
contract alone: every game ends, the state survives a JSON round trip (the service
stores it as JSON), every view and event encodes for every seat and the spectator,
legal actions exist whenever someone must decide, and replaying the seed and the
action log reproduces the final state exactly.
"""

from __future__ import annotations

import json
import os
import random
from typing import Any

import pytest

from service.engine import registry
from service.engine.replay import new_game, replay
from service.engine.ruleset import Ruleset

GAMES = int(os.environ.get("TABLETOP_CONFORMANCE_GAMES", "1000"))
CHUNKS = 10
MAX_STEPS = 5000
RULESETS = [r.INFO.id for r in registry.all_rulesets()]


def play_random(ruleset: Ruleset, seats: int, seed: int, check_every: int = 0) -> tuple[Any, list[Any]]:
    """One random game; returns (final state, [(seat, action)])."""
    rng = random.Random(seed)
    options = ruleset.decode_options(None)
    state, opening = new_game(ruleset, options, seats, seed)
    json.dumps(opening)
    log: list[tuple[int, Any]] = []
    for step in range(MAX_STEPS):
        if ruleset.is_over(state):
            return state, log
        deciders = ruleset.to_act(state)
        assert deciders, f"seed {seed}: nobody to act but the game is not over"
        seat = rng.choice(deciders)
        actions = ruleset.legal_actions(state, seat)
        assert actions, f"seed {seed} step {step}: seat {seat} must act but has no legal action"
        action = rng.choice(actions)
        events = ruleset.apply(state, seat, action)
        log.append((seat, action))
        if check_every and step % check_every == 0:
            _check_encodings(ruleset, state, events, seats)
    raise AssertionError(f"seed {seed}: no end after {MAX_STEPS} actions")


@pytest.mark.parametrize("ruleset_id", RULESETS)
@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_random_games_end_and_replay(ruleset_id: str, chunk: int) -> None:
    ruleset = registry.get(ruleset_id)
    assert ruleset is not None
    info = ruleset.INFO
    seat_counts = info.plain_seat_counts()  # the counts that need an option are not played with defaults
    for n in range(chunk, GAMES, CHUNKS):
        seed = 1000 * n + 17
        seats = seat_counts[n % len(seat_counts)]
        state, log = play_random(ruleset, seats, seed, check_every=25 if n < 3 * CHUNKS else 0)
        assert json.loads(json.dumps(state)) == state
        if n < 5 * CHUNKS:  # replay a share of them: the seed and the log reproduce the state
            options = ruleset.decode_options(None)
            assert replay(ruleset, options, seats, seed, log) == state
        for seat in [*range(seats), None]:
            ruleset.view(state, seat).SerializeToString()


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_every_action_round_trips_through_the_codec(ruleset_id: str) -> None:
    ruleset = registry.get(ruleset_id)
    assert ruleset is not None
    rng = random.Random(3)
    state = ruleset.setup(ruleset.decode_options(None), ruleset.INFO.plain_seat_counts()[0], 3)
    for _ in range(200):
        if ruleset.is_over(state):
            break
        seat = rng.choice(ruleset.to_act(state))
        actions = ruleset.legal_actions(state, seat)
        for action in actions:
            assert ruleset.decode_action(ruleset.encode_action(action)) == action
        ruleset.apply(state, seat, rng.choice(actions))


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_options_round_trip(ruleset_id: str) -> None:
    ruleset = registry.get(ruleset_id)
    assert ruleset is not None
    options = ruleset.decode_options(None)
    assert ruleset.decode_options(ruleset.encode_options(options)) == options
    assert {o.name for o in ruleset.INFO.options}


# Helpers

def _check_encodings(ruleset: Ruleset, state: Any, events: list[Any], seats: int) -> None:
    assert json.loads(json.dumps(state)) == state
    json.dumps(events)
    for seat in [*range(seats), None]:
        ruleset.view(state, seat).SerializeToString()
        for event in events:
            projected = ruleset.project(event, seat)
            if projected is not None:
                ruleset.encode_event(projected).SerializeToString()
