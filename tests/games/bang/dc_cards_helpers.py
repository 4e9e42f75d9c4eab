"""Helpers for the Dodge City card tests (``test_dc_cards_*.py``), imported as ``dc_cards_helpers``.

Every table holds the base deck and Dodge City's 40 cards (``dc_table``); the tests use
the ``dodge_city`` fixture (conftest.py), a no-op now that the expansion is offered to clients.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from bang_helpers import act, table

from tabletop_server.service.engine.errors import RuleError
from tabletop_server.service.engine.ruleset import Action, Event, State
from tabletop_server.service.games import bang


def dc_table(n: int = 4, **kw: Any) -> State:
    """A clean ``n``-player table (see ``bang_helpers.table``) with Dodge City's cards in the deck."""
    return table(n, expansions=["dodge_city"], **kw)


def refused(state: State, seat: int, action: Action) -> str:
    """The reason ``action`` is refused with; the state is left unchanged."""
    before = copy.deepcopy(state)
    with pytest.raises(RuleError) as err:
        bang.apply(state, seat, action)
    assert state == before
    return str(err.value.reason)


def use(state: State, seat: int, card: str, target: int | None = None, pick: str | None = None) -> list[Event]:
    """Use a card in play (a green card): ``{"type": "use", ...}``, checked to be listed first."""
    action: Action = {"type": "use", "card": card}
    if target is not None:
        action["target"] = target
    if pick is not None:
        action["pick"] = pick
    assert action in bang.legal_actions(state, seat), action
    return act(state, seat, action)


def until_turn(state: State, seat: int) -> None:
    """End turns (Black Jack everywhere: nothing else is asked) until ``seat``'s phase 2 comes again."""
    act(state, state["turn"], {"type": "end_turn"})
    while state["turn"] != seat:
        act(state, state["turn"], {"type": "end_turn"})
    assert state["phase"] == "play"
