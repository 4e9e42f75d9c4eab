"""The data tables: ``catalog.load`` read against the JSON rows themselves, and every
``catalog.validate`` check on both sides (BANG-002..004, 083; issue 9).

``load`` runs once at import, so these tests call it again (on the real files, and on
small files written to a temporary ``DATA`` folder for the defaults and the errors).
"""

from __future__ import annotations

import dataclasses
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
from tabletop_server.service.games.bang.tables import (
    CARDS,
    CHARACTERS,
    MODES,
    REQUIRES,
    ROLE_POOLS,
    ROLES,
    TYPES,
    WIN_RULE_OF,
)

DATA = catalog.DATA


def raw(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((DATA / name).read_text(encoding="utf-8"))
    return data


@pytest.mark.rule("BANG-002", "BANG-003", "BANG-004", "BANG-083")
def test_load_reads_every_field_of_every_row() -> None:
    types, cards, characters, roles, counts, win_rules = catalog.load()
    rows = raw("cards.json")["cards"]
    assert list(types)[:len(rows)] == [r["key"] for r in rows]  # then the expansions' new names
    for r in rows:
        t = types[r["key"]]
        assert (t.key, t.name, t.color, t.effect, t.target, t.range) == (
            r["key"], r["name"], r["color"], r["effect"], r["target"], r["range"])
        assert t.weapon_range == r.get("weapon_range", 0) and t.bang_card is bool(r.get("bang_card"))
        assert t.missed is bool(r.get("missed"))
        assert dict(t.passive) == r.get("passive", {}) and dict(t.args) == r.get("args", {})
        for copy in r["copies"]:
            assert cards[copy["id"]] == catalog.Card(copy["id"], r["key"], copy["suit"], copy["rank"])
    assert sum(1 for c in cards.values() if c.expansion == "base") == 80
    for r in raw("characters.json")["characters"]:
        c = characters[r["key"]]
        assert (c.key, c.name, c.life, c.ability, c.text, dict(c.traits)) == (
            r["key"], r["name"], r["life"], r["ability"], r.get("text", ""), r.get("traits", {}))
    role_rows = raw("roles.json")
    assert {k: (v.key, v.name, v.goal, v.revealed) for k, v in roles.items()} == {
        k: (k, v["name"], v["goal"], v["revealed"]) for k, v in role_rows["roles"].items()}
    assert roles["sheriff"].revealed is True and roles["outlaw"].revealed is False
    assert counts == {int(n): tuple(v["roles"]) for n, v in role_rows["player_counts"].items()}
    assert win_rules == {3: "three_player", 4: "standard", 5: "standard", 6: "standard", 7: "standard",
                         8: "standard"}
    assert (types, cards, characters, roles, counts, win_rules) == (TYPES, CARDS, CHARACTERS, ROLES, ROLE_POOLS,
                                                                    WIN_RULE_OF)


@pytest.mark.rule("BANG-002")
def test_key_facts_of_the_rows() -> None:
    assert TYPES["bang"].bang_card and not TYPES["missed"].bang_card and TYPES["missed"].missed
    assert TYPES["winchester"].weapon_range == 5 and TYPES["volcanic"].weapon_range == 1
    assert TYPES["mustang"].equipment and TYPES["jail"].equipment and not TYPES["beer"].equipment
    assert catalog.RANK_VALUE["2"] == 2 and catalog.RANK_VALUE["10"] == 10 and catalog.RANK_VALUE["A"] == 14
    assert catalog.RANK_VALUE["J"] == 11 and catalog.RANK_VALUE["9"] == 9




def test_load_fills_defaults_for_omitted_fields(data: Path) -> None:
    def strip(doc: dict[str, Any]) -> None:
        row = doc["cards"][0]
        for k in ("target", "range", "bang_card"):
            row.pop(k, None)
    rewrite(data, "cards.json", strip)
    rewrite(data, "characters.json", lambda d: [d["characters"][0].pop(k) for k in ("text",)])
    types, _, characters, *_ = catalog.load()
    t = types["bang"]
    assert (t.target, t.range, t.weapon_range, t.bang_card, t.missed, dict(t.passive), dict(t.args)) == (
        "none", "any", 0, False, False, {}, {})
    assert characters["bart_cassidy"].text == "" and dict(characters["bart_cassidy"].traits) == {}


def test_load_refuses_bad_files(data: Path) -> None:
    rewrite(data, "cards.json", lambda d: d["cards"][1]["copies"].append(dict(d["cards"][0]["copies"][0])))
    with pytest.raises(catalog.DataError, match="card 'missed': duplicate copy id 'base.bang.2c'"):
        catalog.load()
    rewrite(data, "cards.json", lambda d: d.update(cards={"bang": 1}))
    with pytest.raises(catalog.DataError, match=r"cards.json: 'cards' must be a list"):
        catalog.load()
    shutil.copy(DATA / "cards.json", data / "cards.json")
    rewrite(data, "characters.json", lambda d: d["characters"].append(dict(d["characters"][0])))
    with pytest.raises(catalog.DataError, match="characters.json: duplicate key 'bart_cassidy'"):
        catalog.load()
    for bad in ({"name": "x"}, {"key": ""}, {"key": 3}):
        rewrite(data, "characters.json", lambda d, b=bad: d.update(characters=[b]))
        with pytest.raises(catalog.DataError, match="characters.json: row without a key"):
            catalog.load()


ARGS = (TYPES, CARDS, CHARACTERS, ROLES, ROLE_POOLS, EFFECTS, ABILITIES, WIN_RULE_OF, WIN_RULES)


def validate(**change: Any) -> None:
    names = ("types", "cards", "characters", "roles", "counts", "effects", "abilities", "win_rules",
             "win_rule_names")
    catalog.validate(*(change.get(n, a) for n, a in zip(names, ARGS, strict=True)))


def test_validate_accepts_the_real_rows_and_optional_win_rules() -> None:
    validate()
    catalog.validate(*ARGS[:7])
    validate(win_rules=None)


@pytest.mark.parametrize(("field", "value", "message"), [
    ("color", "purple", "card 'bang': bad color/target/range 'purple'/'other'/'reach'"),
    ("target", "all", "bad color/target/range 'brown'/'all'/'reach'"),
    ("range", "far", "bad color/target/range 'brown'/'other'/'far'"),
    ("effect", "nothing", "card 'bang': unknown effect handler 'nothing'"),
])
def test_validate_refuses_a_bad_card_type(field: str, value: str, message: str) -> None:
    with pytest.raises(catalog.DataError, match=message):
        validate(types={**TYPES, "bang": dataclasses.replace(TYPES["bang"], **{field: value})})


@pytest.mark.parametrize(("field", "value"), [("suit", "stars"), ("rank", "1"), ("rank", "14")])
def test_validate_refuses_a_bad_sign(field: str, value: str) -> None:
    cards = {**CARDS, "base.bang.2c": dataclasses.replace(CARDS["base.bang.2c"], **{field: value})}
    with pytest.raises(catalog.DataError, match="copy 'base.bang.2c': bad sign"):
        validate(cards=cards)


@pytest.mark.rule("BANG-002")
def test_validate_refuses_wrong_totals_and_unused_signs() -> None:
    renamed = {**CARDS, "base.bang.2c": dataclasses.replace(CARDS["base.bang.2c"], key="missed")}
    with pytest.raises(catalog.DataError, match="base deck totals differ"):
        validate(cards=renamed)
    extra = {**CARDS, "x": dataclasses.replace(CARDS["base.bang.2c"], id="x")}
    with pytest.raises(catalog.DataError, match=r"\(81 cards, want 80\)"):
        validate(cards=extra)
    no_clubs = {k: dataclasses.replace(c, suit="spades") if c.suit == "clubs" else c for k, c in CARDS.items()}
    with pytest.raises(catalog.DataError, match="does not use every suit and rank"):
        validate(cards=no_clubs)
    no_aces = {k: dataclasses.replace(c, rank="K") if c.rank == "A" else c for k, c in CARDS.items()}
    with pytest.raises(catalog.DataError, match="does not use every suit and rank"):
        validate(cards=no_aces)


@pytest.mark.rule("BANG-083")
@pytest.mark.parametrize(("life", "ok"), [(0, False), (1, True), (5, True), (6, False)])
def test_validate_character_life_from_one_to_five(life: int, ok: bool) -> None:
    chars = {**CHARACTERS, "bart_cassidy": dataclasses.replace(CHARACTERS["bart_cassidy"], life=life)}
    if ok:
        validate(characters=chars)
    else:
        with pytest.raises(catalog.DataError, match=f"character 'bart_cassidy': life {life} out of 1..5"):
            validate(characters=chars)


@pytest.mark.rule("BANG-004")
@pytest.mark.parametrize("pool", [("sheriff", "outlaw", "outlaw"), ("sheriff", "sheriff", "outlaw", "outlaw"),
                                  ("renegade", "outlaw", "outlaw", "deputy"), ("sheriff", "joker", "outlaw", "outlaw")])
def test_validate_refuses_a_bad_role_pool(pool: tuple[str, ...]) -> None:
    counts = {**ROLE_POOLS, 4: pool}
    with pytest.raises(catalog.DataError, match="roles.json: player count 4: bad role pool"):
        validate(counts=counts)
        catalog.validate_modes(MODES, counts, WIN_RULE_OF, REQUIRES)  # no Sheriff: the mode's first role


def test_validate_names_an_unknown_win_rule_and_ability() -> None:
    with pytest.raises(catalog.DataError, match="player count 6: unknown win rule 'chess'"):
        validate(win_rules={**WIN_RULE_OF, 6: "chess"})
    with pytest.raises(catalog.DataError, match="unknown ability handler"):
        validate(abilities=[a for a in ABILITIES if a != "willy_the_kid"])
