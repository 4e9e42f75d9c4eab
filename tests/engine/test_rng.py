"""The seeded generator: deterministic, uniform enough, state kept in the game state."""

from __future__ import annotations

from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from tabletop_server.service.engine.rng import Rng, seed_state


@given(st.integers(min_value=0, max_value=2**63), st.lists(st.integers(), max_size=60))
def test_shuffle_is_a_permutation_and_replays(seed: int, items: list[int]) -> None:
    a, b = {"rng": seed_state(seed)}, {"rng": seed_state(seed)}
    x, y = list(items), list(items)
    Rng(a).shuffle(x)
    Rng(b).shuffle(y)
    assert x == y and sorted(x) == sorted(items) and a == b


def test_below_is_roughly_uniform() -> None:
    holder = {"rng": seed_state(42)}
    rng = Rng(holder)
    counts = Counter(rng.below(6) for _ in range(60000))
    assert set(counts) == set(range(6))
    assert all(9000 < c < 11000 for c in counts.values())


def test_state_advances_in_the_holder() -> None:
    holder = {"rng": seed_state(1)}
    Rng(holder).below(10)
    assert holder["rng"] != seed_state(1)
