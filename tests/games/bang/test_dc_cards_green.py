"""Dodge City's green cards: in play face up, usable from the next turn, used by discarding them
from play; only the Missed! ones out of turn (DC-003 to 010, 014)."""

from __future__ import annotations

import pytest
from bang_helpers import act, equip, give, kinds, pending_kind, play, table_keys
from dc_cards_helpers import dc_table, refused, until_turn, use

from tabletop_server.service.games import bang

pytestmark = pytest.mark.usefixtures("dodge_city")


@pytest.mark.rule("DC-003")
def test_a_green_card_goes_face_up_into_play_not_to_the_discard_pile() -> None:
    st = dc_table(4)
    knife = give(st, 0, ["knife"])[0]
    events = play(st, 0, knife)
    assert kinds(events) == ["equip"] and events[0]["cards"] == [knife]
    assert st["p"][0]["table"] == [knife] and knife not in st["discard"] and st["p"][0]["hand"] == []
    seen = bang.view(st, 2)
    assert [c.id for c in seen.players[0].in_play] == [knife]
    assert bang.project(events[0], 2) == events[0]  # every seat sees it


@pytest.mark.rule("DC-004")
def test_a_green_card_cannot_be_used_in_the_turn_it_was_played() -> None:
    st = dc_table(4)
    derringer = give(st, 0, ["derringer"])[0]
    play(st, 0, derringer)
    assert not [a for a in bang.legal_actions(st, 0) if a["type"] == "use"]
    assert refused(st, 0, {"type": "use", "card": derringer, "target": 1}) == "CARD_NOT_READY"
    until_turn(st, 0)
    assert {"type": "use", "card": derringer, "target": 1} in bang.legal_actions(st, 0)


@pytest.mark.rule("DC-005", "DC-070")
def test_using_a_green_card_discards_it_from_play_pony_express_draws_three() -> None:
    st = dc_table(4)
    pony = equip(st, 0, ["pony_express"])[0]  # in play before this turn: ready
    give(st, 0, ["missed"])
    events = use(st, 0, pony)
    assert kinds(events) == ["use", "draw"] and events[1]["count"] == 3
    assert st["p"][0]["table"] == [] and st["discard"][-1] == pony and len(st["p"][0]["hand"]) == 4


@pytest.mark.rule("DC-006")
def test_only_green_cards_with_a_missed_symbol_are_used_out_of_turn() -> None:
    st = dc_table(4)
    pony = equip(st, 1, ["pony_express"])[0]
    plate = equip(st, 1, ["iron_plate"])[0]
    give(st, 1, ["beer"])
    assert refused(st, 1, {"type": "use", "card": pony}) == "NOT_YOUR_TURN"
    play(st, 0, give(st, 0, ["bang"])[0], target=1)
    legal = bang.legal_actions(st, 1)
    assert {"type": "use", "card": plate} in legal and {"type": "use", "card": pony} not in legal
    assert refused(st, 1, {"type": "use", "card": pony}) == "WRONG_ANSWER"
    act(st, 1, {"type": "use", "card": plate})
    assert st["pending"] == [] and st["p"][1]["life"] == 4 and st["p"][1]["table"] == [pony]
    # A Missed! card in play is never used in its player's own turn without a shot to answer.
    st["turn"] = 1
    assert refused(st, 1, {"type": "use", "card": equip(st, 1, ["sombrero"])[0]}) == "CARD_NOT_PLAYABLE_NOW"


@pytest.mark.rule("DC-007")
def test_cat_balou_discards_a_green_card_in_play() -> None:
    st = dc_table(4)
    sombrero = equip(st, 1, ["sombrero"])[0]
    give(st, 1, ["beer"])
    cat = give(st, 0, ["cat_balou"])[0]
    assert {"type": "play", "card": cat, "target": 1, "pick": sombrero} in bang.legal_actions(st, 0)
    play(st, 0, cat, target=1, pick=sombrero)
    assert st["p"][1]["table"] == [] and sombrero in st["discard"]
    play(st, 0, give(st, 0, ["bang"])[0], target=1)
    assert bang.legal_actions(st, 1) == [{"type": "pass"}]


@pytest.mark.rule("DC-008")
def test_a_green_card_taken_into_the_hand_must_be_played_again_and_wait() -> None:
    st = dc_table(4)
    howitzer = equip(st, 1, ["howitzer"])[0]  # ready in front of seat 1
    play(st, 0, give(st, 0, ["panic"])[0], target=1, pick=howitzer)
    assert st["p"][0]["hand"] == [howitzer]
    assert refused(st, 0, {"type": "use", "card": howitzer}) == "CARD_NOT_IN_PLAY"
    play(st, 0, howitzer)
    assert st["p"][0]["table"] == [howitzer]
    assert refused(st, 0, {"type": "use", "card": howitzer}) == "CARD_NOT_READY"
    until_turn(st, 0)
    assert {"type": "use", "card": howitzer} in bang.legal_actions(st, 0)


@pytest.mark.rule("DC-009", "DC-062")
def test_a_sombrero_played_in_a_turn_answers_a_shot_in_the_next_turn_of_anyone() -> None:
    st = dc_table(4)
    sombrero = give(st, 0, ["sombrero"])[0]
    give(st, 0, ["beer"])
    play(st, 0, sombrero)
    for viewer in (0, 1, None):  # public, like the card itself
        assert [(c.card_id, c.ready) for c in bang.view(st, viewer).players[0].usable] == [(sombrero, False)]
    act(st, 0, {"type": "end_turn"})  # seat 1's turn: the very next one
    assert st["turn"] == 1 and [c.ready for c in bang.view(st, 1).players[0].usable] == [True]
    play(st, 1, give(st, 1, ["punch"])[0], target=0)
    assert {"type": "use", "card": sombrero} in bang.legal_actions(st, 0)
    act(st, 0, {"type": "use", "card": sombrero})
    assert st["pending"] == [] and st["p"][0]["life"] == st["p"][0]["max"] and sombrero in st["discard"]


@pytest.mark.rule("DC-010")
def test_derringer_is_a_bang_effect_at_distance_one_and_draws_a_card() -> None:
    st = dc_table(4)
    derringer = equip(st, 0, ["derringer"])[0]
    equip(st, 0, ["winchester"])
    give(st, 1, ["beer"])
    assert refused(st, 0, {"type": "use", "card": derringer, "target": 2}) == "OUT_OF_RANGE"
    events = use(st, 0, derringer, target=1)
    assert kinds(events) == ["use", "draw"] and events[1]["seat"] == 0 and len(st["p"][0]["hand"]) == 1
    assert pending_kind(st) == "bang" and st["pending"][-1]["seat"] == 1
    act(st, 1, {"type": "pass"})
    assert st["p"][1]["life"] == 3 and st["bangs"] == 0


@pytest.mark.rule("DC-014")
def test_any_missed_symbol_cancels_any_bang_symbol() -> None:
    st = dc_table(4)
    springfield, _spare = give(st, 0, ["springfield", "beer"])
    plate = equip(st, 2, ["iron_plate"])[0]
    give(st, 2, ["beer"])
    play(st, 0, springfield, target=2)
    act(st, 2, {"type": "use", "card": plate})
    assert st["pending"] == [] and st["p"][2]["life"] == 4
    howitzer = equip(st, 0, ["howitzer"])[0]
    dodge = give(st, 1, ["dodge"])[0]
    give(st, 2, ["missed"])
    use(st, 0, howitzer)
    act(st, 1, {"type": "respond", "card": dodge})
    assert st["p"][1]["life"] == 4 and pending_kind(st) == "bang" and st["pending"][-1]["seat"] == 2
    act(st, 2, {"type": "pass"})
    assert st["p"][2]["life"] == 3 and st["p"][3]["life"] == 3


@pytest.mark.rule("DC-059")
def test_bible_cancels_a_bang_out_of_turn_and_draws_a_card() -> None:
    st = dc_table(4)
    bible = equip(st, 1, ["bible"])[0]
    give(st, 1, ["beer"])
    play(st, 0, give(st, 0, ["bang"])[0], target=1)
    events = act(st, 1, {"type": "use", "card": bible})
    assert kinds(events) == ["use", "draw"] and events[1]["seat"] == 1
    assert st["pending"] == [] and st["p"][1]["life"] == 4 and len(st["p"][1]["hand"]) == 2
    st["turn"] = 1  # in his own turn it is no Pony Express: nothing to answer
    assert refused(st, 1, {"type": "use", "card": equip(st, 1, ["bible"])[0]}) == "CARD_NOT_PLAYABLE_NOW"


@pytest.mark.rule("DC-060")
def test_ten_gallon_hat_cancels_a_gatling_for_its_player_only() -> None:
    st = dc_table(4)
    hat = equip(st, 1, ["ten_gallon_hat"])[0]
    give(st, 1, ["beer"])
    play(st, 0, give(st, 0, ["gatling"])[0])
    assert pending_kind(st) == "bang" and st["pending"][-1]["seat"] == 1
    act(st, 1, {"type": "use", "card": hat})
    assert [p["life"] for p in st["p"][1:]] == [4, 3, 3] and st["p"][1]["table"] == []


@pytest.mark.rule("DC-061")
def test_never_two_iron_plates_in_front_of_one_player_and_a_plate_cancels_a_knife() -> None:
    st = dc_table(4)
    plate = equip(st, 1, ["iron_plate"])[0]
    second = give(st, 1, ["iron_plate"])[0]
    st["turn"] = 1
    assert refused(st, 1, {"type": "play", "card": second}) == "DUPLICATE_EQUIPMENT"
    st["turn"] = 0
    knife = equip(st, 0, ["knife"])[0]
    use(st, 0, knife, target=1)
    act(st, 1, {"type": "use", "card": plate})
    assert st["pending"] == [] and st["p"][1]["life"] == 4
    st["turn"] = 1
    assert {"type": "play", "card": second} in bang.legal_actions(st, 1)  # the first one is gone


@pytest.mark.rule("DC-063")
def test_canteen_heals_one_in_its_players_turn_only() -> None:
    st = dc_table(4)
    canteen = equip(st, 0, ["canteen"])[0]
    assert refused(st, 0, {"type": "use", "card": canteen}) == "LIFE_AT_MAXIMUM"
    st["p"][0]["life"] = 3
    events = use(st, 0, canteen)
    assert kinds(events) == ["use", "heal"] and st["p"][0]["life"] == 4
    st = dc_table(4)
    canteen = equip(st, 1, ["canteen"])[0]
    st["p"][1]["life"] = 2
    assert refused(st, 1, {"type": "use", "card": canteen}) == "NOT_YOUR_TURN"


@pytest.mark.rule("DC-064")
def test_can_can_discards_a_card_of_any_player_at_any_distance() -> None:
    st = dc_table(6)
    can_can = equip(st, 0, ["can_can"])[0]
    volcanic = equip(st, 3, ["volcanic"])[0]  # distance 3
    use(st, 0, can_can, target=3, pick=volcanic)
    assert st["p"][3]["table"] == [] and st["discard"][-2:] == [can_can, volcanic]
    assert {"type": "use", "card": equip(st, 0, ["can_can"])[0], "target": 0, "pick": "hand"} not in (
        bang.legal_actions(st, 0))  # nothing in his hand


@pytest.mark.rule("DC-065")
def test_conestoga_takes_a_card_of_any_other_player_at_any_distance() -> None:
    st = dc_table(6)
    conestoga = equip(st, 0, ["conestoga"])[0]
    beer = give(st, 3, ["beer"])[0]
    use(st, 0, conestoga, target=3, pick="hand")
    assert st["p"][0]["hand"] == [beer] and st["p"][3]["hand"] == []
    assert refused(st, 0, {"type": "use", "card": equip(st, 0, ["conestoga"])[0], "target": 0,
                           "pick": "hand"}) == "TARGET_SELF"


@pytest.mark.rule("DC-066")
def test_buffalo_rifle_is_a_bang_effect_at_any_distance() -> None:
    st = dc_table(6)
    rifle = equip(st, 0, ["buffalo_rifle"])[0]
    give(st, 3, ["beer"])
    use(st, 0, rifle, target=3)
    assert pending_kind(st) == "bang" and st["pending"][-1]["seat"] == 3
    act(st, 3, {"type": "pass"})
    assert st["p"][3]["life"] == 3 and st["bangs"] == 0


@pytest.mark.rule("DC-067")
def test_howitzer_is_a_bang_effect_on_every_other_player_and_leaves_the_bang_card() -> None:
    st = dc_table(4)
    howitzer = equip(st, 0, ["howitzer"])[0]
    for seat in (1, 2, 3):
        give(st, seat, ["beer"])
    use(st, 0, howitzer)
    for seat in (1, 2, 3):
        assert pending_kind(st) == "bang" and st["pending"][-1]["seat"] == seat
        act(st, seat, {"type": "pass"})
    assert [p["life"] for p in st["p"]] == [5, 3, 3, 3]
    bang_card = give(st, 0, ["bang"])[0]
    assert {"type": "play", "card": bang_card, "target": 1} in bang.legal_actions(st, 0)


@pytest.mark.rule("DC-068")
def test_pepperbox_is_a_bang_effect_within_weapon_reach() -> None:
    st = dc_table(6)
    pepperbox = equip(st, 0, ["pepperbox"])[0]
    equip(st, 0, ["schofield"])
    assert refused(st, 0, {"type": "use", "card": pepperbox, "target": 3}) == "OUT_OF_RANGE"
    give(st, 2, ["beer"])
    use(st, 0, pepperbox, target=2)
    assert pending_kind(st) == "bang" and st["pending"][-1]["seat"] == 2


@pytest.mark.rule("DC-069")
def test_knife_is_a_bang_effect_at_distance_one_whatever_the_weapon() -> None:
    st = dc_table(4)
    knife = equip(st, 0, ["knife"])[0]
    equip(st, 0, ["winchester"])
    assert refused(st, 0, {"type": "use", "card": knife, "target": 2}) == "OUT_OF_RANGE"
    give(st, 1, ["beer"])
    use(st, 0, knife, target=1)
    assert pending_kind(st) == "bang" and st["pending"][-1]["seat"] == 1 and table_keys(st, 0) == ["winchester"]
