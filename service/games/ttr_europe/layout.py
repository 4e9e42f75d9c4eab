"""The stored Ticket to Ride state, as types (issue 30): what ``setup.py``'s layout says, checked.

The state is plain JSON (DESIGN 1); the engine's contract types it ``dict[str, Any]``. The rules of this
package take ``State``, the ``TypedDict`` below, so ``mypy --strict`` names a misspelt key, a phase that
is none or a value of the wrong type in any rule. ``tests/games/ttr_europe/test_ttr_layout.py`` holds
them true: the layout in ``setup.py``'s docstring lists exactly these keys, every state of random games
has exactly the keys these types allow, and mypy names each mistake of a made-up rule. Actions and events
stay ``dict[str, Any]``. The stored JSON does not change. (No ``from __future__ import annotations``
here: ``NotRequired`` must be seen when the class is built.)
"""

from typing import Any, Literal, NotRequired, TypedDict

Phase = Literal["tickets", "play", "last", "over"]


class Options(TypedDict):
    """The decoded options (``setup.setup``)."""

    tunnel_failure_discards: bool


class Tunnel(TypedDict):
    """A tunnel being claimed (TTR-033..036): its cards laid aside, the cards revealed, the extra owed."""

    seat: int
    route: int
    color: int  # the card code played (a colour, or the locomotive when only locomotives were)
    cards: int
    locos: int
    revealed: list[int]
    extra: int


class LastRound(TypedDict):
    """The final round (TTR-056): the seat whose trains ran low, and the turns left."""

    trigger: int
    left: int


class GameState(TypedDict):
    """The whole stored game; per-seat lists are indexed by seat."""

    v: int  # the state version (``setup.RULES_VERSIONS``)
    n: int  # seats
    opts: Options
    rng: int | list[Any]  # the generator's state: SplitMix64 (an int) or SHAKE-256 ([key, counter])
    phase: Phase
    turn: int
    first: int
    drawn: int  # train cards taken so far this turn
    deck: list[int]  # card codes, top LAST
    discard: list[int]
    face_up: list[int]  # 5 slots, -1 empty
    hands: list[list[int]]  # per seat, 9 counts by card code
    tickets: list[list[int]]  # per seat, kept ticket ids
    offered: list[list[int]]  # per seat, ticket ids awaiting a keep decision
    ticket_pile: list[int]  # top FIRST
    box: list[int]  # tickets out of the game
    trains: list[int]
    stations: list[int]  # left, per seat
    score: list[int]  # route points during play
    owner: list[int]  # per route (index id - 1): the owning seat or -1
    station_at: dict[str, int]  # city -> seat
    tunnel: Tunnel | None
    last: LastRound | None
    passes: int  # turns passed in a row
    result: dict[str, Any] | None  # final scoring once over (``scoring.final_result``)
    conceded: NotRequired[list[int]]  # seats that conceded, in order (``concede.py``)


# The package's name for the state its rules take (the engine's ``State`` is any JSON object).
State = GameState
