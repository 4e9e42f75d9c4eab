"""The core: costs are follow-up decisions, not multiplied legal actions.

A card with ``"cost": {"discard": 1}`` (the test row ``t_whisky``, shaped like Dodge City's
"discard another card" cards) is listed once; after it is played its player answers a
``cost`` request naming the card to discard, and only then does the effect resolve.
"""

from __future__ import annotations

import copy

import pytest
from bang_core_helpers import extra_cards
from bang_helpers import act, equip, give, kinds, pending_kind, play, table
from tabletop.v1 import bang_pb2

from tabletop_server.service.engine.errors import MalformedAction, RuleError
from tabletop_server.service.games import bang


def test_a_card_with_a_cost_is_listed_once_then_its_cost_is_asked() -> None:
    with extra_cards("t_whisky") as ids:
        st = table(4)
        whisky = give(st, 0, [ids["t_whisky"][0]])[0]
        others = give(st, 0, ["bang", "beer", "panic"])
        plays = [a for a in bang.legal_actions(st, 0) if a.get("card") == whisky]
        assert plays == [{"type": "play", "card": whisky}]
        events = play(st, 0, whisky)
        assert kinds(events) == ["play"] and pending_kind(st) == "cost"
        assert len(st["p"][0]["hand"]) == 3  # the effect waits for the cost
        assert bang.legal_actions(st, 0) == [{"type": "discard", "card": c} for c in others]
        pb = bang.view(st, 1).pending[0]
        assert pb.kind == bang_pb2.BANG_REQUEST_KIND_COST and pb.cards_to_discard == 1
        assert pb.source_card.id == whisky
        events = act(st, 0, {"type": "discard", "card": others[1]})
        assert events[0] == {"kind": "discard", "seat": 0, "cards": [others[1]], "reason": "cost"}
        assert kinds(events)[1] == "draw" and events[1]["count"] == 2
        assert st["pending"] == [] and others[1] in st["discard"] and len(st["p"][0]["hand"]) == 4


def test_a_cost_the_hand_cannot_pay_is_refused_and_not_listed() -> None:
    with extra_cards("t_whisky") as ids:
        st = table(4)
        whisky = give(st, 0, [ids["t_whisky"][0]])[0]
        assert not [a for a in bang.legal_actions(st, 0) if a.get("card") == whisky]
        before = copy.deepcopy(st)
        with pytest.raises(RuleError) as err:
            bang.apply(st, 0, {"type": "play", "card": whisky})
        assert err.value.reason == "COST_NOT_PAYABLE" and st == before


def test_the_only_way_to_pay_is_taken_without_asking() -> None:
    with extra_cards("t_whisky") as ids:
        st = table(4)
        whisky = give(st, 0, [ids["t_whisky"][0]])[0]
        other = give(st, 0, ["bang"])[0]
        events = play(st, 0, whisky)
        assert kinds(events)[:3] == ["play", "discard", "draw"] and other in st["discard"]
        assert st["pending"] == []


def test_no_ability_while_a_cost_is_open() -> None:
    with extra_cards("t_whisky") as ids:
        st = table(4, chars=["sid_ketchum", "black_jack", "black_jack", "black_jack"])
        st["p"][0]["life"] = 2
        whisky = give(st, 0, [ids["t_whisky"][0]])[0]
        a, b, _c = give(st, 0, ["bang", "beer", "panic"])
        assert {"type": "ability", "cards": [a, b]} in bang.legal_actions(st, 0)
        play(st, 0, whisky)
        assert not [x for x in bang.legal_actions(st, 0) if x["type"] == "ability"]
        with pytest.raises(RuleError) as err:
            bang.apply(st, 0, {"type": "ability", "cards": [a, b]})
        assert err.value.reason == "WRONG_ANSWER"


def test_a_card_for_several_victims_asks_one_choice_per_victim() -> None:
    with extra_cards("t_brawl") as ids:
        st = table(4)
        brawl = give(st, 0, [ids["t_brawl"][0]])[0]
        give(st, 0, ["bang"])
        kept = give(st, 1, ["beer"])[0]
        barrel = equip(st, 1, ["barrel"])[0]
        lone = give(st, 2, ["missed"])[0]
        assert [a for a in bang.legal_actions(st, 0) if a.get("card") == brawl] == [{"type": "play", "card": brawl}]
        events = play(st, 0, brawl)  # the cost (the only other card) is paid without asking
        assert kinds(events) == ["play", "discard"] and pending_kind(st) == "victim_card"
        assert bang.legal_actions(st, 0) == [{"type": "choose", "pick": "hand"}, {"type": "choose", "pick": barrel}]
        assert bang.view(st, 3).pending[-1].kind == bang_pb2.BANG_REQUEST_KIND_VICTIM_CARD  # top last
        assert bang.view(st, 3).pending[-1].opponent_seat == 1
        with pytest.raises(MalformedAction) as bad:
            bang.apply(st, 0, {"type": "choose", "card": barrel})
        assert bad.value.field == "pick"
        events = act(st, 0, {"type": "choose", "pick": barrel})
        # Seat 1 loses the Barrel; seat 2's only card goes without asking; seat 3 has nothing.
        assert events == [{"kind": "discard", "seat": 1, "cards": [barrel], "reason": "t_brawl"},
                          {"kind": "discard", "seat": 2, "cards": [lone], "reason": "t_brawl"}]
        assert st["p"][1]["hand"] == [kept] and st["pending"] == []


def test_choose_names_the_field_its_request_asks_for() -> None:
    st = table(4)
    play(st, 0, give(st, 0, ["general_store"])[0])
    assert pending_kind(st) == "store"
    with pytest.raises(MalformedAction) as bad:
        bang.apply(st, 0, {"type": "choose", "pick": "hand"})
    assert bad.value.field == "card"
    for action in ({"type": "choose", "pick": "hand"}, {"type": "choose", "pick": "base.barrel.Ks"}):
        assert bang.decode_action(bang.encode_action(action)) == action
