"""The train cards: the deck, the discard pile, the face-up row and hands.

TTR_NOTES section 5, "Draw train cards". Cards are small ints in the state (0..7
the colours of ``board.COLORS``, 8 the locomotive) so the JSON stays compact; the
deck is a list whose *last* element is the top card (``pop()`` is O(1)). A hand is
a list of 9 counts indexed by card code.

Every card move that involves chance goes through :func:`draw_top`, which
reshuffles the discard pile with the state's seeded generator when the deck is
empty (TTR-022), and writes what happened to the event list.
"""

from __future__ import annotations

from typing import Any, cast

from tabletop_server.service.engine.rng import Rng
from tabletop_server.service.engine.ruleset import State as EngineState
from tabletop_server.service.games.ttr_europe.board import CARD_NAMES, COLORS, LOCO, RULES
from tabletop_server.service.games.ttr_europe.layout import State

Event = dict[str, Any]
EMPTY = -1  # an empty face-up slot

# The RULINGS.md row for repeated three-locomotive rows: reset at most this many times in a row.
MAX_RESETS = 3


def new_deck() -> list[int]:
    """The 110 train cards, unshuffled: 12 of each colour and 14 locomotives."""
    return [c for c in range(len(COLORS)) for _ in range(RULES.per_color)] + [LOCO] * RULES.locomotives


def draw_top(state: State, events: list[Event]) -> int | None:
    """Take the top deck card, reshuffling the discards in first when the deck is empty.

    Returns None when the deck and the discard pile are both empty.
    """
    deck: list[int] = state["deck"]
    if not deck:
        discard: list[int] = state["discard"]
        if not discard:
            return None
        deck.extend(discard)
        discard.clear()
        game_rng(state).shuffle(deck)
        events.append({"type": "reshuffled", "deck": len(deck)})
    return deck.pop()


def refill_face_up(state: State, events: list[Event]) -> None:
    """Fill the empty face-up slots, then apply the three-locomotive reset; report the row."""
    face_up: list[int] = state["face_up"]
    for slot, card in enumerate(face_up):
        if card == EMPTY:
            drawn = draw_top(state, events)
            face_up[slot] = EMPTY if drawn is None else drawn
    reset = False
    # Interpretation (RULINGS.md, last TTR row): after a reset the new row may again hold
    # three locomotives; reset again, at most MAX_RESETS times in a row, then leave it.
    for _ in range(MAX_RESETS):
        if face_up.count(LOCO) < RULES.loco_reset:
            break
        reset = True
        state["discard"].extend(c for c in face_up if c != EMPTY)
        for slot in range(len(face_up)):
            face_up[slot] = EMPTY
        for slot in range(len(face_up)):
            drawn = draw_top(state, events)
            face_up[slot] = EMPTY if drawn is None else drawn
    events.append({"type": "face_up", "cards": [name_of(c) for c in face_up], "reset": reset})


def can_draw(state: State, second: bool) -> bool:
    """Whether any train card can be taken now (as the second card of a turn if ``second``)."""
    if state["deck"] or state["discard"]:
        return True
    face_up: list[int] = state["face_up"]
    return any(c != EMPTY and not (second and c == LOCO) for c in face_up)


def take_from_hand(state: State, seat: int, color: int, cards: int, locos: int) -> list[int]:
    """Take ``cards`` of ``color`` and ``locos`` locomotives out of a hand; returns them."""
    hand: list[int] = state["hands"][seat]
    paid = [LOCO] * locos
    if cards:
        hand[color] -= cards
        paid = [color] * cards + paid
    hand[LOCO] -= locos
    return paid


def name_of(card: int) -> str | None:
    """The card's name ("red", "loco"), or None for an empty slot."""
    return None if card == EMPTY else CARD_NAMES[card]


def card_total(state: State) -> int:
    """Every train card the state holds, wherever it is (the 110-card invariant)."""
    total = len(state["deck"]) + len(state["discard"])
    total += sum(1 for c in state["face_up"] if c != EMPTY)
    total += sum(sum(hand) for hand in state["hands"])
    tunnel = state["tunnel"]
    if tunnel is not None:
        total += tunnel["cards"] + tunnel["locos"] + len(tunnel["revealed"])
    return int(total)


def game_rng(state: State) -> Rng:
    """The game's seeded generator (the engine's ``Rng`` keeps its state in ``state["rng"]``)."""
    return Rng(cast(EngineState, state))
