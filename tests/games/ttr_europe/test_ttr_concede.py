"""Conceding in Ticket to Ride (``ttr.concede``; no rule covers it, docs/ttr_europe.md "Conceding").

The seat takes no more turns, keeps its score, ranks below the seats still playing; what it left
open closes as the rules close it otherwise; with one seat left the game is scored.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ttr_helpers import check_invariants, give_route, route_id, set_hand, stack_deck, started

import tabletop_server.service.games.ttr_europe as ttr
from tabletop_server.service.engine.errors import EngineReason, RuleError
from tabletop_server.service.engine.rng import Rng, seed_state
from tabletop_server.service.games.ttr_europe.board import CARD_CODE
from tabletop_server.service.games.ttr_europe.turns import end_turn

State = dict[str, Any]
DRAW = {"kind": "draw_card", "slot": None}


def take_turn(state: State) -> int:
    """The seat to move draws two blind cards (a whole turn); returns that seat."""
    seat = state["turn"]
    ttr.apply(state, seat, DRAW)
    if not ttr.is_over(state) and state["turn"] == seat:
        ttr.apply(state, seat, DRAW)
    return seat


@pytest.mark.parametrize("seats", [3, 4, 5])
def test_a_conceded_seat_is_passed_over(seats: int) -> None:
    state = started(seats)
    ttr.concede(state, 1)
    order = [take_turn(state) for _ in range(2 * seats)]
    assert 1 not in order
    assert order[:seats - 1] == [s for s in range(seats) if s != 1]
    assert ttr.view(state, None).players[1].conceded and not ttr.view(state, None).players[0].conceded
    check_invariants(state)


def test_the_turn_seat_conceding_ends_its_turn_midway() -> None:
    state = started(3)
    ttr.apply(state, 0, DRAW)  # one card of two
    assert state["turn"] == 0 and state["drawn"] == 1
    events = ttr.concede(state, 0)
    assert state["turn"] == 1 and state["drawn"] == 0
    assert {"type": "turn_started", "seat": 1} in events
    assert ttr.to_act(state) == [1]


def test_a_seat_that_is_not_to_move_conceding_changes_no_turn() -> None:
    state = started(3)
    assert ttr.concede(state, 2) == []
    assert state["turn"] == 0 and ttr.to_act(state) == [0]


def test_offered_tickets_go_under_the_pile() -> None:
    state = started(3)
    ttr.apply(state, 0, {"kind": "draw_tickets"})
    offered = list(state["offered"][0])
    assert len(offered) == 3
    ttr.concede(state, 0)
    assert state["offered"][0] == [] and state["ticket_pile"][-3:] == offered
    assert state["turn"] == 1
    check_invariants(state)


def test_starting_tickets_of_a_seat_conceding_during_the_choice_go_to_the_box() -> None:
    state = ttr.setup(ttr.decode_options(None), 3, 5)
    offered = list(state["offered"][1])
    boxed = len(state["box"])
    ttr.concede(state, 1)
    assert state["phase"] == "tickets" and ttr.to_act(state) == [0, 2]
    assert state["box"][boxed:] == offered
    for seat in (0, 2):
        ttr.apply(state, seat, {"kind": "keep_tickets", "tickets": state["offered"][seat][:2]})
    assert state["phase"] == "play" and state["tickets"][1] == []
    check_invariants(state)


def test_the_first_player_conceding_during_the_choice_hands_the_first_turn_on() -> None:
    state = ttr.setup(ttr.decode_options(None), 3, 5)
    first = state["first"]
    ttr.concede(state, first)
    for seat in ttr.to_act(state):
        ttr.apply(state, seat, {"kind": "keep_tickets", "tickets": state["offered"][seat][:2]})
    assert state["turn"] == (first + 1) % 3


@pytest.mark.parametrize("discards", [False, True])
def test_a_pending_tunnel_is_withdrawn(discards: bool) -> None:
    state = started(3, tunnel_failure_discards=discards)
    rid = route_id("Munchen", "Zurich")  # a 2-long yellow tunnel
    set_hand(state, 0, {"yellow": 2})
    stack_deck(state, ["yellow", "blue", "green"])  # one more yellow to pay
    ttr.apply(state, 0, {"kind": "claim_route", "route": rid, "color": "yellow", "cards": 2, "locos": 0})
    assert state["tunnel"] is not None
    events = ttr.concede(state, 0)
    assert state["tunnel"] is None and state["owner"][rid - 1] == -1
    assert any(e["type"] == "tunnel_withdrawn" for e in events)
    assert state["hands"][0][CARD_CODE["yellow"]] == (0 if discards else 2)
    assert state["turn"] == 1
    check_invariants(state)


@pytest.mark.parametrize("seats", [2, 3, 4, 5])
def test_the_game_ends_when_one_seat_is_left(seats: int) -> None:
    state = started(seats)
    for seat in range(1, seats):
        assert not ttr.is_over(state)
        ttr.concede(state, seat)
    assert ttr.is_over(state) and ttr.to_act(state) == []
    assert state["result"]["winners"] == [0]


def test_one_seat_left_with_its_tunnel_pending_gets_its_cards_back_before_scoring() -> None:
    state = started(2)
    rid = route_id("Munchen", "Zurich")
    set_hand(state, 0, {"yellow": 2})
    stack_deck(state, ["yellow", "blue", "green"])
    ttr.apply(state, 0, {"kind": "claim_route", "route": rid, "color": "yellow", "cards": 2, "locos": 0})
    ttr.concede(state, 1)
    assert ttr.is_over(state) and state["tunnel"] is None
    check_invariants(state)


def test_a_conceded_seat_keeps_its_score_but_ranks_below_those_playing() -> None:
    state = started(3)
    give_route(state, 1, route_id("Kharkov", "Moskva"))  # seat 1 leads on points
    assert state["score"][1] > state["score"][0]
    ttr.concede(state, 1)
    ttr.concede(state, 2)
    result = state["result"]
    assert result["winners"] == [0]
    assert result["scores"][1]["routes"] == state["score"][1] > 0
    assert ttr.view(state, None).final_scores[1].total == result["scores"][1]["total"]


@pytest.mark.rule("TTR-055")
@pytest.mark.parametrize("who", ["trigger", "later", "earlier"])
def test_the_last_round_still_ends_after_the_trigger(who: str) -> None:
    """4 seats, seat 1 triggers the last round; one seat concedes during it: the seats still playing
    each take exactly one more turn, and the game ends where it would have (after seat 1's turn)."""
    state = started(4)
    take_turn(state)  # seat 0
    state["trains"][1] = 2
    take_turn(state)  # seat 1 triggers
    assert state["phase"] == "last"
    out = {"trigger": 1, "later": 3, "earlier": 0}[who]
    ttr.concede(state, out)
    played = []
    while not ttr.is_over(state):
        played.append(take_turn(state))
    assert played == [s for s in (2, 3, 0, 1) if s != out]


def test_conceding_the_turn_in_the_last_round_uses_it_up() -> None:
    state = started(3)
    state["trains"][0] = 2
    take_turn(state)  # seat 0 triggers; seats 1, 2, 0 play once more
    ttr.concede(state, 1)  # seat 1's last turn
    assert [take_turn(state), take_turn(state)] == [2, 0] and ttr.is_over(state)


def test_passes_count_only_the_seats_still_playing() -> None:
    """The stall rule (every seat in a row could only pass) counts the seats that still play."""
    state = started(3)
    ttr.concede(state, 2)
    state["passes"] = 1  # seat 1 passed before
    state["turn"] = 0
    events: list[dict[str, Any]] = []
    end_turn(state, events, passed=True)
    assert ttr.is_over(state)


def test_refusals() -> None:
    state = started(3)
    ttr.concede(state, 1)
    with pytest.raises(RuleError) as err:
        ttr.concede(state, 1)
    assert err.value.reason == EngineReason.SEAT_CONCEDED
    ttr.concede(state, 2)
    with pytest.raises(RuleError) as err:
        ttr.concede(state, 0)
    assert err.value.reason == EngineReason.GAME_FINISHED


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), seats=st.integers(2, 5), moves=st.integers(0, 120),
       who=st.integers(0, 4))
def test_conceding_anywhere_keeps_every_invariant_and_the_game_ends(seed: int, seats: int, moves: int,
                                                                     who: int) -> None:
    """Random play, a random seat concedes at a random moment, random play to the end."""
    rng = Rng({"rng": seed_state(seed)})
    state = ttr.setup(ttr.decode_options(None), seats, seed)
    for step in range(3000):
        if ttr.is_over(state):
            break
        if step == moves and who % seats not in state.get("conceded", []):
            ttr.concede(state, who % seats)
            check_invariants(state)
            continue
        seat = ttr.to_act(state)[0]
        assert seat not in state.get("conceded", [])
        actions = ttr.legal_actions(state, seat)
        ttr.apply(state, seat, rng.choice(actions))
    assert ttr.is_over(state)
    check_invariants(state)


def test_two_seats_one_conceding_during_the_starting_choice_ends_the_game() -> None:
    state = ttr.setup(ttr.decode_options(None), 2, 6)
    ttr.concede(state, 1)
    assert ttr.is_over(state) and state["result"]["winners"] == [0]
    check_invariants(state)


def test_the_last_seat_still_choosing_conceding_starts_play() -> None:
    state = ttr.setup(ttr.decode_options(None), 3, 6)
    for seat in (0, 1):
        ttr.apply(state, seat, {"kind": "keep_tickets", "tickets": state["offered"][seat][:2]})
    events = ttr.concede(state, 2)
    assert state["phase"] == "play" and {"type": "turn_started", "seat": state["turn"]} in events
    assert state["turn"] != 2 and ttr.to_act(state) == [state["turn"]]
    check_invariants(state)
