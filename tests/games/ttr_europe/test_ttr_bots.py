"""The Ticket to Ride: Europe ``basic`` bot: legal to the end, blind to hidden state, and its choices.

A bot receives only the seat's view (service/engine/bots.py). The blindness test builds, for
many states, a copy where everything the seat cannot see is scrambled (the others' hands and
tickets, the deck order, the ticket pile) and checks that the view and the bot's decision are
the same on both.
"""

from __future__ import annotations

from copy import deepcopy
from typing import Any

import pytest
from hypothesis import strategies as st
from ttr_helpers import give_route, give_tickets, set_face_up, set_hand, started

import tabletop_server.service.games.ttr_europe as ttr
from bench.bots import TABLES, play_game, run_table
from tabletop_server.service.engine.bots import choose
from tabletop_server.service.engine.rng import Rng, seed_state
from tabletop_server.service.games.ttr_europe.board import (
    CARD_NAMES,
    COLORS,
    GRAY,
    ROUTES,
    ROUTES_AT,
    TICKETS,
)
from tabletop_server.service.games.ttr_europe.bot_paths import plan_routes
from tabletop_server.service.games.ttr_europe.bots import SAFE_TICKET_TRAINS, basic, read_view
from tests.volume import run_examples, volumes

State = dict[str, Any]


@pytest.mark.parametrize("examples", volumes(3, 12))
def test_basic_bots_play_legal_actions_to_the_end(examples: int) -> None:
    run_examples(examples, basic_bots_play_legal_actions_to_the_end, seats=st.integers(2, 5),
                 seed=st.integers(0, 2**32))


def basic_bots_play_legal_actions_to_the_end(seats: int, seed: int) -> None:
    state = ttr.setup({}, seats, seed)
    play_game(ttr, state, ["basic"] * seats, seed)  # choose raises on an action not listed
    assert ttr.is_over(state) and state["result"]["winners"]


@pytest.mark.parametrize("examples", volumes(2, 6))
def test_basic_decides_the_same_when_everything_hidden_is_scrambled(examples: int) -> None:
    run_examples(examples, basic_decides_the_same_when_everything_hidden_is_scrambled, seats=st.integers(2, 5),
                 seed=st.integers(0, 2**32))


def basic_decides_the_same_when_everything_hidden_is_scrambled(seats: int, seed: int) -> None:
    state = ttr.setup({}, seats, seed)
    rng = Rng({"rng": seed_state(seed)})
    for step in range(ttr.INFO.max_actions):
        if ttr.is_over(state):
            break
        seat = ttr.to_act(state)[0]
        legal = ttr.legal_actions(state, seat)
        if step % 3 == 0:
            other = scrambled(state, seat, rng)
            assert ttr.view(other, seat) == ttr.view(state, seat)
            assert basic(ttr.view(other, seat), legal, Rng({"rng": step})) == basic(
                ttr.view(state, seat), legal, Rng({"rng": step}))
        ttr.apply(state, seat, choose(ttr, state, seat, "basic" if step % 2 else "random", seed + step))


def test_basic_claims_a_route_of_its_ticket_path_when_it_can_pay() -> None:
    state = started(2)
    _only_ticket(state, 0, _ticket_with_path_of(3))
    set_hand(state, 0, dict.fromkeys(COLORS, 4) | {"loco": 2})
    action = _decide(state, 0)
    assert action["kind"] == "claim_route"
    assert action["route"] in _planned(state, 0)


def test_basic_takes_a_face_up_card_of_a_colour_its_path_needs() -> None:
    state = started(2)
    tid = _ticket_with_path_of(2, coloured=True)
    _only_ticket(state, 0, tid)
    need = next(ROUTES[r].color for r in _planned(state, 0) if ROUTES[r].color != GRAY)
    other = next(c for c in range(len(COLORS)) if c != need and c not in
                 {ROUTES[r].color for r in _planned(state, 0)})
    set_hand(state, 0, {})
    set_face_up(state, [COLORS[other], COLORS[other], COLORS[need], COLORS[other], COLORS[other]])
    assert _decide(state, 0) == {"kind": "draw_card", "slot": 2}


def test_basic_draws_blind_when_nothing_face_up_helps() -> None:
    state = started(2)
    tid = _ticket_with_path_of(2, coloured=True)
    _only_ticket(state, 0, tid)
    wanted = {ROUTES[r].color for r in _planned(state, 0)}
    useless = [c for c in COLORS if COLORS.index(c) not in wanted][:5]
    set_hand(state, 0, {})
    set_face_up(state, (useless * 5)[:5])
    assert _decide(state, 0) == {"kind": "draw_card", "slot": None}


def test_basic_builds_a_station_where_its_path_is_cut() -> None:
    state = started(2)
    tid = _ticket_with_path_of(2)
    ticket = TICKETS[tid]
    _only_ticket(state, 0, tid)
    for rid in ROUTES_AT[ticket.b]:
        give_route(state, 1, rid)
    set_hand(state, 0, {"red": 1})
    action = _decide(state, 0)
    assert action["kind"] == "build_station"
    assert action["city"] == ticket.b or any(
        {ROUTES[r].a, ROUTES[r].b} == {action["city"], ticket.b} for r in ROUTES_AT[ticket.b])


def test_basic_draws_tickets_only_once_its_tickets_are_done_and_trains_are_left() -> None:
    state = started(2)
    tid = _ticket_with_path_of(2)
    _only_ticket(state, 0, tid)
    set_hand(state, 0, {})
    assert _decide(state, 0)["kind"] == "draw_card"  # its ticket is not done yet
    for rid in _planned(state, 0):
        give_route(state, 0, rid)
    assert _decide(state, 0) == {"kind": "draw_tickets"}
    state["trains"][0] = SAFE_TICKET_TRAINS - 1
    assert _decide(state, 0)["kind"] != "draw_tickets"


def test_basic_keeps_starting_tickets_that_fit_its_trains() -> None:
    for seed in range(20):
        state = ttr.setup({}, 3, seed)
        action = _decide(state, 0)
        view = ttr.view(state, 0)
        seen = read_view(view)
        plan = plan_routes(seen.board, action["tickets"])
        assert len(action["tickets"]) >= 2
        assert plan.trains <= seen.trains


@pytest.mark.parametrize("deals", volumes(10, 40))
def test_basic_wins_most_two_player_games_against_random(deals: int) -> None:
    # bench/bots.py: basic 100% against random's 51% in the same seat over 200 deals (these 40: 40 and 20;
    # the first 10: 10 and 5). At least 85% of them, and more than random on the same deals.
    tally = run_table(TABLES[0], deals, first_seed=1000)
    assert tally["wins"]["basic"] >= 0.85 * deals
    assert tally["wins"]["basic"] > tally["wins"]["random"]


@pytest.mark.parametrize("deals", volumes(5, 30))
def test_greedy_sits_between_random_and_basic(deals: int) -> None:
    # The third level the ratings are ordered by (issue 28): basic over greedy over random. Each deal is played
    # twice, the seats swapped; the stronger bot must win both in 4 deals of 5 (two equal bots: about 2% do).
    for strong, weak in (("greedy", "random"), ("basic", "greedy")):
        both = 0
        for seed in range(deals):
            won = []
            for bots in ([strong, weak], [weak, strong]):
                state = ttr.setup({}, 2, 2800 + seed)
                play_game(ttr, state, bots, seed)  # choose raises on an action not listed
                won.append(bots.index(strong) in state["result"]["winners"])
            both += all(won)
        assert both >= 0.8 * deals, (strong, weak, both)


# Helpers


def scrambled(state: State, seat: int, rng: Rng) -> State:
    """A copy in which every card and ticket ``seat`` cannot see is dealt again at random."""
    other = deepcopy(state)
    others = [s for s in range(state["n"]) if s != seat]
    cards = list(other["deck"])
    for s in others:
        cards += [code for code, count in enumerate(other["hands"][s]) for _ in range(count)]
    rng.shuffle(cards)
    for s in others:
        size = sum(other["hands"][s])
        other["hands"][s] = [0] * len(CARD_NAMES)
        for code in cards[:size]:
            other["hands"][s][code] += 1
        del cards[:size]
    other["deck"] = cards
    tickets = list(other["ticket_pile"]) + list(other["box"])
    for s in others:
        tickets += other["tickets"][s] + other["offered"][s]
    rng.shuffle(tickets)
    for s in others:
        for key in ("tickets", "offered"):
            size = len(other[key][s])
            other[key][s], tickets = tickets[:size], tickets[size:]
    size = len(other["ticket_pile"])
    other["ticket_pile"], other["box"] = tickets[:size], tickets[size:]
    return other


def _decide(state: State, seat: int) -> dict[str, Any]:
    return basic(ttr.view(state, seat), ttr.legal_actions(state, seat), Rng({"rng": 1}))


def _only_ticket(state: State, seat: int, tid: int) -> None:
    state["ticket_pile"].extend(state["tickets"][seat])
    state["tickets"][seat] = []
    give_tickets(state, seat, [tid])


def _planned(state: State, seat: int) -> tuple[int, ...]:
    seen = read_view(ttr.view(state, seat))
    return plan_routes(seen.board, seen.tickets).routes


def _ticket_with_path_of(routes: int, coloured: bool = False) -> int:
    """A ticket whose shortest path on the empty board has ``routes`` routes, none a ferry or tunnel
    (``coloured``: none gray either)."""
    state = started(2)
    seen = read_view(ttr.view(state, 0))
    for tid in sorted(TICKETS):
        plan = plan_routes(seen.board, [tid]).routes
        kinds = [ROUTES[r] for r in plan]
        if len(plan) == routes and not any(r.tunnel or r.locomotives for r in kinds) and (
                not coloured or all(r.color != GRAY for r in kinds)):
            return tid
    raise AssertionError(f"no ticket with a plain {routes}-route path")
