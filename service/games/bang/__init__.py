"""BANG!: the base game (4 to 7 players; 3 and 8 with Dodge City), Dodge City and Armed & Dangerous, hosted
through the ruleset contract.

The contract is documented once in :mod:`service.engine.ruleset`. Facts are data rows
(``data/*.json``), card effects and character abilities are named handlers
(``effects/``, ``characters/``), pending decisions are data (``pending.py``). Where
the sources differ, ``shared/reference/RULINGS.md`` decides; see ``docs/bang.md``.
"""

from __future__ import annotations

from typing import cast

from tabletop_server.service.engine.registry import register
from tabletop_server.service.engine.ruleset import Event, OptionInfo, Options, RulesetInfo, SeatRange
from tabletop_server.service.games.bang import catalog, checks, costs, cube_requests, damage, turn, upgrades  # noqa: F401  (registers)
from tabletop_server.service.games.bang.abilities import ABILITIES
from tabletop_server.service.games.bang.actions import apply, legal_actions, to_act
from tabletop_server.service.games.bang.bots import BOTS
from tabletop_server.service.games.bang.catalog_codec import (
    CATALOG_LANGUAGES,
    encode_catalog,
    localize_catalog,
)
from tabletop_server.service.games.bang.characters import armed_and_dangerous as _ad_characters  # noqa: F401  (registers abilities)
from tabletop_server.service.games.bang.characters import base as _base_characters  # noqa: F401  (registers abilities)
from tabletop_server.service.games.bang.characters import dodge_city as _dc_characters  # noqa: F401  (registers abilities)
from tabletop_server.service.games.bang.characters import dodge_city_turn as _dc_turn  # noqa: F401  (registers abilities, steps)
from tabletop_server.service.games.bang.codec import (
    decode_action,
    decode_options,
    encode_action,
    encode_event,
    encode_options,
    rematch_options,
)
from tabletop_server.service.games.bang.concede import concede, rematch
from tabletop_server.service.games.bang.damage import WIN_RULES
from tabletop_server.service.games.bang.effects import (  # noqa: F401  (registers)
    EFFECTS,
    armed,
    attacks,
    bandolier,
    bell_tower,
    big_fifty,
    bomb,
    buntline_special,
    dangerous,
    draws,
    equipment,
    green,
    healing,
    thunderer,
    tumbleweed,
)
from tabletop_server.service.games.bang.effects import checks as _check_outcomes  # noqa: F401  (registers draw! outcomes)
from tabletop_server.service.games.bang.layout import State
from tabletop_server.service.games.bang.setup import expansion_option, start
from tabletop_server.service.games.bang.setup import setup as _deal
from tabletop_server.service.games.bang.standings import standings
from tabletop_server.service.games.bang.tables import (
    CARDS,
    CHARACTERS,
    MODES,
    REQUIRES,
    ROLE_POOLS,
    ROLES,
    TYPES,
    WIN_RULE_OF,
)
from tabletop_server.service.games.bang.versions import RULES_VERSION
from tabletop_server.service.games.bang.view import project, view, views

catalog.validate(TYPES, CARDS, CHARACTERS, ROLES, ROLE_POOLS, EFFECTS, ABILITIES, WIN_RULE_OF, WIN_RULES)
catalog.validate_modes(MODES, ROLE_POOLS, WIN_RULE_OF, REQUIRES)


# What each Dodge City house rule changes, for a client developer (RULINGS: the Dodge City table).
HOUSE_RULE_TEXT = {
    "jose_delgado_in_play": ("House rule (Dodge City only): José Delgado discards a blue card he has in play, "
                             "instead of one from his hand, to draw 2 cards."),
    "pixie_pete_draws_four": "House rule (Dodge City only): Pixie Pete draws 4 cards in his draw phase instead of 3.",
    "sean_mallory_unlimited": ("House rule (Dodge City only): Sean Mallory has no hand limit at the end of his "
                               "turn, instead of 10 cards."),
}


def _option_name(key: str) -> str:
    """The proto3 JSON name of a BangOptions field (``pixie_pete_draws_four`` -> ``pixiePeteDrawsFour``)."""
    head, *rest = key.split("_")
    return head + "".join(w.title() for w in rest)


def _seat_ranges() -> tuple[SeatRange, ...]:
    """Runs of player counts with the same required expansions (roles.json ``requires``), as ListRulesets
    lists them: 3 (Dodge City), 4 to 7 (nothing), 8 (Dodge City)."""
    out: list[SeatRange] = []
    for n in sorted(ROLE_POOLS):
        needs = tuple(("expansions", expansion_option(e)) for e in REQUIRES.get(n, ()))
        if out and out[-1].requires == needs and out[-1].max_seats == n - 1:
            out[-1] = SeatRange(out[-1].min_seats, n, needs)
        else:
            out.append(SeatRange(n, n, needs))
    return tuple(out)

INFO = RulesetInfo(
    id="bang",
    display_name="BANG!",
    min_seats=min(ROLE_POOLS),  # 3 and 8 players need Dodge City: see seat_ranges
    max_seats=max(ROLE_POOLS),
    rules_version=RULES_VERSION,
    proto_field="bang",
    max_actions=2_000,  # random bots end every game within 389 actions (400 seeds); about 5x that
    options=(
        OptionInfo("expansions", "Expansions mixed into the base game. BANG_EXPANSION_DODGE_CITY adds its 40 cards "
                   "and 15 characters and allows 3 and 8 players (see seat_ranges). "
                   "BANG_EXPANSION_ARMED_AND_DANGEROUS adds its 28 cards, 8 characters and the 32 cubes (load "
                   "tokens: the view's cube_supply and each player's cubes). Both may be chosen together.", "[]",
                   ("BANG_EXPANSION_DODGE_CITY", "BANG_EXPANSION_ARMED_AND_DANGEROUS")),
        OptionInfo("sheriffExtraCard", "House rule: the Sheriff's starting hand has one card more than his "
                   "character's bullets (by the printed rules it equals the bullets; his extra bullet is life only).",
                   "false", ("false", "true")),
        OptionInfo("keptCharacters", "For a rematch at the same table: a list of {seat, character} pairs. Each "
                   "listed seat plays that character again; every other seat gets a random character not in use. "
                   "Cards are never kept. A client builds it from the finished game's view: survivors keep theirs.",
                   "[]"),
        OptionInfo("retiredCharacters", "For a rematch: character keys (such as \"bart_cassidy\") that are not dealt "
                   "in this game, usually the eliminated players' old characters so that they get a new one.", "[]"),
        OptionInfo("sheriffSeat", "For a rematch: the seat that gets the Sheriff (the role passes to the next seat "
                   "after the last game's Sheriff); the other roles are dealt at random. Not allowed in a 3-player "
                   "game, which has no Sheriff.", "unset (all roles at random)"),
        *(OptionInfo(_option_name(key), text, "false", ("false", "true")) for key, text in HOUSE_RULE_TEXT.items()),
    ),
    seat_ranges=_seat_ranges(),
)


def rules_version(state: State) -> str:
    """The rules version a game was dealt with (its commitment names it, docs/fair-play.md)."""
    return str(state["v"])


def setup(options: Options, seat_count: int, seed: int, rules_version: str | None = None) -> State:
    """Deal the game and run the Sheriff's turn up to his first decision."""
    state = _deal(options, seat_count, seed, rules_version)
    opening = start(state)
    if opening:  # handed to the service once by opening_events, so that the first turn is announced
        state["opening"] = opening
    return state


def opening_events(state: State) -> list[Event]:
    """What setup did in the open (the Sheriff's first draw, Black Jack's shown card), taken out once."""
    return list(cast("list[Event]", state.pop("opening", [])))  # the wing's typed events, as the engine's


def is_over(state: State) -> bool:
    """Whether the game has ended."""
    return bool(state["phase"] == "over")


__all__ = [
    "BOTS",
    "CATALOG_LANGUAGES",
    "INFO",
    "apply",
    "concede",
    "decode_action",
    "decode_options",
    "encode_action",
    "encode_catalog",
    "encode_event",
    "encode_options",
    "is_over",
    "legal_actions",
    "localize_catalog",
    "opening_events",
    "project",
    "rematch",
    "rematch_options",
    "rules_version",
    "setup",
    "standings",
    "to_act",
    "view",
    "views",
]

# Offered by the server, listed second (service/engine/registry.py).
register(__name__, listed=2)
