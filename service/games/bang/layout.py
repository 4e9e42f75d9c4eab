"""The stored BANG! state, as types: what ``state.py``'s layout says, checked (issue 30).

The rules keep the game as plain JSON (DESIGN 1); the engine's contract types it ``dict[str, Any]``. These
``TypedDict``s name every key the rules read or write, which are required, and what each holds, and the
whole wing is annotated with them: its ``State`` is ``GameState`` (below), a player ``PlayerData``, a
request ``RequestEntry`` and an engine step ``StepEntry``, each kind a ``Literal`` (``push`` takes a request
kind with a seat, a step kind with None). So ``mypy --strict`` names a misspelt state or player key, a
kind that is none, a phase that is none, or a value of the wrong type. ``tests/games/bang/test_bang_layout.py``
holds them true: mypy names each such mistake in a made-up rule, the layout in ``state.py``'s docstring
lists exactly these keys, and every state of stored games (the golden corpus) has exactly the keys these
types allow (each player, mark and pending entry too), its kinds those of the registered handlers. Actions
(``Action``: a ``Literal`` type and the fields any type takes), events (``Event``: a ``Literal`` kind and
every field an event carries) and a pending entry's ``args`` are typed the same way, so a misspelt field
is named too: each kind's entry is its own (``BangRequest``: ``RequestOf[Literal["bang"], ShotArgs]``), which its
handler declares, so an argument read on a kind that does not keep it is named as well (``RequestArgs``:
every argument any kind keeps, ``push``'s keywords). The stored JSON does not change. (No ``from __future__ import annotations`` here: ``NotRequired`` must be
seen when the class is built.)
"""

from typing import Any, Generic, Literal, NotRequired, Required, TypedDict, TypeVar

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


ActionType = Literal["play", "use", "respond", "barrel", "pass", "choose", "draw", "discard", "ability", "end_turn",
                     "upgrade"]


class Action(TypedDict, total=False):
    """An action (``actions.py`` lists each type's fields), and what the pipeline decided for a committed play:
    the Dangerous weapon's ``weapon`` shot, the upgrades ``bought`` and the ``extra`` targets they added."""

    type: Required[ActionType]
    card: str
    target: int
    pick: str
    cards: list[str]
    source: str  # a phase 1 choice: "deck", "discard" or "player"
    weapon: str
    bought: int
    extra: list[int]


EventKind = Literal[
    "turn", "draw", "check", "play", "respond", "pass", "discard", "take", "damage", "heal", "equip", "move",
    "explode", "jail", "barrel", "reveal", "look", "put_back", "choose", "eliminated", "game_over", "reshuffle",
    "end_turn", "use", "unaffected", "cubes",
]


class Event(TypedDict, total=False):
    """What happened, as the log keeps it (``codec.encode_event`` sends it; ``view.project`` hides cards)."""

    kind: Required[EventKind]
    seat: int
    other: int | None  # the other seat involved (a target, a killer, the seat a card came from)
    cards: list[str]
    count: int
    reason: str
    amount: int
    life: int
    success: bool
    role: str
    seats: list[int]
    roles: list[str]


class RequestArgs(TypedDict, total=False):
    """Every argument any kind keeps: ``push``'s keywords (``state.push`` takes any kind). What one kind's entry
    holds is its own ``...Args`` below, so a key read on the wrong kind's entry is named too."""

    card: str | None  # the card it is about (a shot of an ability keeps None)
    cards: list[str]  # cards offered (General Store, Kit Carlson) or to choose among
    flipped: list[str]  # a draw!'s flipped cards, for Lucky Duke's choice or a redraw
    check: str  # the draw! being resolved
    ctx: dict[str, Any]  # what a draw! passes to its outcome
    action: Action  # the committed play a stage asks about
    stage: str  # the play step's next stage (``play.STAGES``)
    need: int  # Missed! effects still needed; in the dying window, life still missing
    got: int  # Missed! effects played against this shot
    used: list[str]  # Barrels already drawn for this shot
    opp: int  # a Duel's other seat
    owed: list[int]  # Molly Stark's replacements owed once the Duel is over
    victim: int  # whose card is picked
    drawer: int  # who draws the card a victim gives (Pat Brennan)
    hit: int  # the seat hit (``after_hit``)
    amount: int  # how much
    count: int  # how many (cards, cubes, draws)
    discard: int  # cards still to discard
    paid: list[str]  # cards discarded for a cost so far
    reason: str  # why, as its events say
    cubes: int  # cubes to pay
    split: bool  # cubes placed may be split among the holders
    optional: bool  # the request may be passed
    bought: int  # upgrades bought so far
    extra: list[int]  # extra targets bought so far
    late: bool  # an upgrade bought after the card resolved
    forced: bool  # the weapon must pay (its shot alone reaches the target)
    played: bool  # the shot comes from a card played from the hand
    bang_card: bool  # ... a real BANG! card
    ignore: bool  # a Big Fifty's shot
    buntline: bool  # a Buntline Special's shot
    sure: bool  # a Double Barrel's shot


# One kind's arguments (the comments of ``RequestArgs`` say what each holds).
class NoArgs(TypedDict):
    """A kind that keeps no argument."""


class CardArgs(TypedDict):
    card: str


class CardsArgs(TypedDict):
    cards: list[str]


class ShotArgs(TypedDict):
    """``bang``: a BANG! effect's response window; the flags are what the shot carries."""

    card: str | None
    need: int
    got: int
    used: list[str]
    played: NotRequired[bool]
    bang_card: NotRequired[bool]
    ignore: NotRequired[bool]
    buntline: NotRequired[bool]
    sure: NotRequired[bool]


class CostArgs(TypedDict):
    card: str
    discard: int
    action: Action


class ReasonArgs(TypedDict):
    reason: str


class DocHolydayArgs(TypedDict):
    victim: int
    discard: int
    paid: list[str]


class DuelArgs(TypedDict):
    card: str
    opp: int
    owed: NotRequired[list[int]]


class DyingArgs(TypedDict):
    need: int


class StageArgs(TypedDict):
    """``ignore`` and ``weapon``: a stage's question about the committed play (``forced``: the weapon must pay)."""

    card: str
    action: Action
    forced: NotRequired[bool]


class PayCubesArgs(TypedDict):
    cubes: int
    reason: str


class PickArgs(TypedDict):
    flipped: list[str]
    check: str
    ctx: NotRequired[dict[str, Any]]


class PlaceCubesArgs(TypedDict):
    count: int
    split: bool
    reason: str
    optional: NotRequired[bool]


class RedrawArgs(TypedDict):
    card: str
    drawer: int
    flipped: list[str]
    check: str
    ctx: dict[str, Any]


class UpgradeArgs(TypedDict):
    card: str
    bought: int
    extra: list[int]
    action: NotRequired[Action]  # absent once the card resolved (``late``)
    late: NotRequired[bool]


class VictimCardArgs(TypedDict):
    card: str
    victim: int


class AfterHitArgs(TypedDict):
    hit: int
    amount: int


class CountArgs(TypedDict):
    count: int


class DrawStepArgs(TypedDict):
    count: int
    reason: str


class PlayArgs(TypedDict):
    stage: str
    action: Action


K = TypeVar("K")
A = TypeVar("A")


class RequestOf(TypedDict, Generic[K, A]):
    """A request ``seat`` answers (DESIGN 8) of kind ``K`` with arguments ``A``; ``source``: the seat it comes
    from, if any."""

    kind: K
    seat: int
    source: int | None
    args: A


class StepOf(TypedDict, Generic[K, A]):
    """An engine step of kind ``K``: resolves without a player (``seat`` None), in stack order."""

    kind: K
    seat: None
    source: int | None
    args: A


# Each kind's entry: a handler takes its own (``pending.RequestKind[BangRequest]``), so that mypy names a key
# its kind does not keep; a reader of any entry narrows it by ``kind`` first.
BangRequest = RequestOf[Literal["bang"], ShotArgs]
CostRequest = RequestOf[Literal["cost"], CostArgs]
DiscardOneRequest = RequestOf[Literal["discard_one"], ReasonArgs]
DocHolydayRequest = RequestOf[Literal["doc_holyday"], DocHolydayArgs]
DuelRequest = RequestOf[Literal["duel"], DuelArgs]
DyingRequest = RequestOf[Literal["dying"], DyingArgs]
IgnoreRequest = RequestOf[Literal["ignore"], StageArgs]
WeaponRequest = RequestOf[Literal["weapon"], StageArgs]
CardRequest = RequestOf[Literal["indians", "pass_bomb", "preacher"], CardArgs]
CardsRequest = RequestOf[Literal["kit_carlson", "store"], CardsArgs]
PayCubesRequest = RequestOf[Literal["pay_cubes"], PayCubesArgs]
PickRequest = RequestOf[Literal["pick"], PickArgs]
PlaceCubesRequest = RequestOf[Literal["place_cubes"], PlaceCubesArgs]
RedrawRequest = RequestOf[Literal["redraw"], RedrawArgs]
UpgradeRequest = RequestOf[Literal["upgrade"], UpgradeArgs]
VictimCardRequest = RequestOf[Literal["victim_card"], VictimCardArgs]
PlainRequest = RequestOf[Literal["discard", "draw", "vera_custer"], NoArgs]
RequestEntry = (BangRequest | CostRequest | DiscardOneRequest | DocHolydayRequest | DuelRequest | DyingRequest
                | IgnoreRequest | WeaponRequest | CardRequest | CardsRequest | PayCubesRequest | PickRequest
                | PlaceCubesRequest | RedrawRequest | UpgradeRequest | VictimCardRequest | PlainRequest)

AfterHitStep = StepOf[Literal["after_hit"], AfterHitArgs]
CardBackStep = StepOf[Literal["card_back"], CardArgs]
DrawStepEntry = StepOf[Literal["draw_step"], DrawStepArgs]
MollyStarkStep = StepOf[Literal["molly_stark"], CountArgs]
PlayStep = StepOf[Literal["play"], PlayArgs]
RedrawDeclinedStep = StepOf[Literal["redraw_declined"], RedrawArgs]
PlainStep = StepOf[Literal["t_bomb", "t_draw", "t_dynamite", "t_jail", "vera_choose", "vera_forget"], NoArgs]
StepEntry = AfterHitStep | CardBackStep | DrawStepEntry | MollyStarkStep | PlayStep | RedrawDeclinedStep | PlainStep

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
    opening: NotRequired[list[Event]]  # the first turn's events, until the service takes them

# The wing's name for the state its rules take (the engine's ``State`` is any JSON object).
State = GameState
