"""Setup and the initial ticket choice (TTR-001..TTR-012)."""

from __future__ import annotations

import pytest
from tabletop.v1 import ttr_europe_pb2 as pb
from ttr_helpers import check_invariants, started, ticket_ids_in

import tabletop_server.service.games.ttr_europe as ttr
from tabletop_server.service.engine.errors import EngineReason, MalformedAction, RuleError
from tabletop_server.service.games.ttr_europe.board import TICKETS
from tabletop_server.service.games.ttr_europe.setup import deal


@pytest.mark.rule("TTR-001")
@pytest.mark.parametrize("seats", [1, 6])
def test_seat_count_refused(seats: int) -> None:
    with pytest.raises(MalformedAction) as err:
        ttr.setup({}, seats, 1)
    assert err.value.reason == EngineReason.INVALID_SEAT_COUNT


@pytest.mark.rule("TTR-001", "TTR-002", "TTR-003", "TTR-005")
@pytest.mark.parametrize("seats", [2, 3, 4, 5])
def test_setup_components(seats: int) -> None:
    state = ttr.setup({}, seats, 11)
    assert state["trains"] == [45] * seats and state["stations"] == [3] * seats
    assert state["score"] == [0] * seats
    assert all(sum(hand) == 4 for hand in state["hands"])
    assert len(state["deck"]) == 110 - 4 * seats - 5
    cards = list(state["deck"]) + [c for c in state["face_up"] if c >= 0]
    for hand in state["hands"]:
        cards += [code for code, count in enumerate(hand) for _ in range(count)]
    assert sorted(cards) == sorted([c for c in range(8) for _ in range(12)] + [8] * 14)
    check_invariants(state)


@pytest.mark.rule("TTR-006")
def test_face_up_follows_the_dealt_hands() -> None:
    state = ttr.setup({}, 2, 3)
    # Restack a fresh deck: hands are dealt from the top, then 5 cards are turned up.
    for hand in state["hands"]:
        for code, count in enumerate(hand):
            state["deck"] += [code] * count
            hand[code] = 0
    state["deck"] += [c for c in state["face_up"]]
    state["face_up"] = [-1] * 5
    top = [0, 1, 0, 1, 0, 1, 0, 1] + [2, 3, 4, 5, 6]  # 8 dealt, then the face-up five
    for code in top:
        state["deck"].remove(code)
    state["deck"] += list(reversed(top))
    deal(state)
    assert state["face_up"] == [2, 3, 4, 5, 6]
    assert state["hands"][0][0] == 4 and state["hands"][1][1] == 4


@pytest.mark.rule("TTR-007", "TTR-008")
@pytest.mark.parametrize("seats", [2, 3, 4, 5])
def test_ticket_deal(seats: int) -> None:
    state = ttr.setup({}, seats, 5)
    for offered in state["offered"]:
        assert len(offered) == 4
        assert [TICKETS[t].long for t in offered] == [True, False, False, False]
    assert len(state["ticket_pile"]) == 40 - 3 * seats
    assert all(not TICKETS[t].long for t in state["ticket_pile"])
    assert len(state["box"]) == 6 - seats and all(TICKETS[t].long for t in state["box"])


@pytest.mark.rule("TTR-009", "TTR-010")
def test_initial_ticket_choice() -> None:
    state = ttr.setup({}, 3, 9)
    assert ttr.to_act(state) == [0, 1, 2]
    offered = list(state["offered"][1])
    with pytest.raises(RuleError) as err:
        ttr.apply(state, 1, {"kind": "keep_tickets", "tickets": offered[:1]})
    assert err.value.reason == "TOO_FEW_TICKETS_KEPT"
    pile = len(state["ticket_pile"])
    # Choices are simultaneous and in any order: seat 1 first, keeping 2 regular tickets.
    ttr.apply(state, 1, {"kind": "keep_tickets", "tickets": offered[1:3]})
    assert ttr.to_act(state) == [0, 2] == list(ttr.view(state, 1).awaiting_seats)
    assert state["box"][-2:] == [offered[0], offered[3]] and len(state["ticket_pile"]) == pile
    with pytest.raises(RuleError) as err:
        ttr.apply(state, 1, {"kind": "keep_tickets", "tickets": offered[1:3]})
    assert err.value.reason == EngineReason.NOT_YOUR_DECISION
    with pytest.raises(RuleError) as err:
        ttr.apply(state, 0, {"kind": "draw_card", "slot": None})
    assert err.value.reason == "MUST_CHOOSE_TICKETS"
    ttr.apply(state, 2, {"kind": "keep_tickets", "tickets": state["offered"][2]})
    events = ttr.apply(state, 0, {"kind": "keep_tickets", "tickets": state["offered"][0][:3]})
    assert state["phase"] == "play"
    assert events[-1] == {"type": "turn_started", "seat": state["first"]}
    assert [len(t) for t in state["tickets"]] == [3, 2, 4]
    check_invariants(state)


@pytest.mark.rule("TTR-011")
def test_first_player_from_seed_then_clockwise() -> None:
    firsts = {ttr.setup({}, 4, seed)["first"] for seed in range(40)}
    assert firsts == {0, 1, 2, 3}
    assert ttr.setup({}, 4, 17)["first"] == ttr.setup({}, 4, 17)["first"]
    state = started(3, first=1)
    order = []
    for _ in range(4):
        order.append(state["turn"])
        ttr.apply(state, state["turn"], {"kind": "draw_card", "slot": None})
        ttr.apply(state, state["turn"], {"kind": "draw_card", "slot": None})
    assert order == [1, 2, 0, 1]


@pytest.mark.rule("TTR-012")
def test_tickets_are_secret_in_the_view() -> None:
    state = ttr.setup({}, 3, 2)
    for viewer in range(3):
        view = ttr.view(state, viewer)
        assert [t.id for t in view.private.offered_tickets] == state["offered"][viewer]
        # No other seat's ticket appears anywhere in the message, only the counts.
        assert ticket_ids_in(view) == set(state["offered"][viewer])
        assert [p.offered_ticket_count for p in view.players] == [4, 4, 4]
    assert not ttr.view(state, None).HasField("private") and ticket_ids_in(ttr.view(state, None)) == set()
    for seat in range(3):
        ttr.apply(state, seat, {"kind": "keep_tickets", "tickets": state["offered"][seat][:3]})
    view = ttr.view(state, 1)
    assert ticket_ids_in(view) == set(state["tickets"][1])
    assert [p.ticket_count for p in view.players] == [3, 3, 3]


def test_setup_is_deterministic() -> None:
    assert ttr.setup({}, 5, 123) == ttr.setup({}, 5, 123)
    assert ttr.setup({}, 5, 123) != ttr.setup({}, 5, 124)


@pytest.mark.rule("TTR-020", "TTR-006")
@pytest.mark.parametrize("seats", [2, 3, 4, 5])
def test_face_up_row_dealt_at_setup_is_reset_on_three_locomotives(seats: int) -> None:
    """The first face-up row is a row like any other: three locomotives in it and it is discarded.

    Straight from ``setup``: nothing else discards before the first turn, so a discard pile of 5 is
    one reset, and the row it threw away held at least 3 locomotives. Over 150 seeds some deals reset
    (about 1 in 60 rows has 3 locomotives), and no row is left with 3 unless the resets ran out.
    """
    resets = 0
    for seed in range(150):
        state = ttr.setup({}, seats, seed)
        view = ttr.view(state, None)
        discard = state["discard"]
        assert view.discard_count == len(discard) and len(discard) % 5 == 0
        for start in range(0, len(discard), 5):
            assert discard[start:start + 5].count(8) >= 3, f"seed {seed}: a row without 3 locomotives reset"
        row_locos = list(view.face_up).count(pb.TTR_COLOR_LOCOMOTIVE)
        assert row_locos < 3 or len(discard) == 15, f"seed {seed}: 3 face-up locomotives were kept"
        resets += len(discard) // 5
        check_invariants(state)
    assert resets > 0
