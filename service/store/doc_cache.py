"""The last game documents this process read or wrote, so an action needs no read first (issue 29).

A copy is trusted for nothing but a first guess: the host decides on it and the compare-and-set
(``cas.lua``) checks the version *and* the stamp of the document it was decided on. A stale copy
(another replica wrote, or this one's write was lost in a failover) loses that check, and the script
answers with the current document, which replaces the copy, so the retry needs no read either. A
rule error decided on a copy is never sent: the host reads the game and decides again
(``writes.Writes.transact``). So any number of replicas may share a game, each with its own copies.

Bounded: at most ``size`` games, the least recently used dropped first (``TABLETOP_DOC_CACHE_GAMES``;
0 keeps none, and every action reads first as before). One process's event loop owns it: no lock.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass


@dataclass(frozen=True)
class Known:
    """A game as this process last saw it: version, stamp (``cas.lua``'s field ``w``) and document."""

    version: int
    stamp: str
    doc: bytes


class DocCache:
    """At most ``size`` games' last known documents, least recently used out first; counts its hits."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.hits = 0
        self.misses = 0
        self._games: OrderedDict[str, Known] = OrderedDict()

    def get(self, game_id: str) -> Known | None:
        """The copy of ``game_id``, or None (counted as a hit or a miss)."""
        known = self._games.get(game_id)
        if known is None:
            self.misses += 1
            return None
        self.hits += 1
        self._games.move_to_end(game_id)
        return known

    def put(self, game_id: str, version: int, stamp: str, doc: bytes | None) -> None:
        """Keep this copy (one without a stamp or a document is only forgotten: nothing could check it)."""
        if not stamp or doc is None or not version or self.size <= 0:
            self._games.pop(game_id, None)
            return
        # Always replaced, even by a lower version: after a failover lost writes the version goes back,
        # and what Redis answered last is the best guess (a late older read costs one retry at most).
        self._games[game_id] = Known(version, stamp, doc)
        self._games.move_to_end(game_id)
        while len(self._games) > self.size:
            self._games.popitem(last=False)

    def forget(self, game_id: str) -> None:
        self._games.pop(game_id, None)

    def __len__(self) -> int:
        return len(self._games)
