"""The turn: start-of-turn "draw!" checks, phase 1 draw, phase 3 discard, next player.

Start of turn (NOTES c "Start-of-turn order"): the engine steps named in
``START_STEPS``, in order: the draw! checks of the cards in play (Dynamite, then Jail), then
phase 1, queued so that a Lucky Duke choice or a dying window can interrupt them. Each card's
module inserts its own with :func:`add_start_step` (Dynamite and Jail, ``effects/checks.py``; the
Bomb after the Jail; Vera Custer's choice after the checks, before phase 1); a step that only one
character needs names that character, so that no other turn (and no base game) pays for it. A lost turn
(a failed Jail) skips phases 1 and 2 and the steps added ``skippable``, but phase 3 still applies
(RULINGS BANG-076).

Per-turn counters are data too: ``state["uses"]`` (absent until something is counted,
dropped when a turn starts) counts uses of any ability or card per seat in this turn;
a limit is a number in a data row (a character's ``uses_per_turn`` trait: Doc Holyday
once, José Delgado twice; no limit: Chuck Wengam). The BANG! card limit keeps its own
counter, ``state["bangs"]``, which the view shows.
"""

from __future__ import annotations

from tabletop_server.service.engine.errors import RuleError
from tabletop_server.service.games.bang.abilities import ABILITIES, ability_of
from tabletop_server.service.games.bang.cube_requests import ask_recharge
from tabletop_server.service.games.bang.layout import (
    Action,
    Event,
    PlainRequest,
    PlainStep,
    State,
    StepKindName,
)
from tabletop_server.service.games.bang.modifiers import turn_started
from tabletop_server.service.games.bang.pending import DiscardFromHand, Step, request, step
from tabletop_server.service.games.bang.reasons import Reason
from tabletop_server.service.games.bang.state import (
    discard_from_hand,
    draw,
    next_alive,
    player,
    push,
    source_seat,
)
from tabletop_server.service.games.bang.tables import CHARACTERS

DRAW_COUNT = 2
# The start-of-turn steps, in the order they run (each is a registered engine step): phase 1 here, the
# cards' draw! checks before it (Dynamite, then Jail: ``effects/checks.py``; the Bomb), each added by its card.
START_STEPS: list[StepKindName] = ["t_draw"]
# A start step queued only in the turns of one (printed) character: step name -> character key.
START_STEP_CHARACTER: dict[str, str] = {}
# A start step queued only in the games of one expansion (the Bomb's): step name -> expansion key.
START_STEP_EXPANSION: dict[str, str] = {}
# The start steps a lost turn drops (a failed Jail): phase 1, and those added ``skippable`` (the Bomb's
# check, RULINGS AD-052).
SKIPPABLE_STEPS: list[str] = ["t_draw"]


def add_start_step(name: StepKindName, before: StepKindName, character: str | None = None, expansion: str | None = None,
                   skippable: bool = False) -> None:
    """Insert a registered step into the start of every turn (or only of ``character``'s turns, or
    only in games with ``expansion``), just before ``before``; ``skippable``: a lost turn drops it."""
    if name in START_STEPS:
        raise ValueError(f"start step {name!r} added twice")
    START_STEPS.insert(START_STEPS.index(before), name)
    if skippable:
        SKIPPABLE_STEPS.append(name)
    if character is not None:
        START_STEP_CHARACTER[name] = character
    if expansion is not None:
        START_STEP_EXPANSION[name] = expansion


def uses(state: State, seat: int, name: str) -> int:
    """How often ``seat`` used ``name`` (an ability or a card) in this turn."""
    return int(state.get("uses", {}).get(f"{seat}:{name}", 0))


def count_use(state: State, seat: int, name: str) -> None:
    """Count one use of ``name`` by ``seat`` in this turn."""
    counters = state.setdefault("uses", {})
    key = f"{seat}:{name}"
    counters[key] = counters.get(key, 0) + 1


def check_uses_left(state: State, seat: int, name: str, limit: int | None) -> None:
    """Refuse a use beyond ``limit`` per turn (None: no limit)."""
    if limit is not None and uses(state, seat, name) >= limit:
        raise RuleError(Reason.USED_UP_THIS_TURN, f"{name} can be used {limit} time(s) per turn", limit=limit)


def hand_limit(state: State, seat: int) -> int:
    """Cards a player may keep at the end of his turn: his current life (BANG-023), or the
    character's ``hand_limit`` trait (Sean Mallory: 10) as his ability reads it (a house rule
    may lift it). One lookup of the acting character: every end of turn asks."""
    p = state["p"][seat]
    character = CHARACTERS[p.get("as") or p["char"]]
    fixed = character.traits.get("hand_limit")
    if fixed is None:
        return max(0, int(p["life"]))
    return ABILITIES[character.ability].hand_limit(state, int(fixed))


def start_turn(state: State, seat: int, events: list[Event]) -> None:
    """Begin ``seat``'s turn: queue its start-of-turn steps."""
    state["turn"] = seat
    state["turn_no"] += 1
    state["phase"] = "draw"
    state["bangs"] = 0
    state.pop("uses", None)
    turn_started(state)
    events.append({"kind": "turn", "seat": seat, "count": state["turn_no"]})
    printed = state["p"][seat]["char"]
    expansions = state["opts"]["expansions"]
    for name in reversed(START_STEPS):
        only = START_STEP_CHARACTER.get(name)
        game = START_STEP_EXPANSION.get(name)
        if (only is None or only == printed) and (game is None or game in expansions):
            push(state, name, None, seat)


def next_turn(state: State, events: list[Event]) -> None:
    """Pass the turn to the next living player on the left."""
    start_turn(state, next_alive(state, state["turn"]), events)


def end_turn(state: State, seat: int, events: list[Event]) -> None:
    """Phase 3: discard down to current life, then the turn passes (BANG-023)."""
    over = len(player(state, seat)["hand"]) - hand_limit(state, seat)
    if over > 0:
        state["phase"] = "discard"
        push(state, "discard", seat, seat)
    else:
        state["phase"] = "end"


def draw_phase_done(state: State) -> None:
    """Phase 1 is over: phase 2 starts."""
    state["phase"] = "play"


@step("t_draw")
class DrawPhase(Step[PlainStep]):
    """Phase 1: draw 2, or as the character says."""

    def run(self, state: State, req: PlainStep, events: list[Event]) -> None:
        seat = source_seat(req)
        if not player(state, seat)["alive"] or state["turn"] != seat:
            return
        if not ability_of(state, seat).draw_phase(state, seat, events):
            draw(state, seat, DRAW_COUNT, events)
            draw_phase_done(state)


@request("discard")
class DiscardExcess(DiscardFromHand[PlainRequest]):
    """Phase 3: the player picks cards to discard, one at a time, down to his life."""

    def resolve(self, state: State, req: PlainRequest, action: Action, events: list[Event]) -> None:
        seat = req["seat"]
        discard_from_hand(state, seat, action["card"])
        events.append({"kind": "discard", "seat": seat, "cards": [action["card"]], "reason": "hand_limit"})
        if len(player(state, seat)["hand"]) <= hand_limit(state, seat):
            state["pending"].pop()
            state["phase"] = "end"
        if "supply" in state:  # Armed & Dangerous: 1 cube per card he is forced to discard (AD-011)
            ask_recharge(state, seat, "hand_limit")

    def settled(self, state: State, req: PlainRequest) -> bool:
        if len(player(state, req["seat"])["hand"]) > hand_limit(state, req["seat"]):
            return False
        state["phase"] = "end"  # Sid Ketchum discarded down to his life meanwhile
        return True

    def auto(self, state: State, req: PlainRequest) -> Action | None:
        hand = player(state, req["seat"])["hand"]
        if len(hand) - hand_limit(state, req["seat"]) >= len(hand):
            return {"type": "discard", "card": hand[0]}
        return None
