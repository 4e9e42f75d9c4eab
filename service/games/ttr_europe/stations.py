"""Building stations (TTR_NOTES section 5, action 4; TTR-048..TTR-050).

One station per city across all players, on any city (it needs no routes). The
first costs 1 card, the second 2, the third 3, each paid in one colour with
locomotives wild (RULES.station_costs). What a station does at scoring is in
``scoring.py``.
"""

from __future__ import annotations

from typing import Any

from tabletop_server.service.engine.errors import MalformedAction, RuleError
from tabletop_server.service.games.ttr_europe import payment
from tabletop_server.service.games.ttr_europe.board import CITIES, CITY_NAMES, GRAY, RULES
from tabletop_server.service.games.ttr_europe.cards import take_from_hand
from tabletop_server.service.games.ttr_europe.layout import State
from tabletop_server.service.games.ttr_europe.reasons import TtrReason
from tabletop_server.service.games.ttr_europe.turns import end_turn

Event = dict[str, Any]
Plan = tuple[str, payment.Payment]
FIELD = "action.ttr_europe.build_station"


def station_cost(state: State, seat: int) -> int:
    """Cards the seat's next station costs."""
    built: int = RULES.stations - state["stations"][seat]
    return RULES.station_costs[min(built, len(RULES.station_costs) - 1)]


def check_build_station(state: State, seat: int, action: dict[str, Any]) -> Plan:
    """Check a station; returns the city and the parsed payment."""
    city = action.get("city")
    if not isinstance(city, str) or city not in CITIES:
        raise MalformedAction(TtrReason.UNKNOWN_CITY, "name a city of the board", field=f"{FIELD}.city",
                              city=city)
    pay = payment.parse(action, FIELD)
    if city in state["station_at"]:
        raise RuleError(TtrReason.CITY_HAS_STATION, "that city already has a station; choose another",
                        city=city, owner=state["station_at"][city])
    if state["stations"][seat] <= 0:
        raise RuleError(TtrReason.NO_STATIONS_LEFT, "you have built all your stations")
    payment.check(state["hands"][seat], pay, station_cost(state, seat), GRAY)
    return city, pay


def build_station(state: State, seat: int, plan: Plan, events: list[Event]) -> None:
    """Pay, place the station, end the turn."""
    city, pay = plan
    state["discard"].extend(take_from_hand(state, seat, *pay))
    state["stations"][seat] -= 1
    state["station_at"][city] = seat
    events.append({"type": "station_built", "seat": seat, "city": city, **payment.spell(pay)})
    end_turn(state, events)


def station_options(state: State, seat: int) -> list[dict[str, Any]]:
    """Every free city with every distinct payment the seat affords."""
    if state["stations"][seat] <= 0:
        return []
    pays = [payment.spell(p) for p in payment.options(state["hands"][seat], station_cost(state, seat), GRAY)]
    if not pays:
        return []
    taken = state["station_at"]
    return [{"kind": "build_station", "city": city, **pay}
            for city in CITY_NAMES if city not in taken for pay in pays]
