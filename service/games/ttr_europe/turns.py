"""Turn structure: who acts, which kinds of action fit the moment, and the end of a turn.

TTR_NOTES section 5: one action per turn (TTR-013); drawing train cards is two
cards (TTR-015); a ticket draw or a tunnel leaves a decision pending for the same
seat; a turn that ends with 2 or fewer trains starts the last round, in which every
player, the trigger included, plays one more turn (TTR-055).
"""

from __future__ import annotations

from typing import Any

from service.engine.errors import EngineReason, RuleError
from service.games.ttr_europe.board import RULES
from service.games.ttr_europe.reasons import TtrReason
from service.games.ttr_europe.scoring import final_result

State = dict[str, Any]
Event = dict[str, Any]

# Action kinds that answer a pending decision; every other kind starts a turn's action.
DECISIONS = ("keep_tickets", "pay_tunnel", "withdraw_tunnel")


def to_act(state: State) -> list[int]:
    """Seats whose decision is awaited: several during the initial ticket choice."""
    phase = state["phase"]
    if phase == "over":
        return []
    if phase == "tickets":
        return [seat for seat, offered in enumerate(state["offered"]) if offered]
    return [state["turn"]]


def gate(state: State, seat: int, kind: str) -> None:
    """Raise unless an action of ``kind`` by ``seat`` fits the moment (phase, turn, pending)."""
    phase = state["phase"]
    if phase == "over":
        raise RuleError(EngineReason.GAME_FINISHED, "the game is over")
    if phase == "tickets":
        if not state["offered"][seat]:
            raise RuleError(EngineReason.NOT_YOUR_DECISION, "you have chosen your tickets; wait for "
                            "the other players", seat=seat)
        if kind != "keep_tickets":
            raise RuleError(TtrReason.MUST_CHOOSE_TICKETS, "choose which starting tickets to keep first")
        return
    if seat != state["turn"]:
        raise RuleError(EngineReason.NOT_YOUR_TURN, f"it is seat {state['turn']}'s turn", seat=seat,
                        turn=state["turn"])
    _gate_pending(state, seat, kind)


def end_turn(state: State, events: list[Event]) -> None:
    """Close the current turn: last-round bookkeeping, then the next seat or final scoring."""
    seat, count = state["turn"], state["n"]
    state["drawn"] = 0
    last = state["last"]
    if last is None:
        if state["trains"][seat] <= RULES.end_trains:
            state["last"] = {"trigger": seat, "left": count}
            state["phase"] = "last"
            events.append({"type": "last_round", "seat": seat, "trains": state["trains"][seat]})
    else:
        last["left"] -= 1
        if last["left"] <= 0:
            finish(state, events)
            return
    state["turn"] = (seat + 1) % count
    events.append({"type": "turn_started", "seat": state["turn"]})


def start_play(state: State, events: list[Event]) -> None:
    """Every starting ticket choice is made: the first player's turn begins."""
    state["phase"] = "play"
    state["turn"] = state["first"]
    events.append({"type": "turn_started", "seat": state["turn"]})


def finish(state: State, events: list[Event]) -> None:
    """Score the game and close it."""
    state["phase"] = "over"
    result = final_result(state)
    state["result"] = result
    events.append({"type": "game_scored", **result})


def is_over(state: State) -> bool:
    """Whether final scoring is done."""
    return bool(state["phase"] == "over")


# Helpers


def _gate_pending(state: State, seat: int, kind: str) -> None:
    """Within the seat's own turn: a pending decision admits only its answer."""
    if state["tunnel"] is not None:
        if kind not in ("pay_tunnel", "withdraw_tunnel"):
            raise RuleError(TtrReason.MUST_DECIDE_TUNNEL, "pay the tunnel's extra cost or withdraw")
        return
    if state["offered"][seat]:
        if kind != "keep_tickets":
            raise RuleError(TtrReason.MUST_CHOOSE_TICKETS, "choose which drawn tickets to keep")
        return
    if kind in ("pay_tunnel", "withdraw_tunnel"):
        raise RuleError(TtrReason.NO_TUNNEL_PENDING, "no tunnel is waiting for your decision")
    if kind == "keep_tickets":
        raise RuleError(TtrReason.TICKET_NOT_OFFERED, "draw tickets before choosing which to keep")
    if state["drawn"] and kind != "draw_card":
        raise RuleError(TtrReason.MUST_DRAW_SECOND_CARD, "take your second train card")
