"""Drawing train cards (TTR_NOTES section 5, action 1; TTR-014..TTR-023).

A draw is two actions of the same turn, one card each: a face-up slot (refilled at
once, TTR-016) or blind from the deck. A face-up locomotive taken first is the
whole draw (TTR-017) and is never allowed second (TTR-018); a blind locomotive is
an ordinary card (TTR-019). When no second card can be taken at all, the turn ends
after the first (RULINGS TTR-015). Face-up cards may still be taken when deck and
discards are empty (RULINGS TTR-023).
"""

from __future__ import annotations

from typing import Any

from tabletop_server.service.engine.errors import MalformedAction, RuleError
from tabletop_server.service.games.ttr_europe.board import LOCO, RULES
from tabletop_server.service.games.ttr_europe.cards import EMPTY, can_draw, draw_top, name_of, refill_face_up
from tabletop_server.service.games.ttr_europe.layout import State
from tabletop_server.service.games.ttr_europe.reasons import TtrReason
from tabletop_server.service.games.ttr_europe.turns import end_turn

Event = dict[str, Any]
FIELD = "action.ttr_europe.draw_train_card"


def check_draw_card(state: State, seat: int, action: dict[str, Any]) -> int | None:
    """Check a one-card draw; returns the face-up slot, or None for a blind draw."""
    slot = action.get("slot")
    second = state["drawn"] > 0
    if slot is None:
        if not state["deck"] and not state["discard"]:
            raise RuleError(TtrReason.NO_CARDS_LEFT, "the deck and the discard pile are empty; take a "
                            "face-up card or choose another action")
        return None
    if type(slot) is not int or not 0 <= slot < RULES.face_up:
        raise MalformedAction(TtrReason.INVALID_SLOT, f"face_up_slot must be 0..{RULES.face_up - 1}",
                              field=f"{FIELD}.face_up_slot", slot=slot)
    card = state["face_up"][slot]
    if card == EMPTY:
        raise RuleError(TtrReason.EMPTY_SLOT, "that face-up slot is empty", slot=slot)
    if second and card == LOCO:
        raise RuleError(TtrReason.SECOND_LOCOMOTIVE, "a face-up locomotive cannot be your second card",
                        slot=slot)
    return int(slot)


def draw_card(state: State, seat: int, slot: int | None, events: list[Event]) -> None:
    """Take the card; end the turn after two cards, a face-up locomotive, or when no card is left."""
    if slot is None:
        card = draw_top(state, events)
        assert card is not None  # check_draw_card saw a card in the deck or the discards
        state["hands"][seat][card] += 1
        events.append({"type": "card_drawn", "seat": seat, "slot": None, "card": name_of(card)})
    else:
        card = state["face_up"][slot]
        state["face_up"][slot] = EMPTY
        state["hands"][seat][card] += 1
        events.append({"type": "card_drawn", "seat": seat, "slot": slot, "card": name_of(card)})
        refill_face_up(state, events)
    if state["drawn"] or (slot is not None and card == LOCO) or not can_draw(state, second=True):
        end_turn(state, events)
    else:
        state["drawn"] = 1


def draw_options(state: State, seat: int) -> list[dict[str, Any]]:
    """Every one-card draw open to ``seat`` now."""
    second = state["drawn"] > 0
    found: list[dict[str, Any]] = [
        {"kind": "draw_card", "slot": slot} for slot, card in enumerate(state["face_up"])
        if card != EMPTY and not (second and card == LOCO)]
    if state["deck"] or state["discard"]:
        found.append({"kind": "draw_card", "slot": None})
    return found
