"""Turn structure: who acts, which kinds of action fit the moment, and the end of a turn.

TTR_NOTES section 5: one action per turn (TTR-013); drawing train cards is two
cards (TTR-015); a ticket draw or a tunnel leaves a decision pending for the same
seat; a turn that ends with 2 or fewer trains starts the last round, in which every
player, the trigger included, plays one more turn (TTR-055).
"""

from __future__ import annotations

from copy import deepcopy
from typing import Any

from tabletop_server.service.engine.errors import EngineReason, RuleError
from tabletop_server.service.games.ttr_europe.board import RULES
from tabletop_server.service.games.ttr_europe.cards import EMPTY, refill_face_up
from tabletop_server.service.games.ttr_europe.layout import State
from tabletop_server.service.games.ttr_europe.reasons import TtrReason
from tabletop_server.service.games.ttr_europe.scoring import final_result

Event = dict[str, Any]

# The kinds that start a turn's one action (TTR-013); ``pass`` only when nothing else is possible.
TURN_KINDS = ("draw_card", "claim_route", "build_station", "draw_tickets", "pass")


def to_act(state: State) -> list[int]:
    """Seats whose decision is awaited: several during the initial ticket choice."""
    phase = state["phase"]
    if phase == "over":
        return []
    if phase == "tickets":
        return [seat for seat, offered in enumerate(state["offered"]) if offered]
    return [state["turn"]]


def open_kinds(state: State, seat: int) -> tuple[str, ...]:
    """The action kinds ``seat`` may take now: the single source of turn structure."""
    phase = state["phase"]
    if phase == "over":
        return ()
    if phase == "tickets":
        return ("keep_tickets",) if state["offered"][seat] else ()
    if seat != state["turn"]:
        return ()
    if state["tunnel"] is not None:
        return ("pay_tunnel", "withdraw_tunnel")
    if state["offered"][seat]:
        return ("keep_tickets",)
    if state["drawn"]:
        return ("draw_card",)
    return TURN_KINDS


def gate(state: State, seat: int, kind: str) -> None:
    """Raise unless an action of ``kind`` by ``seat`` fits the moment; the error says why."""
    if kind in open_kinds(state, seat):
        return
    phase = state["phase"]
    if phase == "over":
        raise RuleError(EngineReason.GAME_FINISHED, "the game is over")
    if phase == "tickets":
        if not state["offered"][seat]:
            raise RuleError(EngineReason.NOT_YOUR_DECISION, "you have chosen your tickets; wait for "
                            "the other players", seat=seat)
        raise RuleError(TtrReason.MUST_CHOOSE_TICKETS, "choose which starting tickets to keep first")
    if seat != state["turn"]:
        raise RuleError(EngineReason.NOT_YOUR_TURN, f"it is seat {state['turn']}'s turn", seat=seat,
                        turn=state["turn"])
    _explain_pending(state, seat, kind)


def end_turn(state: State, events: list[Event], passed: bool = False) -> None:
    """Close the current turn: last-round bookkeeping, then the next seat or final scoring.

    Conceded seats (``concede.py``) are passed over; in the last round each one passed over
    uses up its last turn, so the round still ends after the trigger's turn."""
    seat, count = state["turn"], state["n"]
    state["drawn"] = 0
    # Slots left empty while deck and discards were exhausted fill again once cards are back.
    if EMPTY in state["face_up"] and (state["deck"] or state["discard"]):
        refill_face_up(state, events)
    # Interpretation (no rule covers it): when every player in a row could only pass, nothing
    # can ever change again, so the game ends and is scored instead of stalling forever.
    state["passes"] = state["passes"] + 1 if passed else 0
    if state["passes"] >= len(playing(state)):
        finish(state, events)
        return
    last = state["last"]
    if last is None:
        if state["trains"][seat] <= RULES.end_trains:
            state["last"] = {"trigger": seat, "left": count}
            state["phase"] = "last"
            events.append({"type": "last_round", "seat": seat, "trains": state["trains"][seat]})
    else:
        last["left"] -= 1
    nxt = (seat + 1) % count
    while nxt in conceded(state):
        if state["last"] is not None:
            state["last"]["left"] -= 1
        nxt = (nxt + 1) % count
    if state["last"] is not None and state["last"]["left"] <= 0:
        finish(state, events)
        return
    state["turn"] = nxt
    events.append({"type": "turn_started", "seat": state["turn"]})


def start_play(state: State, events: list[Event]) -> None:
    """Every starting ticket choice is made: the first player's turn begins (the next one still
    playing, when the first conceded during the choice)."""
    state["phase"] = "play"
    first = state["first"]
    while first in conceded(state):
        first = (first + 1) % state["n"]
    state["turn"] = first
    events.append({"type": "turn_started", "seat": state["turn"]})


def conceded(state: State) -> list[int]:
    """The seats that conceded, in the order they did (absent from games nobody conceded in)."""
    return list(state.get("conceded", ()))


def playing(state: State) -> list[int]:
    """The seats that have not conceded."""
    out = conceded(state)
    return [s for s in range(state["n"]) if s not in out]


def finish(state: State, events: list[Event]) -> None:
    """Score the game and close it."""
    state["phase"] = "over"
    result = final_result(state)
    state["result"] = result
    # A deep copy for the event, so the event and the state never share a list.
    events.append({"type": "game_scored", **deepcopy(result)})


def is_over(state: State) -> bool:
    """Whether final scoring is done."""
    return bool(state["phase"] == "over")


# Helpers


def _explain_pending(state: State, seat: int, kind: str) -> None:
    """Within the seat's own turn, why ``kind`` (not open now) is refused."""
    if state["tunnel"] is not None:
        raise RuleError(TtrReason.MUST_DECIDE_TUNNEL, "pay the tunnel's extra cost or withdraw")
    if state["offered"][seat]:
        raise RuleError(TtrReason.MUST_CHOOSE_TICKETS, "choose which drawn tickets to keep")
    if kind in ("pay_tunnel", "withdraw_tunnel"):
        raise RuleError(TtrReason.NO_TUNNEL_PENDING, "no tunnel is waiting for your decision")
    if kind == "keep_tickets":
        raise RuleError(TtrReason.TICKET_NOT_OFFERED, "draw tickets before choosing which to keep")
    raise RuleError(TtrReason.MUST_DRAW_SECOND_CARD, "take your second train card")
