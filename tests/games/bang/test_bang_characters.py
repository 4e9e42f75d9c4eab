"""A scenario per base character ability, with the NOTES (c) rulings (BANG-084..106)."""

from __future__ import annotations

import pytest
from bang_helpers import act, equip, give, hand_keys, pass_all, pending_kind, play, stack_deck, table

from tabletop_server.service.engine.errors import RuleError
from tabletop_server.service.games import bang
from tabletop_server.service.games.bang.distance import distance


def chars(n: int, **at: str) -> list[str]:
    """Black Jack everywhere except the given seats (``s1="bart_cassidy"``)."""
    out = ["black_jack"] * n
    for key, name in at.items():
        out[int(key[1:])] = name
    return out


@pytest.mark.rule("BANG-084")
def test_bart_cassidy_draws_per_life_lost() -> None:
    st = table(4, chars=chars(4, s1="bart_cassidy"))
    top = stack_deck(st, ["beer"])
    play(st, 0, give(st, 0, ["bang"])[0], target=1)
    assert st["p"][1]["life"] == 3 and st["p"][1]["hand"] == top
    st = table(4, chars=chars(4, s1="bart_cassidy"))
    equip(st, 1, ["dynamite"])
    stack_deck(st, ["any:5s", "bang", "bang", "bang", "missed", "missed"])
    act(st, 0, {"type": "end_turn"})
    assert st["p"][1]["life"] == 1 and len(st["p"][1]["hand"]) == 3 + 2


@pytest.mark.rule("BANG-085")
def test_bart_cassidy_draws_after_the_dying_window_only_if_alive() -> None:
    st = table(5, chars=chars(5, s1="bart_cassidy"))
    st["p"][1]["life"] = 1
    beer_on_deck = stack_deck(st, ["beer"])[0]
    play(st, 0, give(st, 0, ["bang"])[0], target=1)
    assert not st["p"][1]["alive"] and st["deck"][-1] == beer_on_deck
    st = table(5, chars=chars(5, s1="bart_cassidy"))
    st["p"][1]["life"] = 1
    give(st, 1, ["beer"])
    play(st, 0, give(st, 0, ["bang"])[0], target=1)
    act(st, 1, {"type": "pass"})
    act(st, 1, {"type": "respond", "card": st["p"][1]["hand"][0]})
    assert st["p"][1]["life"] == 1 and len(st["p"][1]["hand"]) == 1


@pytest.mark.rule("BANG-086")
def test_black_jack_shows_second_card_and_draws_a_third_on_red() -> None:
    st = table(4)
    top = stack_deck(st, ["any:5s", "beer:7h", "bang:9c"])
    events = act(st, 0, {"type": "end_turn"})
    assert st["p"][1]["hand"] == top
    shown = [e for e in events if e["kind"] == "draw" and e["reason"] == "black_jack_shown"]
    assert bang.project(shown[0], 3)["cards"] == [top[1]]
    hidden = [e for e in events if e["kind"] == "draw" and e["reason"] == "black_jack"]
    assert bang.project(hidden[0], 3)["cards"] == [] and bang.project(hidden[0], 1)["cards"] == [top[2]]
    st = table(4)
    stack_deck(st, ["any:5s", "bang:7c", "bang:9c"])
    act(st, 0, {"type": "end_turn"})
    assert len(st["p"][1]["hand"]) == 2


@pytest.mark.rule("BANG-087")
def test_calamity_janet_uses_bang_as_missed_in_every_window() -> None:
    st = table(4, chars=chars(4, s1="calamity_janet"))
    b = give(st, 1, ["bang", "missed", "missed"])[0]
    play(st, 0, give(st, 0, ["bang"])[0], target=1)
    act(st, 1, {"type": "respond", "card": b})
    assert st["p"][1]["life"] == 4
    play(st, 0, give(st, 0, ["indians"])[0])
    act(st, 1, {"type": "respond", "card": st["p"][1]["hand"][0]})
    assert st["p"][1]["life"] == 4
    play(st, 0, give(st, 0, ["duel"])[0], target=1)
    act(st, 1, {"type": "respond", "card": st["p"][1]["hand"][0]})
    assert st["p"][1]["life"] == 4 and st["p"][0]["life"] == 4


@pytest.mark.rule("BANG-088")
def test_calamity_janet_missed_as_bang_counts_for_the_limit() -> None:
    st = table(4, chars=chars(4, s0="calamity_janet"))
    m, b = give(st, 0, ["missed", "bang"])
    play(st, 0, m, target=1)
    with pytest.raises(RuleError) as err:
        play(st, 0, b, target=1)
    assert err.value.reason == "BANG_ALREADY_PLAYED"
    equip(st, 0, ["volcanic"])
    play(st, 0, b, target=1)


@pytest.mark.rule("BANG-089", "BANG-090")
def test_el_gringo_takes_a_card_from_the_shooter_not_from_dynamite_or_own_duel() -> None:
    st = table(4, chars=chars(4, s1="el_gringo"))
    b, keep = give(st, 0, ["bang", "beer"])
    play(st, 0, b, target=1)
    assert st["p"][1]["hand"] == [keep] and st["p"][0]["hand"] == []
    st = table(4, chars=chars(4, s0="el_gringo"))
    d = give(st, 0, ["duel"])[0]
    give(st, 1, ["bang", "beer"])
    play(st, 0, d, target=1)
    act(st, 1, {"type": "respond", "card": st["p"][1]["hand"][0]})
    assert st["p"][0]["life"] == 3 and st["p"][0]["hand"] == [] and len(st["p"][1]["hand"]) == 1


@pytest.mark.rule("BANG-091")
def test_el_gringo_gets_nothing_when_the_hit_kills_him() -> None:
    st = table(5, chars=chars(5, s1="el_gringo"))
    st["p"][1]["life"] = 1
    b, beer = give(st, 0, ["bang", "beer"])
    play(st, 0, b, target=1)
    assert not st["p"][1]["alive"] and st["p"][0]["hand"] == [beer]


@pytest.mark.rule("BANG-092", "BANG-012")
def test_jesse_jones_first_card_from_a_hand() -> None:
    st = table(4, chars=chars(4, s1="jesse_jones"))
    victim = give(st, 3, ["beer"])[0]
    top = stack_deck(st, ["bang"])
    act(st, 0, {"type": "end_turn"})
    assert pending_kind(st) == "draw" and bang.to_act(st) == [1]
    with pytest.raises(RuleError) as err:
        act(st, 1, {"type": "draw", "source": "player", "target": 2})
    assert err.value.reason == "EMPTY_HAND"
    events = act(st, 1, {"type": "draw", "source": "player", "target": 3})
    assert st["p"][1]["hand"] == [victim] + top and st["phase"] == "play"
    take = next(e for e in events if e["kind"] == "take")
    assert bang.project(take, 2)["cards"] == [] and bang.project(take, 3)["cards"] == [victim]
    # Abilities are never compulsory (BANG-012): he may draw both cards from the deck.
    st = table(4, chars=chars(4, s1="jesse_jones"))
    give(st, 3, ["beer"])
    top = stack_deck(st, ["bang", "duel"])
    act(st, 0, {"type": "end_turn"})
    act(st, 1, {"type": "draw", "source": "deck"})
    assert st["p"][1]["hand"] == top and len(st["p"][3]["hand"]) == 1


@pytest.mark.rule("BANG-093")
def test_jourdonnais_draws_twice_with_a_real_barrel() -> None:
    st = table(4, chars=chars(4, s1="jourdonnais"))
    barrel = equip(st, 1, ["barrel"])[0]
    stack_deck(st, ["any:2s", "beer:8h"])
    play(st, 0, give(st, 0, ["bang"])[0], target=1)
    act(st, 1, {"type": "barrel", "card": barrel})
    assert pending_kind(st) == "bang"
    act(st, 1, {"type": "barrel"})
    assert st["p"][1]["life"] == 4 and not st["pending"]
    st = table(4, chars=chars(4, s1="jourdonnais"))
    play(st, 0, give(st, 0, ["bang"])[0], target=1)
    assert bang.legal_actions(st, 1) == [{"type": "pass"}, {"type": "barrel"}]


@pytest.mark.rule("BANG-094")
def test_kit_carlson_keeps_two_and_puts_one_back_secretly() -> None:
    st = table(4, chars=chars(4, s1="kit_carlson"))
    a, b, c = stack_deck(st, ["bang", "beer", "missed"])
    events = act(st, 0, {"type": "end_turn"})
    assert pending_kind(st) == "kit_carlson"
    assert bang.view(st, 2).pending[0].hidden_card_count == 3 and not bang.view(st, 2).pending[0].cards
    assert [x.id for x in bang.view(st, 1).pending[0].cards] == [a, b, c]
    look = next(e for e in events if e["kind"] == "look")
    assert bang.project(look, 0)["cards"] == []
    act(st, 1, {"type": "choose", "card": b})
    assert sorted(st["p"][1]["hand"]) == sorted([a, c]) and st["deck"][-1] == b


@pytest.mark.rule("BANG-095")
def test_lucky_duke_flips_two_and_chooses() -> None:
    st = table(4, chars=chars(4, s1="lucky_duke"))
    equip(st, 1, ["jail"])
    x, y = stack_deck(st, ["any:4s", "beer:9h"])
    act(st, 0, {"type": "end_turn"})
    assert pending_kind(st) == "pick"
    act(st, 1, {"type": "choose", "card": y})
    assert st["phase"] == "play" and x in st["discard"] and y in st["discard"]
    # Both flips give the same outcome: nothing to choose.
    st = table(4, chars=chars(4, s1="lucky_duke"))
    equip(st, 1, ["dynamite"])
    stack_deck(st, ["any:Jh", "beer:9h"])
    act(st, 0, {"type": "end_turn"})
    assert st["phase"] == "play" and st["p"][1]["life"] == 4


@pytest.mark.rule("BANG-096", "BANG-098")
def test_paul_regret_and_rose_doolan_distances() -> None:
    st = table(4, chars=chars(4, s2="paul_regret"))
    assert distance(st, 0, 2) == 3
    equip(st, 2, ["mustang"])
    assert distance(st, 0, 2) == 4
    st = table(7, chars=chars(7, s0="rose_doolan"))
    assert distance(st, 0, 3) == 2
    equip(st, 0, ["scope"])
    assert distance(st, 0, 3) == 1 and distance(st, 0, 1) == 1


@pytest.mark.rule("BANG-097")
def test_pedro_ramirez_first_card_from_the_discard_pile() -> None:
    st = table(4, chars=chars(4, s1="pedro_ramirez"))
    beer = give(st, 0, ["beer"])[0]
    st["p"][0]["hand"].remove(beer)
    st["discard"].append(beer)
    top = stack_deck(st, ["bang"])
    events = act(st, 0, {"type": "end_turn"})
    assert bang.legal_actions(st, 1) == [{"type": "draw", "source": "deck"}, {"type": "draw", "source": "discard"}]
    events = act(st, 1, {"type": "draw", "source": "discard"})
    assert st["p"][1]["hand"] == [beer] + top
    assert bang.project(events[0], 3)["cards"] == [beer]
    st = table(4, chars=chars(4, s1="pedro_ramirez"))
    act(st, 0, {"type": "end_turn"})
    assert st["phase"] == "play" and len(st["p"][1]["hand"]) == 2  # empty discard pile: no choice


@pytest.mark.rule("BANG-099")
def test_sid_ketchum_discards_two_for_one_life_even_when_dying() -> None:
    st = table(4, chars=chars(4, s0="sid_ketchum"))
    st["p"][0]["life"] = 2
    cards = give(st, 0, ["bang", "bang", "missed", "missed"])
    act(st, 0, {"type": "ability", "cards": cards[:2]})
    act(st, 0, {"type": "ability", "cards": cards[2:]})
    assert st["p"][0]["life"] == 4 and not st["p"][0]["hand"]
    st["p"][0]["life"] = 5
    give(st, 0, ["duel", "duel"])
    with pytest.raises(RuleError) as err:
        act(st, 0, {"type": "ability", "cards": st["p"][0]["hand"]})
    assert err.value.reason == "LIFE_AT_MAXIMUM"
    # Out of turn, at his last life, with two players left.
    st = table(4, chars=chars(4, s1="sid_ketchum"))
    st["p"][2]["alive"] = st["p"][3]["alive"] = False
    st["p"][1]["life"] = 1
    two = give(st, 1, ["panic", "duel"])
    play(st, 0, give(st, 0, ["bang"])[0], target=1)
    act(st, 1, {"type": "pass"})
    assert pending_kind(st) == "dying"
    act(st, 1, {"type": "ability", "cards": two})
    assert st["p"][1]["alive"] and st["p"][1]["life"] == 1 and not st["pending"]


@pytest.mark.rule("BANG-100")
def test_slab_the_killer_needs_two_missed_a_barrel_counts_one() -> None:
    st = table(4, chars=chars(4, s0="slab_the_killer"))
    m = give(st, 1, ["missed"])[0]
    play(st, 0, give(st, 0, ["bang"])[0], target=1)
    act(st, 1, {"type": "respond", "card": m})
    assert st["p"][1]["life"] == 3
    st = table(4, chars=chars(4, s0="slab_the_killer"))
    m = give(st, 1, ["missed"])[0]
    barrel = equip(st, 1, ["barrel"])[0]
    stack_deck(st, ["beer:9h"])
    play(st, 0, give(st, 0, ["bang"])[0], target=1)
    act(st, 1, {"type": "barrel", "card": barrel})
    act(st, 1, {"type": "respond", "card": m})
    assert st["p"][1]["life"] == 4 and not st["pending"]
    # Gatling is no BANG! card: one Missed! is enough.
    st = table(4, chars=chars(4, s0="slab_the_killer"))
    m = give(st, 1, ["missed"])[0]
    play(st, 0, give(st, 0, ["gatling"])[0])
    act(st, 1, {"type": "respond", "card": m})
    assert st["p"][1]["life"] == 4


@pytest.mark.rule("BANG-101")
def test_suzy_lafayette_draws_when_her_hand_empties_also_out_of_turn() -> None:
    st = table(4, chars=chars(4, s0="suzy_lafayette"))
    st["p"][0]["life"] = 3
    beer = give(st, 0, ["beer"])[0]
    top = stack_deck(st, ["bang"])
    play(st, 0, beer)
    assert st["p"][0]["life"] == 4 and st["p"][0]["hand"] == top
    st = table(4, chars=chars(4, s1="suzy_lafayette"))
    last = give(st, 1, ["beer"])[0]
    top = stack_deck(st, ["duel"])
    play(st, 0, give(st, 0, ["panic"])[0], target=1, pick="hand")
    assert last in st["p"][0]["hand"] and st["p"][1]["hand"] == top


@pytest.mark.rule("BANG-102")
def test_suzy_lafayette_draws_only_after_a_duel() -> None:
    st = table(4, chars=chars(4, s1="suzy_lafayette"))
    only = give(st, 1, ["bang"])[0]
    d, b0 = give(st, 0, ["duel", "bang"])
    top = stack_deck(st, ["bang"])
    play(st, 0, d, target=1)
    act(st, 1, {"type": "respond", "card": only})
    act(st, 0, {"type": "respond", "card": b0})
    # She cannot answer (no draw during the Duel): she loses 1, then draws.
    assert st["p"][1]["life"] == 3 and st["p"][1]["hand"] == top


@pytest.mark.rule("BANG-103")
def test_suzy_lafayette_against_slab_draws_her_second_missed() -> None:
    st = table(4, chars=chars(4, s0="slab_the_killer", s1="suzy_lafayette"))
    m = give(st, 1, ["missed"])[0]
    top = stack_deck(st, ["missed"])
    play(st, 0, give(st, 0, ["bang"])[0], target=1)
    act(st, 1, {"type": "respond", "card": m})
    assert st["p"][1]["hand"] == top
    act(st, 1, {"type": "respond", "card": top[0]})
    assert st["p"][1]["life"] == 4


@pytest.mark.rule("BANG-104")
def test_vulture_sam_takes_every_card_of_the_eliminated() -> None:
    st = table(5, chars=chars(5, s0="vulture_sam"), roles=["sheriff", "renegade", "outlaw", "deputy", "outlaw"])
    st["p"][3]["life"] = 1
    give(st, 3, ["bang", "duel"])
    equip(st, 3, ["barrel", "volcanic"])
    st["turn"] = 2
    play(st, 2, give(st, 2, ["gatling"])[0])
    pass_all(st)
    discards = len(st["discard"])
    assert not st["p"][3]["alive"]
    assert hand_keys(st, 0) == ["bang", "barrel", "duel", "volcanic"] and not st["p"][0]["table"]
    assert discards == 1  # only the Gatling


@pytest.mark.rule("BANG-105", "BANG-026")
def test_vulture_sam_sheriff_killing_his_deputy_discards_everything() -> None:
    st = table(5, chars=chars(5, s0="vulture_sam"))
    st["p"][4]["role"], st["p"][1]["role"] = "deputy", "outlaw"
    st["p"][4]["life"] = 1
    give(st, 4, ["duel", "panic", "cat_balou"])
    b, extra = give(st, 0, ["bang", "missed"])
    equip(st, 0, ["mustang"])
    play(st, 0, b, target=4)
    pass_all(st)
    assert not st["p"][4]["alive"]
    assert not st["p"][0]["hand"] and not st["p"][0]["table"] and extra in st["discard"]


@pytest.mark.rule("BANG-106")
def test_willy_the_kid_any_number_of_bangs_with_unchanged_range() -> None:
    st = table(6, chars=chars(6, s0="willy_the_kid"))
    equip(st, 0, ["schofield"])
    b = give(st, 0, ["bang", "bang", "bang", "bang"])
    play(st, 0, b[0], target=1)
    play(st, 0, b[1], target=2)
    play(st, 0, b[2], target=4)
    with pytest.raises(RuleError) as err:
        play(st, 0, b[3], target=3)
    assert err.value.reason == "OUT_OF_RANGE"


def test_every_character_has_a_scenario() -> None:
    """Every character is seated by some scenario here, in ``test_dc_characters_*.py`` or in
    ``test_ad_characters*.py`` (``chars(n, sK="key")``
    or a ``chars=[...]`` list); Black Jack is every table's default and has his own test."""
    import ast
    from pathlib import Path

    from tabletop_server.service.games.bang.tables import CHARACTERS
    seated = {"black_jack"}
    here = Path(__file__)  # and the Dodge City characters' own scenario files
    for path in [here, *sorted(here.parent.glob("test_dc_characters_*.py")),
                 *sorted(here.parent.glob("test_ad_characters*.py"))]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("chars", "table")):
                continue
            for kw in node.keywords:
                values = kw.value.elts if isinstance(kw.value, ast.List) else [kw.value]
                if kw.arg == "chars" or (kw.arg or "").startswith("s"):
                    seated |= {v.value for v in values if isinstance(v, ast.Constant)}
    assert set(CHARACTERS) <= seated, sorted(set(CHARACTERS) - seated)
    assert "test_black_jack_shows_second_card_and_draws_a_third_on_red" in globals()


def test_a_copied_ability_is_one_key_in_the_player_entry() -> None:
    """How a copying character (Vera Custer, Dodge City) will plug in: ``"as"`` names the copy."""
    st = table(4)
    st["p"][0]["as"] = "willy_the_kid"
    b1, b2 = give(st, 0, ["bang", "bang"])
    play(st, 0, b1, target=1)
    play(st, 0, b2, target=1)  # Willy the Kid's trait applies
    assert st["p"][1]["life"] == 2
