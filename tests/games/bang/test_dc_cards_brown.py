"""Dodge City's brown cards: Punch, Dodge, Rag Time, Springfield, Whisky, Tequila, Brawl, and the
"discard another card" symbol (DC-011 to 013, 015, 016, 018, 052 to 056)."""

from __future__ import annotations

import pytest
from bang_helpers import act, equip, give, hand_keys, kinds, pending_kind, play, table_keys
from dc_cards_helpers import dc_table, refused, use

from tabletop_server.service.games import bang
from tabletop_server.service.games.bang.tables import KEY_OF

pytestmark = pytest.mark.usefixtures("dodge_city")


@pytest.mark.rule("DC-011")
def test_a_discard_another_card_symbol_costs_one_more_card_from_the_hand() -> None:
    st = dc_table(4)
    brawl = give(st, 0, ["brawl"])[0]
    give(st, 1, ["missed"])
    assert refused(st, 0, {"type": "play", "card": brawl}) == "COST_NOT_PAYABLE"
    assert not [a for a in bang.legal_actions(st, 0) if a.get("card") == brawl]
    beer = give(st, 0, ["beer"])[0]
    assert {"type": "play", "card": brawl} in bang.legal_actions(st, 0)
    play(st, 0, brawl)  # the one other card pays: no choice, paid without asking
    assert st["discard"][:2] == [brawl, beer] and st["p"][0]["hand"] == [] and st["p"][1]["hand"] == []
    # With two other cards the player chooses which one pays.
    st = dc_table(4)
    brawl, beer, missed = give(st, 0, ["brawl", "beer", "missed"])
    play(st, 0, brawl)
    assert pending_kind(st) == "cost" and bang.legal_actions(st, 0) == [
        {"type": "discard", "card": beer}, {"type": "discard", "card": missed}]
    act(st, 0, {"type": "discard", "card": missed})
    assert st["discard"][:2] == [brawl, missed] and st["p"][0]["hand"] == [beer]


@pytest.mark.rule("DC-012")
def test_brawl_discards_one_card_of_every_other_player_chosen_per_player() -> None:
    st = dc_table(5)
    brawl, spare, kept = give(st, 0, ["brawl", "beer", "missed"])
    mustang = equip(st, 1, ["mustang"])[0]
    give(st, 1, ["missed"])
    p3_hand = give(st, 2, ["bang", "beer"])
    scope = equip(st, 2, ["scope"])[0]
    barrel = equip(st, 3, ["barrel"])[0]
    give(st, 3, ["panic"])
    play(st, 0, brawl)
    act(st, 0, {"type": "discard", "card": spare})
    req = st["pending"][-1]
    assert req["kind"] == "victim_card" and req["seat"] == 0 and req["args"]["victim"] == 1
    assert {"type": "choose", "pick": "hand"} in bang.legal_actions(st, 0)
    act(st, 0, {"type": "choose", "pick": mustang})
    assert st["pending"][-1]["args"]["victim"] == 2
    act(st, 0, {"type": "choose", "pick": "hand"})
    assert len(st["p"][2]["hand"]) == 1 and st["p"][2]["hand"][0] in p3_hand and st["p"][2]["table"] == [scope]
    assert st["pending"][-1]["args"]["victim"] == 3
    act(st, 0, {"type": "choose", "pick": barrel})
    assert st["pending"] == []  # seat 4 has no cards: skipped
    assert table_keys(st, 1) == [] and hand_keys(st, 1) == ["missed"]
    assert table_keys(st, 3) == [] and hand_keys(st, 3) == ["panic"]
    assert st["p"][0]["hand"] == [kept] and st["discard"][:2] == [brawl, spare]


@pytest.mark.rule("DC-013")
def test_tequila_heals_any_one_player_by_one_at_any_distance() -> None:
    st = dc_table(6)
    tequila, spare, _kept = give(st, 0, ["tequila", "missed", "beer"])
    st["p"][3]["life"] = 2  # distance 3
    assert {"type": "play", "card": tequila, "target": 3} in bang.legal_actions(st, 0)
    play(st, 0, tequila, target=3)
    assert st["p"][3]["life"] == 2  # healed once the cost is paid
    events = act(st, 0, {"type": "discard", "card": spare})
    assert st["p"][3]["life"] == 3 and events[-1]["kind"] == "heal" and events[-1]["seat"] == 3
    st = dc_table(6)
    tequila = give(st, 0, ["tequila", "missed"])[0]
    st["p"][0]["life"] = 3
    play(st, 0, tequila, target=0)  # paid with the only other card
    assert st["p"][0]["life"] == 4 and st["p"][0]["hand"] == []
    # At full life there is nothing to heal (like Beer): refused.
    tequila = give(st, 0, ["tequila", "missed"])[0]
    assert refused(st, 0, {"type": "play", "card": tequila, "target": 2}) == "LIFE_AT_MAXIMUM"


@pytest.mark.rule("DC-056")
def test_whisky_heals_its_player_by_two_never_above_the_maximum() -> None:
    for before, after in ((1, 3), (3, 4)):
        st = dc_table(4, roles=["outlaw", "sheriff", "deputy", "renegade"])  # seat 0 at 4/4 max
        whisky, spare, kept = give(st, 0, ["whisky", "bang", "beer"])
        st["p"][0]["life"] = before
        assert {"type": "play", "card": whisky} in bang.legal_actions(st, 0)
        play(st, 0, whisky)
        assert st["p"][0]["life"] == before  # healed once the cost is paid
        act(st, 0, {"type": "discard", "card": spare})
        assert st["p"][0]["life"] == after and st["p"][0]["hand"] == [kept]
    st = dc_table(4)
    whisky = give(st, 0, ["whisky", "bang"])[0]
    assert refused(st, 0, {"type": "play", "card": whisky}) == "LIFE_AT_MAXIMUM"
    assert refused(st, 0, {"type": "play", "card": whisky, "target": 1}) == "UNEXPECTED_TARGET"


@pytest.mark.rule("DC-015")
def test_only_beer_saves_a_dying_player_not_whisky_tequila_or_canteen() -> None:
    st = dc_table(4)
    st["p"][1]["life"] = 1
    whisky, tequila, _spare = give(st, 1, ["whisky", "tequila", "bang"])
    canteen = equip(st, 1, ["canteen"])[0]  # in play before this turn: ready
    play(st, 0, give(st, 0, ["bang"])[0], target=1)
    assert pending_kind(st) == "bang" and bang.legal_actions(st, 1) == [{"type": "pass"}]
    assert refused(st, 1, {"type": "respond", "card": whisky}) == "WRONG_ANSWER"
    assert refused(st, 1, {"type": "use", "card": canteen}) == "WRONG_ANSWER"
    act(st, 1, {"type": "pass"})
    assert pending_kind(st) == "dying" and bang.legal_actions(st, 1) == [{"type": "pass"}]
    for action in ({"type": "respond", "card": whisky}, {"type": "respond", "card": tequila},
                   {"type": "use", "card": canteen}):
        assert refused(st, 1, action) == "WRONG_ANSWER"
    act(st, 1, {"type": "pass"})
    assert not st["p"][1]["alive"]
    # The other side: a Beer does save him.
    st = dc_table(4)
    st["p"][1]["life"] = 1
    beer = give(st, 1, ["beer"])[0]
    play(st, 0, give(st, 0, ["bang"])[0], target=1)
    act(st, 1, {"type": "pass"})
    assert {"type": "respond", "card": beer} in bang.legal_actions(st, 1)
    act(st, 1, {"type": "respond", "card": beer})
    assert st["p"][1]["alive"] and st["p"][1]["life"] == 1


@pytest.mark.rule("DC-016")
def test_one_bang_card_per_turn_but_any_number_of_other_bang_symbols() -> None:
    st = dc_table(4)
    bang1, punch, springfield, spare, bang2 = give(st, 0, ["bang", "punch", "springfield", "beer", "bang"])
    knife = equip(st, 0, ["knife"])[0]  # in play before this turn: ready
    play(st, 0, bang1, target=1)
    assert st["bangs"] == 1
    play(st, 0, punch, target=3)
    play(st, 0, springfield, target=2)
    act(st, 0, {"type": "discard", "card": spare})
    use(st, 0, knife, target=1)
    assert st["pending"] == [] and st["bangs"] == 1
    assert [p["life"] for p in st["p"][1:]] == [2, 3, 3]
    assert refused(st, 0, {"type": "play", "card": bang2, "target": 1}) == "BANG_ALREADY_PLAYED"


@pytest.mark.rule("DC-018", "DC-053")
def test_dodge_cancels_a_punch_and_then_draws_a_card() -> None:
    st = dc_table(4)
    punch = give(st, 0, ["punch"])[0]
    dodge = give(st, 1, ["dodge"])[0]
    play(st, 0, punch, target=1)
    assert {"type": "respond", "card": dodge} in bang.legal_actions(st, 1)
    events = act(st, 1, {"type": "respond", "card": dodge})
    assert kinds(events) == ["respond", "draw"] and events[1]["seat"] == 1
    assert st["p"][1]["life"] == 4 and len(st["p"][1]["hand"]) == 1 and dodge not in st["p"][1]["hand"]
    assert st["pending"] == [] and st["discard"][-1] == dodge


@pytest.mark.rule("DC-053")
def test_dodge_is_no_missed_card_for_calamity_janet_and_never_played_in_turn() -> None:
    st = dc_table(4, chars=["calamity_janet", "black_jack", "black_jack", "black_jack"])
    dodge, missed = give(st, 0, ["dodge", "missed"])
    plays = {a.get("card") for a in bang.legal_actions(st, 0)}
    assert dodge not in plays and missed in plays  # her Missed! card is a BANG!, Dodge is not
    assert refused(st, 0, {"type": "play", "card": dodge}) == "CARD_NOT_PLAYABLE_NOW"
    assert refused(st, 0, {"type": "play", "card": dodge, "target": 1}) == "UNEXPECTED_TARGET"
    # Nor does Dodge answer Indians! for her; her Missed! card does.
    st["turn"] = 1
    play(st, 1, give(st, 1, ["indians"])[0])
    assert {"type": "respond", "card": dodge} not in bang.legal_actions(st, 0)
    assert refused(st, 0, {"type": "respond", "card": dodge}) == "WRONG_ANSWER"
    assert {"type": "respond", "card": missed} in bang.legal_actions(st, 0)
    # Anyone else: Dodge is not played in his own turn either.
    st = dc_table(4)
    dodge = give(st, 0, ["dodge"])[0]
    assert refused(st, 0, {"type": "play", "card": dodge}) == "CARD_NOT_PLAYABLE_NOW"
    assert not [a for a in bang.legal_actions(st, 0) if a.get("card") == dodge]


@pytest.mark.rule("DC-052")
def test_punch_reaches_distance_one_only_and_is_not_a_bang_card() -> None:
    st = dc_table(4, chars=["slab_the_killer", "black_jack", "black_jack", "black_jack"])
    punch, bang_card = give(st, 0, ["punch", "bang"])
    equip(st, 0, ["winchester"])
    assert refused(st, 0, {"type": "play", "card": punch, "target": 2}) == "OUT_OF_RANGE"
    assert {"type": "play", "card": punch, "target": 2} not in bang.legal_actions(st, 0)
    give(st, 1, ["missed"])
    give(st, 2, ["missed"])
    play(st, 0, punch, target=1)
    assert st["pending"][-1]["args"]["need"] == 1 and st["bangs"] == 0  # Slab: one Missed! for a Punch
    act(st, 1, {"type": "pass"})
    play(st, 0, bang_card, target=2)  # the BANG! card is still allowed, with the Winchester's reach
    assert st["bangs"] == 1 and st["pending"][-1]["args"]["need"] == 2
    # Distance modifiers count: a Mustang puts seat 1 out of reach, a Scope brings him back.
    st = dc_table(4)
    punch = give(st, 0, ["punch"])[0]
    equip(st, 1, ["mustang"])
    assert refused(st, 0, {"type": "play", "card": punch, "target": 1}) == "OUT_OF_RANGE"
    equip(st, 0, ["scope"])
    assert {"type": "play", "card": punch, "target": 1} in bang.legal_actions(st, 0)


@pytest.mark.rule("DC-054")
def test_rag_time_takes_a_card_of_any_other_player_at_any_distance() -> None:
    st = dc_table(6)
    rag, spare, kept = give(st, 0, ["rag_time", "beer", "bang"])
    barrel = equip(st, 3, ["barrel"])[0]  # distance 3
    give(st, 3, ["missed"])
    legal = bang.legal_actions(st, 0)
    assert {"type": "play", "card": rag, "target": 3, "pick": barrel} in legal
    assert {"type": "play", "card": rag, "target": 3, "pick": "hand"} in legal
    assert not [a for a in legal if a.get("card") == rag and a.get("target") == 0]
    play(st, 0, rag, target=3, pick=barrel)
    act(st, 0, {"type": "discard", "card": spare})
    assert st["p"][0]["hand"] == [kept, barrel] and table_keys(st, 3) == []
    st = dc_table(6)
    rag = give(st, 0, ["rag_time"])[0]
    equip(st, 3, ["barrel"])
    assert refused(st, 0, {"type": "play", "card": rag, "target": 3, "pick": "hand"}) in (
        "COST_NOT_PAYABLE", "NOTHING_TO_TAKE")
    give(st, 3, ["missed"])
    assert refused(st, 0, {"type": "play", "card": rag, "target": 3, "pick": "hand"}) == "COST_NOT_PAYABLE"


@pytest.mark.rule("DC-055")
def test_springfield_is_a_bang_effect_at_any_distance_even_after_the_bang_card() -> None:
    st = dc_table(6)
    bang_card, springfield, spare, _kept = give(st, 0, ["bang", "springfield", "beer", "missed"])
    give(st, 3, ["missed"])
    play(st, 0, bang_card, target=1)  # seat 1 holds nothing: hit at once
    assert {"type": "play", "card": springfield, "target": 3} in bang.legal_actions(st, 0)  # distance 3, Colt
    play(st, 0, springfield, target=3)
    act(st, 0, {"type": "discard", "card": spare})
    assert pending_kind(st) == "bang" and st["pending"][-1]["seat"] == 3 and st["pending"][-1]["args"]["need"] == 1
    act(st, 3, {"type": "pass"})
    assert st["p"][3]["life"] == 3 and KEY_OF[st["discard"][-2]] == "springfield"
    assert refused(st, 0, {"type": "play", "card": give(st, 0, ["springfield"])[0], "target": 0}) == "TARGET_SELF"
