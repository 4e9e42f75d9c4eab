"""The NOTES (c) interactions not covered by the card and character scenarios."""

from __future__ import annotations

import pytest
from bang_helpers import act, equip, give, kinds, pending_kind, play, stack_deck, table

from tabletop_server.service.games import bang


def test_multi_target_cards_resolve_clockwise_from_the_left_of_the_attacker() -> None:
    st = table(5)
    st["turn"] = 2
    g = give(st, 2, ["gatling"])[0]
    for seat in range(5):
        if seat != 2:
            give(st, seat, ["missed"])
    play(st, 2, g)
    order = []
    while st["pending"]:
        seat = bang.to_act(st)[0]
        order.append(seat)
        act(st, seat, {"type": "pass"})
    assert order == [3, 4, 0, 1]


def test_missed_and_barrel_are_useless_against_indians_duel_and_dynamite() -> None:
    st = table(4)
    give(st, 1, ["missed", "bang"])
    equip(st, 1, ["barrel"])
    play(st, 0, give(st, 0, ["indians"])[0])
    legal = bang.legal_actions(st, 1)
    assert all(a["type"] != "barrel" for a in legal)
    assert [a for a in legal if a["type"] == "respond"] == [
        {"type": "respond", "card": c} for c in st["p"][1]["hand"] if c.startswith("base.bang.")]


def test_the_attacker_is_credited_with_kills_by_gatling_and_indians() -> None:
    st = table(5, roles=["sheriff", "renegade", "outlaw", "deputy", "outlaw"])
    st["turn"] = 3
    st["p"][2]["life"] = 1
    play(st, 3, give(st, 3, ["indians"])[0])
    while st["pending"]:
        act(st, bang.to_act(st)[0], {"type": "pass"})
    assert not st["p"][2]["alive"] and len(st["p"][3]["hand"]) == 3


def test_losing_your_own_duel_credits_nobody_else() -> None:
    st = table(5, roles=["sheriff", "renegade", "outlaw", "deputy", "outlaw"])
    st["turn"] = 2
    st["p"][2]["life"] = 1
    d = give(st, 2, ["duel"])[0]
    give(st, 3, ["bang"])
    play(st, 2, d, target=3)
    events = act(st, 3, {"type": "respond", "card": st["p"][3]["hand"][0]})
    assert not st["p"][2]["alive"]
    assert not [e for e in events if e.get("reason") == "reward"]  # the challenger caused his own loss
    assert st["turn"] == 3  # the dead player's turn is over


def test_on_hit_abilities_wait_for_the_dying_window() -> None:
    st = table(5, chars=["black_jack", "bart_cassidy", "black_jack", "black_jack", "black_jack"])
    st["p"][1]["life"] = 1
    beer = give(st, 1, ["beer"])[0]
    play(st, 0, give(st, 0, ["bang"])[0], target=1)
    events = act(st, 1, {"type": "pass"})
    assert pending_kind(st) == "dying" and "draw" not in kinds(events)
    events = act(st, 1, {"type": "respond", "card": beer})
    assert kinds(events)[-1] == "draw" and len(st["p"][1]["hand"]) == 1


def test_dynamite_death_on_your_own_turn_passes_the_turn() -> None:
    st = table(5, roles=["sheriff", "renegade", "outlaw", "deputy", "outlaw"])
    equip(st, 1, ["dynamite", "jail"])
    st["p"][1]["life"] = 3
    stack_deck(st, ["any:8s"])
    act(st, 0, {"type": "end_turn"})
    assert not st["p"][1]["alive"] and st["turn"] == 2 and st["phase"] == "play"


def test_lucky_duke_chooses_his_barrel_card() -> None:
    st = table(4, chars=["black_jack", "lucky_duke", "black_jack", "black_jack"])
    barrel = equip(st, 1, ["barrel"])[0]
    _, heart = stack_deck(st, ["any:2s", "beer:6h"])
    play(st, 0, give(st, 0, ["bang"])[0], target=1)
    act(st, 1, {"type": "barrel", "card": barrel})
    assert pending_kind(st) == "pick" and [c.id for c in bang.view(st, 3).pending[-1].cards] == [_, heart]
    act(st, 1, {"type": "choose", "card": heart})
    assert st["p"][1]["life"] == 4 and not st["pending"]


@pytest.mark.rule("BANG-051")
def test_a_card_stolen_from_a_hand_is_seen_only_by_the_two_players() -> None:
    st = table(4)
    secret = give(st, 1, ["beer"])[0]
    events = play(st, 0, give(st, 0, ["panic"])[0], target=1, pick="hand")
    take = next(e for e in events if e["kind"] == "take")
    assert bang.project(take, 0)["cards"] == [secret] and bang.project(take, 1)["cards"] == [secret]
    assert bang.project(take, 2)["cards"] == [] and bang.project(take, None)["count"] == 1


def test_general_store_cards_are_public_and_the_deck_order_never_sent() -> None:
    st = table(4)
    top = stack_deck(st, ["bang", "missed", "beer", "duel", "panic"])
    play(st, 0, give(st, 0, ["general_store"])[0])
    assert [c.id for c in bang.view(st, 2).pending[-1].cards] == top[:4]
    raw = bang.view(st, None).SerializeToString()
    assert top[4].encode() not in raw and all(c.encode() not in raw for c in st["deck"])


def test_roles_sheriff_public_others_secret_all_public_at_the_end() -> None:
    st = table(4, roles=["sheriff", "renegade", "outlaw", "outlaw"])
    v = bang.view(st, 2)
    assert [p.role for p in v.players] == [1, 0, 3, 0]
    assert [p.role for p in bang.view(st, None).players] == [1, 0, 0, 0]
    st["phase"] = "over"
    assert [p.role for p in bang.view(st, None).players] == [1, 4, 3, 3]


@pytest.mark.rule("BANG-006", "BANG-007", "BANG-008", "BANG-011")
def test_view_shows_characters_life_and_the_goal_of_visible_roles() -> None:
    st = table(5, roles=["sheriff", "renegade", "outlaw", "deputy", "outlaw"])
    v = bang.view(st, 2)
    assert [p.character for p in v.players] == ["black_jack"] * 5
    assert (v.players[0].life, v.players[0].max_life) == (5, 5)
    assert v.players[2].role_goal.startswith("Kill the Sheriff") and "Eliminate all Outlaws" in v.players[0].role_goal
    assert v.players[3].role_goal == "" and v.players[1].role_goal == ""
