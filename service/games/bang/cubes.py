"""Armed & Dangerous cubes ("load tokens"): one shared supply, the holders, and every move of a cube.

Facts: S3 (``seeds/003``), NOTES (c) "Armed & Dangerous cube mechanics", RULES_CHECKLIST AD-002..017.

- ``state["supply"]`` is the shared supply; it exists only in an Armed & Dangerous game, so no
  base or Dodge City game pays for any of this (``armed``).
- A player keeps cubes on his character (``p["cubes"]``, absent: none) and on his orange cards
  in play (``state["marks"][card]["cubes"]``): those are his *holders*, named ``character``
  or by the card's id. Each holds at most ``MAX_ON_HOLDER`` (4); a cube that does not fit
  stays in (or goes back to) the supply (AD-013).
- Every cube gained comes from the supply and every cube paid or removed goes back to it
  (AD-002), so the total is always ``SUPPLY``: ``total`` adds them up for the property tests.
- An orange card that loses its last cube is discarded at once (AD-008, AD-021), unless its card
  registered what happens instead (``when_emptied``: the Bomb explodes, ``effects/bomb.py``). One
  that leaves play any other way drops its cubes back into the supply (``state.leave_play``; AD-015, 016).
"""

from __future__ import annotations

from collections.abc import Callable

from tabletop_server.service.engine.handlers import Registry
from tabletop_server.service.games.bang.layout import Event, State
from tabletop_server.service.games.bang.state import discard_from_table, player
from tabletop_server.service.games.bang.tables import KEY_OF, TYPE_OF

SUPPLY = 32
MAX_ON_HOLDER = 4
DANGEROUS_CUBES = 3  # an orange card enters play with 3 (AD-005)
CHARACTER = "character"

# What an orange card does when its last cube is taken, instead of being discarded, by card key:
# ``(state, seat, card, events)``, called once the card is discarded from play (the Bomb explodes).
Emptied = Callable[[State, int, str, list[Event]], None]
WHEN_EMPTIED: Registry[Emptied] = Registry("emptied card")


def when_emptied(key: str) -> Callable[[Emptied], Emptied]:
    """Register what the card ``key`` does when it loses its last cube (instead of the ``no_cubes`` discard event)."""
    def deco(fn: Emptied) -> Emptied:
        return WHEN_EMPTIED.add(key, fn)
    return deco


def armed(state: State) -> bool:
    """Whether the game has cubes (Armed & Dangerous)."""
    return "supply" in state


def orange(card: str) -> bool:
    """A Dangerous card (orange border)."""
    return TYPE_OF[card].color == "orange"


def holders(state: State, seat: int) -> list[str]:
    """Where ``seat`` keeps cubes: his character, then his orange cards in play (AD-003)."""
    return [CHARACTER, *(c for c in player(state, seat)["table"] if orange(c))]


def on(state: State, seat: int, holder: str) -> int:
    """Cubes on one holder of ``seat``."""
    if holder == CHARACTER:
        return int(player(state, seat).get("cubes", 0))
    return int(state.get("marks", {}).get(holder, {}).get("cubes", 0))


def owned(state: State, seat: int) -> int:
    """Every cube ``seat`` holds (what an upgrade or an ability can be paid from)."""
    return sum(on(state, seat, h) for h in holders(state, seat))


def room(state: State, seat: int, holder: str) -> int:
    """How many more cubes the holder can take."""
    return MAX_ON_HOLDER - on(state, seat, holder)


def with_room(state: State, seat: int) -> list[str]:
    """The seat's holders that can take one more cube (none when the supply is empty)."""
    if not state.get("supply"):
        return []
    return [h for h in holders(state, seat) if room(state, seat, h) > 0]


def total(state: State) -> int:
    """Supply + every cube on characters and cards (always ``SUPPLY``: the conservation invariant)."""
    held = sum(int(p.get("cubes", 0)) for p in state["p"])
    held += sum(int(m.get("cubes", 0)) for m in state.get("marks", {}).values())
    return int(state["supply"]) + held


def add(state: State, seat: int, holder: str, count: int, events: list[Event], reason: str) -> int:
    """Put up to ``count`` cubes from the supply on a holder of ``seat``; returns how many fitted."""
    moved = max(0, min(count, int(state["supply"]), room(state, seat, holder)))
    if moved:
        state["supply"] -= moved
        _set(state, seat, holder, on(state, seat, holder) + moved)
        events.append(_event(seat, holder, moved, reason))
    return moved


def remove(state: State, seat: int, holder: str, count: int, events: list[Event], reason: str) -> int:
    """Take up to ``count`` cubes off a holder back to the supply; an emptied orange card is discarded."""
    taken = take(state, seat, holder, count, events, reason)
    state["supply"] += taken
    return taken


def take(state: State, seat: int, holder: str, count: int, events: list[Event], reason: str) -> int:
    """Take up to ``count`` cubes off a holder *into the caller's hand* (the caller puts them
    somewhere or back into the supply); an emptied orange card is discarded (``emptied``)."""
    have = on(state, seat, holder)
    taken = max(0, min(count, have))
    if not taken:
        return 0
    _set(state, seat, holder, have - taken)
    events.append(_event(seat, holder, -taken, reason))
    if holder != CHARACTER and have == taken:
        emptied(state, seat, holder, events)
    return taken


def shift(state: State, seat: int, source: str, to: str, count: int, events: list[Event], reason: str) -> None:
    """Move cubes between two holders of ``seat`` (Red Ringo: from his character to his cards; checked to fit)."""
    _set(state, seat, source, on(state, seat, source) - count)
    events.append(_event(seat, source, -count, reason))
    _set(state, seat, to, on(state, seat, to) + count)
    events.append(_event(seat, to, count, reason))


def place_taken(state: State, seat: int, count: int, events: list[Event], reason: str) -> None:
    """Put cubes taken from others on ``seat``'s character up to the limit; the rest go to the supply (Rust)."""
    fits = min(count, room(state, seat, CHARACTER))
    if fits:
        _set(state, seat, CHARACTER, on(state, seat, CHARACTER) + fits)
        events.append(_event(seat, CHARACTER, fits, reason))
    state["supply"] += count - fits


def load(state: State, card: str) -> None:
    """An orange card just put in play gets its 3 cubes from the supply (checked to be there, AD-014)."""
    state["supply"] -= DANGEROUS_CUBES
    state.setdefault("marks", {})[card] = {"cubes": DANGEROUS_CUBES}


def emptied(state: State, seat: int, card: str, events: list[Event]) -> None:
    """An orange card lost its last cube: it is discarded (AD-008), and does what its card registered
    (``when_emptied``), or is announced as discarded for want of cubes."""
    if card not in player(state, seat)["table"]:
        return
    discard_from_table(state, seat, card)
    instead = WHEN_EMPTIED.get(KEY_OF[card])
    if instead is not None:
        instead(state, seat, card, events)
        return
    events.append({"kind": "discard", "seat": seat, "cards": [card], "reason": "no_cubes"})


def pay_use(state: State, seat: int, card: str, events: list[Event], reason: str | None = None,
            target: int | None = None) -> None:
    """Pay for using a card in play: a green card is discarded from play; an orange card pays its
    cost in cubes from itself (AD-007), and is discarded if that takes its last cube (AD-008).
    The ``use`` event shows the card (and its target) to everyone."""
    event: Event = {"kind": "use", "seat": seat, "cards": [card]}
    if reason:
        event["reason"] = reason
    if target is not None:
        event["other"] = target
    events.append(event)
    if not orange(card):
        discard_from_table(state, seat, card)
        return
    use = TYPE_OF[card].use
    remove(state, seat, card, int(use.cost.get("cubes", 0)) if use is not None else 0, events, "use")


def use_payable(state: State, seat: int, card: str) -> bool:
    """Whether a card in play can pay for its use now (an orange card: its own cubes)."""
    use = TYPE_OF[card].use
    return not orange(card) or use is None or on(state, seat, card) >= int(use.cost.get("cubes", 0))


def owner_of(state: State, card: str) -> int | None:
    """The seat in front of whom ``card`` is in play."""
    for seat, p in enumerate(state["p"]):
        if card in p["table"]:
            return seat
    return None


# Helpers

def _set(state: State, seat: int, holder: str, count: int) -> None:
    if holder == CHARACTER:
        p = player(state, seat)
        if count:
            p["cubes"] = count
        else:
            p.pop("cubes", None)
    else:
        state.setdefault("marks", {}).setdefault(holder, {})["cubes"] = count


def _event(seat: int, holder: str, amount: int, reason: str) -> Event:
    """A ``cubes`` event: ``amount`` cubes (negative: removed) on ``seat``'s holder (``cards``: the
    orange card; none: his character). Public: cubes lie face up on the table."""
    return {"kind": "cubes", "seat": seat, "cards": [] if holder == CHARACTER else [holder], "amount": amount,
            "reason": reason}
