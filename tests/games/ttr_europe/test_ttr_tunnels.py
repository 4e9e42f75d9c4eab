"""Tunnels (TTR-032..TTR-039), with the official rule and the tunnel_failure_discards house rule."""

from __future__ import annotations

from typing import Any

import pytest
from ttr_helpers import check_invariants, claim, hand_of, reason, route_id, set_hand, stack_deck, started

import tabletop_server.service.games.ttr_europe as ttr
from tabletop_server.service.games.ttr_europe.board import COLORS, GRAY, ROUTES

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


SEED = 2  # a deal that leaves every colour enough cards in the deck to stack (rules version 2)

_GRAY_TUNNELS = [r for r in ROUTES.values() if r.tunnel and r.color == GRAY]
_COLOURED_TUNNELS = [r for r in ROUTES.values() if r.tunnel and r.color != GRAY]


def test_every_colour_has_a_tunnel() -> None:
    """The coloured-tunnel tests below cover each of the 8 colours once (Madrid-Pamplona: black and white)."""
    assert sorted(r.color for r in _COLOURED_TUNNELS) == list(range(8))


@pytest.mark.rule("TTR-032", "TTR-033")
@pytest.mark.parametrize("index", range(len(_GRAY_TUNNELS)))
@pytest.mark.parametrize("locos", [0, 1])
def test_gray_tunnel_counts_the_colour_paid(index: int, locos: int) -> None:
    """A gray tunnel paid in one colour (with or without locomotives): revealed cards of that colour
    and revealed locomotives cost one more each, other colours nothing. Each tunnel takes its own colour."""
    route = _GRAY_TUNNELS[index]
    color, other = COLORS[index % 8], COLORS[(index + 1) % 8]
    state = started(3, seed=SEED)
    set_hand(state, 0, {color: route.length - locos + 2, "loco": locos})
    stack_deck(state, [color, other, "loco"])
    events = ttr.apply(state, 0, claim(route.id, color, route.length - locos, locos))
    assert events[0]["extra"] == 2 and state["tunnel"]["extra"] == 2
    options = [a for a in ttr.legal_actions(state, 0) if a["kind"] == "pay_tunnel"]
    assert options == [pay(color, 2)]
    assert reason(state, 0, pay(other, 2)) == "WRONG_COLOR"
    ttr.apply(state, 0, pay(color, 2))
    assert state["owner"][route.id - 1] == 0 and state["score"][0] == route.points
    check_invariants(state)


@pytest.mark.rule("TTR-035")
@pytest.mark.parametrize("route", _COLOURED_TUNNELS, ids=lambda r: COLORS[r.color])
def test_coloured_tunnel_paid_with_locomotives_counts_only_locomotives(route: Any) -> None:
    """Paid with locomotives only, a coloured tunnel ignores revealed cards of its own colour: two of
    them and one locomotive cost one locomotive, which is the only payment accepted."""
    color = COLORS[route.color]
    state = started(3)
    set_hand(state, 0, {"loco": route.length + 1, color: 2})
    stack_deck(state, [color, color, "loco"])
    events = ttr.apply(state, 0, claim(route.id, None, 0, route.length))
    assert events[0]["extra"] == 1
    assert [a for a in ttr.legal_actions(state, 0) if a["kind"] == "pay_tunnel"] == [pay(None, 0, 1)]
    assert reason(state, 0, pay(color, 1)) == "WRONG_COLOR"
    ttr.apply(state, 0, pay(None, 0, 1))
    assert state["owner"][route.id - 1] == 0 and hand_of(state, 0) == {color: 2}


@pytest.mark.rule("TTR-032")
@pytest.mark.parametrize("route", _COLOURED_TUNNELS, ids=lambda r: COLORS[r.color])
@pytest.mark.parametrize("reveal, extra", [(("own", "own", "loco"), 3), (("own", "other", "loco"), 2),
                                           (("other", "other", "other"), 0)])
def test_coloured_tunnel_paid_with_its_colour_counts_colour_and_locomotives(
        route: Any, reveal: tuple[str, ...], extra: int) -> None:
    """Paid in the route's colour, each revealed card of that colour and each revealed locomotive
    costs one more; a revealed card of another colour costs nothing."""
    names = {"own": COLORS[route.color], "other": COLORS[(route.color + 1) % 8], "loco": "loco"}
    state = started(3)
    set_hand(state, 0, {names["own"]: route.length})
    stack_deck(state, [names[card] for card in reveal])
    events = ttr.apply(state, 0, claim(route.id, names["own"], route.length))
    assert events[0]["extra"] == extra
    assert state["owner"][route.id - 1] == (0 if extra == 0 else -1)


@pytest.mark.rule("TTR-032")
def test_a_pending_tunnel_is_shown_to_every_seat_with_its_payment(game3: State) -> None:
    """While the tunnel waits, everyone sees the claim as paid so far (colour, cards, locomotives), the
    revealed cards and the extra cost; a payment of locomotives alone shows no colour."""
    set_hand(game3, 0, {"yellow": 3, "loco": 3})
    stack_deck(game3, ["yellow", "green", "loco"])
    ttr.apply(game3, 0, claim(MUNCHEN_ZURICH, "yellow", 1, 1))
    for viewer in (0, 1, None):
        tunnel = ttr.view(game3, viewer).tunnel
        assert (tunnel.seat, tunnel.route_id, tunnel.extra_cost) == (0, MUNCHEN_ZURICH, 2)
        assert (tunnel.payment.color, tunnel.payment.color_cards, tunnel.payment.locomotives) == (4, 1, 1)
        assert list(tunnel.revealed) == [4, 8, 9]
    ttr.apply(game3, 0, {"kind": "withdraw_tunnel"})
    assert not ttr.view(game3, None).HasField("tunnel")


def test_a_pending_tunnel_paid_with_locomotives_only_shows_no_colour() -> None:
    state = started(3)
    set_hand(state, 0, {"loco": 4})
    stack_deck(state, ["loco", "green", "red"])
    ttr.apply(state, 0, claim(MUNCHEN_ZURICH, None, 0, 2))
    payment = ttr.view(state, 2).tunnel.payment
    assert (payment.color, payment.color_cards, payment.locomotives) == (0, 0, 2)


def test_a_malformed_tunnel_payment_names_its_field(game3: State) -> None:
    from tabletop_server.service.engine.errors import MalformedAction

    set_hand(game3, 0, {"yellow": 3, "loco": 1})
    stack_deck(game3, ["yellow", "green", "loco"])
    ttr.apply(game3, 0, claim(MUNCHEN_ZURICH, "yellow", 2))
    with pytest.raises(MalformedAction) as err:
        ttr.apply(game3, 0, pay("yellow", -1))
    assert err.value.field.startswith("action.ttr_europe.pay_tunnel")
