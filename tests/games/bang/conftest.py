"""Fixtures for BANG! tests; the helpers themselves live in ``bang_helpers.py``.

Scenario tests import them directly (``from bang_helpers import table, give, ...``):
this conftest puts the folder on ``sys.path`` (the suite runs in importlib mode).
"""

from __future__ import annotations

import importlib
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from bang_helpers import table

from tabletop_server.service.engine.ruleset import State
from tabletop_server.service.games.bang import catalog

# The module, not the package's ``setup`` function of the same name (``from service.games.bang
# import setup`` gives the function, and patching it would change nothing).
setup = importlib.import_module("tabletop_server.service.games.bang.setup")


@pytest.fixture
def t4() -> State:
    """A clean 4-player table (Sheriff at seat 0, Black Jack everywhere, seat 0's phase 2)."""
    return table(4)


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the data folder that ``catalog.load`` reads instead of the real one (change it with
    ``bang_helpers.rewrite``)."""
    for f in catalog.DATA.glob("*.json"):
        shutil.copy(f, tmp_path / f.name)
    monkeypatch.setattr(catalog, "DATA", tmp_path)
    return tmp_path


@pytest.fixture
def dodge_city(monkeypatch: pytest.MonkeyPatch) -> None:
    """Dodge City accepted by the options (``table(..., expansions=["dodge_city"])``). A no-op since the
    expansion is offered to clients (``setup.BUILT_EXPANSIONS``); kept so that the tests written while it
    was built still say what they need."""
    monkeypatch.setattr(setup, "BUILT_EXPANSIONS", setup.BUILT_EXPANSIONS | {"dodge_city"})


@pytest.fixture
def armed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Armed & Dangerous accepted by the options (``ad_table``). A no-op since the expansion is offered
    to clients; kept so that the tests written while it was built still say what they need."""
    monkeypatch.setattr(setup, "BUILT_EXPANSIONS", setup.BUILT_EXPANSIONS | {"armed_and_dangerous"})


@pytest.fixture
def not_offered(monkeypatch: pytest.MonkeyPatch) -> None:
    """Armed & Dangerous taken back out of ``setup.BUILT_EXPANSIONS``: every expansion is offered now, so
    the refusal of one that is not (EXPANSION_NOT_AVAILABLE) is tested on this one."""
    monkeypatch.setattr(setup, "BUILT_EXPANSIONS", frozenset({"dodge_city"}))
