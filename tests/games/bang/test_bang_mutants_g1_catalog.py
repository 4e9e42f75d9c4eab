"""Mutation survivors of the data loaders (``catalog.py``, issue 9, stop 19 run, group g1).

The loaders run at import, before mutmut switches a mutant on, so these tests call them
again themselves: ``load_kill_rules`` on the real and on a damaged ``roles.json``,
``card_row`` on built rows (the ``use`` / ``response`` parts of green cards and Dodge), and
``validate`` with one extra card type whose parts are bad in exactly one way.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from bang_helpers import rewrite

from tabletop_server.service.games.bang import catalog
from tabletop_server.service.games.bang.abilities import ABILITIES
from tabletop_server.service.games.bang.catalog import CardType, DataError, KillRule
from tabletop_server.service.games.bang.damage import WIN_RULES
from tabletop_server.service.games.bang.effects import EFFECTS

STANDARD = (KillRule("outlaw", "any", "draw", 3), KillRule("deputy", "sheriff", "discard_all", 0))


def _validate_with(extra: CardType, cards: dict[str, catalog.Card] | None = None) -> None:
    """``validate`` of the real data plus one card type (and, if given, these cards instead of the real ones)."""
    types, real_cards, characters, roles, counts, win_rules = catalog.load()
    catalog.validate({**types, extra.key: extra}, real_cards if cards is None else cards, characters, roles,
                     counts, EFFECTS, ABILITIES, win_rules, WIN_RULES)


def _row(**extra: Any) -> dict[str, Any]:
    row: dict[str, Any] = {"key": "t_green", "name": "Test", "color": "green", "effect": "equip",
                           "copies": [{"id": "t.green.1", "suit": "spades", "rank": "2"}]}
    row.update(extra)
    return row


# Kill rules (BANG-026, BANG-027)

@pytest.mark.rule("BANG-027")
def test_kill_rules_are_read_from_roles_json_row_by_row() -> None:
    """Outlaw: 3 cards to any killer; Deputy killed by the Sheriff: the Sheriff discards all (no count: 0)."""
    assert catalog.load_kill_rules()["standard"] == STANDARD


def test_a_roles_file_without_kill_rules_has_none(data: Path) -> None:
    rewrite(data, "roles.json", lambda d: d.pop("kill_rules"))
    assert catalog.load_kill_rules() == {}


@pytest.mark.parametrize(("row", "shown"), [
    ({"victim": "outlaw", "killer": "any", "then": "reward"}, "'then': 'reward'"),
    ({"victim": "bandit", "killer": "any", "then": "draw", "count": 3}, "'victim': 'bandit'"),
    ({"victim": "outlaw", "killer": "bandit", "then": "draw", "count": 3}, "'killer': 'bandit'"),
])
def test_a_kill_rule_with_an_unknown_effect_or_role_is_refused_naming_it(data: Path, row: dict[str, Any],
                                                                           shown: str) -> None:
    rewrite(data, "roles.json", lambda d: d["kill_rules"]["standard"].append(row))
    with pytest.raises(DataError) as err:
        catalog.load_kill_rules()
    assert str(err.value) == f"roles.json: kill rule of 'standard': bad row {row!r}"
    assert shown in str(err.value)


# card_row and its use / response parts

def test_a_use_part_becomes_a_brown_card_type_of_the_same_card_with_its_defaults() -> None:
    ctype, copies = catalog.card_row(_row(use={"effect": "bang", "target": "other"}))
    assert ctype.use == CardType(key="t_green", name="Test", color="brown", effect="bang", target="other",
                                 range="any", missed=False, args={}, cost={})
    assert ctype.response is None and ctype.expansion == "base"
    assert [(c.id, c.key, c.expansion) for c in copies] == [("t.green.1", "t_green", "base")]


def test_a_use_and_a_response_keep_their_range_cost_and_the_rows_expansion() -> None:
    ctype, copies = catalog.card_row(_row(
        expansion="dodge_city", use={"effect": "bang", "target": "other", "range": "reach", "cost": {"discard": 1}},
        response={"effect": "equip", "missed": True}))
    assert ctype.use is not None and ctype.response is not None
    assert (ctype.use.key, ctype.use.color, ctype.use.range, ctype.use.cost) == ("t_green", "brown", "reach",
                                                                                 {"discard": 1})
    assert ctype.response == CardType(key="t_green", name="Test", color="brown", effect="equip", target="none",
                                      range="any", missed=True)
    assert ctype.expansion == "dodge_city" and copies[0].expansion == "dodge_city"


def test_an_unknown_key_in_a_response_part_is_refused() -> None:
    with pytest.raises(DataError, match=r"^cards.json: card 't_green': response: unknown key\(s\) \['reach'\]$"):
        catalog.card_row(_row(response={"effect": "bang", "reach": 1}))


# validate: the parts of a card type, one fault at a time

GOOD = CardType(key="t_green", name="Test", color="green", effect="equip", target="none", range="any")
PART = CardType(key="t_green", name="Test", color="brown", effect="bang", target="other", range="any")


def test_a_card_type_with_good_use_and_response_parts_is_valid() -> None:
    _validate_with(replace(GOOD, use=PART, response=replace(PART, target="none")))


@pytest.mark.parametrize(("part", "spec", "shown"), [
    ("use", replace(PART, effect="no_such"), "'no_such'/'other'/'any'"),
    ("use", replace(PART, target="self"), "'bang'/'self'/'any'"),
    ("use", replace(PART, range="far"), "'bang'/'other'/'far'"),
    ("response", replace(PART, target="self"), "'bang'/'self'/'any'"),
])
def test_a_bad_use_or_response_part_is_refused_naming_the_part(part: str, spec: CardType, shown: str) -> None:
    """Each of effect, target and range alone makes the part bad; a response is checked without a use."""
    with pytest.raises(DataError) as err:
        _validate_with(replace(GOOD, use=spec) if part == "use" else replace(GOOD, response=spec))
    assert str(err.value) == f"cards.json: card 't_green': {part}: bad effect/target/range {shown}"


def test_a_card_type_of_an_unknown_expansion_is_refused_with_its_message() -> None:
    with pytest.raises(DataError) as err:
        _validate_with(replace(GOOD, expansion="no_such_expansion"))
    assert str(err.value) == "cards.json: card 't_green': unknown expansion 'no_such_expansion'"


def test_a_deck_without_base_cards_is_refused_for_its_base_totals() -> None:
    with pytest.raises(DataError, match=r"^cards.json: base deck totals differ: \{\} \(0 cards, want 80\)$"):
        _validate_with(GOOD, cards={})


def test_rows_of_a_file_without_an_expansion_key_are_base_rows(data: Path) -> None:
    for name in ("cards.json", "characters.json"):
        rewrite(data, name, lambda d: d.pop("expansion", None))
    _, cards, characters, *_ = catalog.load()
    assert {c.expansion for cid, c in cards.items() if cid.startswith("base.")} == {"base"}
    assert {characters[k].expansion for k in ("bart_cassidy", "willy_the_kid")} == {"base"}
