"""The seeded random generator kept inside every game state (DESIGN 3).

Games never import ``random``: every shuffle and deal draws from this generator,
whose whole state is one integer stored in the game state, so that replaying the
seed and the action log reproduces every state exactly, on any replica.
SplitMix64 is small, fast in pure Python, and has a one-word state.
"""

from __future__ import annotations

from collections.abc import MutableSequence
from typing import Any

_MASK = (1 << 64) - 1


def next_u64(rng_state: int) -> tuple[int, int]:
    """Return ``(new_state, value)``: one SplitMix64 step."""
    rng_state = (rng_state + 0x9E3779B97F4A7C15) & _MASK
    z = rng_state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return rng_state, z ^ (z >> 31)


class Rng:
    """A generator over a state dict: reads and writes ``holder[key]``.

    Use ``Rng(state)`` on a game state that stores its generator under ``"rng"``;
    every draw updates the state in place, so the state stays the single truth.
    """

    def __init__(self, holder: dict[str, Any], key: str = "rng") -> None:
        self._holder = holder
        self._key = key

    def below(self, n: int) -> int:
        """A uniform integer in ``[0, n)`` (rejection sampling, no modulo bias)."""
        if n <= 0:
            raise ValueError("n must be positive")
        limit = (1 << 64) - ((1 << 64) % n)
        state = int(self._holder[self._key])
        while True:
            state, value = next_u64(state)
            if value < limit:
                self._holder[self._key] = state
                return value % n

    def shuffle(self, items: MutableSequence[Any]) -> None:
        """Fisher-Yates shuffle in place."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]

    def choice(self, items: list[Any]) -> Any:
        """One element, uniformly."""
        return items[self.below(len(items))]


def seed_state(seed: int) -> int:
    """The generator state for a game seed (any non-negative integer)."""
    return seed & _MASK
