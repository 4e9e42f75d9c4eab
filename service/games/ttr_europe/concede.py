"""Conceding: a seat stops playing and keeps its score (the ruleset's ``concede``, issue 15).

No rule of the game covers it; the service's decision (``docs/ttr_europe.md``, "Conceding"):

- The seat takes no more turns (``turns.end_turn`` passes over it). Its routes and stations stay
  on the board, blocking as before, and are scored at the end with its tickets like everyone's;
  it ranks below every seat that did not concede (``scoring.winners``).
- A decision it left open is closed as the rules close it otherwise: tickets it was offered go
  back (starting tickets to the box, later ones under the pile, as when they are not kept), a
  tunnel attempt is withdrawn, and if it was the seat's turn the turn ends (in the last round
  that was its last turn).
- When at most one seat still plays, the game is scored at once.
"""

from __future__ import annotations

from typing import Any

from tabletop_server.service.engine.errors import EngineReason, RuleError
from tabletop_server.service.games.ttr_europe.layout import State
from tabletop_server.service.games.ttr_europe.tunnels import give_up_tunnel
from tabletop_server.service.games.ttr_europe.turns import conceded, end_turn, finish, playing, start_play

Event = dict[str, Any]


def concede(state: State, seat: int) -> list[Event]:
    """``seat`` concedes now, whoever's turn it is; the events of what that closed."""
    if state["phase"] == "over":
        raise RuleError(EngineReason.GAME_FINISHED, "the game is over")
    if seat in conceded(state):
        raise RuleError(EngineReason.SEAT_CONCEDED, "this seat has conceded already", seat=seat)
    events: list[Event] = []
    state["conceded"] = [*conceded(state), seat]
    offered = state["offered"][seat]
    state["offered"][seat] = []
    if state["phase"] == "tickets":
        state["box"].extend(offered)
        if len(playing(state)) <= 1:
            finish(state, events)
        elif not any(state["offered"]):
            start_play(state, events)
        return events
    state["ticket_pile"].extend(offered)
    if len(playing(state)) <= 1:
        _close_turn(state, events)
        finish(state, events)
    elif state["turn"] == seat:
        _close_turn(state, events)
        end_turn(state, events)
    return events


def _close_turn(state: State, events: list[Event]) -> None:
    """Close the turn seat's open decision: its tunnel attempt, tickets it was offered."""
    turn = state["turn"]
    if state["tunnel"] is not None:
        give_up_tunnel(state, turn, events)
    state["ticket_pile"].extend(state["offered"][turn])
    state["offered"][turn] = []
