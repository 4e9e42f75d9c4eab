"""Distance and reach (BANG-034..041, NOTES c "Distance and reach").

Distance counts seats between two players the shorter way round over living players,
then adds the target's ``distance_in`` passives (Mustang, Paul Regret) and the
observer's ``distance_out`` passives (Scope, Rose Doolan), never below 1, unless a lasting modifier
sets it (``modifiers.distance_override``: the Bell Tower). Reach is
distance <= weapon range (Colt .45: 1). "Distance 1" cards ignore weapons.
"""

from __future__ import annotations

from tabletop_server.service.games.bang.layout import State
from tabletop_server.service.games.bang.modifiers import distance_override
from tabletop_server.service.games.bang.state import passive_sum, weapon
from tabletop_server.service.games.bang.tables import TYPE_OF

COLT_RANGE = 1


def seat_distance(state: State, a: int, b: int) -> int:
    """Seats between ``a`` and ``b`` over living players, the shorter way round."""
    if a == b:
        return 0
    players = state["p"]
    n = len(players)
    clockwise = sum(1 for k in range(1, (b - a) % n + 1) if players[(a + k) % n]["alive"])
    living = sum(1 for p in players if p["alive"])
    return min(clockwise, living - clockwise)


def distance(state: State, a: int, b: int) -> int:
    """How far ``a`` sees ``b``, with every modifier (never below 1 for another player)."""
    if a == b:
        return 0
    fixed = distance_override(state, a)  # a lasting modifier (the Bell Tower: everyone at 1)
    if fixed is not None:
        return fixed
    base = seat_distance(state, a, b)
    return max(1, base + passive_sum(state, b, "distance_in") + passive_sum(state, a, "distance_out"))


def weapon_range(state: State, seat: int) -> int:
    """The seat's weapon range: the weapon in play or the Colt .45."""
    card = weapon(state, seat)
    return TYPE_OF[card].weapon_range if card else COLT_RANGE


def in_reach(state: State, a: int, b: int) -> bool:
    """Whether ``a`` can shoot ``b`` with a BANG!."""
    return distance(state, a, b) <= weapon_range(state, a)
