"""Tunnels (TTR-032..TTR-039), with the official rule and the tunnel_failure_discards house rule."""

from __future__ import annotations

from typing import Any

import pytest
from ttr_helpers import check_invariants, claim, hand_of, reason, route_id, set_hand, stack_deck, started

import service.games.ttr_europe as ttr

State = dict[str, Any]
MUNCHEN_ZURICH = route_id("Munchen", "Zurich")  # 2 yellow tunnel
ANGORA_SMYRNA = route_id("Angora", "Smyrna")  # 3 orange tunnel
PARIS_ZURICH = route_id("Paris", "Zurich")  # 3 gray tunnel


def pay(color: str | None, cards: int, locos: int = 0) -> dict[str, Any]:
    return {"kind": "pay_tunnel", "color": color, "cards": cards, "locos": locos}


@pytest.mark.rule("TTR-032", "TTR-033")
def test_extra_cost_and_payment(game3: State) -> None:
    set_hand(game3, 0, {"yellow": 3, "red": 1, "loco": 1})
    stack_deck(game3, ["yellow", "green", "loco"])
    discard = len(game3["discard"])
    events = ttr.apply(game3, 0, claim(MUNCHEN_ZURICH, "yellow", 2))
    assert events == [{"type": "tunnel_revealed", "seat": 0, "route": MUNCHEN_ZURICH,
                       "revealed": ["yellow", "green", "loco"], "extra": 2}]
    assert ttr.to_act(game3) == [0] and game3["owner"][MUNCHEN_ZURICH - 1] == -1
    view = ttr.view(game3, 1)
    assert view.tunnel.extra_cost == 2 and list(view.tunnel.revealed) == [4, 8, 9]
    assert sorted((a["color"] or "", a["cards"], a["locos"]) for a in ttr.legal_actions(game3, 0)
                  if a["kind"] == "pay_tunnel") == [("yellow", 1, 1)]
    assert {"kind": "withdraw_tunnel"} in ttr.legal_actions(game3, 0)
    assert reason(game3, 0, pay("red", 1, 1)) == "WRONG_COLOR"
    assert reason(game3, 0, pay("yellow", 1)) == "WRONG_CARD_COUNT"
    assert reason(game3, 0, pay("yellow", 2)) == "INSUFFICIENT_CARDS"
    assert reason(game3, 0, {"kind": "draw_card", "slot": None}) == "MUST_DECIDE_TUNNEL"
    events = ttr.apply(game3, 0, pay("yellow", 1, 1))
    assert events[0] == {"type": "route_claimed", "seat": 0, "route": MUNCHEN_ZURICH, "color": "yellow",
                         "cards": 3, "locos": 1, "points": 2}
    assert game3["owner"][MUNCHEN_ZURICH - 1] == 0 and hand_of(game3, 0) == {"red": 1}
    # Played (2) + extra (2) + revealed (3) cards are discarded (TTR-038).
    assert len(game3["discard"]) == discard + 7
    assert game3["turn"] == 1
    check_invariants(game3)


@pytest.mark.rule("TTR-034")
def test_no_match_builds_at_once(game3: State) -> None:
    set_hand(game3, 0, {"yellow": 2})
    stack_deck(game3, ["green", "green", "red"])
    events = ttr.apply(game3, 0, claim(MUNCHEN_ZURICH, "yellow", 2))
    assert [e["type"] for e in events][:2] == ["tunnel_revealed", "route_claimed"]
    assert events[0]["extra"] == 0
    assert game3["owner"][MUNCHEN_ZURICH - 1] == 0 and game3["score"][0] == 2 and game3["turn"] == 1
    assert game3["tunnel"] is None and game3["discard"][-3:] == [7, 7, 6]


@pytest.mark.rule("TTR-035")
def test_locomotives_only_count_revealed_locomotives(game3: State) -> None:
    set_hand(game3, 0, {"loco": 4, "red": 2})
    stack_deck(game3, ["red", "red", "loco"])
    ttr.apply(game3, 0, claim(PARIS_ZURICH, None, 0, 3))
    assert game3["tunnel"]["extra"] == 1
    options = [a for a in ttr.legal_actions(game3, 0) if a["kind"] == "pay_tunnel"]
    assert options == [pay(None, 0, 1)]
    assert reason(game3, 0, pay("red", 1)) == "WRONG_COLOR"
    ttr.apply(game3, 0, pay(None, 0, 1))
    assert game3["owner"][PARIS_ZURICH - 1] == 0 and hand_of(game3, 0) == {"red": 2}


@pytest.mark.rule("TTR-036", "TTR-037", "TTR-038")
def test_withdraw_official_rule_returns_cards() -> None:
    state = started(3)
    set_hand(state, 0, {"orange": 3, "green": 1})
    set_hand(state, 1, {"orange": 3, "loco": 2})
    stack_deck(state, ["orange", "orange", "green"])
    ttr.apply(state, 0, claim(ANGORA_SMYRNA, "orange", 3))
    assert state["tunnel"]["extra"] == 2
    assert [a for a in ttr.legal_actions(state, 0) if a["kind"] == "pay_tunnel"] == []
    discard = len(state["discard"])
    events = ttr.apply(state, 0, {"kind": "withdraw_tunnel"})
    assert events[0] == {"type": "tunnel_withdrawn", "seat": 0, "route": ANGORA_SMYRNA, "discarded": False}
    assert hand_of(state, 0) == {"orange": 3, "green": 1}
    assert len(state["discard"]) == discard + 3 and state["turn"] == 1
    assert state["owner"][ANGORA_SMYRNA - 1] == -1
    check_invariants(state)
    # TTR-037: another player may try the same tunnel.
    stack_deck(state, ["blue", "blue", "blue"])
    ttr.apply(state, 1, claim(ANGORA_SMYRNA, "orange", 3))
    assert state["owner"][ANGORA_SMYRNA - 1] == 1


@pytest.mark.rule("TTR-036")
def test_withdraw_house_rule_discards_cards() -> None:
    state = started(3, tunnel_failure_discards=True)
    set_hand(state, 0, {"orange": 3, "green": 1})
    stack_deck(state, ["orange", "orange", "green"])
    discard = len(state["discard"])
    ttr.apply(state, 0, claim(ANGORA_SMYRNA, "orange", 3))
    events = ttr.apply(state, 0, {"kind": "withdraw_tunnel"})
    assert events[0]["discarded"] is True
    assert hand_of(state, 0) == {"green": 1}
    assert len(state["discard"]) == discard + 6
    check_invariants(state)


@pytest.mark.rule("TTR-039")
def test_fewer_cards_to_reveal(game3: State) -> None:
    set_hand(game3, 0, {"yellow": 3})
    # Deck and discards together hold one yellow card; every other card sits in seat 2's hand.
    stack_deck(game3, ["yellow"])
    top = game3["deck"].pop()
    for pile in ("deck", "discard"):
        for card in game3[pile]:
            game3["hands"][2][card] += 1
        game3[pile].clear()
    game3["discard"].append(top)
    events = ttr.apply(game3, 0, claim(MUNCHEN_ZURICH, "yellow", 2))
    assert events[0] == {"type": "reshuffled", "deck": 1}
    assert events[1]["revealed"] == ["yellow"] and events[1]["extra"] == 1
    ttr.apply(game3, 0, pay("yellow", 1))
    assert game3["owner"][MUNCHEN_ZURICH - 1] == 0
    check_invariants(game3)


@pytest.mark.rule("TTR-039")
def test_nothing_to_reveal_costs_nothing(game3: State) -> None:
    set_hand(game3, 0, {"yellow": 2})
    for pile in ("deck", "discard"):
        for card in game3[pile]:
            game3["hands"][2][card] += 1
        game3[pile].clear()
    events = ttr.apply(game3, 0, claim(MUNCHEN_ZURICH, "yellow", 2))
    assert events[0]["revealed"] == [] and events[0]["extra"] == 0
    assert game3["owner"][MUNCHEN_ZURICH - 1] == 0
    check_invariants(game3)


def test_tunnel_decision_is_data(game3: State) -> None:
    """The pending decision survives a JSON round trip (the service reloads every request)."""
    import json

    set_hand(game3, 0, {"yellow": 3})
    stack_deck(game3, ["yellow", "red", "red"])
    ttr.apply(game3, 0, claim(MUNCHEN_ZURICH, "yellow", 2))
    reloaded = json.loads(json.dumps(game3))
    assert reloaded == game3
    ttr.apply(reloaded, 0, pay("yellow", 1))
    assert reloaded["owner"][MUNCHEN_ZURICH - 1] == 0


def test_no_tunnel_pending(game3: State) -> None:
    assert reason(game3, 0, {"kind": "withdraw_tunnel"}) == "NO_TUNNEL_PENDING"
    assert reason(game3, 0, pay("red", 1)) == "NO_TUNNEL_PENDING"
