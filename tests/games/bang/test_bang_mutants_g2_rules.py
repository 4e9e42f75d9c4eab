"""Rules the stop-19 mutation run (``de6d571``, group g2) changed without any test noticing (issue 9).

Each test goes through ``legal_actions`` / ``apply`` / ``view``. The core's extension points
(green cards used from play, costs) have few base-game cards, so the test rows of
``bang_core_helpers`` are used, plus four rows added here in the shape of Dodge City's:
a green Cat Balou (Can Can), a green Panic! for any player, a green card whose use costs a
discard, and a brown card costing two discards. The verdicts are in
``docs/mutation_runs/bang_stop19_g2.md``.
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

import pytest
from bang_core_helpers import ROWS, extra_cards, extra_characters
from bang_helpers import act, dead, equip, give, kinds, pending_kind, play, stack_deck, table
from tabletop.v1 import bang_pb2

from tabletop_server.service.engine.errors import RuleError
from tabletop_server.service.engine.ruleset import Action, State
from tabletop_server.service.games import bang
from tabletop_server.service.games.bang import tables

ROWS.setdefault("t_cancan", {"key": "t_cancan", "name": "Test Can Can", "color": "green", "effect": "green",
                             "use": {"effect": "cat_balou", "target": "any", "range": "any"}})
ROWS.setdefault("t_grab", {"key": "t_grab", "name": "Test Grab", "color": "green", "effect": "green",
                           "use": {"effect": "panic", "target": "any", "range": "any"}})
ROWS.setdefault("t_canteen", {"key": "t_canteen", "name": "Test Canteen", "color": "green", "effect": "green",
                              "use": {"effect": "draw_cards", "args": {"count": 2}, "cost": {"discard": 1}}})
ROWS.setdefault("t_whisky2", {"key": "t_whisky2", "name": "Test Double Whisky", "color": "brown",
                              "effect": "draw_cards", "args": {"count": 2}, "cost": {"discard": 2}})


def refused(state: State, seat: int, action: Action) -> RuleError:
    before = copy.deepcopy(state)
    with pytest.raises(RuleError) as err:
        bang.apply(state, seat, action)
    assert state == before
    return err.value


def as_diamonds(card: str) -> None:
    """Reprint a test card as a diamond (``extra_cards`` removes it again afterwards)."""
    tables.CARDS[card] = dataclasses.replace(tables.CARDS[card], suit="diamonds")


@pytest.mark.rule("DC-064")
def test_a_green_cat_balou_lists_every_card_of_every_victim_beside_the_hand_plays() -> None:
    with extra_cards("t_cancan") as ids:
        st = table(4)
        can = equip(st, 0, [ids["t_cancan"][0]])[0]
        shot = give(st, 0, ["bang"])[0]
        give(st, 1, ["beer"])
        mustang = equip(st, 1, ["mustang"])[0]
        legal = bang.legal_actions(st, 0)
        assert {"type": "play", "card": shot, "target": 3} in legal  # the hand's plays stay listed
        uses = [a for a in legal if a["type"] == "use"]
        # On himself: his hand (Cat Balou may), never the used card itself; seats 2, 3 have nothing.
        assert uses == [{"type": "use", "card": can, "target": 0, "pick": "hand"},
                        {"type": "use", "card": can, "target": 1, "pick": "hand"},
                        {"type": "use", "card": can, "target": 1, "pick": mustang}]
        events = act(st, 0, {"type": "use", "card": can, "target": 1, "pick": mustang})
        assert kinds(events)[0] == "use" and mustang in st["discard"] and can in st["discard"]


@pytest.mark.rule("BANG-066")
def test_a_card_used_from_play_never_takes_itself_nor_its_players_hand_by_panic() -> None:
    with extra_cards("t_cancan", "t_grab") as ids:
        st = table(4)
        can = equip(st, 0, [ids["t_cancan"][0]])[0]
        grab = equip(st, 0, [ids["t_grab"][0]])[0]
        give(st, 0, ["beer"])
        assert refused(st, 0, {"type": "use", "card": can, "target": 0, "pick": can}).reason == "CARD_NOT_IN_PLAY"
        assert refused(st, 0, {"type": "use", "card": grab, "target": 0, "pick": "hand"}).reason == "NOTHING_TO_TAKE"
        assert {"type": "use", "card": grab, "target": 0, "pick": can} in bang.legal_actions(st, 0)


@pytest.mark.rule("DC-019")
def test_apache_kid_is_affected_by_his_own_diamonds_played_or_used_on_himself() -> None:
    with extra_characters("t_apache"), extra_cards("t_cancan") as ids:
        st = table(4, chars=["t_apache", "black_jack", "black_jack", "black_jack"])
        can = equip(st, 0, [ids["t_cancan"][0]])[0]
        as_diamonds(can)
        mustang, scope = equip(st, 0, ["mustang", "scope"])
        cat = give(st, 0, ["cat_balou:9d"])[0]
        act(st, 0, {"type": "use", "card": can, "target": 0, "pick": mustang})
        assert mustang in st["discard"]
        play(st, 0, cat, target=0, pick=scope)
        assert scope in st["discard"] and st["p"][0]["table"] == []


@pytest.mark.rule("DC-019")
def test_a_card_used_on_apache_kid_reads_its_own_suit() -> None:
    with extra_characters("t_apache"), extra_cards("t_cancan") as ids:
        st = table(4, chars=["black_jack", "t_apache", "black_jack", "black_jack"])
        can = equip(st, 0, [ids["t_cancan"][0]])[0]
        mustang = equip(st, 1, ["mustang"])[0]
        assert {"type": "use", "card": can, "target": 1, "pick": mustang} in bang.legal_actions(st, 0)
        as_diamonds(can)
        assert refused(st, 0, {"type": "use", "card": can, "target": 1, "pick": mustang}).reason == "TARGET_UNAFFECTED"


def test_a_green_bang_from_play_refuses_its_own_player() -> None:
    with extra_cards("t_rifle") as ids:
        st = table(4)
        rifle = equip(st, 0, [ids["t_rifle"][0]])[0]
        assert refused(st, 0, {"type": "use", "card": rifle, "target": 0}).reason == "TARGET_SELF"
        assert {"type": "use", "card": rifle, "target": 2} in bang.legal_actions(st, 0)


def test_a_use_that_costs_a_discard_counts_the_whole_hand_then_resolves_its_use() -> None:
    with extra_cards("t_canteen") as ids:
        st = table(4)
        canteen = equip(st, 0, [ids["t_canteen"][0]])[0]
        err = refused(st, 0, {"type": "use", "card": canteen})
        assert (err.reason, err.message, err.details) == (
            "COST_NOT_PAYABLE", "Test Canteen costs 1 more card(s) from your hand", {"card": canteen, "need": "1"})
        a, _b = give(st, 0, ["beer", "bang"])
        assert {"type": "use", "card": canteen} in bang.legal_actions(st, 0)
        events = act(st, 0, {"type": "use", "card": canteen})
        assert kinds(events) == ["use"] and pending_kind(st) == "cost"
        req = bang.view(st, 0).pending[0]
        assert req.kind == bang_pb2.BANG_REQUEST_KIND_COST and req.HasField("source_seat") and req.source_seat == 0
        events = act(st, 0, {"type": "discard", "card": a})
        assert kinds(events) == ["discard", "draw"] and events[1]["count"] == 2
        assert len(st["p"][0]["hand"]) == 3 and canteen in st["discard"] and st["pending"] == []


def test_a_use_cost_of_one_card_is_paid_by_the_only_card_in_hand() -> None:
    with extra_cards("t_canteen") as ids:
        st = table(4)
        canteen = equip(st, 0, [ids["t_canteen"][0]])[0]
        only = give(st, 0, ["beer"])[0]
        events = act(st, 0, {"type": "use", "card": canteen})
        assert kinds(events) == ["use", "discard", "draw"] and only in st["discard"]
        assert len(st["p"][0]["hand"]) == 2


def test_a_cost_of_two_cards_is_asked_twice_before_the_effect() -> None:
    with extra_cards("t_whisky2") as ids:
        st = table(4)
        whisky = give(st, 0, [ids["t_whisky2"][0]])[0]
        a, b, _c = give(st, 0, ["beer", "bang", "missed"])
        play(st, 0, whisky)
        assert bang.view(st, 0).pending[0].cards_to_discard == 2
        events = act(st, 0, {"type": "discard", "card": a})
        assert kinds(events) == ["discard"] and pending_kind(st) == "cost"
        assert bang.view(st, 0).pending[0].cards_to_discard == 1
        events = act(st, 0, {"type": "discard", "card": b})
        assert kinds(events) == ["discard", "draw"] and st["pending"] == []


@pytest.mark.rule("BANG-095")
def test_lucky_dukes_choice_is_his_own_request_in_phase_one() -> None:
    st = table(4, chars=["black_jack", "lucky_duke", "black_jack", "black_jack"])
    equip(st, 1, ["jail"])
    stack_deck(st, ["any:5h", "any:5s"])
    act(st, 0, {"type": "end_turn"})
    assert pending_kind(st) == "pick"
    view = bang.view(st, 0)
    req = view.pending[0]
    assert req.seat == 1 and req.HasField("source_seat") and req.source_seat == 1
    assert view.phase == bang_pb2.BANG_PHASE_DRAW and view.turn_seat == 1


@pytest.mark.rule("BANG-070")
@pytest.mark.rule("BANG-075")
def test_with_nothing_left_to_flip_dynamite_does_not_explode_and_jail_holds() -> None:
    st = table(4)
    equip(st, 1, ["dynamite", "jail"])
    rest = st["deck"] + st["discard"]
    st["p"][3]["hand"].extend(rest)  # every other card is held: deck and discard pile are empty
    st["deck"], st["discard"] = [], []
    events = act(st, 0, {"type": "end_turn"})
    checks: list[dict[str, Any]] = [e for e in events if e["kind"] == "check" and e["seat"] == 1]
    assert [(e["reason"], e["cards"]) for e in checks] == [("dynamite", []), ("jail", [])]
    assert st["p"][1]["life"] == st["p"][1]["max"] and st["p"][1]["alive"]
    assert st["turn"] == 2 and "dynamite" not in [tables.KEY_OF[c] for c in st["p"][1]["table"]]


def test_a_request_of_a_player_already_out_is_dropped() -> None:
    """A built position: seat 2 is out while his Gatling answer is still pending."""
    st = table(4)
    gatling = give(st, 0, ["gatling"])[0]
    for seat in (1, 2, 3):
        give(st, seat, ["missed"])
    play(st, 0, gatling)
    assert [r["seat"] for r in st["pending"]] == [3, 2, 1]
    dead(st, 2)
    act(st, 1, {"type": "pass"})
    assert [r["seat"] for r in st["pending"]] == [3] and bang.to_act(st) == [3]
