"""The conformance suite every ruleset passes (after OpenSpiel's random_sim_test).

Random bots play whole games over many seeds and seat counts through the engine
contract alone: every game ends, the state survives a JSON round trip (the service
stores it as JSON), every view and event encodes for every seat and the spectator and
survives a binary and a proto3 JSON round trip (what gRPC and REST send), legal actions
exist whenever someone must decide and round-trip through the codec, and replaying the
seed and the action log reproduces the final state exactly.

Each ruleset runs with its default options and with every option set in ``VARIANTS``
(BANG! with Dodge City, Armed & Dangerous, and both), over every seat count those options allow
(``SeatRange.requires``).
"""

from __future__ import annotations

import json
import os
import random
from collections.abc import Callable
from typing import Any

import pytest
from google.protobuf import json_format
from google.protobuf.message import Message
from tabletop.v1 import bang_pb2

from tabletop_server.service.engine import registry
from tabletop_server.service.engine.replay import new_game, replay
from tabletop_server.service.engine.ruleset import Ruleset, RulesetInfo
from tests.volume import volumes

GAMES = int(os.environ.get("TABLETOP_CONFORMANCE_GAMES", "1000"))
CHUNKS = 10
MAX_STEPS = 5000
RULESETS = [r.INFO.id for r in registry.all_rulesets()]
# Option sets played besides the defaults: (ruleset id, label) -> the ruleset's options message.
VARIANTS: dict[tuple[str, str], Callable[[], Message]] = {
    ("bang", "dodge_city"): lambda: bang_pb2.BangOptions(expansions=[bang_pb2.BANG_EXPANSION_DODGE_CITY]),
    ("bang", "armed_and_dangerous"): lambda: bang_pb2.BangOptions(
        expansions=[bang_pb2.BANG_EXPANSION_ARMED_AND_DANGEROUS]),
    ("bang", "dodge_city+armed_and_dangerous"): lambda: bang_pb2.BangOptions(
        expansions=[bang_pb2.BANG_EXPANSION_DODGE_CITY, bang_pb2.BANG_EXPANSION_ARMED_AND_DANGEROUS]),
}
# Every ruleset with its defaults, then every variant: (ruleset id, variant label or "default").
CASES = [*((r, "default") for r in RULESETS), *VARIANTS]
QUICK_GAMES = 36  # a case's unmarked run (the fast tier); its ``GAMES`` (1,000) are marked slow


def options_message(ruleset_id: str, variant: str) -> Message | None:
    return None if variant == "default" else VARIANTS[(ruleset_id, variant)]()


def seat_counts(info: RulesetInfo, message: Message | None) -> list[int]:
    """The seat counts whose ``requires`` the options meet (all of them, for the defaults: none required)."""
    given = json_format.MessageToDict(message) if message is not None else {}

    def met(name: str, value: str) -> bool:
        have = given.get(name)
        return value in have if isinstance(have, list) else have == value
    return [n for r in info.ranges() if all(met(*req) for req in r.requires)
            for n in range(r.min_seats, r.max_seats + 1)]


def play_random(ruleset: Ruleset, seats: int, seed: int, check_every: int = 0,
                message: Message | None = None) -> tuple[Any, list[Any]]:
    """One random game; returns (final state, [(seat, action)])."""
    rng = random.Random(seed)
    options = ruleset.decode_options(message)
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


@pytest.mark.parametrize(("ruleset_id", "variant"), CASES)
@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_random_games_end_and_replay(ruleset_id: str, variant: str, chunk: int) -> None:
    """Each case over a quick ``QUICK_GAMES`` (its ``GAMES``: the slow test below)."""
    random_games_chunk(ruleset_id, variant, chunk, QUICK_GAMES)


@pytest.mark.slow
@pytest.mark.parametrize(("ruleset_id", "variant"), CASES)
@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_one_thousand_random_games_of_each_case(ruleset_id: str, variant: str, chunk: int) -> None:
    random_games_chunk(ruleset_id, variant, chunk, GAMES)


def random_games_chunk(ruleset_id: str, variant: str, chunk: int, games: int) -> None:
    """Games ``chunk``, ``chunk + CHUNKS``, ... of ``games``, spread over every seat count the options allow."""
    ruleset = registry.get(ruleset_id)
    assert ruleset is not None
    message = options_message(ruleset_id, variant)
    counts = seat_counts(ruleset.INFO, message)
    for n in range(chunk, games, CHUNKS):
        seed = 1000 * n + 17
        seats = counts[n % len(counts)]
        state, log = play_random(ruleset, seats, seed, check_every=25 if n < 3 * CHUNKS else 0, message=message)
        assert json.loads(json.dumps(state)) == state
        if n < 5 * CHUNKS:  # replay a share of them: the seed and the log reproduce the state
            assert replay(ruleset, ruleset.decode_options(message), seats, seed, log) == state
        for seat in [*range(seats), None]:
            ruleset.view(state, seat).SerializeToString()


@pytest.mark.parametrize("steps", volumes(60, 200))
@pytest.mark.parametrize(("ruleset_id", "variant"), CASES)
def test_every_action_round_trips_through_the_codec(ruleset_id: str, variant: str, steps: int) -> None:
    """Every listed action over the first ``steps`` of a game, at every seat count the options allow, decodes
    back from its message (binary and proto3 JSON) to itself."""
    ruleset = registry.get(ruleset_id)
    assert ruleset is not None
    message = options_message(ruleset_id, variant)
    for seats in seat_counts(ruleset.INFO, message):
        rng = random.Random(3 + seats)
        state = ruleset.setup(ruleset.decode_options(message), seats, 3 + seats)
        for _ in range(steps):
            if ruleset.is_over(state):
                break
            seat = rng.choice(ruleset.to_act(state))
            actions = ruleset.legal_actions(state, seat)
            for action in actions:
                assert ruleset.decode_action(_round_trip(ruleset.encode_action(action))) == action
            ruleset.apply(state, seat, rng.choice(actions))


@pytest.mark.parametrize(("ruleset_id", "variant"), CASES)
def test_options_round_trip(ruleset_id: str, variant: str) -> None:
    ruleset = registry.get(ruleset_id)
    assert ruleset is not None
    options = ruleset.decode_options(options_message(ruleset_id, variant))
    assert ruleset.decode_options(ruleset.encode_options(options)) == options
    assert {o.name for o in ruleset.INFO.options}


# Helpers

def _check_encodings(ruleset: Ruleset, state: Any, events: list[Any], seats: int) -> None:
    assert json.loads(json.dumps(state)) == state
    json.dumps(events)
    for seat in [*range(seats), None]:
        _round_trip(ruleset.view(state, seat))
        for event in events:
            projected = ruleset.project(event, seat)
            if projected is not None:
                _round_trip(ruleset.encode_event(projected))


def _round_trip(message: Message) -> Message:
    """``message`` after a binary and a proto3 JSON round trip, each checked to change nothing."""
    binary = type(message).FromString(message.SerializeToString())
    assert binary == message
    parsed = json_format.Parse(json_format.MessageToJson(message), type(message)())
    assert parsed == message
    return parsed
