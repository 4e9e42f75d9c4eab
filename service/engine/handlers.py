"""Named handlers: the one registry mechanism every game uses (DESIGN 7).

Cards, abilities, request kinds, draw! outcomes, win rules and action kinds are data
rows that name a handler; the handlers are registered here by name. Registering a
name twice is a bug and raises at import, so a typo or a copied decorator cannot
silently replace a rule.
"""

from __future__ import annotations

from typing import TypeVar

T = TypeVar("T")


class Registry(dict[str, T]):
    """Handlers of one kind by name; ``add`` refuses a name that is taken."""

    def __init__(self, kind: str) -> None:
        super().__init__()
        self.kind = kind

    def add(self, name: str, handler: T) -> T:
        """Register ``handler`` under ``name`` (a name registered twice raises ValueError)."""
        if name in self:
            raise ValueError(f"{self.kind} {name!r} registered twice")
        self[name] = handler
        return handler
