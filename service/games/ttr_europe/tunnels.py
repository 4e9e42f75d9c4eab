"""Tunnels (TTR_NOTES section 5, tunnel steps 1-7; TTR-032..TTR-039).

The claimant plays the normal cards, then the top 3 deck cards are revealed (fewer
if deck plus reshuffled discards hold fewer). Each revealed card of the played
colour, and each revealed locomotive, costs one more card of that colour or a
locomotive; when only locomotives were played, only revealed locomotives count and
the extra must be locomotives. With an extra cost the claimant's decision, pay or
withdraw, is pending *as data* in ``state["tunnel"]`` (DESIGN 8). The revealed
cards are public and go to the discard pile when the attempt ends.

On withdrawal the official rule returns the played cards to the hand; the option
``tunnel_failure_discards`` (the seed text's reading, RULINGS TTR-036) discards them.
"""

from __future__ import annotations

from typing import Any

from tabletop_server.service.games.ttr_europe import payment
from tabletop_server.service.games.ttr_europe.board import LOCO, ROUTES, RULES, Route
from tabletop_server.service.games.ttr_europe.cards import draw_top, name_of, take_from_hand
from tabletop_server.service.games.ttr_europe.claim import place_route
from tabletop_server.service.games.ttr_europe.layout import State, Tunnel
from tabletop_server.service.games.ttr_europe.turns import end_turn

Event = dict[str, Any]
FIELD = "action.ttr_europe.pay_tunnel"


def start_tunnel(state: State, seat: int, route: Route, pay: payment.Payment, events: list[Event]) -> None:
    """Lay the played cards aside, reveal, and either build at once or await the decision."""
    code, cards, locos = pay
    take_from_hand(state, seat, code, cards, locos)
    revealed: list[int] = []
    for _ in range(RULES.tunnel_reveal):
        card = draw_top(state, events)
        if card is None:
            break
        revealed.append(card)
    # Interpretation: with only locomotives played, only revealed locomotives count (TTR-035).
    extra = sum(1 for c in revealed if c == LOCO or (cards and c == code))
    events.append({"type": "tunnel_revealed", "seat": seat, "route": route.id,
                   "revealed": [name_of(c) for c in revealed], "extra": extra})
    tunnel: Tunnel = {"seat": seat, "route": route.id, "color": code, "cards": cards, "locos": locos,
              "revealed": revealed, "extra": extra}
    if extra == 0:
        state["tunnel"] = tunnel
        _build(state, seat, (code, 0, 0), events)
    else:
        state["tunnel"] = tunnel


def pending_tunnel(state: State) -> Tunnel:
    """The tunnel whose decision is pending (its actions are offered and checked only while one is)."""
    tunnel = state["tunnel"]
    assert tunnel is not None  # checked by the caller: the pending decision is the tunnel's
    return tunnel


def check_pay_tunnel(state: State, seat: int, action: dict[str, Any]) -> payment.Payment:
    """Check the extra cards: ``extra`` cards of the played colour or locomotives."""
    tunnel = pending_tunnel(state)
    pay = payment.parse(action, FIELD)
    payment.check(state["hands"][seat], pay, tunnel["extra"], tunnel["color"])
    return pay


def pay_tunnel(state: State, seat: int, pay: payment.Payment, events: list[Event]) -> None:
    """Pay the extra cost and build the tunnel."""
    code, cards, locos = pay
    state["discard"].extend(take_from_hand(state, seat, code, cards, locos))
    _build(state, seat, pay, events)


def check_withdraw_tunnel(state: State, seat: int, action: dict[str, Any]) -> None:
    """Withdrawing is always allowed while the decision is pending."""


def withdraw_tunnel(state: State, seat: int, plan: None, events: list[Event]) -> None:
    """Give up: the route stays free (TTR-037); the played cards go back, or away (house rule)."""
    give_up_tunnel(state, seat, events)
    end_turn(state, events)


def give_up_tunnel(state: State, seat: int, events: list[Event]) -> None:
    """End the tunnel attempt without building (a withdrawal, or the seat conceding)."""
    tunnel = pending_tunnel(state)
    played = [tunnel["color"]] * tunnel["cards"] + [LOCO] * tunnel["locos"]
    discarded = bool(state["opts"]["tunnel_failure_discards"])
    if discarded:
        state["discard"].extend(played)
    else:
        hand = state["hands"][seat]
        for card in played:
            hand[card] += 1
    state["discard"].extend(tunnel["revealed"])
    state["tunnel"] = None
    events.append({"type": "tunnel_withdrawn", "seat": seat, "route": tunnel["route"],
                   "discarded": discarded})


def tunnel_options(state: State, seat: int) -> list[dict[str, Any]]:
    """Every affordable extra payment."""
    tunnel = pending_tunnel(state)
    return [{"kind": "pay_tunnel", **payment.spell(p)}
            for p in payment.options(state["hands"][seat], tunnel["extra"], tunnel["color"])]


def withdraw_options(state: State, seat: int) -> list[dict[str, Any]]:
    """Withdrawing is always open while the decision is pending."""
    return [{"kind": "withdraw_tunnel"}]


# Helpers


def _build(state: State, seat: int, extra: payment.Payment, events: list[Event]) -> None:
    """Discard the played and revealed cards, place the route, end the turn."""
    tunnel = pending_tunnel(state)
    code, cards, locos = tunnel["color"], tunnel["cards"], tunnel["locos"]
    state["discard"].extend([code] * cards + [LOCO] * locos)
    state["discard"].extend(tunnel["revealed"])
    state["tunnel"] = None
    # A locomotive-only tunnel takes only locomotives as extra, so the sum keeps one colour.
    total = (code, cards + extra[1], locos + extra[2])
    place_route(state, seat, ROUTES[tunnel["route"]], total, events)
    end_turn(state, events)
