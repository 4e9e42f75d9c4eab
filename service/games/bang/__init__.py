"""BANG!: the complete base game (4 to 7 players), hosted through the ruleset contract.

The contract is documented once in :mod:`service.engine.ruleset`. Facts are data rows
(``data/*.json``), card effects and character abilities are named handlers
(``effects/``, ``characters/``), pending decisions are data (``pending.py``). Where
the sources differ, ``shared/reference/RULINGS.md`` decides; see ``docs/bang.md``.
"""

from __future__ import annotations

from service.engine.ruleset import Event, OptionInfo, Options, RulesetInfo, State
from service.games.bang import catalog, checks, costs, damage, turn  # noqa: F401  (registers steps and requests)
from service.games.bang.actions import apply, legal_actions, to_act
from service.games.bang.characters import ABILITIES
from service.games.bang.characters import base as _base_characters  # noqa: F401  (registers abilities)
from service.games.bang.characters import dodge_city as _dc_characters  # noqa: F401  (registers abilities)
from service.games.bang.characters import dodge_city_turn as _dc_turn  # noqa: F401  (registers abilities, steps)
from service.games.bang.codec import (
    decode_action,
    decode_options,
    encode_action,
    encode_event,
    encode_options,
    rematch_options,
)
from service.games.bang.damage import WIN_RULES
from service.games.bang.effects import EFFECTS, attacks, draws, equipment, green, healing  # noqa: F401  (registers)
from service.games.bang.effects import checks as _check_outcomes  # noqa: F401  (registers draw! outcomes)
from service.games.bang.setup import setup as _deal
from service.games.bang.setup import start
from service.games.bang.tables import CARDS, CHARACTERS, ROLE_POOLS, ROLES, TYPES, WIN_RULE_OF
from service.games.bang.versions import RULES_VERSION
from service.games.bang.view import project, view

catalog.validate(TYPES, CARDS, CHARACTERS, ROLES, ROLE_POOLS, EFFECTS, ABILITIES, WIN_RULE_OF, WIN_RULES)

INFO = RulesetInfo(
    id="bang",
    display_name="BANG!",
    min_seats=4,
    max_seats=7,
    rules_version=RULES_VERSION,
    proto_field="bang",
    max_actions=2_000,  # random bots end every game within 389 actions (400 seeds); about 5x that
    options=(
        OptionInfo("expansions", "Expansions in play (none is built yet: asking for one is INVALID_ARGUMENT)",
                   "[]", ("BANG_EXPANSION_DODGE_CITY", "BANG_EXPANSION_ARMED_AND_DANGEROUS")),
        OptionInfo("sheriffExtraCard", "House rule (RULINGS BANG-010): the Sheriff starts with one more card "
                   "than his printed bullets", "false", ("false", "true")),
        OptionInfo("keptCharacters", "Rematch (BANG-032): {seat, character} pairs; those seats keep that character, "
                   "every other seat draws one not in use (codec.rematch_options builds the rematch)", "[]"),
        OptionInfo("retiredCharacters", "Rematch (BANG-032): character keys not dealt, e.g. the eliminated "
                   "players' old ones so that they draw a new character", "[]"),
        OptionInfo("sheriffSeat", "Rematch (BANG-033): the Sheriff's seat (last game's Sheriff + 1 when the role "
                   "passes to the left); the other roles are dealt at random", "unset (all roles at random)"),
    ),
)


def setup(options: Options, seat_count: int, seed: int) -> State:
    """Deal the game and run the Sheriff's turn up to his first decision."""
    state = _deal(options, seat_count, seed)
    opening = start(state)
    if opening:  # handed to the service once by opening_events, so that the first turn is announced
        state["opening"] = opening
    return state


def opening_events(state: State) -> list[Event]:
    """What setup did in the open (the Sheriff's first draw, Black Jack's shown card), taken out once."""
    return list(state.pop("opening", []))


def is_over(state: State) -> bool:
    """Whether the game has ended."""
    return bool(state["phase"] == "over")


__all__ = ["INFO", "apply", "decode_action", "decode_options", "encode_action", "encode_event",
           "encode_options", "is_over", "legal_actions", "opening_events", "project", "rematch_options", "setup", "to_act", "view"]
