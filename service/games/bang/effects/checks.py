"""The draw! cards: Dynamite, Jail and Barrel (NOTES c, BANG-069..076): their outcomes, and the start-of-turn
checks of Dynamite and Jail (``t_dynamite``, ``t_jail``: queued by ``turn.start_turn``, added here)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tabletop_server.service.games.bang.checks import check, draw_check, dynamite_safe, is_heart
from tabletop_server.service.games.bang.damage import damage
from tabletop_server.service.games.bang.effects.attacks import missed_once
from tabletop_server.service.games.bang.layout import Event, PlainStep, State
from tabletop_server.service.games.bang.pending import Step, step
from tabletop_server.service.games.bang.state import (
    card_in_effect,
    discard_from_table,
    in_play,
    next_alive,
    player,
    source_seat,
)
from tabletop_server.service.games.bang.turn import SKIPPABLE_STEPS, add_start_step, end_turn

DYNAMITE_DAMAGE = 3


@check("dynamite", dynamite_safe, no_card_good=True)
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
    # Drop this turn's start steps a lost turn skips (phase 1, ``turn.SKIPPABLE_STEPS``); phase 3
    # (discard down to life) still applies.
    state["pending"][:] = [r for r in state["pending"] if not (r["kind"] in SKIPPABLE_STEPS and r["source"] == seat)]
    state["phase"] = "play"
    end_turn(state, seat, events)


@check("barrel", is_heart)
def barrel(state: State, seat: int, good: bool, events: list[Event], ctx: Mapping[str, Any]) -> None:
    """A heart counts as one Missed! effect on the shot being answered (BANG-069, 100)."""
    events.append({"kind": "barrel", "seat": seat, "success": good})
    req = state["pending"][-1] if state["pending"] else None
    if good and req is not None and req["kind"] == "bang" and req["seat"] == seat:
        missed_once(state, req, events)


@step("t_dynamite")
class DynamiteCheck(Step[PlainStep]):
    """Draw! for a Dynamite in front of the turn player (BANG-070)."""

    def run(self, state: State, req: PlainStep, events: list[Event]) -> None:
        seat = source_seat(req)
        if player(state, seat)["alive"] and card_in_effect(state, seat, "dynamite"):
            draw_check(state, seat, "dynamite", events)


@step("t_jail")
class JailCheck(Step[PlainStep]):
    """Draw! for a Jail in front of the turn player (BANG-075)."""

    def run(self, state: State, req: PlainStep, events: list[Event]) -> None:
        seat = source_seat(req)
        if player(state, seat)["alive"] and card_in_effect(state, seat, "jail"):
            draw_check(state, seat, "jail", events)


# Dynamite first, then Jail (NOTES c "Start-of-turn order"), both before phase 1.
add_start_step("t_dynamite", before="t_draw")
add_start_step("t_jail", before="t_draw")
