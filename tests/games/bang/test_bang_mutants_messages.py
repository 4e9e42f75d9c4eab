"""Refusals random play seldom reaches, pinned with reason, message and field (issue 9).

A client shows the message and reads the reason and field; the mutation run changed
these texts without any test noticing: the codec's empty action and draw source, an
unknown expansion, a bad rematch character, a phase-1 draw from nowhere, and the data
loader's file names. ``catalog.load`` runs at import, so the loader tests call it.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from bang_helpers import act, give, pending_kind, rewrite, table
from tabletop.v1 import bang_pb2

from tabletop_server.service.engine.errors import MalformedAction
from tabletop_server.service.games import bang
from tabletop_server.service.games.bang import catalog, damage
from tabletop_server.service.games.bang.abilities import ABILITIES
from tabletop_server.service.games.bang.effects import EFFECTS
from tabletop_server.service.games.bang.tables import CARDS, CHARACTERS, ROLE_POOLS, ROLES, TYPES, WIN_RULE_OF

REAL_DATA = catalog.DATA


def refusal(fn: Any, *args: Any) -> tuple[str, str, str]:
    with pytest.raises(MalformedAction) as err:
        fn(*args)
    return err.value.reason, err.value.message, err.value.field


def test_codec_refusals_say_what_to_set() -> None:
    assert refusal(bang.decode_action, bang_pb2.BangAction()) == (
        "UNKNOWN_ACTION", "Set one action in the BangAction oneof", "action.bang")
    assert refusal(bang.decode_action, bang_pb2.BangAction(draw=bang_pb2.BangDrawFrom())) == (
        "UNKNOWN_ACTION", "Set the draw source", "action.bang.draw.source")
    pb = bang_pb2.BangOptions()
    pb.expansions.append(99)  # type: ignore[arg-type]
    assert refusal(bang.decode_options, pb) == (
        "EXPANSION_NOT_AVAILABLE", "Unknown expansion 99", "options.bang.expansions")


@pytest.mark.rule("BANG-001")
def test_rematch_characters_refused_with_their_key_and_field() -> None:
    assert refusal(bang.setup, {"retired_characters": ["nobody"]}, 4, 1) == (
        "INVALID_OPTION", "Unknown character 'nobody'; use a key such as 'bart_cassidy'",
        "options.bang.retired_characters[0]")
    assert refusal(bang.setup, {"retired_characters": ["el_gringo", "el_gringo"]}, 4, 1) == (
        "INVALID_OPTION", "Character 'el_gringo' is kept or retired twice", "options.bang.retired_characters[1]")


@pytest.mark.rule("BANG-092")
@pytest.mark.parametrize("action", [{"type": "draw", "source": "sky"}, {"type": "draw", "source": "deck", "target": 2}])
def test_a_phase_one_draw_from_nowhere_names_the_source_field(action: dict[str, Any]) -> None:
    st = table(4, chars=["black_jack", "jesse_jones", "black_jack", "black_jack"])
    give(st, 2, ["beer"])
    act(st, 0, {"type": "end_turn"})
    assert pending_kind(st) == "draw" and st["turn"] == 1
    before = json.dumps(st, sort_keys=True)
    assert refusal(act, st, 1, action) == ("UNKNOWN_ACTION", "source must be deck, discard or player", "source")
    assert json.dumps(st, sort_keys=True) == before




def load_error(data: Path) -> str:
    with pytest.raises(catalog.DataError) as err:
        catalog.load()
    return str(err.value)


@pytest.mark.rule("BANG-002")
def test_a_bad_card_row_is_named_with_its_file(data: Path) -> None:
    rewrite(data, "cards.json", lambda d: d["cards"].append(dict(d["cards"][0], copies=[])))
    assert load_error(data) == "cards.json: duplicate key 'bang'"
    shutil.copy(REAL_DATA / "cards.json", data / "cards.json")
    rewrite(data, "cards.json", lambda d: d["cards"].append({"name": "x", "copies": []}))
    assert load_error(data).startswith("cards.json: row without a key: ")


@pytest.mark.rule("BANG-002")
def test_a_deck_missing_a_suit_is_refused_with_the_exact_message() -> None:
    no_clubs = {k: dataclasses.replace(c, suit="spades") if c.suit == "clubs" else c for k, c in CARDS.items()}
    with pytest.raises(catalog.DataError) as err:
        catalog.validate(TYPES, no_clubs, CHARACTERS, ROLES, ROLE_POOLS, EFFECTS, ABILITIES,
                         WIN_RULE_OF, damage.WIN_RULES)
    assert str(err.value) == "cards.json: the deck does not use every suit and rank"


def test_win_rule_registers_the_function_under_its_name() -> None:
    def probe(state: Any, dead: int | None = None, killer: int | None = None) -> list[int] | None:
        return None

    try:
        assert damage.win_rule("h9b_probe")(probe) is probe
        assert damage.WIN_RULES["h9b_probe"] is probe
        with pytest.raises(ValueError, match="h9b_probe"):
            damage.win_rule("h9b_probe")(probe)
    finally:
        damage.WIN_RULES.pop("h9b_probe", None)
