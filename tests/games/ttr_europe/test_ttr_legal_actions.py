"""Legal actions have one source: every listed action applies, every other one is refused unchanged."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import strategies as st
from ttr_helpers import check_invariants, random_game

import tabletop_server.service.games.ttr_europe as ttr
from tabletop_server.service.engine.errors import RuleError
from tabletop_server.service.games.ttr_europe.board import CARD_NAMES, CITY_NAMES, COLORS
from tests.volume import run_examples, volumes

State = dict[str, Any]


def _position(seed: int, seats: int, steps: int) -> State:
    """A reachable position: a seeded random game stopped after ``steps`` actions."""
    taken = [0]
    snapshot: list[State] = []

    def stop(state: State) -> None:
        taken[0] += 1
        if taken[0] == steps:
            snapshot.append(json.loads(json.dumps(state)))
            raise StopIteration

    try:
        state, _ = random_game(seed, seats, check=stop)
    except StopIteration:
        return snapshot[0]
    return state


_payment = st.fixed_dictionaries({
    "color": st.sampled_from([None, *COLORS]), "cards": st.integers(0, 9), "locos": st.integers(0, 9)})
_any_action = st.one_of(
    st.fixed_dictionaries({"kind": st.just("draw_card"), "slot": st.sampled_from([None, 0, 1, 2, 3, 4])}),
    st.builds(lambda r, p: {"kind": "claim_route", "route": r, **p}, st.integers(1, 101), _payment),
    st.builds(lambda c, p: {"kind": "build_station", "city": c, **p}, st.sampled_from(CITY_NAMES), _payment),
    st.just({"kind": "draw_tickets"}),
    st.builds(lambda ids: {"kind": "keep_tickets", "tickets": ids},
              st.lists(st.integers(1, 46), max_size=4, unique=True)),
    st.builds(lambda p: {"kind": "pay_tunnel", **p}, _payment),
    st.just({"kind": "withdraw_tunnel"}),
    st.just({"kind": "pass"}),
)


def _key(action: dict[str, Any]) -> str:
    """Kept tickets are a set: any order names the same action."""
    if action["kind"] == "keep_tickets":
        action = {**action, "tickets": sorted(action["tickets"])}
    return json.dumps(action, sort_keys=True)


def _valid_spelling(action: dict[str, Any]) -> bool:
    """Payments spell the colour exactly when coloured cards are given (else MalformedAction)."""
    if "cards" not in action:
        return True
    return bool((action["cards"] == 0) == (action["color"] is None))


@pytest.mark.parametrize("examples", volumes(20, 150))
def test_listed_apply_and_others_are_refused(examples: int) -> None:
    run_examples(examples, listed_apply_and_others_are_refused, seed=st.integers(0, 10_000), seats=st.integers(2, 5),
                 steps=st.integers(0, 400), attempts=st.lists(_any_action, max_size=25))


def listed_apply_and_others_are_refused(seed: int, seats: int, steps: int, attempts: list[dict[str, Any]]) -> None:
    state = _position(seed, seats, steps)
    for seat in range(seats):
        listed = ttr.legal_actions(state, seat)
        if seat not in ttr.to_act(state):
            assert listed == []
        frozen = json.dumps(state, sort_keys=True)
        for action in listed:
            copy = json.loads(frozen)
            ttr.apply(copy, seat, action)
            check_invariants(copy)
        listed_keys = {_key(a) for a in listed}
        assert len(listed_keys) == len(listed), "an action is listed twice"
        for action in attempts:
            if not _valid_spelling(action):
                continue
            copy = json.loads(frozen)
            if _key(action) in listed_keys:
                ttr.apply(copy, seat, action)
                continue
            try:
                ttr.apply(copy, seat, action)
            except RuleError as err:
                assert err.reason and err.reason == err.reason.upper()
            else:
                raise AssertionError(f"unlisted action applied: {action}")
            assert json.dumps(copy, sort_keys=True) == frozen, "a refused action changed the state"


def test_card_names_cover_the_enum() -> None:
    assert CARD_NAMES[-1] == "loco" and len(CARD_NAMES) == 9


def test_worst_position_listing_applies() -> None:
    """Every action listed in the largest position we can build applies (bench/ttr_europe.py times it)."""
    from ttr_helpers import worst_position

    state = worst_position()
    listed = ttr.legal_actions(state, 0)
    kinds = {a["kind"] for a in listed}
    assert kinds == {"claim_route", "build_station", "draw_tickets"}  # no card left to draw
    assert len([a for a in listed if a["kind"] == "build_station"]) == 45 * 25
    frozen = json.dumps(state)
    for action in listed:
        copy = json.loads(frozen)
        ttr.apply(copy, 0, action)
        check_invariants(copy)
