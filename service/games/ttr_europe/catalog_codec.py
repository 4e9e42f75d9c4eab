"""The Ticket to Ride: Europe catalog (GetRuleset): the board tables as a ``TtrEuropeCatalog``.

Everything a client needs to draw the map and explain the scoring, built from the tables
``board`` loaded and validated at import (never from the JSON again), so the catalog and the
rules cannot disagree. The ruleset contract's optional ``encode_catalog()`` (``service/engine/ruleset.py``).
"""

from __future__ import annotations

from tabletop.v1 import ttr_europe_pb2 as pb

from tabletop_server.service.games.ttr_europe.board import (
    CITIES,
    GRAY,
    PARTNER,
    ROUTE_POINTS,
    ROUTES,
    RULES,
    TICKETS,
    VIEWBOX,
)
from tabletop_server.service.games.ttr_europe.view import COLOR_PB, ticket_pb


def encode_catalog() -> pb.TtrEuropeCatalog:
    """The catalog, built afresh (about 250 small messages; the service keeps the one it serves)."""
    min_x, min_y, width, height = VIEWBOX
    return pb.TtrEuropeCatalog(
        view_box=pb.TtrViewBox(min_x=min_x, min_y=min_y, width=width, height=height),
        cities=[pb.TtrCity(name=c.name, label=c.label, x=c.x, y=c.y) for _, c in sorted(CITIES.items())],
        routes=[_route(rid) for rid in sorted(ROUTES)],
        tickets=[ticket_pb(tid) for tid in sorted(TICKETS)],
        route_points=[pb.TtrRoutePoints(length=n, points=p) for n, p in ROUTE_POINTS.items()],
        unused_station_points=RULES.unused_station_points,
        european_express_bonus=RULES.express_bonus,
        trains_per_player=RULES.trains,
        stations_per_player=RULES.stations,
        station_costs=list(RULES.station_costs),
    )


# Helpers

def _route(rid: int) -> pb.TtrRoute:
    r = ROUTES[rid]
    route = pb.TtrRoute(id=r.id, city_a=r.a, city_b=r.b, length=r.length, tunnel=r.tunnel,
                        ferry_locomotives=r.locomotives, points=r.points,
                        color=pb.TTR_COLOR_GRAY if r.color == GRAY else COLOR_PB[r.color])
    if rid in PARTNER:
        route.double_route_id = PARTNER[rid]
    return route
