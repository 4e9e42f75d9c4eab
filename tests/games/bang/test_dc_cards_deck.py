"""Dodge City's deck: 40 cards mixed into the base ones, reprints acting as the base cards, two
Dynamites, Binocular and Hideout (DC-001, 002, 017, 057, 058), and the catalog rows behind them."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from bang_helpers import act, dead, equip, give, play, rewrite, stack_deck, table_keys
from dc_cards_helpers import dc_table, refused

from tabletop_server.service.games import bang
from tabletop_server.service.games.bang import catalog, counts
from tabletop_server.service.games.bang.state import all_cards
from tabletop_server.service.games.bang.tables import CARDS, TYPE_OF, TYPES

pytestmark = pytest.mark.usefixtures("dodge_city")


@pytest.mark.rule("DC-001")
def test_the_dodge_city_deck_has_120_cards_mixed_into_the_base_ones() -> None:
    st = bang.setup({"expansions": ["dodge_city"]}, 5, 7)
    cards = all_cards(st)
    assert len(cards) == len(set(cards)) == 120
    assert Counter(TYPE_OF[c].color for c in cards) == {"brown": 63 + 19, "blue": 17 + 7, "green": 14}
    assert Counter(CARDS[c].expansion for c in cards) == {"base": 80, "dodge_city": 40}
    assert len({CARDS[c].key for c in cards if CARDS[c].expansion == "dodge_city"}) == 34
    # Mixed: the shuffled deck interleaves the two sets (not 80 base cards then 40 others).
    order = [CARDS[c].expansion for c in st["deck"]]
    assert order != sorted(order) and order != sorted(order, reverse=True)
    base = bang.setup({}, 5, 7)
    assert len(all_cards(base)) == 80 and not [c for c in all_cards(base) if CARDS[c].expansion != "base"]


@pytest.mark.rule("DC-002")
def test_reprints_act_exactly_as_the_base_cards() -> None:
    for dc, base in (("dodge_city.bang.8s", "base.bang.2c"), ("dodge_city.dynamite.10c", "base.dynamite.2h"),
                     ("dodge_city.missed.8d", "base.missed.10c"), ("dodge_city.beer.6s", "base.beer.6h")):
        assert TYPE_OF[dc] is TYPE_OF[base], dc
    st = dc_table(4)
    dc_bang, base_bang = give(st, 0, ["dodge_city.bang.8s", "base.bang.2c"])
    missed = give(st, 1, ["missed"])[0]
    play(st, 0, dc_bang, target=1)
    assert st["bangs"] == 1 and {"type": "respond", "card": missed} in bang.legal_actions(st, 1)
    act(st, 1, {"type": "respond", "card": missed})
    assert st["p"][1]["life"] == 4
    assert refused(st, 0, {"type": "play", "card": base_bang, "target": 1}) == "BANG_ALREADY_PLAYED"
    for sign, explodes in (("any:9s", True), ("any:2s", True), ("any:10s", False), ("any:5h", False)):
        st = dc_table(4)
        equip(st, 1, ["dodge_city.dynamite.10c"])
        stack_deck(st, [sign])
        act(st, 0, {"type": "end_turn"})
        assert (st["p"][1]["life"] == 1) is explodes, sign


@pytest.mark.rule("DC-001", "DC-002")
def test_a_reprint_row_must_name_a_card_of_another_expansion(data: Path) -> None:
    name = "cards_dodge_city.json"
    rewrite(data, name, lambda d: d["cards"][0].update(key="barel"))
    with pytest.raises(catalog.DataError, match="reprint row 'barel' names no card loaded before it"):
        catalog.load()
    rewrite(data, name, lambda d: d["cards"][0].update(key="barrel", name="Barrel"))  # not a reprint row
    with pytest.raises(catalog.DataError, match="duplicate key 'barrel'"):
        catalog.load()
    rewrite(data, name, lambda d: (d["cards"][0].pop("name"), d.update(expansion="base")))
    with pytest.raises(catalog.DataError, match="reprint row 'barrel': give more copies in the card's own row"):
        catalog.load()


def test_the_loaded_rows_match_the_printed_totals(data: Path) -> None:
    types, cards, *_ = catalog.load()
    assert Counter(c.key for c in cards.values() if c.expansion == "dodge_city") == counts.DODGE_CITY_COUNTS
    assert types == TYPES
    rewrite(data, "cards_dodge_city.json", lambda d: d["cards"][0]["copies"].pop())
    loaded = catalog.load()
    from tabletop_server.service.games.bang.abilities import ABILITIES
    from tabletop_server.service.games.bang.damage import WIN_RULES
    from tabletop_server.service.games.bang.effects import EFFECTS
    with pytest.raises(catalog.DataError, match="dodge_city totals differ"):
        catalog.validate(loaded[0], loaded[1], *loaded[2:5], EFFECTS, ABILITIES, loaded[5], WIN_RULES)


@pytest.mark.rule("DC-017")
def test_an_unexploded_dynamite_passes_to_the_nearest_player_without_one() -> None:
    st = dc_table(4)
    base_dynamite = equip(st, 0, ["base.dynamite.2h"])[0]
    dc_dynamite = equip(st, 1, ["dodge_city.dynamite.10c"])[0]
    st["turn"] = 3
    stack_deck(st, ["any:Jh"])
    act(st, 3, {"type": "end_turn"})  # seat 0's turn: his Dynamite does not explode
    assert st["turn"] == 0 and st["p"][2]["table"] == [base_dynamite] and st["p"][1]["table"] == [dc_dynamite]
    assert table_keys(st, 0) == []
    # Everyone else alive has one: it stays.
    st = dc_table(4, roles=["sheriff", "renegade", "outlaw", "outlaw"])
    dead(st, 2, 3)
    base_dynamite = equip(st, 0, ["base.dynamite.2h"])[0]
    equip(st, 1, ["dodge_city.dynamite.10c"])
    st["turn"] = 1
    stack_deck(st, ["any:Jh"])
    act(st, 1, {"type": "end_turn"})
    assert st["turn"] == 0 and st["p"][0]["table"] == [base_dynamite] and st["p"][0]["life"] == 5


@pytest.mark.rule("DC-057")
def test_binocular_adds_up_with_scope() -> None:
    st = dc_table(6)
    binocular, bang_card = give(st, 0, ["binocular", "bang"])
    equip(st, 0, ["scope"])
    give(st, 3, ["beer"])
    assert refused(st, 0, {"type": "play", "card": bang_card, "target": 3}) == "OUT_OF_RANGE"  # 3 - 1
    assert {"type": "play", "card": binocular} in bang.legal_actions(st, 0)  # another name than Scope
    play(st, 0, binocular)
    assert {"type": "play", "card": bang_card, "target": 3} in bang.legal_actions(st, 0)  # 3 - 2 = 1


@pytest.mark.rule("DC-058")
def test_hideout_adds_up_with_mustang() -> None:
    st = dc_table(4)
    hideout = give(st, 2, ["hideout"])[0]
    equip(st, 2, ["mustang"])
    bang_card = give(st, 0, ["bang"])[0]
    equip(st, 0, ["remington"])
    assert {"type": "play", "card": bang_card, "target": 2} in bang.legal_actions(st, 0)  # 2 + 1 = 3
    st["turn"] = 2
    assert {"type": "play", "card": hideout} in bang.legal_actions(st, 2)  # another name than Mustang
    play(st, 2, hideout)
    st["turn"] = 0
    assert refused(st, 0, {"type": "play", "card": bang_card, "target": 2}) == "OUT_OF_RANGE"  # 2 + 2 = 4
    play(st, 0, give(st, 0, ["rev_carabine"])[0])  # replaces the Remington
    assert {"type": "play", "card": bang_card, "target": 2} in bang.legal_actions(st, 0)
