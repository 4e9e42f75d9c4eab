"""The core: strict, expansion-aware card data (``catalog.py``).

Rows of every expansion are loaded (from the base files or an expansion's own
``cards_<name>.json``), totals are checked per expansion, unknown row keys, passives and
traits are refused naming the row, and the deck and the character pool are built from
the chosen expansions. Files are rewritten in a temporary ``DATA`` folder.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from bang_helpers import rewrite

from tabletop_server.service.games.bang import catalog
from tabletop_server.service.games.bang.abilities import ABILITIES
from tabletop_server.service.games.bang.damage import WIN_RULES
from tabletop_server.service.games.bang.effects import EFFECTS
from tabletop_server.service.games.bang.tables import DECK

DATA = catalog.DATA
DC_ROW: dict[str, Any] = {"key": "t_punch", "name": "Punch", "color": "brown", "effect": "bang", "target": "other",
                          "range": "distance_1", "copies": [{"id": "dodge_city.punch.10s", "suit": "spades",
                                                             "rank": "10"}]}
DC_CHAR: dict[str, Any] = {"key": "t_sean", "name": "Sean Mallory", "life": 3, "ability": "paul_regret",
                           "traits": {"hand_limit": 10}}




def validate(loaded: tuple[Any, ...]) -> None:
    types, cards, characters, roles, counts, win_rules = loaded
    catalog.validate(types, cards, characters, roles, counts, EFFECTS, ABILITIES, win_rules, WIN_RULES)


@pytest.mark.parametrize(("name", "change", "message"), [
    ("cards.json", lambda d: d["cards"][0].update(rnage="reach"), r"card 'bang': unknown key\(s\) \['rnage'\]"),
    ("cards.json", lambda d: d["cards"][0]["copies"][0].update(colour="red"), "copy 'base.bang.2c': unknown key"),
    ("cards.json", lambda d: d["cards"][0].update(use={"effect": "bang", "reach": 1}), "card 'bang': use: unknown"),
    ("characters.json", lambda d: d["characters"][0].update(trait={"x": 1}), "character 'bart_cassidy': unknown key"),
])
def test_unknown_row_keys_are_refused_naming_the_row(data: Path, name: str, change: Any, message: str) -> None:
    rewrite(data, name, change)
    with pytest.raises(catalog.DataError, match=message):
        catalog.load()


def test_unknown_passives_traits_and_costs_are_refused(data: Path) -> None:
    rewrite(data, "cards.json", lambda d: d["cards"][0].update(passive={"distnce_in": 1}))
    with pytest.raises(catalog.DataError, match=r"card 'bang': unknown passive\(s\) \['distnce_in'\]"):
        validate(catalog.load())
    shutil.copy(DATA / "cards.json", data / "cards.json")
    rewrite(data, "cards.json", lambda d: d["cards"][0].update(cost={"gold": 1}))
    with pytest.raises(catalog.DataError, match=r"card 'bang': unknown cost\(s\) \['gold'\]"):
        validate(catalog.load())
    shutil.copy(DATA / "cards.json", data / "cards.json")
    rewrite(data, "characters.json", lambda d: d["characters"][0].update(traits={"hand_limt": 10}))
    with pytest.raises(catalog.DataError, match=r"character 'bart_cassidy': unknown trait\(s\) \['hand_limt'\]"):
        validate(catalog.load())


def test_an_expansions_rows_need_its_totals_and_join_only_when_chosen(data: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    (data / "cards_dodge_city.json").write_text(json.dumps({"expansion": "dodge_city", "cards": [DC_ROW]}))
    (data / "characters_dodge_city.json").write_text(json.dumps({"expansion": "dodge_city",
                                                                 "characters": [DC_CHAR]}))
    loaded = catalog.load()
    monkeypatch.delitem(catalog.EXPANSION_COUNTS, "dodge_city")  # the real totals are in catalog.py
    with pytest.raises(catalog.DataError, match="expansion 'dodge_city' has no printed totals"):
        validate(loaded)
    monkeypatch.setitem(catalog.EXPANSION_COUNTS, "dodge_city", {"t_punch": 2})
    with pytest.raises(catalog.DataError, match="dodge_city totals differ"):
        validate(loaded)
    monkeypatch.setitem(catalog.EXPANSION_COUNTS, "dodge_city", {"t_punch": 1})
    validate(loaded)
    _, cards, characters, *_ = loaded
    assert catalog.deck_for(cards, []) == DECK and len(DECK) == 80
    assert catalog.deck_for(cards, ["dodge_city"]) == (*DECK, "dodge_city.punch.10s")
    assert "t_sean" not in catalog.characters_for(characters, [])
    assert catalog.characters_for(characters, ["dodge_city"])[-1] == "t_sean"
    assert characters["t_sean"].expansion == "dodge_city" and cards["dodge_city.punch.10s"].expansion == "dodge_city"


def test_a_row_of_an_unknown_expansion_is_refused(data: Path) -> None:
    rewrite(data, "characters.json", lambda d: d["characters"][0].update(expansion="wild_west_show"))
    with pytest.raises(catalog.DataError, match="character 'bart_cassidy'.*expansion 'wild_west_show'"):
        validate(catalog.load())


@pytest.mark.parametrize("name, section", [("cards.json", "cards"), ("characters.json", "characters")])
def test_a_row_that_is_not_an_object_is_refused_naming_the_file(data: Path, name: str, section: str) -> None:
    rewrite(data, name, lambda doc: doc[section].append(["bang"]))
    with pytest.raises(catalog.DataError, match=rf"^{name}: a row of '{section}' is not a JSON object: \['bang'\]$"):
        catalog.load()
