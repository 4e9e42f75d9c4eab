"""Random bots play full games through the rules engine (the issue's 1,000-game requirement)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from ttr_helpers import check_final, check_invariants, random_game

import tabletop_server.service.games.ttr_europe as ttr
from tests.volume import volumes

State = dict[str, Any]


@pytest.mark.slow
def test_thousand_random_games() -> None:
    """1,000 games over seeds and 2..5 players; each ends with a valid final scoring."""
    lengths = []
    for seed in range(1000):
        state, steps = random_game(seed, 2 + seed % 4, claim_bias=0 if seed % 10 == 0 else 2)
        check_final(state)
        lengths.append(steps)
    assert min(lengths) > 20


def _deep_check(state: State) -> None:
    check_invariants(state)
    # The state survives the service's JSON round trip unchanged.
    assert json.loads(json.dumps(state)) == state
    for seat in [*range(state["n"]), None]:
        ttr.view(state, seat).SerializeToString()


@pytest.mark.parametrize("games", volumes(2, 10))
@pytest.mark.parametrize("seats", [2, 3, 4, 5])
def test_invariants_hold_at_every_step(seats: int, games: int) -> None:
    """Cards (110) and tickets (46) are always all somewhere; trains never below zero."""
    for seed in range(games):
        state, _steps = random_game(1000 + seed, seats, check=_deep_check)
        check_final(state)


def test_replay_is_deterministic() -> None:
    state, _ = random_game(77, 4)
    again, _ = random_game(77, 4)
    assert state == again


def _containers(value: Any) -> set[int]:
    """The ids of every list and dict inside a JSON value."""
    if isinstance(value, dict):
        return {id(value)}.union(*(_containers(v) for v in value.values()))
    if isinstance(value, list):
        return {id(value)}.union(*(_containers(v) for v in value))
    return set()


def test_events_never_share_lists_with_the_state() -> None:
    """An event is a record of what happened: no later move may rewrite it through the state."""
    from tabletop_server.service.engine.rng import Rng

    kinds: set[str] = set()
    for seed, seats in ((31, 2), (32, 4)):
        state = ttr.setup({"tunnel_failure_discards": False}, seats, seed)
        bot = Rng({"rng": seed})
        while not ttr.is_over(state):
            seat = bot.choice(ttr.to_act(state))
            actions = ttr.legal_actions(state, seat)
            claims = [a for a in actions if a["kind"] in ("claim_route", "pay_tunnel")]
            events = ttr.apply(state, seat, bot.choice(claims) if claims and bot.below(3) else bot.choice(actions))
            held = _containers(state)
            for event in events:
                kinds.add(event["type"])
                assert not _containers(event) & held, event["type"]
    assert {"tickets_drawn", "game_scored"} <= kinds
