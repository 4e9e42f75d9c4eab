"""The rulesets this server offers, by id: games register themselves.

A game is a package under ``service/games`` whose ``__init__`` ends with ``register(...)``; the engine
names no game. On first use every package there is imported once (``pkgutil``), and the ones that
registered are offered; a package still being written (no ``register`` call) is not. The service looks
rulesets up here and knows nothing else about them.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
from types import ModuleType
from typing import cast

from tabletop_server.service.engine.ruleset import Ruleset

# The package whose subpackages are the games (by name: the engine sits below the games, DESIGN 1).
GAMES_PACKAGE = "tabletop_server.service.games"

# Ruleset id -> (its place in the list, the module implementing the contract in service.engine.ruleset).
_REGISTERED: dict[str, tuple[int, Ruleset]] = {}
_discovered = False


def register(module: ModuleType | str, listed: int) -> None:
    """Offer the ruleset a game module implements, under its ``INFO.id``; ``listed`` is its place in
    ``all_rulesets`` (ListRulesets, the lobby's first choice). A game calls it at the end of its package's
    ``__init__`` as ``register(__name__, ...)``. An id or place registered twice raises."""
    loaded = sys.modules[module] if isinstance(module, str) else module
    ruleset = cast(Ruleset, loaded)
    ruleset_id = ruleset.INFO.id
    if ruleset_id in _REGISTERED:
        raise ValueError(f"ruleset {ruleset_id!r} is registered twice")
    if any(place == listed for place, _ in _REGISTERED.values()):
        raise ValueError(f"ruleset {ruleset_id!r}: place {listed} in the list is taken")
    _REGISTERED[ruleset_id] = (listed, ruleset)


def get(ruleset_id: str) -> Ruleset | None:
    """The ruleset with this id, or None when it is not offered."""
    _discover()
    found = _REGISTERED.get(ruleset_id)
    return found[1] if found is not None else None


def all_rulesets() -> list[Ruleset]:
    """Every registered ruleset, in the order of their places."""
    _discover()
    return [ruleset for _, ruleset in sorted(_REGISTERED.values(), key=lambda entry: entry[0])]


# Helpers


def _discover() -> None:
    """Import every game package once, so that each registers itself."""
    global _discovered
    if _discovered:
        return
    _discovered = True
    games = importlib.import_module(GAMES_PACKAGE)
    for found in pkgutil.iter_modules(games.__path__, GAMES_PACKAGE + "."):
        if found.ispkg:
            importlib.import_module(found.name)
