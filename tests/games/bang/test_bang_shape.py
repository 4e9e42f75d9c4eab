"""Issue 30's proof of the shape: a card the game does not have is its rows and one module, and touches
no existing module. Two made-up cards, each in a module of its own beside this test:

- ``shape_smoke_signal.py``: Smoke Signal modifies the plays after it (as the Bell Tower does): for the
  rest of the turn everyone is at distance 1; a lasting modifier (``modifiers.py``) the rules consult;
- ``shape_hex.py``: the Hex has a start-of-turn step (as the Bomb has), added with ``turn.add_start_step``
  for the games of its (made-up) expansion only.

The rows are added to the tables for these tests and the start step is taken out again afterwards, so
that no other test sees them (a worker may set the fixture up again later: the step is then put back).
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from types import ModuleType

import pytest
from bang_core_helpers import ROWS, extra_cards
from bang_helpers import act, give, kinds, pending_kind, play, refused, table

from tabletop_server.service.games import bang
from tabletop_server.service.games.bang.distance import distance
from tabletop_server.service.games.bang.turn import SKIPPABLE_STEPS, START_STEP_EXPANSION, START_STEPS


@pytest.fixture(scope="module")
def shape() -> Iterator[tuple[ModuleType, ModuleType, dict[str, list[str]]]]:
    """Import the two card modules (they register themselves) and add their rows to the tables."""
    saved = list(START_STEPS), list(SKIPPABLE_STEPS), dict(START_STEP_EXPANSION)
    smoke, hexed = importlib.import_module("shape_smoke_signal"), importlib.import_module("shape_hex")
    if hexed.STEP not in START_STEPS:  # imported before, by an earlier use of this fixture in this process
        hexed.install()
    ROWS.update({smoke.KEY: smoke.ROW, hexed.KEY: hexed.ROW})
    try:
        with extra_cards(smoke.KEY, hexed.KEY) as ids:
            yield smoke, hexed, ids
    finally:
        START_STEPS[:], SKIPPABLE_STEPS[:] = saved[0], saved[1]
        START_STEP_EXPANSION.clear()
        START_STEP_EXPANSION.update(saved[2])
        for key in (smoke.KEY, hexed.KEY):
            ROWS.pop(key, None)


def test_a_made_up_card_that_modifies_later_plays_is_a_row_and_a_module(shape: tuple[ModuleType, ModuleType,
                                                                                          dict[str, list[str]]]) -> None:
    smoke, _, ids = shape
    st = table(4)
    signal = give(st, 0, [ids[smoke.KEY][0]])[0]
    shot = give(st, 0, ["bang"])[0]
    assert distance(st, 0, 2) == 2
    refused(st, 0, {"type": "play", "card": shot, "target": 2}, "OUT_OF_RANGE")
    assert {"type": "play", "card": signal} in bang.legal_actions(st, 0)
    play(st, 0, signal)
    assert st[smoke.KEY] == 0 and distance(st, 0, 2) == 1 and distance(st, 3, 1) == 1
    assert {"type": "play", "card": shot, "target": 2} in bang.legal_actions(st, 0)
    life = st["p"][2]["life"]
    play(st, 0, shot, target=2)  # no card in hand to answer with: the hit is taken at once
    assert pending_kind(st) is None and st["p"][2]["life"] == life - 1
    act(st, 0, {"type": "end_turn"})
    assert smoke.KEY not in st and distance(st, 0, 2) == 2  # the turn is over: so is the smoke


@pytest.mark.parametrize("in_game", [True, False])
def test_a_made_up_card_with_a_start_of_turn_step_is_a_row_and_a_module(
        shape: tuple[ModuleType, ModuleType, dict[str, list[str]]], in_game: bool) -> None:
    _, hexed, ids = shape
    assert START_STEPS.index(hexed.STEP) == START_STEPS.index("t_draw") - 1 and hexed.STEP in SKIPPABLE_STEPS
    st = table(4)
    if in_game:
        st["opts"]["expansions"] = [hexed.EXPANSION]
    card = give(st, 0, [ids[hexed.KEY][0]])[0]
    play(st, 0, card, target=1)
    assert st["p"][1]["table"] == [card]
    life = st["p"][1]["life"]
    events = act(st, 0, {"type": "end_turn"})
    if not in_game:  # its step is queued only in the games of its expansion
        assert st["p"][1]["table"] == [card] and st["p"][1]["life"] == life
        return
    assert st["p"][1]["table"] == [] and card in st["discard"] and st["p"][1]["life"] == life - 1
    order = kinds(events)
    assert order.index("turn") < order.index("discard") < order.index("damage") < order.index("draw")
