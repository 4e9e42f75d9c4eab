"""Outcomes of the draw! checks for Dynamite, Jail and Barrel (NOTES c, BANG-069..076)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tabletop_server.service.engine.ruleset import Event, State
from tabletop_server.service.games.bang.checks import check, dynamite_safe, is_heart
from tabletop_server.service.games.bang.damage import damage
from tabletop_server.service.games.bang.effects.attacks import missed_once
from tabletop_server.service.games.bang.state import discard_from_table, in_play, next_alive, player
from tabletop_server.service.games.bang.turn import end_turn

DYNAMITE_DAMAGE = 3
# Start-of-turn steps a failed Jail skips: phase 1, and the Bomb's check (RULINGS AD-052).
SKIPPED_BY_JAIL = ("t_draw", "t_bomb")


@check("dynamite", dynamite_safe)
def dynamite(state: State, seat: int, good: bool, events: list[Event], ctx: Mapping[str, Any]) -> None:
    """Explode for 3 (no author, BANG-074) or pass to the next living player on the left (BANG-071)."""
    card = in_play(state, seat, "dynamite")
    if card is None:
        return
    if not good:
        discard_from_table(state, seat, card)
        events.append({"kind": "explode", "seat": seat, "cards": [card]})
        damage(state, seat, DYNAMITE_DAMAGE, None, events)
        return
    target = next_alive(state, seat)
    while target != seat and in_play(state, target, "dynamite"):
        target = next_alive(state, target)  # to the first player on the left without one
    if target != seat:
        # A card moving between tables keeps its marks (an A&D Bomb keeps its cubes).
        player(state, seat)["table"].remove(card)
        player(state, target)["table"].append(card)
        events.append({"kind": "move", "seat": seat, "other": target, "cards": [card], "reason": "dynamite"})


@check("jail", is_heart)
def jail(state: State, seat: int, good: bool, events: list[Event], ctx: Mapping[str, Any]) -> None:
    """The Jail is discarded either way; a failed check skips phases 1 and 2 (RULINGS BANG-076)."""
    card = in_play(state, seat, "jail")
    if card is not None:
        discard_from_table(state, seat, card)
    events.append({"kind": "jail", "seat": seat, "success": good})
    if good:
        return
    # Drop this turn's phase 1 step (and the Bomb's check after it: RULINGS AD-052); phase 3
    # (discard down to life) still applies.
    state["pending"][:] = [r for r in state["pending"] if not (r["kind"] in SKIPPED_BY_JAIL and r["source"] == seat)]
    state["phase"] = "play"
    end_turn(state, seat, events)


@check("barrel", is_heart)
def barrel(state: State, seat: int, good: bool, events: list[Event], ctx: Mapping[str, Any]) -> None:
    """A heart counts as one Missed! effect on the shot being answered (BANG-069, 100)."""
    events.append({"kind": "barrel", "seat": seat, "success": good})
    req = state["pending"][-1] if state["pending"] else None
    if good and req is not None and req["kind"] == "bang" and req["seat"] == seat:
        missed_once(state, req, events)
