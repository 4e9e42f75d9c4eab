"""Dodge City characters, passive and triggered (DC-019..022, 026..028, 035..037), and the pool.

Scenarios through the public ruleset with the ``dodge_city`` fixture; seat 0 is the
Sheriff, distances in 4 players: 1 to seats 1 and 3, 2 to seat 2.
"""

from __future__ import annotations

import pytest
from bang_core_helpers import extra_cards
from bang_helpers import act, chars, dead, duel_kill, equip, give, pending_kind, play, refused, table

from tabletop_server.service.engine.ruleset import Event
from tabletop_server.service.games import bang
from tabletop_server.service.games.bang.tables import BASE_CHARACTERS, CHARACTERS, deck_and_characters

pytestmark = pytest.mark.usefixtures("dodge_city")
DC = ["dodge_city"]



def drawn(events: list[Event], seat: int) -> int:
    return sum(e["count"] for e in events if e["kind"] == "draw" and e["seat"] == seat)


def test_the_pool_with_dodge_city_holds_31_characters() -> None:
    assert len(BASE_CHARACTERS) == 16 and len(CHARACTERS) == 31 + 8  # + Armed & Dangerous
    pool = deck_and_characters(DC)[1]
    assert len(pool) == 31 and set(pool) - set(BASE_CHARACTERS) == {
        k for k, c in CHARACTERS.items() if c.expansion == "dodge_city"}
    assert len(set(pool) - set(BASE_CHARACTERS)) == 15
    assert deck_and_characters([])[1] == BASE_CHARACTERS
    assert {k: CHARACTERS[k].life for k in ("apache_kid", "elena_fuente", "pixie_pete", "sean_mallory",
                                           "vera_custer", "belle_star")} == {
        "apache_kid": 3, "elena_fuente": 3, "pixie_pete": 3, "sean_mallory": 3, "vera_custer": 3, "belle_star": 4}


@pytest.mark.rule("DC-019")
def test_apache_kid_is_not_affected_by_diamonds_of_others() -> None:
    st = table(4, chars=chars(4, s1="apache_kid"), expansions=DC)
    diamond, club = give(st, 0, ["bang:Kd", "bang:5c"])
    refused(st, 0, {"type": "play", "card": diamond, "target": 1}, "TARGET_UNAFFECTED")
    assert {"type": "play", "card": diamond, "target": 3} in bang.legal_actions(st, 0)  # not Apache: fine
    give(st, 1, ["beer"])
    play(st, 0, club, target=1)
    assert pending_kind(st) == "bang" and st["pending"][-1]["seat"] == 1


@pytest.mark.rule("DC-019")
def test_indians_of_diamonds_pass_over_apache_kid_and_his_own_diamonds_work() -> None:
    st = table(4, chars=chars(4, s1="apache_kid"), expansions=DC)
    give(st, 1, ["bang"])
    events = play(st, 0, give(st, 0, ["indians:Kd"])[0])
    assert {"kind": "unaffected", "seat": 1, "other": 0, "cards": [st["discard"][-1]]} in events
    assert [e["seat"] for e in events if e["kind"] == "damage"] == [2, 3]  # empty hands: hit at once
    assert st["pending"] == [] and st["p"][1]["life"] == 3 and len(st["p"][1]["hand"]) == 1
    st = table(4, chars=chars(4, s1="apache_kid"), turn=1, expansions=DC)
    give(st, 2, ["beer"])
    play(st, 1, give(st, 1, ["bang:7d"])[0], target=2)
    assert pending_kind(st) == "bang" and st["pending"][-1]["seat"] == 2


@pytest.mark.rule("DC-020")
def test_apache_kid_is_challenged_by_a_duel_of_diamonds() -> None:
    st = table(4, chars=chars(4, s1="apache_kid"), expansions=DC)
    bang_card = give(st, 1, ["bang:Kd"])[0]
    play(st, 0, give(st, 0, ["duel:Qd"])[0], target=1)
    assert pending_kind(st) == "duel" and {"type": "respond", "card": bang_card} in bang.legal_actions(st, 1)
    act(st, 1, {"type": "pass"})
    assert st["p"][1]["life"] == 2
    # Diamonds discarded inside the Duel are never checked against him either.
    st = table(4, chars=chars(4, s1="apache_kid"), expansions=DC)
    give(st, 1, ["bang:5c"])
    mine = give(st, 0, ["duel:Qd", "bang:Jd"])[1]
    play(st, 0, st["p"][0]["hand"][0], target=1)
    act(st, 1, {"type": "respond", "card": st["p"][1]["hand"][0]})
    act(st, 0, {"type": "respond", "card": mine})
    assert st["p"][1]["life"] == 2  # Apache's hand was empty: he lost the Duel


@pytest.mark.rule("DC-021")
def test_in_belle_stars_turn_the_others_cards_in_play_have_no_effect() -> None:
    st = table(4, chars=chars(4, s0="belle_star"), expansions=DC)
    equip(st, 1, ["mustang", "barrel"])
    shot = give(st, 0, ["bang"])[0]
    assert {"type": "play", "card": shot, "target": 1} in bang.legal_actions(st, 0)  # no Mustang
    give(st, 1, ["beer"])
    play(st, 0, shot, target=1)
    assert pending_kind(st) == "bang" and bang.to_act(st) == [1]
    assert not [a for a in bang.legal_actions(st, 1) if a["type"] == "barrel"]  # no Barrel
    # A ready green Missed! card in play is not usable in her turn either.
    with extra_cards("t_hat") as ids:
        st2 = table(4, chars=chars(4, s0="belle_star"), expansions=DC)
        hat = equip(st2, 1, [ids["t_hat"][0]])[0]
        give(st2, 1, ["beer"])
        play(st2, 0, give(st2, 0, ["bang"])[0], target=1)
        refused(st2, 1, {"type": "use", "card": hat}, "CARD_SILENCED")
    # The same table in a Black Jack's turn: the Mustang keeps him out of reach.
    st = table(4, expansions=DC)
    equip(st, 1, ["mustang"])
    refused(st, 0, {"type": "play", "card": give(st, 0, ["bang"])[0], "target": 1}, "OUT_OF_RANGE")


@pytest.mark.rule("DC-021")
def test_belle_star_leaves_abilities_and_the_others_own_turns_alone() -> None:
    st = table(4, chars=chars(4, s0="belle_star", s1="paul_regret", s3="jourdonnais"), expansions=DC)
    refused(st, 0, {"type": "play", "card": give(st, 0, ["bang"])[0], "target": 1}, "OUT_OF_RANGE")
    play(st, 0, st["p"][0]["hand"][0], target=3)
    assert {"type": "barrel"} in bang.legal_actions(st, 3)
    # In seat 1's own turn his cards act again: his Scope reaches seat 3 at distance 2.
    st = table(4, chars=chars(4, s0="belle_star"), turn=1, expansions=DC)
    equip(st, 1, ["scope"])
    assert {"type": "play", "card": give(st, 1, ["bang"])[0], "target": 3} in bang.legal_actions(st, 1)


@pytest.mark.rule("DC-022")
@pytest.mark.parametrize(("life", "maximum", "sheriff", "want"), [(4, 4, False, 1), (2, 4, False, 3), (1, 5, True, 5)])
def test_bill_noface_draws_one_plus_his_wounds(life: int, maximum: int, sheriff: bool, want: int) -> None:
    if sheriff:
        st = table(4, chars=chars(4, s0="bill_noface"), turn=3, expansions=DC)
        bill = 0
    else:
        st = table(4, chars=chars(4, s1="bill_noface"), expansions=DC)
        bill = 1
    st["p"][bill].update(life=life, max=maximum)
    events = act(st, st["turn"], {"type": "end_turn"})
    assert st["turn"] == bill and drawn(events, bill) == want == len(st["p"][bill]["hand"])


@pytest.mark.rule("DC-026")
def test_elena_fuente_answers_a_bang_with_any_card_but_not_indians_or_a_duel() -> None:
    st = table(4, chars=chars(4, s1="elena_fuente"), expansions=DC)
    coach = give(st, 1, ["stagecoach"])[0]
    play(st, 0, give(st, 0, ["bang"])[0], target=1)
    act(st, 1, {"type": "respond", "card": coach})
    assert st["pending"] == [] and st["p"][1]["life"] == 3
    for attack in ("indians", "duel"):
        st = table(4, chars=chars(4, s1="elena_fuente"), expansions=DC)
        coach = give(st, 1, ["stagecoach"])[0]
        card = give(st, 0, [attack])[0]
        play(st, 0, card, **({"target": 1} if attack == "duel" else {}))
        assert pending_kind(st) == attack and st["pending"][-1]["seat"] == 1
        refused(st, 1, {"type": "respond", "card": coach}, "WRONG_ANSWER")


@pytest.mark.rule("DC-027")
def test_greg_digger_regains_two_life_per_elimination_up_to_his_maximum() -> None:
    roles = ["sheriff", "deputy", "outlaw", "outlaw", "renegade"]
    st = table(5, chars=chars(5, s1="greg_digger"), roles=roles, expansions=DC)
    st["p"][1]["life"] = 1
    events = duel_kill(st, 0, 3)
    assert st["p"][1]["life"] == 3 and {"kind": "heal", "seat": 1, "amount": 2, "life": 3,
                                         "reason": "greg_digger"} in events
    duel_kill(st, 0, 2)
    assert st["p"][1]["life"] == 4 and st["phase"] != "over"  # capped at 4, not 5
    st = table(5, roles=roles, expansions=DC)  # a Black Jack heals nothing
    st["p"][1]["life"] = 1
    duel_kill(st, 0, 3)
    assert st["p"][1]["life"] == 1


@pytest.mark.rule("DC-028")
def test_herb_hunter_draws_two_per_elimination_and_five_for_an_outlaw_he_kills() -> None:
    roles = ["sheriff", "deputy", "outlaw", "outlaw", "renegade"]
    st = table(5, chars=chars(5, s1="herb_hunter"), roles=roles, expansions=DC)
    events = duel_kill(st, 0, 3)
    assert [(e["count"], e["reason"]) for e in events if e["kind"] == "draw" and e["seat"] == 1] == [
        (2, "herb_hunter")]
    before = len(st["p"][1]["hand"])
    events = duel_kill(st, 1, 2)
    assert drawn(events, 1) == 5 and len(st["p"][1]["hand"]) == before + 5
    st = table(5, roles=roles, expansions=DC)
    assert drawn(duel_kill(st, 0, 3), 1) == 0


@pytest.mark.rule("DC-035")
@pytest.mark.parametrize(("house", "want"), [(False, 3), (True, 4)])
def test_pixie_pete_draws_three_or_four_with_the_house_rule(house: bool, want: int) -> None:
    st = table(4, chars=chars(4, s1="pixie_pete"), expansions=DC)
    st["opts"]["pixie_pete_draws_four"] = house
    events = act(st, 0, {"type": "end_turn"})
    assert drawn(events, 1) == want == len(st["p"][1]["hand"])


@pytest.mark.rule("DC-036")
@pytest.mark.parametrize(("cards", "house", "kept"), [(12, False, 10), (11, False, 10), (10, False, 10),
                                                      (9, False, 9), (12, True, 12)])
def test_sean_mallory_keeps_ten_cards_or_any_number_with_the_house_rule(cards: int, house: bool, kept: int) -> None:
    st = table(4, chars=chars(4, s0="sean_mallory"), expansions=DC)
    st["opts"]["sean_mallory_unlimited"] = house
    st["p"][0]["life"] = 2
    give(st, 0, [c for c in st["deck"][:cards]])
    act(st, 0, {"type": "end_turn"})
    for _ in range(cards - kept):
        assert pending_kind(st) == "discard"
        act(st, 0, {"type": "discard", "card": st["p"][0]["hand"][0]})
    assert st["turn"] == 1 and len(st["p"][0]["hand"]) == kept


def test_without_sean_mallory_the_limit_is_the_life() -> None:
    st = table(4, expansions=DC)
    st["opts"]["sean_mallory_unlimited"] = True  # the house rule changes Sean only
    st["p"][0]["life"] = 2
    give(st, 0, st["deck"][:4])
    act(st, 0, {"type": "end_turn"})
    assert pending_kind(st) == "discard"


@pytest.mark.rule("DC-037")
def test_tequila_joe_heals_two_with_beer_one_with_saloon() -> None:
    st = table(4, chars=chars(4, s0="tequila_joe"), expansions=DC)
    st["p"][0]["life"] = 1
    play(st, 0, give(st, 0, ["beer"])[0])
    assert st["p"][0]["life"] == 3
    st["p"][0]["life"] = 1
    play(st, 0, give(st, 0, ["saloon"])[0])
    assert st["p"][0]["life"] == 2
    # Canteen (a green card used from play) and Tequila heal him 1 too, as anybody (DC-063, DC-013).
    st["p"][0]["life"] = 1
    act(st, 0, {"type": "use", "card": equip(st, 0, ["canteen"])[0]})
    assert st["p"][0]["life"] == 2
    tequila = give(st, 0, ["tequila", "missed"])[0]
    play(st, 0, tequila, target=0)  # paid with the only other card
    assert st["p"][0]["life"] == 3 and st["p"][0]["hand"] == []
    # A lethal hit at 1 life, saved by one Beer: 1 - 1 + 2 = 2.
    st = table(4, chars=chars(4, s1="tequila_joe"), expansions=DC)
    st["p"][1]["life"] = 1
    beer = give(st, 1, ["beer"])[0]
    play(st, 0, give(st, 0, ["bang"])[0], target=1)
    act(st, 1, {"type": "pass"})
    act(st, 1, {"type": "respond", "card": beer})
    assert st["p"][1]["life"] == 2 and st["p"][1]["alive"]


@pytest.mark.rule("DC-037")
def test_tequila_joes_beer_heals_nothing_with_two_players_left() -> None:
    st = table(4, chars=chars(4, s0="tequila_joe"), expansions=DC)
    dead(st, 1, 2)
    st["p"][0]["life"] = 1
    events = play(st, 0, give(st, 0, ["beer"])[0])
    assert st["p"][0]["life"] == 1 and events[-1]["amount"] == 0


@pytest.mark.rule("DC-036", "DC-038")
@pytest.mark.parametrize(("house", "kept"), [(False, 10), (True, 12)])
def test_vera_custer_copying_sean_mallory_has_his_hand_limit(house: bool, kept: int) -> None:
    """The limit is the acting character's: Vera Custer's copy (``as``) of Sean Mallory keeps 10 (any number
    with the house rule) at 2 life, where her own limit would be her life."""
    st = table(4, chars=chars(4, s0="vera_custer"), expansions=DC)
    st["p"][0]["as"] = "sean_mallory"
    st["opts"]["sean_mallory_unlimited"] = house
    st["p"][0]["life"] = 2
    give(st, 0, st["deck"][:12])
    act(st, 0, {"type": "end_turn"})
    for _ in range(12 - kept):
        assert pending_kind(st) == "discard"
        act(st, 0, {"type": "discard", "card": st["p"][0]["hand"][0]})
    assert st["turn"] == 1 and len(st["p"][0]["hand"]) == kept
