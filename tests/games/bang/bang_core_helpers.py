"""Helpers for the core tests (``test_bang_core_*.py``): card rows the base deck lacks.

The core's extension points (green cards used from play, costs paid as follow-up
decisions, Missed! effects from play) have no base-game card to exercise them, so
:func:`extra_cards` adds rows, parsed by the catalog's own ``card_row``, to the lookup
tables for one test and removes them afterwards. The rules are then driven through the
public ``legal_actions`` / ``apply`` as usual. The rows copy the shape Dodge City's cards
will have (``shared/reference/bang/cards.json``), under ``test.`` ids.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from tabletop_server.service.engine.errors import RuleError
from tabletop_server.service.engine.ruleset import Action, Event, State
from tabletop_server.service.games.bang import codec, tables
from tabletop_server.service.games.bang.abilities import ABILITIES, Ability
from tabletop_server.service.games.bang.catalog import Character, card_row
from tabletop_server.service.games.bang.pending import STEPS, Step, step
from tabletop_server.service.games.bang.reasons import Reason
from tabletop_server.service.games.bang.state import Request, discard_from_hand, draw, player, trait
from tabletop_server.service.games.bang.turn import START_STEPS, check_uses_left, count_use, uses

ROWS: dict[str, dict[str, Any]] = {
    # Pony Express: green, draw 3 when used.
    "t_pony": {"key": "t_pony", "name": "Test Pony", "color": "green", "effect": "green",
               "use": {"effect": "draw_cards", "args": {"count": 3}}},
    # Buffalo Rifle: green, a BANG! effect at any distance.
    "t_rifle": {"key": "t_rifle", "name": "Test Rifle", "color": "green", "effect": "green",
                "use": {"effect": "bang", "target": "other", "range": "any"}},
    # Bible: green, Missed! symbol: cancels a shot out of turn, then draw 1.
    "t_bible": {"key": "t_bible", "name": "Test Bible", "color": "green", "effect": "green",
                "use": {"effect": "draw_cards", "args": {"count": 1}, "missed": True}},
    # Ten Gallon Hat: green, Missed! symbol, nothing else.
    "t_hat": {"key": "t_hat", "name": "Test Hat", "color": "green", "effect": "green",
              "use": {"effect": "none", "missed": True}},
    # Whisky: brown, discard another card to regain 2 life (here: draw 2, to see it work).
    "t_whisky": {"key": "t_whisky", "name": "Test Whisky", "color": "brown", "effect": "draw_cards",
                 "args": {"count": 2}, "cost": {"discard": 1}},
    # Brawl: brown, discard another card; every other player discards a card of your choice.
    "t_brawl": {"key": "t_brawl", "name": "Test Brawl", "color": "brown", "effect": "brawl",
                "cost": {"discard": 1}},
    # Dodge: brown, a Missed! that also draws a card.
    "t_dodge": {"key": "t_dodge", "name": "Test Dodge", "color": "brown", "effect": "missed", "missed": True,
                "response": {"effect": "draw_cards", "args": {"count": 1}}},
}


@contextmanager
def extra_cards(*keys: str, copies: int = 2) -> Iterator[dict[str, list[str]]]:
    """Add the named test rows (``copies`` cards each) to the tables; yields key -> card ids."""
    ids: dict[str, list[str]] = {}
    try:
        for key in keys:
            row = {**ROWS[key], "copies": [{"id": f"test.{key}.{i}", "suit": "clubs", "rank": "2"}
                                           for i in range(copies)]}
            ctype, cards = card_row(row)
            tables.TYPES[key] = ctype
            ids[key] = []
            for c in cards:
                tables.CARDS[c.id], tables.TYPE_OF[c.id], tables.KEY_OF[c.id] = c, ctype, key
                codec._CARD_PB[c.id] = codec.bang_pb2.BangCard(id=c.id, name=key, suit=codec.SUIT_PB["clubs"],
                                                              rank="2")
                ids[key].append(c.id)
        yield ids
    finally:
        for key, cids in ids.items():
            tables.TYPES.pop(key, None)
            for cid in cids:
                for table in (tables.CARDS, tables.TYPE_OF, tables.KEY_OF, codec._CARD_PB):
                    table.pop(cid, None)  # type: ignore[attr-defined]


class _DrawOnRespond(Ability):
    """Molly Stark's shape: a card after answering from the hand."""

    def on_respond(self, state: State, seat: int, events: list[Event]) -> None:
        draw(state, seat, 1, events, reason="test_molly")


class _NoDiamondsFromOthers(Ability):
    """Apache Kid's shape: cards of diamonds played by others have no effect on him."""

    def unaffected_by(self, card: str) -> bool:
        return tables.CARDS[card].suit == "diamonds"


class _SwapOneCard(Ability):
    """Doc Holyday / José Delgado / Chuck Wengam's shape: an ability limited per turn by the
    character's ``uses_per_turn`` trait (none: unlimited). Discard a card, draw one."""

    def activations(self, state: State, seat: int) -> list[Action]:
        if state["turn"] != seat or state["pending"]:
            return []
        limit = trait(state, seat, "uses_per_turn")
        if limit is not None and uses(state, seat, "test_swap") >= limit:
            return []
        return [{"type": "ability", "cards": [c]} for c in player(state, seat)["hand"]]

    def check_activate(self, state: State, seat: int, action: Action) -> None:
        if len(action["cards"]) != 1 or action["cards"][0] not in player(state, seat)["hand"]:
            raise RuleError(Reason.CARD_NOT_IN_HAND, "one card from your hand")
        check_uses_left(state, seat, "test_swap", trait(state, seat, "uses_per_turn"))

    def activate(self, state: State, seat: int, action: Action, events: list[Event]) -> None:
        count_use(state, seat, "test_swap")
        discard_from_hand(state, seat, action["cards"][0])
        draw(state, seat, 1, events, reason="test_swap")


class _RecordStart(Step):
    """A start-of-turn step that records the event kinds before it (to check the order)."""

    def run(self, state: State, req: Request, events: list[Event]) -> None:
        state.setdefault("test_seen", []).append([e["kind"] for e in events])


if "test_molly" not in ABILITIES:
    ABILITIES.add("test_molly", _DrawOnRespond())
    ABILITIES.add("test_apache", _NoDiamondsFromOthers())
    ABILITIES.add("test_swap", _SwapOneCard())
if "t_record" not in STEPS:
    step("t_record")(_RecordStart)


@contextmanager
def start_step_before(before: str) -> Iterator[None]:
    """Run the recording step ``t_record`` at the start of every turn, just before ``before``."""
    START_STEPS.insert(START_STEPS.index(before), "t_record")
    try:
        yield
    finally:
        START_STEPS.remove("t_record")

CHARACTER_ROWS = {
    # Elena Fuente's shape: any card from the hand as a Missed!.
    "t_elena": Character("t_elena", "Test Elena", 3, "calamity_janet", "", {"any_card_missed": True}),
    "t_molly": Character("t_molly", "Test Molly", 4, "test_molly", ""),
    "t_apache": Character("t_apache", "Test Apache", 3, "test_apache", ""),
    # Belle Star's shape: in her turn the others' cards in play have no effect.
    "t_belle": Character("t_belle", "Test Belle", 4, "paul_regret", "", {"silence_others": True}),
    "t_sean": Character("t_sean", "Test Sean", 3, "paul_regret", "", {"hand_limit": 10}),
    "t_tequila": Character("t_tequila", "Test Tequila", 4, "paul_regret", "", {"beer_heal": 2}),
    "t_doc": Character("t_doc", "Test Doc", 4, "test_swap", "", {"uses_per_turn": 1}),
    "t_chuck": Character("t_chuck", "Test Chuck", 4, "test_swap", ""),
}


@contextmanager
def extra_characters(*keys: str) -> Iterator[None]:
    """Add the named test characters to the character table for one test."""
    try:
        for key in keys:
            tables.CHARACTERS[key] = CHARACTER_ROWS[key]
        yield
    finally:
        for key in keys:
            tables.CHARACTERS.pop(key, None)
