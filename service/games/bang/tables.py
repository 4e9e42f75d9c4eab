"""Lookup tables built once at import from the data rows (cheap per request)."""

from __future__ import annotations

from tabletop_server.service.games.bang.catalog import (
    Card,
    CardType,
    Character,
    KillRule,
    Mode,
    Role,
    characters_for,
    deck_for,
    load,
    load_kill_rules,
    load_modes,
)

TYPES: dict[str, CardType]
CARDS: dict[str, Card]
CHARACTERS: dict[str, Character]
ROLES: dict[str, Role]
ROLE_POOLS: dict[int, tuple[str, ...]]
WIN_RULE_OF: dict[int, str]
TYPES, CARDS, CHARACTERS, ROLES, ROLE_POOLS, WIN_RULE_OF = load()
# Rewards and penalties per game mode (the win rule's name).
KILL_RULES: dict[str, tuple[KillRule, ...]] = load_kill_rules()
# Game modes by name (who starts, face-up roles, 3-player targets) and the expansions each
# player count requires (3 and 8 players: Dodge City).
MODES: dict[str, Mode]
REQUIRES: dict[int, tuple[str, ...]]
MODES, REQUIRES = load_modes()

# Card id -> its type, so rule code never goes through the key twice.
TYPE_OF: dict[str, CardType] = {cid: TYPES[c.key] for cid, c in CARDS.items()}
# Card id -> name key, and the base deck in a fixed order (setup shuffles it).
KEY_OF: dict[str, str] = {cid: c.key for cid, c in CARDS.items()}
DECK: tuple[str, ...] = deck_for(CARDS, ())
BASE_CHARACTERS: tuple[str, ...] = characters_for(CHARACTERS, ())


def deck_and_characters(expansions: list[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The card ids and the character keys in play with ``expansions`` (base included).

    Built on every call (once per setup, ~100 rows): no cache that could outlive the tables.
    """
    return deck_for(CARDS, expansions), characters_for(CHARACTERS, expansions)


def mode_of(seat_count: int) -> Mode:
    """The game mode of a table of ``seat_count`` players (its win rule's name in ``roles.json``)."""
    return MODES[WIN_RULE_OF[seat_count]]
