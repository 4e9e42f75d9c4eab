"""GetRuleset's language_code (issue 31): the BANG! catalog in Czech with the Czech editions' words, English
by default and for any language the server has no words in, one etag per language, and every card,
character and role worded in Czech (a row left in English fails here)."""

from __future__ import annotations

import json
from pathlib import Path

from tabletop.v1 import game_service_pb2 as svc
from tabletop.v1 import game_service_pb2_grpc as rpc

CS = json.loads((Path(__file__).resolve().parents[2] / "service" / "games" / "bang" / "data" / "catalog_cs.json")
                .read_text(encoding="utf-8"))


def get(stub: rpc.GameServiceStub, ruleset: str, language: str = "") -> svc.GetRulesetResponse:
    request = svc.GetRulesetRequest(name=f"rulesets/{ruleset}", language_code=language)
    return stub.GetRuleset(request)  # type: ignore[no-any-return]


def test_the_bang_catalog_in_czech_has_the_czech_editions_words(stub: rpc.GameServiceStub) -> None:
    english = get(stub, "bang")
    czech = get(stub, "bang", "cs")
    assert (english.language_code, czech.language_code) == ("en", "cs")
    names = {c.key: c.name for c in czech.bang.cards}
    assert (names["missed"], names["beer"], names["gatling"], names["general_store"], names["scope"]) == (
        "Vedle!", "Pivo", "Kulomet", "Hokynářství", "Hledí")
    assert (names["punch"], names["dodge"], names["brawl"], names["a_little_nip"], names["tumbleweed"]) == (
        "Úder", "Úhyb", "Rvačka", "Malý doušek", "Stepní běžec")
    texts = {c.key: c.text for c in czech.bang.cards}
    assert texts["stagecoach"] == "Doberte si 2 karty z balíčku."
    # Everything but the words is the same catalog: keys, copies, costs, characters' names and lives.
    for en_card, cs_card in zip(english.bang.cards, czech.bang.cards, strict=True):
        assert (en_card.key, en_card.color, en_card.cube_cost, list(en_card.copies)) == (
            cs_card.key, cs_card.color, cs_card.cube_cost, list(cs_card.copies))
    for en_char, cs_char in zip(english.bang.characters, czech.bang.characters, strict=True):
        assert (en_char.key, en_char.name, en_char.life) == (cs_char.key, cs_char.name, cs_char.life)
        assert cs_char.text != en_char.text
    assert [r.name for r in czech.bang.roles] == ["Šerif", "Pomocník šerifa", "Bandita", "Odpadlík"]


def test_every_row_of_the_catalog_has_its_czech_words(stub: rpc.GameServiceStub) -> None:
    english = get(stub, "bang").bang
    assert sorted(CS["cards"]) == sorted(c.key for c in english.cards)
    assert sorted(CS["characters"]) == sorted(c.key for c in english.characters)
    assert all(row["name"] and row["text"] for row in CS["cards"].values())
    assert all(row["text"] for row in CS["characters"].values())
    czech = get(stub, "bang", "cs").bang
    assert all(cs.text != en.text for cs, en in zip(czech.cards, english.cards, strict=True))
    assert all(cs.goal != en.goal for cs, en in zip(czech.roles, english.roles, strict=True))


def test_a_region_subtag_matches_and_other_languages_get_english(stub: rpc.GameServiceStub) -> None:
    czech = get(stub, "bang", "cs")
    assert get(stub, "bang", "cs-CZ") == czech
    assert get(stub, "bang", "CS") == czech
    english = get(stub, "bang")
    for other in ("en", "en-GB", "de", "zh-Hant-TW"):
        assert get(stub, "bang", other) == english
    # Ticket to Ride's catalog is cities and routes: the same words in every language.
    assert get(stub, "ttr-europe", "cs").language_code == "en"


def test_each_language_has_its_own_etag(stub: rpc.GameServiceStub) -> None:
    assert get(stub, "bang", "cs").etag != get(stub, "bang").etag
    assert get(stub, "bang", "cs").etag == get(stub, "bang", "cs-CZ").etag
