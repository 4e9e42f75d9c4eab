"""The seeded random generators kept inside every game state (DESIGN 3; docs/fair-play.md).

Games never import ``random``: every shuffle and deal draws from a generator whose whole state is
stored in the game state, so that replaying the seed and the action log reproduces every state
exactly, on any replica. The state's shape says which generator it is, so a stored game keeps the
generator it was dealt with:

- an integer: SplitMix64 over a 64-bit seed (games created before issue 33). Fast, but neither
  cryptographic nor wide: knowing a few draws is enough to predict the rest;
- ``[key, counter]``: SHAKE-256 in counter mode keyed by a 256-bit seed (``key``, 64 hex digits).
  Block ``b`` is the first 64 bytes of ``SHAKE-256(DOMAIN || key || b as 8 bytes big-endian)``, and
  draw ``i`` is the 64-bit word ``i mod 8`` (big-endian) of block ``i div 8``: a pseudorandom
  function of the key, so the draws seen reveal nothing of the ones to come (nor of the key), and
  the whole deal is fixed by the seed the game committed to at creation. Blocks are memoized (a
  pure function of key and block number), so a shuffle hashes once per eight draws.

Both give 64-bit words; ``below`` turns them into uniform integers by rejection, with no modulo bias.
"""

from __future__ import annotations

import hashlib
from collections.abc import MutableSequence
from functools import lru_cache
from typing import Any

_MASK = (1 << 64) - 1
SEED_BITS = 256
DOMAIN = b"tabletop/rng/shake256/1\x00"  # keeps these draws apart from any other use of a seed


def next_u64(rng_state: int) -> tuple[int, int]:
    """Return ``(new_state, value)``: one SplitMix64 step."""
    rng_state = (rng_state + 0x9E3779B97F4A7C15) & _MASK
    z = rng_state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return rng_state, z ^ (z >> 31)


def shake_u64(key_hex: str, counter: int) -> int:
    """Draw number ``counter`` of the SHAKE-256 generator keyed by ``key_hex`` (64 hex digits)."""
    return _block(key_hex, counter >> 3)[counter & 7]


@lru_cache(maxsize=1024)
def _block(key_hex: str, block: int) -> tuple[int, ...]:
    """Eight draws: the 64 bytes of SHAKE-256 for one block number, as big-endian 64-bit words."""
    out = hashlib.shake_256(DOMAIN + bytes.fromhex(key_hex) + block.to_bytes(8, "big")).digest(64)
    return tuple(int.from_bytes(out[i:i + 8], "big") for i in range(0, 64, 8))


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
        state = self._holder[self._key]
        if isinstance(state, list):
            return self._below_shake(state, n, limit)
        state = int(state)
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

    def _below_shake(self, state: list[Any], n: int, limit: int) -> int:
        key, counter = str(state[0]), int(state[1])
        while True:
            value = shake_u64(key, counter)
            counter += 1
            if value < limit:
                self._holder[self._key] = [state[0], counter]
                return value % n


def seed_state(seed: int) -> int:
    """The SplitMix64 state for a game seed (games of the rules versions before issue 33)."""
    return seed & _MASK


def shake_state(seed: int) -> list[Any]:
    """The SHAKE-256 generator state for a seed of up to 256 bits (a chosen 64-bit seed is its low bits)."""
    if not 0 <= seed < 1 << SEED_BITS:
        raise ValueError("a seed is a non-negative integer below 2**256")
    return [seed_hex(seed), 0]


def seed_hex(seed: int) -> str:
    """A seed as the 64 hex digits (big-endian) that commitments and logs carry."""
    return seed.to_bytes(SEED_BITS // 8, "big").hex()
