"""Mutation survivors of setup and the codec (issue 9, stop 19 run, group g1): refusals and encodings.

Every refusal of the options and of the seats names its reason, its message and the
offending field exactly; a client shows the message and points at the field. The
rematch limits are tested on both sides of "enough characters left to draw".
"""

from __future__ import annotations

import importlib
import re
from typing import Any

import pytest
from tabletop.v1 import bang_pb2

from tabletop_server.service.engine.errors import EngineReason, MalformedAction
from tabletop_server.service.games import bang
from tabletop_server.service.games.bang import codec
from tabletop_server.service.games.bang.tables import BASE_CHARACTERS

# The module, not the package's ``setup`` function of the same name.
setup = importlib.import_module("tabletop_server.service.games.bang.setup")


def refusal(options: dict[str, Any], seats: int = 4) -> MalformedAction:
    with pytest.raises(MalformedAction) as err:
        bang.setup(options, seats, 1)
    return err.value


def test_an_unknown_option_is_refused_naming_it() -> None:
    err = refusal({"sherif_extra_card": True})
    assert (err.reason, err.message, err.field) == (EngineReason.INVALID_OPTION,
                                                    "Unknown options ['sherif_extra_card']", "options.bang")


@pytest.mark.usefixtures("not_offered")
def test_expansions_not_built_are_refused_listing_each(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(MalformedAction) as err:  # Dodge City is built: only the other one is named
        setup.normalize_options({"expansions": ["dodge_city", "armed_and_dangerous"]})
    assert err.value.message == "Expansion(s) armed_and_dangerous not available yet; play the base game"
    assert err.value.field == "options.bang.expansions"
    monkeypatch.setattr(setup, "BUILT_EXPANSIONS", frozenset())
    with pytest.raises(MalformedAction) as err:
        setup.normalize_options({"expansions": ["dodge_city", "armed_and_dangerous"]})
    assert err.value.message == ("Expansion(s) dodge_city, armed_and_dangerous not available yet; play the base "
                                 "game")


def test_a_seat_count_without_a_role_pool_is_refused_with_the_range() -> None:
    err = refusal({}, seats=2)
    assert err.reason == EngineReason.INVALID_SEAT_COUNT and err.field == "seats"
    # "BANG! takes 3 to 8 players" on main (3 and 8 need Dodge City); "BANG! base takes 4 to 7" before it.
    assert re.fullmatch(r"BANG! (base )?takes \d to \d players", err.message), err.message


@pytest.mark.rule("BANG-032")
@pytest.mark.parametrize(("options", "message", "field"), [
    ({"kept_characters": [{"seat": -1, "character": "bart_cassidy"}]}, "Seat -1 is negative or kept twice",
     "options.bang.kept_characters[0].seat"),
    ({"kept_characters": [{"seat": 1, "character": "bart_cassidy"}, {"seat": 1, "character": "black_jack"}]},
     "Seat 1 is negative or kept twice", "options.bang.kept_characters[1].seat"),
    ({"kept_characters": [{"seat": 4, "character": "bart_cassidy"}]}, "Seat 4 is not in a 4-player game",
     "options.bang.kept_characters[0].seat"),
])
def test_kept_character_seats_are_refused_with_their_message(options: dict[str, Any], message: str,
                                                             field: str) -> None:
    err = refusal(options)
    assert (err.reason, err.message, err.field) == (EngineReason.INVALID_OPTION, message, field)


@pytest.mark.rule("BANG-033")
@pytest.mark.parametrize(("seat", "message"), [
    (-1, "The Sheriff's seat cannot be negative"),
    (4, "Seat 4 is not in a 4-player game"),
])
def test_a_sheriff_seat_outside_the_table_is_refused_with_its_message(seat: int, message: str) -> None:
    err = refusal({"sheriff_seat": seat})
    assert (err.reason, err.message, err.field) == (EngineReason.INVALID_OPTION, message,
                                                    "options.bang.sheriff_seat")


@pytest.mark.rule("BANG-032")
def test_kept_characters_are_not_free_to_draw_both_sides_of_the_limit() -> None:
    """16 base characters, 1 kept and 13 retired: 2 left for 3 drawing seats is refused; 12 retired fits."""
    kept = [{"seat": 0, "character": "bart_cassidy"}]
    others = [c for c in BASE_CHARACTERS if c != "bart_cassidy"]
    err = refusal({"kept_characters": kept, "retired_characters": others[:13]})
    assert (err.reason, err.field) == (EngineReason.INVALID_OPTION, "options.bang.retired_characters")
    assert err.message == "3 seats draw a character but only 2 are neither kept nor retired"
    st = bang.setup({"kept_characters": kept, "retired_characters": others[:12]}, 4, 1)
    assert sorted(p["char"] for p in st["p"][1:]) == sorted(others[12:15])


def test_chosen_expansions_are_encoded_in_the_options_message(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(setup, "BUILT_EXPANSIONS", frozenset({"dodge_city"}))
    pb = codec.encode_options({"expansions": ["dodge_city"]})
    assert list(pb.expansions) == [bang_pb2.BANG_EXPANSION_DODGE_CITY]
