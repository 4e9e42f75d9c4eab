"""The stored BANG! state, as types: what ``state.py``'s layout says, checked (issue 30).

The rules keep the game as plain JSON (DESIGN 1); the engine's contract types it ``dict[str, Any]``. These
``TypedDict``s name every key the rules read or write, which are required, and what each holds, and the
whole wing is annotated with them: its ``State`` is ``GameState`` (below), a player ``PlayerData``, a
request ``RequestEntry`` and an engine step ``StepEntry``, each kind a ``Literal`` (``push`` takes a request
kind with a seat, a step kind with None). So ``mypy --strict`` names a misspelt state or player key, a
kind that is none, a phase that is none, or a value of the wrong type. ``tests/games/bang/test_bang_layout.py``
holds them true: mypy names each such mistake in a made-up rule, the layout in ``state.py``'s docstring
lists exactly these keys, and every state of stored games (the golden corpus) has exactly the keys these
types allow (each player, mark and pending entry too), its kinds those of the registered handlers. Actions,
events and a request's ``args`` stay ``dict[str, Any]``. The stored JSON does not change. (No ``from __future__ import annotations`` here: ``NotRequired`` must be
seen when the class is built.)
"""

from typing import Any, Literal, NotRequired, TypedDict

Phase = Literal["draw", "play", "discard", "end", "over"]

# Every kind a pending entry may name: the requests a seat answers (``pending.REQUESTS``) and the engine
# steps (``pending.STEPS``, ``seat`` None).
RequestKindName = Literal[
    "bang", "cost", "discard", "discard_one", "doc_holyday", "draw", "duel", "dying", "ignore", "indians",
    "kit_carlson", "pass_bomb", "pay_cubes", "pick", "place_cubes", "preacher", "redraw", "store", "upgrade",
    "vera_custer", "victim_card", "weapon",
]
StepKindName = Literal[
    "after_hit", "card_back", "draw_step", "molly_stark", "play", "redraw_declined", "t_bomb", "t_draw",
    "t_dynamite", "t_jail", "vera_choose", "vera_forget",
]
PendingKind = Literal[RequestKindName, StepKindName]

# A player entry: ``as``, the character whose ability he uses (Vera Custer's copy); ``cubes``, the cubes
# on his character (Armed & Dangerous; absent: none).
PlayerData = TypedDict("PlayerData", {
    "role": str, "char": str, "life": int, "max": int, "hand": list[str], "table": list[str], "alive": bool,
    "as": NotRequired[str], "cubes": NotRequired[int],
})


class Mark(TypedDict, total=False):
    """Per-card facts of a card in play (``state.leave_play`` drops them): a green card's first turn of
    use, an orange card's cubes."""

    ready: int
    cubes: int


class RequestEntry(TypedDict):
    """A request ``seat`` answers (DESIGN 8); ``source``: the seat it comes from, if any."""

    kind: RequestKindName
    seat: int
    source: int | None
    args: dict[str, Any]


class StepEntry(TypedDict):
    """An engine step: resolves without a player (``seat`` None), in stack order."""

    kind: StepKindName
    seat: None
    source: int | None
    args: dict[str, Any]


PendingEntry = RequestEntry | StepEntry


class GameState(TypedDict):
    """The whole stored game."""

    v: str  # the rules version (``versions.py``)
    opts: dict[str, Any]  # the normalized options (``setup.normalize_options``)
    rng: int | list[Any]  # the generator's state: SplitMix64 (an int) or SHAKE-256 ([key, counter])
    deck: list[str]  # card ids, top LAST
    discard: list[str]  # card ids, top LAST
    p: list[PlayerData]
    turn: int  # the seat whose turn it is
    phase: Phase
    turn_no: int
    bangs: int  # BANG! cards played this turn
    pending: list[PendingEntry]  # top LAST
    winners: list[int]
    uses: NotRequired[dict[str, int]]  # "seat:name" -> uses this turn (``turn.count_use``)
    bell: NotRequired[int | list[Any]]  # a Bell Tower in force: its seat, or [seat, card] (``effects/bell_tower.py``)
    supply: NotRequired[int]  # Armed & Dangerous: the cubes in the supply
    marks: NotRequired[dict[str, Mark]]  # card id -> its marks
    opening: NotRequired[list[dict[str, Any]]]  # the first turn's events, until the service takes them

# The wing's name for the state its rules take (the engine's ``State`` is any JSON object).
State = GameState
