"""Mutation survivors of the data loaders (``catalog.py``, issue 9, stop 20): ``load``,
``load_modes``, ``reprint_row``, ``validate``, ``validate_modes`` and ``_all_rows``.

These run at import, before mutmut switches a mutant on, so every test here calls the loader
again itself and checks either its whole result against the facts of ``data/*.json`` (and the
tables built at import) or the exact message of one refusal branch. Damaged data is written
into the ``data`` fixture's copy of the data folder; ``validate`` and ``validate_modes`` get the
real tables with exactly one thing wrong. The files are read once in the C locale, whose default
encoding (ASCII) would fail on their non-ASCII text if a loader dropped ``encoding="utf-8"``.

Equivalent mutants (no test can tell them apart): ``encoding="UTF-8"`` for ``"utf-8"`` (the same codec)
and a mode's missing ``face_up`` read as ``None`` instead of ``False`` (``bool`` of either is False).
"""

from __future__ import annotations

import json
import locale
import re
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from bang_helpers import rewrite

from tabletop_server.service.games.bang import catalog, tables
from tabletop_server.service.games.bang.abilities import ABILITIES
from tabletop_server.service.games.bang.catalog import Card, CardType, Character, DataError, Mode, Role
from tabletop_server.service.games.bang.damage import WIN_RULES
from tabletop_server.service.games.bang.effects import EFFECTS

# The facts of data/roles.json, written out.
ROLES = {
    "sheriff": Role("sheriff", "Sheriff", "Eliminate all Outlaws and all Renegades.", True),
    "deputy": Role("deputy", "Deputy",
                   "Help and protect the Sheriff; wins together with the Sheriff (even if dead).", False),
    "outlaw": Role("outlaw", "Outlaw", "Kill the Sheriff; all Outlaws win together (even dead ones) unless "
                   "the Renegade wins.", False),
    "renegade": Role("renegade", "Renegade", "Be the last character in play: eliminate everybody else, the "
                     "Sheriff last. With 2 Renegades (8 players) each plays alone.", False),
}
POOLS = {
    3: ("deputy", "outlaw", "renegade"),
    4: ("sheriff", "renegade", "outlaw", "outlaw"),
    5: ("sheriff", "renegade", "outlaw", "outlaw", "deputy"),
    6: ("sheriff", "renegade", "outlaw", "outlaw", "outlaw", "deputy"),
    7: ("sheriff", "renegade", "outlaw", "outlaw", "outlaw", "deputy", "deputy"),
    8: ("sheriff", "renegade", "outlaw", "outlaw", "outlaw", "deputy", "deputy", "renegade"),
}
WIN_RULE_OF = {3: "three_player", 4: "standard", 5: "standard", 6: "standard", 7: "standard", 8: "standard"}
REQUIRES = {3: ("dodge_city",), 4: (), 5: (), 6: (), 7: (), 8: ("dodge_city",)}
MODES = {
    "standard": Mode("standard", "sheriff", False, {}, {}),
    "three_player": Mode(
        "three_player", "deputy", True, {"deputy": "renegade", "renegade": "outlaw", "outlaw": "deputy"},
        {"deputy": "Kill the Renegade yourself. If another player or Dynamite kills him, be the last one "
                   "alive.",
         "renegade": "Kill the Outlaw yourself. If another player or Dynamite kills him, be the last one "
                     "alive.",
         "outlaw": "Kill the Deputy yourself. If another player or Dynamite kills him, be the last one "
                   "alive."}),
}
DC = "cards_dodge_city.json"


def refused(message: str) -> Any:
    """``pytest.raises`` for a :class:`DataError` whose whole message is ``message``."""
    return pytest.raises(DataError, match=f"^{re.escape(message)}$")


# load: the tables and the refusals of card and character rows

def test_load_reads_every_file_into_the_tables_built_at_import() -> None:
    """Cards (base, then Armed & Dangerous and Dodge City rows, in order), characters, roles, pools and
    win rules, key by key."""
    types, cards, characters, roles, counts, win_rules = catalog.load()
    assert types == tables.TYPES and len(types) == 44 + 22
    assert list(cards.items()) == list(tables.CARDS.items()) and len(cards) == 120 + 28
    assert list(characters.items()) == list(tables.CHARACTERS.items()) and len(characters) == 31 + 8
    assert cards["base.barrel.Qs"] == Card("base.barrel.Qs", "barrel", "spades", "Q", "base")
    assert cards["dodge_city.barrel.Ac"] == Card("dodge_city.barrel.Ac", "barrel", "clubs", "A", "dodge_city")
    assert characters["calamity_janet"] == Character(
        "calamity_janet", "Calamity Janet", 4, "calamity_janet",
        "She can play BANG! cards as Missed! and vice versa.", {"bang_missed_swap": True}, "base")
    assert characters["apache_kid"] == Character(
        "apache_kid", "Apache Kid", 3, "apache_kid",
        "Cards of Diamonds played by other players do not affect him.", {}, "dodge_city")
    assert roles == ROLES and counts == POOLS and win_rules == WIN_RULE_OF


def test_a_character_row_without_text_or_traits_gets_empty_ones(data: Path) -> None:
    """``text`` defaults to "" and ``traits`` to {} (Bart Cassidy has no traits; his text is removed)."""
    rewrite(data, "characters.json", lambda d: d["characters"][0].pop("text"))
    characters = catalog.load()[2]
    assert characters["bart_cassidy"] == Character("bart_cassidy", "Bart Cassidy", 4, "bart_cassidy", "", {},
                                                   "base")


def test_a_rows_own_expansion_wins_and_a_file_without_one_is_base(data: Path) -> None:
    """``_all_rows``: a row's ``expansion`` key is kept; rows of a file without one are base rows."""
    rewrite(data, "characters.json", lambda d: d["characters"][0].update(expansion="dodge_city"))
    rewrite(data, "characters_dodge_city.json", lambda d: d.pop("expansion"))
    characters = catalog.load()[2]
    assert characters["bart_cassidy"].expansion == "dodge_city"
    assert characters["willy_the_kid"].expansion == "base"
    assert characters["apache_kid"] == replace(tables.CHARACTERS["apache_kid"], expansion="base")


@pytest.fixture
def ascii_locale() -> Iterator[None]:
    """The C locale, whose default text encoding is ASCII: a file read without ``encoding="utf-8"`` fails."""
    if sys.flags.utf8_mode:
        pytest.skip("Python's UTF-8 mode reads every file as UTF-8")
    saved = locale.setlocale(locale.LC_CTYPE)
    locale.setlocale(locale.LC_CTYPE, "C")
    try:
        yield
    finally:
        locale.setlocale(locale.LC_CTYPE, saved)


def test_the_data_files_are_read_as_utf8_whatever_the_locale(data: Path, ascii_locale: None) -> None:
    """``roles.json`` (by ``load`` and ``load_modes``) and the row files (``José Delgado``) are UTF-8."""
    doc = json.loads((data / "roles.json").read_text(encoding="utf-8"))
    doc["win_rules_note"] += " (Sheriff: shérif)"
    (data / "roles.json").write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    _, _, characters, roles, *_ = catalog.load()
    assert characters["jose_delgado"].name == "Jos\u00e9 Delgado" and roles == ROLES
    assert catalog.load_modes() == (MODES, REQUIRES)


def _dup_copy(d: dict[str, Any]) -> None:
    d["cards"][0]["copies"][0]["id"] = "base.barrel.Qs"


@pytest.mark.parametrize(("name", "change", "message"), [
    ("cards.json", lambda d: d["cards"].append(d["cards"][0]), "cards.json: duplicate key 'bang'"),
    ("cards.json", lambda d: d["cards"].append({"name": "X"}),
     "cards.json: row without a key: {'name': 'X', 'expansion': 'base'}"),
    ("cards.json", lambda d: d["cards"][0].update(rnage="reach"),
     "cards.json: card 'bang': unknown key(s) ['rnage']"),
    ("characters.json", lambda d: d["characters"].append(d["characters"][0]),
     "characters.json: duplicate key 'bart_cassidy'"),
    ("characters.json", lambda d: d["characters"].append({"name": "X"}),
     "characters.json: row without a key: {'name': 'X', 'expansion': 'base'}"),
    ("characters.json", lambda d: d["characters"][0].update(trait={}),
     "characters.json: character 'bart_cassidy': unknown key(s) ['trait']"),
    ("characters.json", lambda d: d["characters"].append(["bang"]),
     "characters.json: a row of 'characters' is not a JSON object: ['bang']"),
    (DC, _dup_copy, f"{DC}: card 'barrel': duplicate copy id 'base.barrel.Qs'"),
    (DC, lambda d: d["cards"][0].update(key="barel"),
     f"{DC}: reprint row 'barel' names no card loaded before it"),
    (DC, lambda d: d["cards"][0]["copies"][0].update(colour="red"),
     f"{DC}: card 'barrel': copy 'dodge_city.barrel.Ac': unknown key(s) ['colour']"),
])
def test_load_refuses_a_bad_row_naming_its_file_and_row(data: Path, name: str, change: Any,
                                                         message: str) -> None:
    """Duplicate or missing keys, unknown row keys, a row that is not an object, a copy id used twice, a
    reprint of no card, and an unknown key in a reprint's copy: each refused with its own message naming
    the file it is in."""
    rewrite(data, name, change)
    with refused(message):
        catalog.load()


# load_modes

@pytest.mark.rule("DC-044")
def test_load_modes_reads_every_mode_and_the_expansions_each_player_count_requires() -> None:
    """Standard (Sheriff first, roles hidden) and the 3-player mode (Deputy first, face up, targets and
    goals); 3 and 8 players require Dodge City, the others nothing."""
    modes, requires = catalog.load_modes()
    assert modes == MODES and requires == REQUIRES
    assert modes["standard"].face_up is False and modes["three_player"].face_up is True


def test_a_mode_with_only_its_first_role_gets_the_defaults(data: Path) -> None:
    """``face_up`` defaults to False, ``targets`` and ``goals`` to {}."""
    rewrite(data, "roles.json", lambda d: d["modes"].update(bare={"first": "outlaw"}))
    modes, requires = catalog.load_modes()
    assert modes == {**MODES, "bare": Mode("bare", "outlaw", False, {}, {})} and requires == REQUIRES
    assert modes["bare"].face_up is False


def test_a_roles_file_without_modes_has_none(data: Path) -> None:
    rewrite(data, "roles.json", lambda d: d.pop("modes"))
    assert catalog.load_modes() == ({}, REQUIRES)


# validate_modes

def _validate_modes(counts: dict[int, tuple[str, ...]] | None = None, win_rules: dict[int, str] | None = None,
                    requires: dict[int, tuple[str, ...]] | None = None) -> None:
    """``validate_modes`` of the real tables, with these entries changed."""
    catalog.validate_modes(tables.MODES, {**tables.ROLE_POOLS, **(counts or {})},
                           {**tables.WIN_RULE_OF, **(win_rules or {})},
                           {**tables.REQUIRES, **(requires or {})})


def test_the_real_modes_are_valid_and_a_player_count_missing_from_requires_requires_nothing() -> None:
    _validate_modes()
    catalog.validate_modes(tables.MODES, tables.ROLE_POOLS, tables.WIN_RULE_OF, {})


BAD_POOL = "bad role pool {} for mode {!r} (its first role once, its targets in the pool)"


@pytest.mark.parametrize(("change", "message"), [
    ({"win_rules": {4: "no_mode"}}, "player count 4: win rule 'no_mode' has no mode"),
    ({"counts": {4: ("deputy", "renegade", "outlaw", "outlaw")}},  # no Sheriff to start
     "player count 4: " + BAD_POOL.format(("deputy", "renegade", "outlaw", "outlaw"), "standard")),
    ({"counts": {4: ("sheriff", "sheriff", "outlaw", "outlaw")}},  # two of them
     "player count 4: " + BAD_POOL.format(("sheriff", "sheriff", "outlaw", "outlaw"), "standard")),
    ({"counts": {3: ("deputy", "outlaw", "outlaw")}},  # the Deputy's target, the Renegade, is missing
     "player count 3: " + BAD_POOL.format(("deputy", "outlaw", "outlaw"), "three_player")),
    ({"requires": {4: ("no_such",)}}, "player count 4: unknown required expansion(s) ('no_such',)"),
    ({"requires": {5: ("dodge_city", "base")}},
     "player count 5: unknown required expansion(s) ('dodge_city', 'base')"),
])
def test_validate_modes_refuses_each_bad_entry_with_its_message(change: dict[str, Any], message: str) -> None:
    """A win rule without a mode, a first role not dealt exactly once, a target outside the pool, and a
    required expansion that is not one (``base`` is never required)."""
    with refused(f"roles.json: {message}"):
        _validate_modes(**change)


# reprint_row

@pytest.mark.rule("DC-002")
def test_a_reprint_row_gives_copies_of_the_earlier_card_type_in_the_rows_expansion() -> None:
    """Every copy, with its id and sign, under the row's expansion; a row without one is a base row."""
    row = {"key": "beer", "expansion": "dodge_city", "copies": [{"id": "dodge_city.beer.6h", "suit": "hearts",
                                                                 "rank": "6"},
                                                                {"id": "dodge_city.beer.6s", "suit": "spades",
                                                                 "rank": "6"}]}
    assert catalog.reprint_row(row, DC, tables.TYPES) == [
        Card("dodge_city.beer.6h", "beer", "hearts", "6", "dodge_city"),
        Card("dodge_city.beer.6s", "beer", "spades", "6", "dodge_city")]
    row = {"key": "punch", "copies": [{"id": "t.punch.3h", "suit": "hearts", "rank": "3"}]}
    assert catalog.reprint_row(row, "cards.json", tables.TYPES) == [
        Card("t.punch.3h", "punch", "hearts", "3", "base")]


COPY = {"id": "t.beer.2h", "suit": "hearts", "rank": "2"}


@pytest.mark.parametrize(("row", "message"), [
    ({"key": "barel", "copies": [COPY], "expansion": "dodge_city"},
     "reprint row 'barel' names no card loaded before it"),
    ({"copies": [COPY], "expansion": "dodge_city"}, "reprint row None names no card loaded before it"),
    ({"key": 7, "copies": [COPY], "expansion": "dodge_city"}, "reprint row 7 names no card loaded before it"),
    ({"key": "beer", "copies": [COPY], "expansion": "base"},
     "reprint row 'beer': give more copies in the card's own row"),
    ({"key": "beer", "copies": [COPY]}, "reprint row 'beer': give more copies in the card's own row"),
    ({"key": "beer", "copies": [{**COPY, "colour": "red"}], "expansion": "dodge_city"},
     "card 'beer': copy 't.beer.2h': unknown key(s) ['colour']"),
])
def test_a_bad_reprint_row_is_refused_with_its_message(row: dict[str, Any], message: str) -> None:
    """A key of no card loaded before, a reprint in the card's own expansion (no ``expansion``: base),
    and an unknown key in a copy."""
    with refused(f"t.json: {message}"):
        catalog.reprint_row(row, "t.json", tables.TYPES)


# validate

def _validate(**change: Any) -> None:
    """``validate`` of the real tables, with these arguments changed."""
    args: dict[str, Any] = {"types": tables.TYPES, "cards": tables.CARDS, "characters": tables.CHARACTERS,
                            "roles": tables.ROLES, "counts": tables.ROLE_POOLS, "effects": EFFECTS,
                            "abilities": ABILITIES, "win_rules": tables.WIN_RULE_OF,
                            "win_rule_names": WIN_RULES}
    catalog.validate(**{**args, **change})


T = CardType(key="t_card", name="Test", color="brown", effect="bang", target="none", range="any")
CH = replace(tables.CHARACTERS["bart_cassidy"], key="t_char")


def _type(**kw: Any) -> dict[str, dict[str, CardType]]:
    return {"types": {**tables.TYPES, "t_card": replace(T, **kw)}}


def _card(suit: str, rank: str) -> dict[str, dict[str, Card]]:
    return {"cards": {**tables.CARDS, "t.1": Card("t.1", "bang", suit, rank)}}


def _base_signs(**kw: str) -> dict[str, dict[str, Card]]:
    return {"cards": {cid: replace(c, **kw) if c.expansion == "base" else c
                      for cid, c in tables.CARDS.items()}}


def _char(**kw: Any) -> dict[str, dict[str, Character]]:
    return {"characters": {**tables.CHARACTERS, "t_char": replace(CH, **kw)}}


def _pool(*pool: str) -> dict[str, dict[int, tuple[str, ...]]]:
    return {"counts": {**tables.ROLE_POOLS, 4: pool}}


def test_the_real_tables_are_valid_with_or_without_win_rules() -> None:
    """Without ``win_rules`` there is no win rule to check."""
    _validate()
    _validate(win_rules=None)


@pytest.mark.parametrize("life", [1, 5])
def test_a_character_of_1_or_5_life_points_is_valid(life: int) -> None:
    _validate(**_char(life=life))


CARD = "cards.json: card 't_card': "
CHAR = "characters.json: character 't_char': "
POOL = "roles.json: player count 4: bad role pool "


@pytest.mark.parametrize(("change", "message"), [
    ({"win_rules": {**tables.WIN_RULE_OF, 4: "no_such"}},
     "roles.json: player count 4: unknown win rule 'no_such'"),
    (_type(effect="no_such"), CARD + "unknown effect handler 'no_such'"),
    (_type(color="red"), CARD + "bad color/target/range 'red'/'none'/'any'"),
    (_type(target="self"), CARD + "bad color/target/range 'brown'/'self'/'any'"),
    (_type(range="far"), CARD + "bad color/target/range 'brown'/'none'/'far'"),
    (_type(passive={"x": 1}), CARD + "unknown passive(s) ['x']"),
    (_card("stars", "2"), "cards.json: copy 't.1': bad sign 2stars"),
    (_card("hearts", "1"), "cards.json: copy 't.1': bad sign 1hearts"),
    (_base_signs(suit="hearts"), "cards.json: the deck does not use every suit and rank"),
    (_base_signs(rank="7"), "cards.json: the deck does not use every suit and rank"),
    (_char(ability="no_such"), CHAR + "unknown ability handler 'no_such'"),
    (_char(life=0), CHAR + "life 0 out of 1..5"),
    (_char(life=6), CHAR + "life 6 out of 1..5"),
    (_char(traits={"x": 1}), CHAR + "unknown trait(s) ['x'] or expansion 'base'"),
    (_char(expansion="wild"), CHAR + "unknown trait(s) [] or expansion 'wild'"),
    (_pool("sheriff", "sheriff", "outlaw", "outlaw"), POOL + "('sheriff', 'sheriff', 'outlaw', 'outlaw')"),
    (_pool("sheriff", "outlaw", "outlaw"), POOL + "('sheriff', 'outlaw', 'outlaw')"),
    (_pool("sheriff", "outlaw", "outlaw", "bandit"), POOL + "('sheriff', 'outlaw', 'outlaw', 'bandit')"),
])
def test_validate_refuses_each_fault_alone_with_its_message(change: dict[str, Any], message: str) -> None:
    """One fault at a time, each branch's own message: an unknown win rule or effect handler; a bad color,
    target or range alone; an unknown passive; a bad suit or rank alone; a base deck missing a suit or a
    rank (its totals still right); an unknown ability; life outside 1..5; an unknown trait or expansion
    alone; a pool with two Sheriffs, of the wrong size, or with an unknown role."""
    with refused(message):
        _validate(**change)
