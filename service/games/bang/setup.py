"""Setting a game up (BANG-004, 005, 008..010, 013; RULINGS BANG-010).

Roles are dealt from the pool for the player count, characters from the 16 base ones,
both by the seeded generator. Life is the character's bullets, +1 for the Sheriff.
The starting hand is the printed bullets (the seeds; the Sheriff's extra bullet is
life only), one more for the Sheriff with the ``sheriff_extra_card`` house rule.
The Sheriff takes the first turn.
"""

from __future__ import annotations

from typing import Any

from service.engine.errors import EngineReason, MalformedAction
from service.engine.rng import Rng, seed_state
from service.engine.ruleset import Options, State
from service.games.bang.reasons import Reason
from service.games.bang.tables import BASE_CHARACTERS, CHARACTERS, DECK, ROLE_POOLS

RULES_VERSION = "bang-base-1"
DEFAULT_OPTIONS: dict[str, Any] = {"expansions": [], "sheriff_extra_card": False}
BUILT_EXPANSIONS: frozenset[str] = frozenset()


def normalize_options(options: Options | None) -> dict[str, Any]:
    """Defaults filled in; an expansion that is not built yet is refused."""
    opts = {**DEFAULT_OPTIONS, **(options or {})}
    unknown = set(opts) - set(DEFAULT_OPTIONS)
    if unknown:
        raise MalformedAction(EngineReason.INVALID_OPTION, f"Unknown options {sorted(unknown)}",
                              field="options.bang")
    missing = [e for e in opts["expansions"] if e not in BUILT_EXPANSIONS]
    if missing:
        raise MalformedAction(Reason.EXPANSION_NOT_AVAILABLE,
                              f"Expansion(s) {', '.join(missing)} not available yet; play the base game",
                              field="options.bang.expansions")
    return {"expansions": list(opts["expansions"]), "sheriff_extra_card": bool(opts["sheriff_extra_card"])}


def setup(options: Options, seat_count: int, seed: int) -> State:
    """Deal roles, characters, life and hands; the Sheriff's turn is started."""
    opts = normalize_options(options)
    if seat_count not in ROLE_POOLS:
        raise MalformedAction(EngineReason.INVALID_SEAT_COUNT, "BANG! base takes 4 to 7 players",
                              field="seats")
    state: State = {"v": RULES_VERSION, "opts": opts, "rng": seed_state(seed), "deck": list(DECK),
                    "discard": [], "p": [], "turn": 0, "phase": "draw", "turn_no": 0, "bangs": 0,
                    "pending": [], "winners": []}
    rng = Rng(state)
    roles = list(ROLE_POOLS[seat_count])
    rng.shuffle(roles)
    chars = list(BASE_CHARACTERS)
    rng.shuffle(chars)
    rng.shuffle(state["deck"])
    for seat in range(seat_count):
        ch = CHARACTERS[chars[seat]]
        sheriff = roles[seat] == "sheriff"
        life = ch.life + (1 if sheriff else 0)
        cards = ch.life + (1 if sheriff and opts["sheriff_extra_card"] else 0)
        hand = [state["deck"].pop() for _ in range(cards)]
        state["p"].append({"role": roles[seat], "char": ch.key, "life": life, "max": life,
                           "hand": hand, "table": [], "alive": True})
    state["turn"] = roles.index("sheriff")
    return state


def start(state: State) -> None:
    """Start the Sheriff's first turn (run by the package's ``setup``)."""
    from service.games.bang.actions import advance
    from service.games.bang.turn import start_turn
    start_turn(state, state["turn"], [])
    advance(state, [])
