"""The rulesets this server offers, by id.

Games register themselves by module; the service looks them up here and knows
nothing else about them.
"""

from __future__ import annotations

import importlib
from typing import cast

from tabletop_server.service.engine.ruleset import Ruleset

# Ruleset id -> module implementing the contract in service.engine.ruleset.
_MODULES = {
    "ttr-europe": "tabletop_server.service.games.ttr_europe",
    "bang": "tabletop_server.service.games.bang",
}
_LOADED: dict[str, Ruleset] = {}


def get(ruleset_id: str) -> Ruleset | None:
    """The ruleset with this id, or None when it is not offered."""
    if ruleset_id not in _LOADED:
        module = _MODULES.get(ruleset_id)
        if module is None:
            return None
        try:
            loaded = importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name != module:
                raise
            return None
        if not hasattr(loaded, "INFO"):  # a package still being written is not offered
            return None
        _LOADED[ruleset_id] = cast(Ruleset, loaded)
    return _LOADED[ruleset_id]


def all_rulesets() -> list[Ruleset]:
    """Every ruleset that is built, in a stable order."""
    return [r for r in (get(rid) for rid in _MODULES) if r is not None]
