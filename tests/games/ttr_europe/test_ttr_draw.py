"""Drawing train cards (TTR-013..TTR-023)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from ttr_helpers import (
    check_invariants,
    empty_deck_into_discard,
    hand_of,
    reason,
    route_id,
    set_face_up,
    set_hand,
    stack_deck,
)

import tabletop_server.service.games.ttr_europe as ttr
from tabletop_server.service.engine.errors import EngineReason, MalformedAction

BLIND = {"kind": "draw_card", "slot": None}


def slot(n: int) -> dict[str, object]:
    return {"kind": "draw_card", "slot": n}


@pytest.mark.rule("TTR-014", "TTR-016")
def test_face_up_then_blind(game3: dict) -> None:  # type: ignore[type-arg]
    set_face_up(game3, ["red", "blue", "green", "white", "black"])
    set_hand(game3, 0, {})
    stack_deck(game3, ["yellow", "orange"])
    events = ttr.apply(game3, 0, slot(2))
    assert game3["face_up"][2] == 3  # yellow refilled at once
    assert events[0] == {"type": "card_drawn", "seat": 0, "slot": 2, "card": "green"}
    assert events[1]["type"] == "face_up" and events[1]["cards"][2] == "yellow"
    assert game3["turn"] == 0 and game3["drawn"] == 1
    assert ttr.view(game3, 1).cards_drawn_this_turn == 1
    ttr.apply(game3, 0, BLIND)
    assert hand_of(game3, 0) == {"green": 1, "orange": 1}
    assert game3["turn"] == 1 and game3["drawn"] == 0
    check_invariants(game3)


@pytest.mark.rule("TTR-016")
def test_replacement_can_be_taken_second(game3: dict, stack_deck: Any) -> None:  # type: ignore[type-arg]
    """Uses the conftest ``stack_deck`` fixture (the same builder as ttr_helpers.stack_deck)."""
    set_face_up(game3, ["white", "blue", "green", "white", "black"])
    set_hand(game3, 0, {})
    stack_deck(game3, ["red"])
    ttr.apply(game3, 0, slot(3))
    ttr.apply(game3, 0, slot(3))
    assert hand_of(game3, 0) == {"white": 1, "red": 1}


@pytest.mark.rule("TTR-017")
def test_face_up_locomotive_first_is_the_whole_draw(game3: dict) -> None:  # type: ignore[type-arg]
    set_face_up(game3, ["red", "loco", "green", "white", "black"])
    set_hand(game3, 0, {})
    ttr.apply(game3, 0, slot(1))
    assert hand_of(game3, 0) == {"loco": 1}
    assert game3["turn"] == 1
    assert reason(game3, 0, BLIND) == EngineReason.NOT_YOUR_TURN


@pytest.mark.rule("TTR-018")
def test_face_up_locomotive_never_second(game3: dict) -> None:  # type: ignore[type-arg]
    set_face_up(game3, ["red", "loco", "green", "white", "black"])
    stack_deck(game3, ["loco"])
    ttr.apply(game3, 0, slot(0))
    assert game3["face_up"][0] == 8  # the replacement is a locomotive
    assert reason(game3, 0, slot(0)) == "SECOND_LOCOMOTIVE"
    assert reason(game3, 0, slot(1)) == "SECOND_LOCOMOTIVE"
    listed = ttr.legal_actions(game3, 0)
    assert slot(0) not in listed and slot(1) not in listed and slot(2) in listed and BLIND in listed
    ttr.apply(game3, 0, slot(2))
    assert game3["turn"] == 1


@pytest.mark.rule("TTR-019")
def test_blind_locomotive_is_an_ordinary_card(game3: dict) -> None:  # type: ignore[type-arg]
    set_face_up(game3, ["red", "blue", "green", "white", "black"])
    set_hand(game3, 0, {})
    stack_deck(game3, ["loco", "loco"])
    ttr.apply(game3, 0, BLIND)
    assert game3["turn"] == 0 and game3["drawn"] == 1
    assert slot(4) in ttr.legal_actions(game3, 0)
    ttr.apply(game3, 0, BLIND)
    assert hand_of(game3, 0) == {"loco": 2} and game3["turn"] == 1


@pytest.mark.rule("TTR-015", "TTR-013")
def test_must_take_the_second_card(game3: dict) -> None:  # type: ignore[type-arg]
    ttr.apply(game3, 0, BLIND)
    assert reason(game3, 0, {"kind": "draw_tickets"}) == "MUST_DRAW_SECOND_CARD"
    assert reason(game3, 0, {"kind": "build_station", "city": "Wien", "color": None, "cards": 0,
                             "locos": 1}) == "MUST_DRAW_SECOND_CARD"
    assert {a["kind"] for a in ttr.legal_actions(game3, 0)} == {"draw_card"}
    assert reason(game3, 1, BLIND) == EngineReason.NOT_YOUR_TURN


@pytest.mark.rule("TTR-020")
def test_three_face_up_locomotives_reset(game3: dict) -> None:  # type: ignore[type-arg]
    set_face_up(game3, ["red", "loco", "green", "loco", "black"])
    stack_deck(game3, ["loco", "blue", "blue", "white", "white", "yellow"])
    discard = len(game3["discard"])
    events = ttr.apply(game3, 0, slot(0))
    assert game3["face_up"] == [2, 2, 1, 1, 3]
    assert len(game3["discard"]) == discard + 5
    assert sorted(game3["discard"][-5:]) == sorted([8, 8, 7, 8, 5])  # loco, loco (refill), green, loco, black
    assert events[1] == {"type": "face_up", "cards": ["blue", "blue", "white", "white", "yellow"],
                         "reset": True}
    check_invariants(game3)


@pytest.mark.rule("TTR-020")
def test_reset_repeats_at_most_three_times(game3: dict) -> None:  # type: ignore[type-arg]
    set_face_up(game3, ["red", "loco", "green", "loco", "black"])
    # Each reset deals a different row with three locomotives, so the row left tells how many ran.
    rows = [["loco", "loco", "loco", "red", "red"], ["loco", "loco", "loco", "white", "white"],
            ["loco", "loco", "loco", "green", "green"], ["blue"] * 5]
    stack_deck(game3, ["loco"] + [card for row in rows for card in row])
    discard = len(game3["discard"])
    events = ttr.apply(game3, 0, slot(0))
    # Three resets (RULINGS, last TTR row): the third row is left as it is, three locomotives and all.
    assert sorted(game3["face_up"]) == [7, 7, 8, 8, 8]
    assert game3["deck"][-5:] == [2] * 5 and len(game3["discard"]) == discard + 15
    assert [e["reset"] for e in events if e["type"] == "face_up"] == [True]
    # The locomotives left face up still cannot be the second card.
    assert {a["slot"] for a in ttr.legal_actions(game3, 0)} == {None, *[i for i, c in enumerate(game3["face_up"])
                                                                     if c != 8]}
    check_invariants(game3)


@pytest.mark.rule("TTR-021")
def test_no_hand_limit(game3: dict) -> None:  # type: ignore[type-arg]
    set_hand(game3, 0, {})
    for _ in range(15):
        for seat in range(3):
            ttr.apply(game3, seat, BLIND)
            ttr.apply(game3, seat, BLIND)
    assert sum(game3["hands"][0]) == 30
    check_invariants(game3)


@pytest.mark.rule("TTR-022")
def test_discard_reshuffled_when_deck_runs_out(game3: dict) -> None:  # type: ignore[type-arg]
    empty_deck_into_discard(game3)
    # Keep 10 cards in the discard pile; park the rest in seat 2's hand.
    for card in game3["discard"][10:]:
        game3["hands"][2][card] += 1
    del game3["discard"][10:]
    assert BLIND in ttr.legal_actions(game3, 0)  # the discards count as cards to draw
    events = ttr.apply(game3, 0, BLIND)
    assert events[0] == {"type": "reshuffled", "deck": 10}
    assert len(game3["deck"]) == 9 and game3["discard"] == []
    check_invariants(game3)


@pytest.mark.rule("TTR-015", "TTR-022")
def test_second_card_from_the_discards(game3: dict) -> None:  # type: ignore[type-arg]
    """The deck's last card is the first draw: the second card still comes, from the reshuffled discards."""
    set_face_up(game3, ["loco", "loco", None, None, None])
    empty_deck_into_discard(game3)
    game3["deck"].append(game3["discard"].pop())
    ttr.apply(game3, 0, BLIND)
    assert game3["deck"] == [] and game3["discard"]
    assert game3["turn"] == 0 and game3["drawn"] == 1
    assert ttr.legal_actions(game3, 0) == [BLIND]
    events = ttr.apply(game3, 0, BLIND)
    assert events[0]["type"] == "reshuffled" and game3["turn"] == 1
    check_invariants(game3)


@pytest.mark.rule("TTR-023")
def test_nothing_left_to_draw(game3: dict) -> None:  # type: ignore[type-arg]
    # Everything not face up goes into seat 2's hand.
    set_face_up(game3, ["red", "loco", "green", "white", "black"])
    set_hand(game3, 0, {})
    for pile in ("deck", "discard"):
        for card in game3[pile]:
            game3["hands"][2][card] += 1
        game3[pile].clear()
    assert reason(game3, 0, BLIND) == "NO_CARDS_LEFT"
    up = [c for c in game3["face_up"] if c >= 0]
    # Face-up cards may still be taken (RULINGS TTR-023); the row is not refilled.
    ttr.apply(game3, 0, slot(0))
    assert game3["face_up"][0] == -1 and game3["turn"] == 0
    ttr.apply(game3, 0, slot(2))
    assert game3["face_up"][2] == -1 and game3["turn"] == 1
    for i in range(5):
        game3["face_up"][i] = -1
    assert reason(game3, 1, slot(0)) == "EMPTY_SLOT"
    assert not [a for a in ttr.legal_actions(game3, 1) if a["kind"] == "draw_card"]
    assert hand_of(game3, 0) == {"red": 1, "green": 1} and up[0] == 6 and up[2] == 7


@pytest.mark.rule("TTR-015")
def test_second_card_impossible_ends_the_turn(game3: dict) -> None:  # type: ignore[type-arg]
    set_face_up(game3, ["red", "loco", None, None, None])
    for pile in ("deck", "discard"):
        for card in game3[pile]:
            game3["hands"][2][card] += 1
        game3[pile].clear()
    ttr.apply(game3, 0, slot(0))
    # Only a face-up locomotive is left, which cannot be the second card: the turn ends.
    assert game3["turn"] == 1


def test_malformed_slot(game3: dict) -> None:  # type: ignore[type-arg]
    for bad in (5, -1, "2", 1.0):
        with pytest.raises(MalformedAction) as err:
            ttr.apply(game3, 0, {"kind": "draw_card", "slot": bad})
        assert err.value.reason == "INVALID_SLOT"
        assert err.value.field == "action.ttr_europe.draw_train_card.face_up_slot"


def test_empty_slots_refill_when_cards_come_back(game3: dict) -> None:  # type: ignore[type-arg]
    set_face_up(game3, ["red", "blue", None, None, None])
    set_hand(game3, 0, {"orange": 3})
    for pile in ("deck", "discard"):
        for card in game3[pile]:
            game3["hands"][2][card] += 1
        game3[pile].clear()
    events = ttr.apply(game3, 0, {"kind": "claim_route", "route": route_id("Munchen", "Wien"),
                                  "color": "orange", "cards": 3, "locos": 0})
    # The three paid cards were reshuffled into a deck and turned up in the empty slots.
    assert [e["type"] for e in events] == ["route_claimed", "reshuffled", "face_up", "turn_started"]
    assert sorted(game3["face_up"]) == [2, 4, 4, 4, 6]
    check_invariants(game3)


@pytest.mark.rule("TTR-023")
def test_nothing_to_draw_but_a_claim_is_accepted(game3: dict) -> None:  # type: ignore[type-arg]
    set_face_up(game3, [None] * 5)
    set_hand(game3, 0, {"orange": 3})
    for pile in ("deck", "discard"):
        for card in game3[pile]:
            game3["hands"][2][card] += 1
        game3[pile].clear()
    assert reason(game3, 0, BLIND) == "NO_CARDS_LEFT"
    assert reason(game3, 0, slot(0)) == "EMPTY_SLOT"
    listed = ttr.legal_actions(game3, 0)
    assert not [a for a in listed if a["kind"] == "draw_card"] and {"kind": "draw_tickets"} in listed
    rid = route_id("Munchen", "Wien")
    ttr.apply(game3, 0, {"kind": "claim_route", "route": rid, "color": "orange", "cards": 3, "locos": 0})
    assert game3["owner"][rid - 1] == 0
    check_invariants(game3)


@pytest.mark.rule("TTR-022")
def test_reshuffle_really_shuffles_with_the_seeded_generator(game3: dict) -> None:  # type: ignore[type-arg]
    """The new deck's order is secret: not the discard pile's (public) order, and the same on replay."""
    empty_deck_into_discard(game3)
    game3["discard"].sort()
    replay = json.loads(json.dumps(game3))
    generator = game3["rng"]
    ttr.apply(game3, 0, BLIND)
    deck = game3["deck"]
    assert deck not in (sorted(deck), sorted(deck, reverse=True))
    assert game3["rng"] != generator
    ttr.apply(replay, 0, BLIND)
    assert replay == game3
    check_invariants(game3)


@pytest.mark.rule("TTR-020")
def test_two_face_up_locomotives_stay(game3: dict) -> None:  # type: ignore[type-arg]
    """The other side of the reset: a refill that makes only 2 face-up locomotives keeps the row."""
    set_face_up(game3, ["red", "loco", "green", "white", "black"])
    stack_deck(game3, ["loco"])
    discard = len(game3["discard"])
    events = ttr.apply(game3, 0, slot(0))
    assert game3["face_up"] == [8, 8, 7, 1, 5] and len(game3["discard"]) == discard
    assert events[1] == {"type": "face_up", "cards": ["loco", "loco", "green", "white", "black"], "reset": False}
