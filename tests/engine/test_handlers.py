"""The one handler registry: names are unique, and every game registry is one."""

from __future__ import annotations

import pytest

from tabletop_server.service.engine.handlers import Registry
from tabletop_server.service.games.bang.abilities import ABILITIES
from tabletop_server.service.games.bang.checks import CHECKS, REDRAWS
from tabletop_server.service.games.bang.damage import WIN_RULES
from tabletop_server.service.games.bang.effects import EFFECTS
from tabletop_server.service.games.bang.effects.attacks import EXTRA_BANGS
from tabletop_server.service.games.bang.pending import REQUESTS, STEPS
from tabletop_server.service.games.bang.upgrades import SHOTS
from tabletop_server.service.games.ttr_europe.actions import KINDS


def test_a_name_registered_twice_raises() -> None:
    registry: Registry[int] = Registry("thing")
    assert registry.add("a", 1) == 1
    with pytest.raises(ValueError, match="thing 'a' registered twice"):
        registry.add("a", 2)
    assert registry["a"] == 1


def test_every_game_registry_uses_it() -> None:
    for table in (ABILITIES, CHECKS, REDRAWS, WIN_RULES, EFFECTS, EXTRA_BANGS, REQUESTS, STEPS, SHOTS, KINDS):
        assert isinstance(table, Registry) and table
