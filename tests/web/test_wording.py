"""The web client's wording layer (issue 31): every word a player reads comes from clients/web/src/i18n, in
English and Czech. Here: the two dictionaries have the same keys and the same {holes} (a key missing in
either language fails), counted messages have each language's plural forms, every checkbox option a ruleset
offers has its words, and in the browser the page follows the browser's language, switches, offers only the
seat counts the options allow (BANG! never defaults to an invalid 3), and words a refusal as a sentence with
the code only in a details element.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from tabletop.v1 import game_pb2
from tabletop.v1 import game_service_pb2 as svc

from tests.web.seats import SCREENSHOTS, VERSION_WAIT_MS, seat_script

I18N = Path(__file__).resolve().parents[2] / "clients" / "web" / "src" / "i18n"
ENTRY = re.compile(r'^\s*"([^"]+)":\s*"((?:[^"\\]|\\.)*)",?\s*$', re.MULTILINE)
FORMS = {"en": 2, "cs": 3}  # Intl.PluralRules categories the page uses: one|other, one|few|other


def dictionary(language: str) -> dict[str, str]:
    return dict(ENTRY.findall((I18N / f"{language}.ts").read_text(encoding="utf-8")))


def holes(text: str) -> set[str]:
    return set(re.findall(r"\{(\w+)\}", text))


def test_both_languages_have_every_key_with_the_same_holes() -> None:
    en, cs = dictionary("en"), dictionary("cs")
    assert len(en) > 300
    assert sorted(set(en) - set(cs)) == [], "missing in Czech"
    assert sorted(set(cs) - set(en)) == [], "missing in English"
    for key, text in en.items():
        assert holes(text) == holes(cs[key]) or "|" in text, f"{key}: {holes(text)} vs {holes(cs[key])}"
        if "|" in text or "|" in cs[key]:
            assert (text.count("|") + 1, cs[key].count("|") + 1) == (FORMS["en"], FORMS["cs"]), key
        assert cs[key].strip(), key


def test_every_checkbox_option_and_expansion_has_its_words(stub: Any) -> None:
    en = dictionary("en")
    for ruleset in stub.ListRulesets(svc.ListRulesetsRequest()).rulesets:
        for option in ruleset.options:
            if list(option.allowed_values) == ["false", "true"]:
                name = re.sub(r"[-_]([a-z])", lambda m: m.group(1).upper(), option.name)
                assert f"options.{name}" in en and f"options.{name}.help" in en, option.name
            if option.name == "expansions":
                for value in option.allowed_values:
                    assert f"options.expansion.{value.removeprefix('BANG_EXPANSION_')}" in en, value


def test_the_lobby_follows_the_browser_language_and_switches(browser: Any, web_url: str) -> None:
    context = browser.new_context(locale="cs-CZ")
    try:
        page = context.new_page()
        page.goto(f"{web_url}/")
        page.get_by_test_id("create").wait_for()
        assert page.locator("h1").inner_text() == "Herna"
        assert page.get_by_test_id("create").inner_text() == "Založit"
        page.get_by_test_id("ruleset").select_option("bang")
        page.locator("fieldset.options input[name='BANG_EXPANSION_DODGE_CITY']").wait_for()
        seats = page.get_by_test_id("seats")
        # Without Dodge City BANG! takes 4 to 7 players: the form starts at 4, never at an invalid 3.
        assert seats.locator("option").all_inner_texts() == ["4", "5", "6", "7"]
        assert seats.input_value() == "4"
        labels = page.locator("fieldset.options label").all_inner_texts()
        assert "Město duchů (Dodge City)" in [label.strip() for label in labels]
        assert not [label for label in labels if "delgado in play" in label.lower() or "_" in label]
        page.locator("fieldset.options input[name='BANG_EXPANSION_DODGE_CITY']").check()
        assert seats.locator("option").all_inner_texts() == ["3", "4", "5", "6", "7", "8"]
        page.get_by_test_id("language").select_option("en")
        page.locator("h1", has_text="Lobby").wait_for()
        assert page.get_by_test_id("create").inner_text() == "Create"
        assert page.evaluate("document.documentElement.lang") == "en"
    finally:
        context.close()


def test_a_refusal_is_a_sentence_with_the_code_in_details(browser: Any, web_url: str, stub: Any) -> None:
    created = stub.CreateGame(svc.CreateGameRequest(ruleset="ttr-europe", seat_count=3, display_names=["ann"]))
    context = browser.new_context(locale="en-GB")
    try:
        page = context.new_page()
        page.goto(f"{web_url}/#/games/{created.game.name.removeprefix('games/')}")
        page.get_by_test_id("join-name").fill("ann")
        page.get_by_test_id("join").click()
        refusal = page.get_by_test_id("refusal")
        refusal.wait_for(timeout=VERSION_WAIT_MS)
        assert refusal.locator(".sentence").inner_text() == "Another player in this game already has that name."
        details = refusal.locator("details")
        assert not details.locator("code").is_visible()  # the code is folded away
        details.locator("summary").click()
        assert details.locator("code").inner_text().startswith("DISPLAY_NAME_TAKEN: ")
        assert "DISPLAY_NAME_TAKEN" not in refusal.locator(".sentence").inner_text()
    finally:
        context.close()


def test_a_czech_seat_reads_the_catalog_in_czech(browser: Any, web_url: str, stub: Any) -> None:
    created = stub.CreateGame(svc.CreateGameRequest(ruleset="bang", seat_count=4, display_names=["ann", "bob", "cid", "dan"]))
    token = created.credentials[0].player_token
    czech = stub.GetRuleset(svc.GetRulesetRequest(name="rulesets/bang", language_code="cs")).bang
    names = {c.key: c.name for c in czech.cards}
    texts = {c.key: c.text for c in czech.cards}
    hand = stub.GetGame(svc.GetGameRequest(name=created.game.name), metadata=[("authorization", f"Bearer {token}")]).view.bang.hand
    context = browser.new_context(locale="cs")
    try:
        game = created.game.name
        context.add_init_script(
            seat_script(game, 0, token))
        page = context.new_page()
        page.goto(f"{web_url}/#/games/{game.removeprefix('games/')}")
        page.locator("[data-testid=hand] [data-card]").first.wait_for(timeout=VERSION_WAIT_MS)
        for card in hand:
            chip = page.locator(f"[data-testid=hand] [data-card='{card.id}']")
            assert chip.inner_text().startswith(names[card.name]), card.name
            assert chip.get_attribute("title") == texts[card.name]
        assert page.get_by_test_id("actions").locator("h3").inner_text() in ("Jste na tahu", "Čeká se na ostatní")
        assert page.get_by_test_id("connection").inner_text() == "Připojeno"
        if SCREENSHOTS:
            page.screenshot(path=str(Path(SCREENSHOTS) / "web_bang_cs.png"), full_page=True)
    finally:
        context.close()


EVENTS = I18N.parent / "events.ts"


def test_every_event_the_contract_can_send_has_its_line_in_the_feed() -> None:
    """The feed words every event kind (events.ts, from the dictionaries) and shows no raw kind: a lifecycle
    kind needs its ``ev.KIND`` words, a Ticket to Ride event its case, a BANG! kind its case; and every key
    the feed asks for is in the dictionary (the test above holds Czech to the same keys)."""
    source, en = EVENTS.read_text(encoding="utf-8"), dictionary("en")
    lifecycle = [v.name.removeprefix("KIND_") for v in game_pb2.LifecycleEvent.Kind.DESCRIPTOR.values][1:]
    assert [k for k in lifecycle if f"ev.{k}" not in en] == [], "lifecycle kinds without words"
    ttr = game_pb2.Event.DESCRIPTOR.fields_by_name["ttr_europe"].message_type.oneofs_by_name["kind"].fields
    camel = [re.sub(r"_([a-z])", lambda m: m.group(1).upper(), f.name) for f in ttr]
    assert [c for c in camel if f'case "{c}":' not in source] == [], "Ticket to Ride events without a line"
    bang = [v.name.removeprefix("BANG_EVENT_KIND_") for v in game_pb2.Event.DESCRIPTOR.fields_by_name["bang"].message_type.fields_by_name["kind"]
            .enum_type.values][1:]
    assert [k for k in bang if f"case BangEventKind.{k}:" not in source] == [], "BANG! events without a line"
    used = set(re.findall(r'\btn?\("([\w.]+)"', source))
    assert len(used) > 30 and sorted(used - set(en)) == [], "keys the feed asks for that no dictionary has"
