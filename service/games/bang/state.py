"""The game state as plain JSON data, and the small moves every rule uses.

Layout (compact, reloaded from Redis on every request; the types are ``layout.GameState``, and
``tests/games/bang/test_bang_layout.py`` keeps this list equal to them)::

    {"v": rules version, "opts": {...}, "rng": generator state,
     "deck": [card ids, top LAST], "discard": [card ids, top LAST],
     "p": [{"role", "char", "life", "max", "hand": [], "table": [], "alive": bool,
            optional "as": copied character, "cubes": cubes on the character}],
     "turn": seat, "phase": "draw" | "play" | "discard" | "end" | "over", "turn_no": int,
     "bangs": BANG! cards played this turn, "pending": [requests, top LAST],
     "winners": [seats],
     optional "uses": {"seat:name": count}, "bell": a Bell Tower in force, "supply": cubes,
     "marks": {card id: {"ready", "cubes"}}, "opening": [the first turn's events]}

A request is ``{"kind", "seat", "source", "args"}`` (DESIGN 8): ``seat`` is None for an
engine step that resolves without a player (``layout.RequestEntry``, ``layout.StepEntry``).
"""

from __future__ import annotations

from typing import Any, Unpack, cast, overload

from tabletop_server.service.engine.rng import Rng
from tabletop_server.service.engine.ruleset import State as EngineState
from tabletop_server.service.games.bang.layout import (
    Event,
    PendingEntry,
    PlayerData,
    RequestArgs,
    RequestEntry,
    RequestKindName,
    State,
    StepEntry,
    StepKindName,
)
from tabletop_server.service.games.bang.modifiers import silenced
from tabletop_server.service.games.bang.tables import CARDS, CHARACTERS, KEY_OF, TYPE_OF

Player = PlayerData
Request = RequestEntry


def player(state: State, seat: int) -> Player:
    """The player dict of ``seat``."""
    p: Player = state["p"][seat]
    return p


def alive_seats(state: State) -> list[int]:
    """Living seats in turn order, from seat 0."""
    return [i for i, p in enumerate(state["p"]) if p["alive"]]


def next_alive(state: State, seat: int) -> int:
    """The next living seat clockwise after ``seat`` (the player on the left)."""
    n = len(state["p"])
    for step in range(1, n + 1):
        s = (seat + step) % n
        if state["p"][s]["alive"]:
            return s
    return seat


def seats_from(state: State, seat: int, include_self: bool) -> list[int]:
    """Living seats clockwise starting with ``seat`` (or the one after it)."""
    n = len(state["p"])
    order = [(seat + k) % n for k in range(n)]
    return [s for s in order if state["p"][s]["alive"] and (include_self or s != seat)]


def acting_character(state: State, seat: int) -> str:
    """The character whose ability the seat uses: its own, or the one it copies.

    An optional ``"as"`` key in the player entry overrides the printed character, so a
    character that copies another's ability (Vera Custer) only sets that key.
    """
    p = state["p"][seat]
    return str(p.get("as") or p["char"])


def trait(state: State, seat: int, name: str) -> Any:
    """A passive trait of the seat's acting character (``None`` when it has none)."""
    return CHARACTERS[acting_character(state, seat)].traits.get(name)


def in_effect(state: State, seat: int) -> list[str]:
    """The cards in play in front of ``seat`` that act now: the one accessor (DESIGN 17).

    Distance, weapon reach, Barrels, Missed! cards in play, Jail and Dynamite all ask here,
    so a rule that silences cards is one modifier handler (``modifiers.silenced``: Belle Star's,
    in ``characters/dodge_city.py``), asked here only. Physical presence (a second card of one
    name, cards leaving play) reads the table itself.
    """
    table: list[str] = state["p"][seat]["table"]
    if table and silenced(state, seat):
        return []
    return table


def card_in_effect(state: State, seat: int, key: str) -> str | None:
    """The id of the card named ``key`` in front of ``seat`` that acts now, if any."""
    for cid in in_effect(state, seat):
        if KEY_OF[cid] == key:
            return str(cid)
    return None


def in_play(state: State, seat: int, key: str) -> str | None:
    """The id of the card named ``key`` in front of ``seat``, if any (present, acting or not)."""
    for cid in state["p"][seat]["table"]:
        if KEY_OF[cid] == key:
            return str(cid)
    return None


def passive_sum(state: State, seat: int, name: str) -> int:
    """Sum of a numeric passive over the seat's cards in play and character."""
    total = int(trait(state, seat, name) or 0)
    for cid in in_effect(state, seat):
        total += int(TYPE_OF[cid].passive.get(name, 0))
    return total


def weapon(state: State, seat: int) -> str | None:
    """The weapon card in front of ``seat`` that acts now (None: the Colt .45)."""
    for cid in in_effect(state, seat):
        if TYPE_OF[cid].weapon_range:
            return str(cid)
    return None


def pop_deck(state: State, events: list[Event]) -> str | None:
    """Take the top card of the deck, reshuffling the discard pile when it is empty (BANG-016)."""
    if not state["deck"]:
        if not state["discard"]:
            return None
        # The whole discard pile becomes the new deck, as bang-server does (NOTES c).
        state["deck"], state["discard"] = state["discard"], []
        game_rng(state).shuffle(state["deck"])
        events.append({"kind": "reshuffle", "count": len(state["deck"])})
    card: str = state["deck"].pop()
    return card


def draw(state: State, seat: int, count: int, events: list[Event], reason: str = "draw") -> list[str]:
    """Draw ``count`` cards into the seat's hand; the event shows them to the drawer only."""
    deck = state["deck"]
    if 0 < count <= len(deck):  # no reshuffle on the way: the top ``count`` cards, top first
        got = deck[:-count - 1:-1]
        del deck[-count:]
    else:
        got = []
        for _ in range(count):
            card = pop_deck(state, events)
            if card is None:
                break
            got.append(card)
    state["p"][seat]["hand"].extend(got)
    if got:
        events.append({"kind": "draw", "seat": seat, "cards": got, "count": len(got), "reason": reason})
    return got


def flip(state: State, count: int, events: list[Event]) -> list[str]:
    """A "draw!": the top ``count`` cards go face up onto the discard pile (BANG-049).

    All of them are taken before any is discarded: a card already flipped lies face up
    beside the deck, so a reshuffle for the next flip (Lucky Duke's second card, with
    one card left in the deck) never puts it back into the deck (BANG-016, 095).
    """
    cards = [c for c in (pop_deck(state, events) for _ in range(count)) if c is not None]
    state["discard"].extend(cards)
    return cards


def discard_from_hand(state: State, seat: int, card: str) -> None:
    """Move a card from the seat's hand to the discard pile."""
    state["p"][seat]["hand"].remove(card)
    state["discard"].append(card)


def leave_play(state: State, seat: int, card: str) -> None:
    """Take a card out of play in front of ``seat``; its marks leave with it.

    ``state["marks"]`` (absent in the base game) is where expansions keep per-card
    facts of cards in play: the turn a green card was put in play, the cubes on an
    orange card. Every removal from play goes through here or :func:`clear_table`.
    """
    state["p"][seat]["table"].remove(card)
    if state.get("marks"):
        _drop_marks(state, card)


def ready(state: State, card: str) -> bool:
    """Whether a card in play may be used now: a green card from the turn after it was played (DC-009)."""
    mark = state.get("marks", {}).get(card)
    return mark is None or int(mark.get("ready", 0)) <= int(state["turn_no"])


def clear_table(state: State, seat: int) -> list[str]:
    """Take every card out of play in front of ``seat`` (marks included); returns them."""
    cards: list[str] = state["p"][seat]["table"]
    state["p"][seat]["table"] = []
    if state.get("marks"):
        for card in cards:
            _drop_marks(state, card)
    return cards


def _drop_marks(state: State, card: str) -> None:
    """A card leaves play: its marks go, and its cubes back to the supply (A&D: AD-015, 016)."""
    mark = state["marks"].pop(card, None)
    if mark and mark.get("cubes") and "supply" in state:
        state["supply"] += mark["cubes"]


def discard_from_table(state: State, seat: int, card: str) -> None:
    """Move a card in play in front of ``seat`` to the discard pile."""
    leave_play(state, seat, card)
    state["discard"].append(card)


def top_request(state: State) -> Request | None:
    """The request on top of the pending stack, between two actions (``actions.advance`` has run every engine
    step by then, so the top entry is a request)."""
    pending = state["pending"]
    # Not ``typing.cast``: a call on every action, and the fact is the docstring's, not a conversion.
    return pending[-1] if pending else None  # type: ignore[return-value]


def any_args(entry: PendingEntry) -> RequestArgs:
    """The arguments of an entry of any kind, for a reader that takes every kind by the keys it finds (the
    view, the game's end). A handler reads its own kind's (``layout.BangRequest``...) instead."""
    return entry["args"]  # type: ignore[return-value]  # each kind's arguments are some of RequestArgs'


def source_seat(entry: PendingEntry) -> int:
    """The seat a pending entry comes from or acts for (its ``source``), where its kind always has one."""
    seat = entry["source"]
    assert seat is not None  # pushed with a seat: every kind whose handler reads it
    return seat


def game_rng(state: State) -> Rng:
    """The game's seeded generator (the engine's ``Rng`` keeps its state in ``state["rng"]``)."""
    return Rng(cast(EngineState, state))


@overload
def push(state: State, kind: RequestKindName, seat: int, source: int | None = None, **args: Unpack[RequestArgs]) -> RequestEntry: ...
@overload
def push(state: State, kind: StepKindName, seat: None, source: int | None = None, **args: Unpack[RequestArgs]) -> StepEntry: ...
def push(state: State, kind: str, seat: int | None, source: int | None = None, **args: Unpack[RequestArgs]) -> PendingEntry:
    """Open a request (or queue an engine step, ``seat`` None) on top of the stack."""
    # The overloads pair a request kind with a seat and a step kind with None (no ``typing.cast``: a call).
    req: PendingEntry = {"kind": kind, "seat": seat, "source": source, "args": args}  # type: ignore[misc, assignment]
    state["pending"].append(req)
    return req


def suit(card: str) -> str:
    """The printed suit of a card."""
    return CARDS[card].suit


def all_cards(state: State) -> list[str]:
    """Every card wherever it is: deck, discard, hands, tables and request args."""
    out = list(state["deck"]) + list(state["discard"])
    for p in state["p"]:
        out += p["hand"] + p["table"]
    for req in state["pending"]:
        out += any_args(req).get("cards", [])
    return out
