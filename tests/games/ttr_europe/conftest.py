"""Fixtures for the Ticket to Ride: Europe tests (builders live in ttr_helpers.py)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

# The builders are a plain module beside this file; test files import it by name.
sys.path.insert(0, str(Path(__file__).parent))
from ttr_helpers import stack_deck as _stack_deck
from ttr_helpers import started

State = dict[str, Any]


@pytest.fixture
def stack_deck() -> Callable[[State, list[str]], None]:
    """``stack_deck(state, ["red", "loco"])``: these cards come off the deck next, in order."""
    return _stack_deck


@pytest.fixture
def game3() -> State:
    """A 3-player game in play, seat 0 to move."""
    return started(3)


@pytest.fixture
def game4() -> State:
    """A 4-player game in play, seat 0 to move."""
    return started(4)
