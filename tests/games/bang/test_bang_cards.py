"""A scenario per base card, each on a clean table with stacked cards (BANG-036..082)."""

from __future__ import annotations

import pytest
from bang_helpers import (
    act,
    equip,
    give,
    hand_keys,
    kinds,
    pending_kind,
    play,
    stack_deck,
    table,
    table_keys,
)

from tabletop_server.service.engine.errors import RuleError
from tabletop_server.service.games import bang


def reason(fn: object, *args: object, **kw: object) -> str:
    """The reason of the RuleError raised by ``fn``."""
    with pytest.raises(RuleError) as err:
        fn(*args, **kw)  # type: ignore[operator]
    return err.value.reason


@pytest.mark.rule("BANG-042", "BANG-018")
def test_bang_hits_and_only_one_per_turn() -> None:
    st = table(4)
    b1, b2 = give(st, 0, ["bang", "bang"])
    play(st, 0, b1, target=1)  # seat 1 has nothing: the hit is applied at once
    assert st["p"][1]["life"] == 3 and not st["pending"]
    assert reason(play, st, 0, b2, target=3) == "BANG_ALREADY_PLAYED"


@pytest.mark.rule("BANG-043")
def test_missed_only_for_the_target_and_not_in_own_turn() -> None:
    st = table(4)
    b = give(st, 0, ["bang"])[0]
    m1 = give(st, 1, ["missed"])[0]
    m2 = give(st, 2, ["missed"])[0]
    assert reason(play, st, 0, give(st, 0, ["missed"])[0]) == "CARD_NOT_PLAYABLE_NOW"
    play(st, 0, b, target=1)
    assert reason(act, st, 2, {"type": "respond", "card": m2}) == "NOT_YOUR_DECISION"
    act(st, 1, {"type": "respond", "card": m1})
    assert st["p"][1]["life"] == 4


@pytest.mark.rule("BANG-045", "BANG-048")
def test_beer_heals_one_never_above_max_and_nothing_with_two_players() -> None:
    st = table(4)
    b1, b2 = give(st, 0, ["beer", "beer"])
    assert reason(play, st, 0, b1) == "BEER_AT_FULL_LIFE"
    st["p"][0]["life"] = 3
    play(st, 0, b1)
    assert st["p"][0]["life"] == 4
    st["p"][0]["life"] = 2
    st["p"][2]["alive"] = st["p"][3]["alive"] = False
    play(st, 0, b2)  # accepted (S2: it is played and heals nothing), see test_bang_review.py
    assert st["p"][0]["life"] == 2 and b2 in st["discard"]


@pytest.mark.rule("BANG-046", "BANG-047", "BANG-024")
def test_beer_out_of_turn_only_against_a_lethal_hit_several_at_once() -> None:
    st = table(5)
    st["p"][1]["life"] = 3
    beer, _ = give(st, 1, ["beer", "missed"])
    b = give(st, 0, ["bang"])[0]
    play(st, 0, b, target=1)  # not lethal: Beer is no answer to a BANG!
    assert reason(act, st, 1, {"type": "respond", "card": beer}) == "WRONG_ANSWER"
    act(st, 1, {"type": "pass"})
    assert st["p"][1]["life"] == 2 and not st["pending"]
    # Dynamite for 3 on seat 1 at 2 life with 2 Beers: 2 - 3 + 2 = 1.
    st["p"][1]["hand"] = [beer]
    give(st, 1, ["beer"])
    equip(st, 1, ["dynamite"])
    stack_deck(st, ["any:5s"])
    act(st, 0, {"type": "end_turn"})
    assert pending_kind(st) == "dying" and st["p"][1]["life"] == 0 and st["pending"][-1]["args"]["need"] == 2
    for c in list(st["p"][1]["hand"]):
        act(st, 1, {"type": "respond", "card": c})
    assert st["p"][1]["life"] == 1 and st["p"][1]["alive"]


@pytest.mark.rule("BANG-047")
def test_one_beer_cannot_save_from_dynamite_at_two() -> None:
    st = table(5)
    st["p"][1]["life"] = 2
    give(st, 1, ["beer"])
    equip(st, 1, ["dynamite"])
    stack_deck(st, ["any:5s"])
    act(st, 0, {"type": "end_turn"})
    assert pending_kind(st) == "dying" and bang.legal_actions(st, 1) == [{"type": "pass"}]  # 2 - 3 + 1 = 0
    act(st, 1, {"type": "pass"})
    assert not st["p"][1]["alive"]


@pytest.mark.rule("BANG-067", "BANG-068")
def test_saloon_heals_everyone_and_is_no_beer() -> None:
    st = table(4, chars=["black_jack", "black_jack", "el_gringo", "black_jack"])
    for seat, life in enumerate([2, 4, 1, 3]):
        st["p"][seat]["life"] = life
    play(st, 0, give(st, 0, ["saloon"])[0])
    assert [p["life"] for p in st["p"]] == [3, 4, 2, 4]
    st["p"][1]["life"] = 1
    saloon = give(st, 1, ["saloon"])[0]
    play(st, 0, give(st, 0, ["bang"])[0], target=1)
    act(st, 1, {"type": "pass"})
    assert pending_kind(st) == "dying" and bang.legal_actions(st, 1) == [{"type": "pass"}]  # no Saloon
    act(st, 1, {"type": "pass"})
    assert not st["p"][1]["alive"] and saloon in st["discard"]


@pytest.mark.rule("BANG-055", "BANG-056")
def test_stagecoach_and_wells_fargo_draw_two_and_three() -> None:
    st = table(4)
    s, w = give(st, 0, ["stagecoach", "wells_fargo"])
    top = stack_deck(st, ["bang", "missed", "beer", "duel", "panic"])
    play(st, 0, s)
    assert st["p"][0]["hand"] == [w] + top[:2]
    play(st, 0, w)
    assert st["p"][0]["hand"] == top[:5]


@pytest.mark.rule("BANG-061")
def test_general_store_clockwise_from_its_player_last_card_given() -> None:
    st = table(5)
    st["p"][2]["alive"] = False
    g = give(st, 3, ["general_store"])[0]
    st["turn"] = 3
    top = stack_deck(st, ["bang", "missed", "beer", "duel"])
    events = play(st, 3, g)
    assert "reveal" in kinds(events) and pending_kind(st) == "store"
    order = []
    for card in top[:3]:
        seat = bang.to_act(st)[0]
        order.append(seat)
        act(st, seat, {"type": "choose", "card": card})
    assert order == [3, 4, 0]
    assert st["p"][1]["hand"] == [top[3]] and not st["pending"]


@pytest.mark.rule("BANG-065", "BANG-051")
def test_panic_at_distance_one_only_takes_hand_or_table_card() -> None:
    st = table(5)
    p1, p2 = give(st, 0, ["panic", "panic"])
    equip(st, 0, ["remington"])
    barrel = equip(st, 1, ["barrel"])[0]
    give(st, 2, ["bang"])
    assert reason(play, st, 0, p1, target=2, pick="hand") == "OUT_OF_RANGE"
    play(st, 0, p1, target=1, pick=barrel)
    assert barrel in st["p"][0]["hand"] and not st["p"][1]["table"]
    assert reason(play, st, 0, p2, target=1, pick="hand") == "NOTHING_TO_TAKE"


@pytest.mark.rule("BANG-066")
def test_panic_on_yourself_takes_back_a_card_in_play() -> None:
    st = table(4)
    p = give(st, 0, ["panic"])[0]
    dyn = equip(st, 0, ["dynamite"])[0]
    play(st, 0, p, target=0, pick=dyn)
    assert dyn in st["p"][0]["hand"]


@pytest.mark.rule("BANG-054", "BANG-052", "BANG-072")
def test_cat_balou_any_distance_and_on_yourself_no_explosion() -> None:
    st = table(5)
    c1, c2 = give(st, 0, ["cat_balou", "cat_balou"])
    card = give(st, 3, ["bang"])[0]
    play(st, 0, c1, target=3, pick="hand")
    assert card in st["discard"] and not st["p"][3]["hand"]
    dyn = equip(st, 0, ["dynamite"])[0]
    events = play(st, 0, c2, target=0, pick=dyn)
    assert dyn in st["discard"] and "damage" not in kinds(events)


@pytest.mark.rule("BANG-057", "BANG-058", "BANG-059", "BANG-060")
def test_duel_alternates_and_the_challenger_can_lose() -> None:
    st = table(4)
    d, b0, b_after = give(st, 0, ["duel", "bang", "bang"])
    b2 = give(st, 2, ["bang", "missed"])[0]
    equip(st, 2, ["barrel"])
    play(st, 0, d, target=2)
    assert bang.to_act(st) == [2]
    assert {"type": "barrel", "card": st["p"][2]["table"][0]} not in bang.legal_actions(st, 2)
    act(st, 2, {"type": "respond", "card": b2})
    assert bang.to_act(st) == [0]
    act(st, 0, {"type": "respond", "card": b0})
    assert bang.legal_actions(st, 2) == [{"type": "pass"}]  # seat 2 holds only a Missed!: no answer
    act(st, 2, {"type": "pass"})
    assert bang.to_act(st) == [0] and st["p"][2]["life"] == 3
    play(st, 0, b_after, target=1)  # BANG!s discarded in a Duel do not count (BANG-060)
    # The challenger loses when he cannot answer.
    st2 = table(4)
    d2 = give(st2, 0, ["duel"])[0]
    give(st2, 1, ["bang"])
    play(st2, 0, d2, target=1)
    act(st2, 1, {"type": "respond", "card": st2["p"][1]["hand"][0]})
    assert st2["p"][0]["life"] == 4 and st2["p"][1]["life"] == 4


@pytest.mark.rule("BANG-062", "BANG-022", "BANG-069")
def test_gatling_hits_every_other_player_missed_and_barrel_work() -> None:
    st = table(5)
    g, b = give(st, 0, ["gatling", "bang"])
    m = give(st, 1, ["missed"])[0]
    barrel = equip(st, 2, ["barrel"])[0]
    stack_deck(st, ["any:4h"])
    play(st, 0, g)
    act(st, 1, {"type": "respond", "card": m})
    act(st, 2, {"type": "barrel", "card": barrel})
    assert [p["life"] for p in st["p"]] == [5, 4, 4, 3, 3]
    play(st, 0, b, target=1)  # Gatling is not a BANG! card


@pytest.mark.rule("BANG-063", "BANG-064")
def test_indians_discard_a_bang_or_lose_one_missed_and_gatling_useless() -> None:
    st = table(4)
    i = give(st, 0, ["indians"])[0]
    b = give(st, 1, ["bang"])[0]
    give(st, 2, ["missed", "gatling"])
    equip(st, 2, ["barrel"])
    play(st, 0, i)
    act(st, 1, {"type": "respond", "card": b})
    assert bang.legal_actions(st, 2) == [{"type": "pass"}]  # Missed!, Gatling and Barrel do not answer
    act(st, 2, {"type": "pass"})
    assert [p["life"] for p in st["p"]] == [5, 4, 3, 3]


@pytest.mark.rule("BANG-075", "BANG-019")
def test_jail_never_on_the_sheriff_nor_twice() -> None:
    st = table(4)
    j1, j2 = give(st, 2, ["jail", "jail"])
    st["turn"] = 2
    assert reason(play, st, 2, j1, target=0) == "JAIL_ON_SHERIFF"
    play(st, 2, j1, target=3)
    assert table_keys(st, 3) == ["jail"]
    assert reason(play, st, 2, j2, target=3) == "DUPLICATE_EQUIPMENT"
    assert reason(play, st, 2, j2, target=2) == "TARGET_SELF"


@pytest.mark.rule("BANG-075", "BANG-076")
def test_jail_heart_escapes_else_phases_one_and_two_skipped_phase_three_applies() -> None:
    st = table(4)
    equip(st, 1, ["jail"])
    stack_deck(st, ["any:Jh", "missed", "missed"])
    act(st, 0, {"type": "end_turn"})
    assert st["turn"] == 1 and st["phase"] == "play" and len(st["p"][1]["hand"]) == 2
    st2 = table(4)
    st2["p"][1]["life"] = 2
    give(st2, 1, ["bang", "bang", "beer", "duel"])
    equip(st2, 1, ["jail"])
    stack_deck(st2, ["any:6s"])
    act(st2, 0, {"type": "end_turn"})
    assert pending_kind(st2) == "discard" and bang.to_act(st2) == [1] and "jail" not in table_keys(st2, 1)
    act(st2, 1, {"type": "discard", "card": st2["p"][1]["hand"][0]})
    act(st2, 1, {"type": "discard", "card": st2["p"][1]["hand"][0]})
    assert st2["turn"] == 2 and len(st2["p"][1]["hand"]) == 2


@pytest.mark.rule("BANG-077")
def test_jailed_player_still_answers_out_of_turn() -> None:
    st = table(4)
    equip(st, 1, ["jail"])
    m = give(st, 1, ["missed"])[0]
    play(st, 0, give(st, 0, ["bang"])[0], target=1)
    act(st, 1, {"type": "respond", "card": m})
    assert st["p"][1]["life"] == 4


@pytest.mark.rule("BANG-070", "BANG-049", "BANG-074")
def test_dynamite_explodes_on_spades_two_to_nine_no_author() -> None:
    st = table(4, roles=["sheriff", "outlaw", "outlaw", "renegade"])
    equip(st, 1, ["dynamite"])
    st["p"][1]["life"] = 3
    stack_deck(st, ["any:9s"])
    act(st, 0, {"type": "end_turn"})
    assert not st["p"][1]["alive"]
    assert len(st["p"][0]["hand"]) == 0  # no reward for a Dynamite death
    for sign, explodes in (("any:10s", False), ("any:5h", False), ("any:2s", True)):
        st = table(4)
        equip(st, 1, ["dynamite"])
        stack_deck(st, [sign])
        act(st, 0, {"type": "end_turn"})
        assert (st["p"][1]["life"] == 1) is explodes, sign


@pytest.mark.rule("BANG-071")
def test_unexploded_dynamite_passes_to_the_next_living_player_on_the_left() -> None:
    st = table(4, turn=3)
    dyn = equip(st, 0, ["dynamite"])[0]
    st["p"][1]["alive"] = False
    stack_deck(st, ["any:5h"])
    events = act(st, 3, {"type": "end_turn"})  # seat 0's turn starts with the Dynamite check
    assert dyn in st["p"][2]["table"] and st["p"][0]["life"] == 5
    move = next(e for e in events if e["kind"] == "move")
    assert (move["seat"], move["other"]) == (0, 2)


@pytest.mark.rule("BANG-073")
def test_dynamite_is_checked_before_jail() -> None:
    st = table(4)
    equip(st, 1, ["dynamite", "jail"])
    stack_deck(st, ["any:4s", "any:3h"])
    act(st, 0, {"type": "end_turn"})
    assert st["p"][1]["life"] == 1 and st["phase"] == "play" and st["turn"] == 1


@pytest.mark.rule("BANG-069", "BANG-050")
def test_barrel_failed_draw_then_missed() -> None:
    st = table(4)
    barrel = equip(st, 3, ["barrel"])[0]
    m = give(st, 3, ["missed"])[0]
    stack_deck(st, ["any:3s"])
    play(st, 0, give(st, 0, ["bang"])[0], target=3)
    act(st, 3, {"type": "barrel", "card": barrel})
    assert reason(act, st, 3, {"type": "barrel", "card": barrel}) == "BARREL_ALREADY_USED"
    act(st, 3, {"type": "respond", "card": m})
    assert st["p"][3]["life"] == 4


@pytest.mark.rule("BANG-036", "BANG-037", "BANG-038")
def test_mustang_and_scope_distances() -> None:
    from tabletop_server.service.games.bang.distance import distance
    st = table(6)
    equip(st, 0, ["mustang"])
    assert [distance(st, s, 0) for s in range(1, 6)] == [2, 3, 4, 3, 2]
    assert distance(st, 0, 1) == 1 and distance(st, 0, 3) == 3
    st = table(6)
    equip(st, 0, ["scope"])
    assert [distance(st, 0, s) for s in range(1, 6)] == [1, 1, 2, 1, 1]
    assert distance(st, 3, 0) == 3
    equip(st, 2, ["mustang"])
    assert distance(st, 0, 2) == 2


@pytest.mark.rule("BANG-039", "BANG-040", "BANG-041", "BANG-079", "BANG-080", "BANG-081", "BANG-082")
@pytest.mark.parametrize("weapon,reach", [(None, 1), ("volcanic", 1), ("schofield", 2), ("remington", 3),
                                           ("rev_carabine", 4), ("winchester", 5)])
def test_weapon_ranges(weapon: str | None, reach: int) -> None:
    from tabletop_server.service.games.bang.distance import in_reach
    st = table(7)
    if weapon:
        equip(st, 0, [weapon])
    equip(st, 3, ["mustang"])  # seat 3: 3 seats away, +1 = 4
    seen = {1: 1, 2: 2, 3: 4}
    for target, dist in seen.items():
        assert in_reach(st, 0, target) is (dist <= reach), (weapon, target)


@pytest.mark.rule("BANG-041")
def test_new_weapon_replaces_the_old_and_losing_it_brings_back_the_colt() -> None:
    from tabletop_server.service.games.bang.distance import weapon_range
    st = table(4)
    sch, rem = give(st, 0, ["schofield", "remington"])
    play(st, 0, sch)
    play(st, 0, rem)
    assert table_keys(st, 0) == ["remington"] and sch in st["discard"] and weapon_range(st, 0) == 3
    st["turn"] = 1
    p = give(st, 1, ["panic"])[0]
    play(st, 1, p, target=0, pick=st["p"][0]["table"][0])
    assert weapon_range(st, 0) == 1


@pytest.mark.rule("BANG-078")
def test_volcanic_any_number_of_bangs_within_one() -> None:
    st = table(5)
    equip(st, 0, ["volcanic"])
    b1, b2, b3, b4 = give(st, 0, ["bang", "bang", "bang", "bang"])
    play(st, 0, b1, target=1)
    play(st, 0, b2, target=1)
    play(st, 0, b3, target=4)
    assert reason(play, st, 0, b4, target=2) == "OUT_OF_RANGE"


@pytest.mark.rule("BANG-019")
def test_no_two_cards_of_the_same_name_in_play() -> None:
    st = table(4)
    equip(st, 0, ["barrel"])
    b = give(st, 0, ["barrel"])[0]
    assert reason(play, st, 0, b) == "DUPLICATE_EQUIPMENT"
    assert hand_keys(st, 0) == ["barrel"]
