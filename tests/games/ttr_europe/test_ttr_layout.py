"""The stored Ticket to Ride state and its types (``layout.py``, issue 30): the layout in ``setup.py``'s
docstring lists exactly the typed keys, the states of random games (tunnels, the last round, concessions
included) have exactly the keys and value kinds the types allow, and ``mypy --strict`` names a misspelt key,
a phase that is none or a value of the wrong type in a made-up rule."""

from __future__ import annotations

import importlib
import re
import typing
from pathlib import Path
from typing import Any

import pytest
from ttr_helpers import random_game

import tabletop_server.service.games.ttr_europe as ttr
from tabletop_server.service.games.ttr_europe.layout import GameState, LastRound, Options, Tunnel
from tests.typed_state import misfits_of, mypy_errors, typed_keys

SETUP_MODULE = importlib.import_module("tabletop_server.service.games.ttr_europe.setup")


def misfits(state: dict[str, Any]) -> list[str]:
    """What of ``state`` the types do not allow."""
    out = misfits_of("state", state, GameState) + misfits_of("opts", state["opts"], Options)
    if state["tunnel"] is not None:
        out += misfits_of("tunnel", state["tunnel"], Tunnel)
    if state["last"] is not None:
        out += misfits_of("last", state["last"], LastRound)
    if state["phase"] not in typing.get_args(typing.get_type_hints(GameState)["phase"]):
        out.append(f"phase {state['phase']!r}")
    return out


def test_the_documented_layout_lists_exactly_the_typed_keys() -> None:
    doc = SETUP_MODULE.__doc__ or ""
    block = doc[doc.index("its keys are documented here once"):doc.index("The types are")]
    documented = set(re.findall(r"``([a-z_]+)``", block)) - {"play", "over"}  # phases ("tickets", "last" are keys)
    assert documented == set(typed_keys(GameState)[1]), (sorted(documented - typed_keys(GameState)[1]),
                                                    sorted(typed_keys(GameState)[1] - documented))


def test_a_misspelt_or_missing_key_is_found() -> None:
    state: dict[str, Any] = dict(ttr.setup({}, 3, 1))
    assert misfits(state) == []
    state["scores"] = state.pop("score")
    state["last"] = {"trigger": 0, "lef": 2}
    assert misfits(state) == ["state: missing 'score'", "state: untyped key 'scores'", "last: missing 'left'",
                              "last: untyped key 'lef'"]


@pytest.mark.parametrize("seats", [2, 3, 4, 5])
def test_every_state_of_random_games_fits_the_types(seats: int) -> None:
    found: list[str] = []
    seen = {"tunnel": False, "last": False}

    def check(state: Any) -> None:
        found.extend(misfits(state))
        seen["tunnel"] |= state["tunnel"] is not None
        seen["last"] |= state["last"] is not None

    for seed in range(3):
        state, _ = random_game(seed, seats, check=check)
        assert state["result"] is not None
    assert found == [] and seen == {"tunnel": True, "last": True}, (sorted(set(found)), seen)


def test_a_conceding_seat_fits_the_types() -> None:
    state = ttr.setup({}, 3, 7)
    ttr.concede(state, 1)
    assert misfits(dict(state)) == [] and state["conceded"] == [1]


_RULE = '''from tabletop_server.service.games.ttr_europe.layout import State


def rule(state: State, seat: int) -> None:
    state["trains"][seat] -= 1
    state["train"][seat] -= 1
    state["phase"] = "finished"
    state["owner"][0] = "seat"
    state["opts"]["tunnel_failure_discard"] = True
'''
_FOUND = {6: '"GameState" has no key "train"', 7: 'has incompatible type "Literal[\'finished\']"',
          8: 'matches argument types "int", "str"', 9: '"Options" has no key "tunnel_failure_discard"'}


@pytest.mark.slow
def test_mypy_strict_names_a_misspelt_key_phase_or_value(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    by_line, out = mypy_errors(_RULE, tmp_path, monkeypatch)
    assert set(by_line) == set(_FOUND), out
    for number, text in _FOUND.items():
        assert text in by_line[number], by_line[number]
