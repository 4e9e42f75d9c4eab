"""Claiming routes, ferries and double routes (TTR-024..TTR-031, TTR-040..TTR-042)."""

from __future__ import annotations

from typing import Any

import pytest
from ttr_helpers import (
    check_invariants,
    claim,
    give_route,
    hand_of,
    reason,
    route_id,
    set_hand,
    stack_deck,
    started,
)

import tabletop_server.service.games.ttr_europe as ttr
from tabletop_server.service.engine.errors import EngineReason, MalformedAction
from tabletop_server.service.games.ttr_europe.board import PARTNER, ROUTES

State = dict[str, Any]


MUNCHEN_WIEN = route_id("Munchen", "Wien")  # 3 orange
KYIV_WILNO = route_id("Kyiv", "Wilno")  # 2 gray


@pytest.mark.rule("TTR-024", "TTR-025", "TTR-028", "TTR-029")
def test_coloured_route(game3: State) -> None:
    set_hand(game3, 0, {"orange": 3, "yellow": 3})
    assert reason(game3, 0, claim(MUNCHEN_WIEN, "orange", 2)) == "WRONG_CARD_COUNT"
    assert reason(game3, 0, claim(MUNCHEN_WIEN, "yellow", 3)) == "WRONG_COLOR"
    discard = len(game3["discard"])
    events = ttr.apply(game3, 0, claim(MUNCHEN_WIEN, "orange", 3))
    assert events[0] == {"type": "route_claimed", "seat": 0, "route": MUNCHEN_WIEN, "color": "orange",
                         "cards": 3, "locos": 0, "points": 4}
    assert game3["owner"][MUNCHEN_WIEN - 1] == 0
    assert game3["trains"][0] == 42 and game3["score"][0] == 4
    assert hand_of(game3, 0) == {"yellow": 3} and len(game3["discard"]) == discard + 3
    assert game3["turn"] == 1
    check_invariants(game3)


@pytest.mark.rule("TTR-025")
def test_no_partial_claim(game3: State) -> None:
    rid = route_id("Kharkov", "Kyiv")  # 4 gray
    set_hand(game3, 0, {"red": 3})
    assert reason(game3, 0, claim(rid, "red", 4)) == "INSUFFICIENT_CARDS"
    assert reason(game3, 0, claim(rid, "red", 3)) == "WRONG_CARD_COUNT"


@pytest.mark.rule("TTR-026", "TTR-027")
def test_gray_route_and_locomotives(game3: State) -> None:
    set_hand(game3, 0, {"red": 1, "blue": 1, "loco": 1})
    assert not [a for a in ttr.legal_actions(game3, 0) if a.get("route") == MUNCHEN_WIEN]
    listed = [a for a in ttr.legal_actions(game3, 0) if a.get("route") == KYIV_WILNO]
    assert sorted((a["color"] or "", a["cards"], a["locos"]) for a in listed) == [
        ("blue", 1, 1), ("red", 1, 1)]
    ttr.apply(game3, 0, claim(KYIV_WILNO, "blue", 1, 1))
    assert hand_of(game3, 0) == {"red": 1} and game3["score"][0] == 2


@pytest.mark.rule("TTR-027")
@pytest.mark.parametrize("payment", [("orange", 2, 1), (None, 0, 3)])
def test_locomotives_are_wild(game3: State, payment: tuple[str | None, int, int]) -> None:
    set_hand(game3, 0, {"orange": 2, "loco": 3})
    ttr.apply(game3, 0, claim(MUNCHEN_WIEN, *payment))
    assert game3["owner"][MUNCHEN_WIEN - 1] == 0


@pytest.mark.rule("TTR-028")
@pytest.mark.parametrize("a, b, color", [("Munchen", "Wien", "orange"), ("Munchen", "Zurich", "yellow")])
@pytest.mark.parametrize("short", [0, 1])
def test_enough_trains_for_the_route(a: str, b: str, color: str, short: int) -> None:
    """Exactly as many trains as spaces is enough (the claimant ends on 0); one fewer is refused.
    Munchen-Zurich is a tunnel: the same check, before any card is revealed."""
    state = started(3)
    rid = route_id(a, b)
    length = ROUTES[rid].length
    set_hand(state, 0, {color: length})
    stack_deck(state, ["blue", "blue", "blue"])
    state["trains"][0] = length - short
    listed = [a for a in ttr.legal_actions(state, 0) if a.get("route") == rid]
    if short:
        assert listed == []
        assert reason(state, 0, claim(rid, color, length)) == "NOT_ENOUGH_TRAINS"
        return
    assert listed == [claim(rid, color, length)]
    ttr.apply(state, 0, claim(rid, color, length))
    assert state["owner"][rid - 1] == 0 and state["trains"][0] == 0 and state["phase"] == "last"


@pytest.mark.rule("TTR-029")
@pytest.mark.parametrize("a, b, color, length, points", [
    ("Budapest", "Wien", "red", 1, 1), ("Kyiv", "Wilno", "red", 2, 2), ("Munchen", "Wien", "orange", 3, 4),
    ("Kharkov", "Kyiv", "red", 4, 7), ("Budapest", "Kyiv", "red", 6, 15),
    ("Petrograd", "Stockholm", "red", 8, 21)])
def test_points_table(a: str, b: str, color: str, length: int, points: int) -> None:
    state = started(4)
    set_hand(state, 0, {color: length})
    # Budapest-Kyiv and Petrograd-Stockholm are tunnels: reveal no match, so they are built at once.
    stack_deck(state, ["blue", "blue", "blue"])
    ttr.apply(state, 0, {"kind": "claim_route", "route": route_id(a, b, "red" if a == "Budapest" and
                                                                   b == "Wien" else None),
                         "color": color, "cards": length, "locos": 0})
    assert state["tunnel"] is None
    assert state["score"][0] == points


@pytest.mark.rule("TTR-030")
def test_routes_need_not_connect(game3: State) -> None:
    athina_sofia, berlin_danzig = route_id("Athina", "Sofia"), route_id("Berlin", "Danzig")
    set_hand(game3, 0, {"purple": 3, "loco": 4})
    ttr.apply(game3, 0, claim(athina_sofia, "purple", 3))
    ttr.apply(game3, 1, {"kind": "draw_card", "slot": None})
    ttr.apply(game3, 1, {"kind": "draw_card", "slot": None})
    ttr.apply(game3, 2, {"kind": "draw_card", "slot": None})
    ttr.apply(game3, 2, {"kind": "draw_card", "slot": None})
    ttr.apply(game3, 0, claim(berlin_danzig, None, 0, 4))
    assert game3["owner"][athina_sofia - 1] == game3["owner"][berlin_danzig - 1] == 0


@pytest.mark.rule("TTR-031", "TTR-013")
def test_route_already_claimed(game3: State) -> None:
    set_hand(game3, 0, {"orange": 3, "red": 3})
    set_hand(game3, 1, {"orange": 3})
    ttr.apply(game3, 0, claim(MUNCHEN_WIEN, "orange", 3))
    assert reason(game3, 0, claim(KYIV_WILNO, "red", 2)) == EngineReason.NOT_YOUR_TURN
    assert reason(game3, 1, claim(MUNCHEN_WIEN, "orange", 3)) == "ROUTE_ALREADY_CLAIMED"


@pytest.mark.rule("TTR-040")
def test_ferry_needs_its_locomotives(game3: State) -> None:
    rid = route_id("Palermo", "Smyrna")  # 6, 2 locomotives
    set_hand(game3, 0, {"green": 5, "red": 2, "loco": 2})
    assert reason(game3, 0, claim(rid, "green", 5, 1)) == "FERRY_NEEDS_LOCOMOTIVES"
    listed = {(a["color"], a["cards"], a["locos"]) for a in ttr.legal_actions(game3, 0) if a.get("route") == rid}
    assert listed == {("green", 4, 2)}
    ttr.apply(game3, 0, claim(rid, "green", 4, 2))
    assert game3["score"][0] == 15


@pytest.mark.rule("TTR-040")
@pytest.mark.parametrize("green, locos", [(3, 3), (0, 6)])
def test_ferry_takes_more_locomotives_than_its_symbols(game3: State, green: int, locos: int) -> None:
    rid = route_id("Palermo", "Smyrna")  # 6, 2 locomotives
    set_hand(game3, 0, {"green": green, "loco": locos})
    assert claim(rid, "green" if green else None, green, locos) in ttr.legal_actions(game3, 0)
    ttr.apply(game3, 0, claim(rid, "green" if green else None, green, locos))
    assert game3["owner"][rid - 1] == 0 and hand_of(game3, 0) == {}


@pytest.mark.rule("TTR-040")
def test_ferry_mixed_colours_rejected(game3: State) -> None:
    # A payment names one colour, so "2 green + 2 red" cannot even be spelled; the
    # nearest attempt, 2 red standing for green spaces, is a wrong count of greens.
    rid = route_id("Palermo", "Smyrna")
    set_hand(game3, 0, {"green": 2, "red": 2, "loco": 2})
    assert reason(game3, 0, claim(rid, "green", 4, 2)) == "INSUFFICIENT_CARDS"


_DOUBLES = sorted((rid, PARTNER[rid]) for rid in PARTNER if rid < PARTNER[rid])


@pytest.mark.rule("TTR-041")
@pytest.mark.parametrize("seats", [2, 3, 4, 5])
@pytest.mark.parametrize("first, second", _DOUBLES)
def test_double_route_closes_with_two_or_three_players(seats: int, first: int, second: int) -> None:
    """Every double route: once seat 0 owns one, seat 1 may take the other only with 4 or 5 players."""
    state = started(seats)
    for seat, rid in ((0, first), (1, second)):
        set_hand(state, seat, {"loco": ROUTES[rid].length})
    stack_deck(state, ["blue"] * 6)  # Madrid-Pamplona is a tunnel: reveal nothing that costs more
    ttr.apply(state, 0, claim(first, None, 0, ROUTES[first].length))
    assert state["owner"][first - 1] == 0 and state["turn"] == 1
    take = claim(second, None, 0, ROUTES[second].length)
    if seats <= 3:
        assert take not in ttr.legal_actions(state, 1)
        assert reason(state, 1, take) == "DOUBLE_ROUTE_CLOSED"
        return
    assert take in ttr.legal_actions(state, 1)
    ttr.apply(state, 1, take)
    assert state["owner"][second - 1] == 1


@pytest.mark.rule("TTR-042")
@pytest.mark.parametrize("seats", [2, 3, 4, 5])
def test_never_both_routes_of_a_double(seats: int) -> None:
    black, red = route_id("Berlin", "Frankfurt", "black"), route_id("Berlin", "Frankfurt", "red")
    state = started(seats)
    give_route(state, 0, black)
    set_hand(state, 0, {"red": 3})
    assert claim(red, "red", 3) not in ttr.legal_actions(state, 0)
    assert reason(state, 0, claim(red, "red", 3)) == "DOUBLE_ROUTE_OWNED"


@pytest.mark.rule("TTR-041", "TTR-042")
def test_double_route_with_four_players(game4: State) -> None:
    black, red = route_id("Berlin", "Frankfurt", "black"), route_id("Berlin", "Frankfurt", "red")
    set_hand(game4, 0, {"black": 3, "red": 3})
    set_hand(game4, 1, {"red": 3})
    ttr.apply(game4, 0, claim(black, "black", 3))
    for seat in (1, 2, 3):
        ttr.apply(game4, seat, {"kind": "draw_card", "slot": None})
        ttr.apply(game4, seat, {"kind": "draw_card", "slot": None})
    assert reason(game4, 0, claim(red, "red", 3)) == "DOUBLE_ROUTE_OWNED"
    ttr.apply(game4, 0, {"kind": "draw_card", "slot": None})
    ttr.apply(game4, 0, {"kind": "draw_card", "slot": None})
    ttr.apply(game4, 1, claim(red, "red", 3))
    assert game4["owner"][red - 1] == 1


def test_claim_listing_applies(game3: State) -> None:
    set_hand(game3, 0, {"red": 4, "loco": 2})
    claims = [a for a in ttr.legal_actions(game3, 0) if a["kind"] == "claim_route"]
    assert claims
    for action in claims:
        state = started(3)
        set_hand(state, 0, {"red": 4, "loco": 2})
        ttr.apply(state, 0, action)
        check_invariants(state)


def test_give_route_helper_matches_rules(game3: State) -> None:
    give_route(game3, 1, MUNCHEN_WIEN)
    assert game3["trains"][1] == 42 and game3["score"][1] == 4


@pytest.mark.parametrize("action, why, field", [
    (claim(0, "red", 1), "UNKNOWN_ROUTE", "action.ttr_europe.claim_route.route_id"),
    (claim(102, "red", 1), "UNKNOWN_ROUTE", "action.ttr_europe.claim_route.route_id"),
    (claim(KYIV_WILNO, "loco", 2), "INVALID_PAYMENT", "action.ttr_europe.claim_route.payment.color"),
    (claim(KYIV_WILNO, "red", -1, 3), "INVALID_PAYMENT", "action.ttr_europe.claim_route.payment"),
    (claim(KYIV_WILNO, "red", 0, 2), "INVALID_PAYMENT", "action.ttr_europe.claim_route.payment.color"),
    ({"kind": "fly"}, "UNKNOWN_ACTION", "action.ttr_europe"),
])
def test_malformed_claims(game3: State, action: dict[str, Any], why: str, field: str) -> None:
    with pytest.raises(MalformedAction) as err:
        ttr.apply(game3, 0, action)
    assert (err.value.reason, err.value.field) == (why, field)
