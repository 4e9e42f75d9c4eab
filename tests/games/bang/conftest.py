"""Fixtures for BANG! tests; the helpers themselves live in ``bang_helpers.py``.

Scenario tests import them directly (``from bang_helpers import table, give, ...``):
this conftest puts the folder on ``sys.path`` (the suite runs in importlib mode).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from bang_helpers import table

from service.engine.ruleset import State


@pytest.fixture
def t4() -> State:
    """A clean 4-player table (Sheriff at seat 0, Black Jack everywhere, seat 0's phase 2)."""
    return table(4)
