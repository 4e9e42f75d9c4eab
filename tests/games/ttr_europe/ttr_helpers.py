"""Position builders for Ticket to Ride: Europe tests: stack the deck, set hands, start play.

Every builder *moves* cards and tickets rather than creating them, so the 110-card
and 46-ticket invariants hold in every position a test builds.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from google.protobuf.message import Message
from tabletop.v1 import ttr_europe_pb2 as pb

import tabletop_server.service.games.ttr_europe as ttr
from tabletop_server.service.engine.errors import RuleError
from tabletop_server.service.engine.rng import Rng
from tabletop_server.service.games.ttr_europe.board import CARD_CODE, CARD_NAMES, COLORS, ROUTES
from tabletop_server.service.games.ttr_europe.cards import EMPTY, card_total
from tabletop_server.service.games.ttr_europe.tickets import ticket_total

State = dict[str, Any]


def claim(rid: int, color: str | None, cards: int, locos: int = 0) -> dict[str, Any]:
    """A claim_route action paying ``cards`` of ``color`` and ``locos`` locomotives."""
    return {"kind": "claim_route", "route": rid, "color": color, "cards": cards, "locos": locos}


def reason(state: State, seat: int, action: dict[str, Any]) -> str:
    """The reason ``action`` is refused with; fails if it applies or changes the state."""
    before = repr(state)
    with pytest.raises(RuleError) as err:
        ttr.apply(state, seat, action)
    assert repr(state) == before, "a refused action changed the state"
    return err.value.reason


def route_id(a: str, b: str, color: str | None = None) -> int:
    """The id of the route between two cities (``color`` picks one of a double route)."""
    found = [r.id for r in ROUTES.values() if {r.a, r.b} == {a, b}
             and (color is None or (r.color >= 0 and COLORS[r.color] == color)
                  or (color == "gray" and r.color < 0))]
    assert found, f"no route {a}-{b} {color or ''}"
    return found[0]


def _take(state: State, card: int) -> None:
    """Remove one card of ``card`` from the deck or the discard pile."""
    for pile in (state["deck"], state["discard"]):
        if card in pile:
            pile.remove(card)
            return
    raise AssertionError(f"no {card} left in deck or discards to move")


def stack_deck(state: State, cards: list[str]) -> None:
    """Put these cards (names, in draw order) on top of the deck, taken from deck or discards."""
    codes = [CARD_CODE[c] for c in cards]
    for code in codes:
        _take(state, code)
    state["deck"].extend(reversed(codes))


def empty_deck_into_discard(state: State) -> None:
    """Move the whole deck to the discard pile."""
    state["discard"].extend(state["deck"])
    state["deck"].clear()


def set_hand(state: State, seat: int, cards: dict[str, int]) -> None:
    """Give a seat exactly these cards: its old hand goes to the bottom of the deck."""
    hand = state["hands"][seat]
    for code, count in enumerate(hand):
        state["deck"][0:0] = [code] * count
        hand[code] = 0
    for name, count in cards.items():
        for _ in range(count):
            _take(state, CARD_CODE[name])
            hand[CARD_CODE[name]] += 1


def set_face_up(state: State, cards: list[str | None]) -> None:
    """Set the five face-up cards (None: empty), the old ones going to the bottom of the deck."""
    for slot, old in enumerate(state["face_up"]):
        if old != EMPTY:
            state["deck"].insert(0, old)
        state["face_up"][slot] = EMPTY
    for slot, name in enumerate(cards):
        if name is not None:
            _take(state, CARD_CODE[name])
            state["face_up"][slot] = CARD_CODE[name]


def give_route(state: State, seat: int, rid: int) -> None:
    """Hand-build ownership of a route (trains and score follow)."""
    route = ROUTES[rid]
    state["owner"][rid - 1] = seat
    state["trains"][seat] -= route.length
    state["score"][seat] += route.points


def give_tickets(state: State, seat: int, ids: list[int]) -> None:
    """Hand-build a seat's kept tickets, taken from wherever they are."""
    for tid in ids:
        for pile in [state["ticket_pile"], state["box"], *state["tickets"], *state["offered"]]:
            if tid in pile:
                pile.remove(tid)
        state["tickets"][seat].append(tid)


def started(seats: int = 3, seed: int = 1, first: int = 0, **options: Any) -> State:
    """A game past the initial ticket choice (everyone keeps their first two), ``first`` to play."""
    state = ttr.setup(ttr.decode_options(None) | options, seats, seed)
    state["first"] = first
    for seat in range(seats):
        ttr.apply(state, seat, {"kind": "keep_tickets", "tickets": state["offered"][seat][:2]})
    assert state["phase"] == "play" and state["turn"] == first
    return state


def check_invariants(state: State) -> None:
    """Conservation and bounds that every reachable state satisfies."""
    assert card_total(state) == 110
    assert ticket_total(state) == 46
    assert all(t >= 0 for t in state["trains"])
    assert all(0 <= s <= 3 for s in state["stations"])
    assert all(c >= 0 for hand in state["hands"] for c in hand)


def hand_of(state: State, seat: int) -> dict[str, int]:
    """A seat's hand as names -> counts (non-zero only)."""
    return {CARD_NAMES[c]: k for c, k in enumerate(state["hands"][seat]) if k}


def random_game(seed: int, seats: int, check: Callable[[State], None] | None = None,
                claim_bias: int = 2, max_steps: int = 5000) -> tuple[State, int]:
    """Play one game with a random bot (seeded); ``check`` runs after every action.

    The bot takes a claim or tunnel payment with probability ``claim_bias / (claim_bias + 1)``
    when one is listed (0: uniform over every listed action), so games reach their end.
    """
    state = ttr.setup({"tunnel_failure_discards": seed % 2 == 1}, seats, seed)
    bot = Rng({"rng": seed * 7919 + 1})
    steps = 0
    while not ttr.is_over(state):
        seat = bot.choice(ttr.to_act(state))
        actions = ttr.legal_actions(state, seat)
        assert actions, f"seat {seat} has no legal action in phase {state['phase']}"
        claims = [a for a in actions if a["kind"] in ("claim_route", "pay_tunnel")]
        if claims and claim_bias and bot.below(claim_bias + 1):
            action = bot.choice(claims)
        else:
            action = bot.choice(actions)
        ttr.apply(state, seat, action)
        if check is not None:
            check(state)
        steps += 1
        assert steps < max_steps, "the game does not end"
    return state, steps


def check_final(state: State) -> None:
    """A finished game's scoring is complete and adds up."""
    result = state["result"]
    assert state["phase"] == "over" and result is not None
    assert len(result["scores"]) == state["n"] and result["winners"]
    best = max(e["total"] for e in result["scores"])
    for entry in result["scores"]:
        seat = entry["seat"]
        assert entry["total"] == entry["routes"] + entry["tickets"] + entry["stations"] + entry["express"]
        assert entry["routes"] == state["score"][seat] == sum(
            ROUTES[i + 1].points for i, o in enumerate(state["owner"]) if o == seat)
        assert entry["stations"] == 4 * state["stations"][seat]
        assert [t for t, _ok in entry["results"]] == state["tickets"][seat]
        assert len(entry["borrowed"]) <= 3 - state["stations"][seat]
    assert all(result["scores"][w]["total"] == best for w in result["winners"])
    check_invariants(state)


def ticket_ids_in(msg: Message) -> set[int]:
    """Every ticket id anywhere inside a message (a view, an event)."""
    if isinstance(msg, pb.TtrTicket):
        return {msg.id}
    found: set[int] = set()
    for field, value in msg.ListFields():
        if field.message_type is None:
            continue
        for item in (value if field.is_repeated else [value]):
            found |= ticket_ids_in(item)
    return found


def worst_position() -> State:
    """The largest ListLegalActions we can build: 5 seats, every route free, one seat holding all
    110 cards and 45 trains, its third station (3 cards: 25 payments a city) still to build."""
    state = ttr.setup({}, 5, 1)
    state["first"] = 0
    for seat in range(5):
        ttr.apply(state, seat, {"kind": "keep_tickets", "tickets": state["offered"][seat]})
    everything = list(state["deck"]) + list(state["discard"]) + [c for c in state["face_up"] if c >= 0]
    for hand in state["hands"]:
        everything += [code for code, count in enumerate(hand) for _ in range(count)]
        hand[:] = [0] * 9
    state["deck"], state["discard"], state["face_up"] = [], [], [EMPTY] * 5
    for card in everything:
        state["hands"][0][card] += 1
    state["stations"][0] = 1
    state["station_at"] = {"Lisboa": 0, "Cadiz": 0}
    check_invariants(state)
    return state


def finish_by_drawing(state: State) -> pb.TtrEuropeView:
    """End the game through ``apply`` and return the spectator's view with the final scores.

    The seat to move is left with 2 trains (a position builder, like ``give_route``), so the
    blind draw that ends its turn starts the last round; every seat then draws once more
    (TTR-055). Drawing changes no score, so the final scores are those of the built position.
    """
    state["trains"][state["turn"]] = 2
    for _ in range(state["n"] + 1):
        seat = state["turn"]
        ttr.apply(state, seat, {"kind": "draw_card", "slot": None})
        if not ttr.is_over(state) and state["turn"] == seat:
            ttr.apply(state, seat, {"kind": "draw_card", "slot": None})
    assert ttr.is_over(state)
    return ttr.view(state, None)


def clear_tickets(state: State) -> None:
    """Put every seat's kept tickets in the box, so a test gives each seat only its own."""
    for seat in range(state["n"]):
        state["box"].extend(state["tickets"][seat])
        state["tickets"][seat] = []
