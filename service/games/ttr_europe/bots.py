"""The Ticket to Ride: Europe bots (issue 16): ``basic``, a ticket-driven route builder, and ``greedy``.

A bot sees only its seat's view (``service.engine.bots``); the board itself (cities, routes,
lengths, colours, tickets) is public and comes from ``board``. ``basic`` plays as a careful
beginner: it keeps the tickets whose shortest paths fit its trains, collects the colours of
those paths, claims their routes as soon as it can pay, builds a station where a needed path is
cut, draws new tickets only when every ticket is done and trains are left, and never blocks on
purpose (it never looks at what the others need). Path planning is in ``bot_paths``.

``greedy`` (issue 28: a level between ``random`` and ``basic``, so ratings have three known strengths to
order) plans nothing: it keeps the fewest, cheapest tickets it must, claims the longest route it can pay
for and otherwise draws blind. It scores routes but fails its tickets: in 2-seat games it beat ``random``
30 times in 30 and lost to ``basic`` 30 times in 30.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from google.protobuf.message import Message
from tabletop.v1 import ttr_europe_pb2 as pb

from tabletop_server.service.engine.bots import Bot
from tabletop_server.service.engine.rng import Rng
from tabletop_server.service.engine.ruleset import Action
from tabletop_server.service.games.ttr_europe.board import CARD_CODE, GRAY, LOCO, PARTNER, ROUTES, TICKETS
from tabletop_server.service.games.ttr_europe.bot_paths import Board, plan_routes

# The share of its trains a seat plans to spend on tickets when choosing them: routes of the plan
# get taken by others and detours cost more (measured in basic-only games: a plan of 60% of the
# trains fails fewer tickets and scores more than plans of 50%, 70% or 90%: 112, 111, 102, 93 points).
TICKET_SHARE = 0.6
# New tickets are drawn only with at least this many trains left (and every ticket done). In
# basic-only 3-seat games (40 deals) 8 scored 115 a seat on average, 12 scored 112, 20 scored 105:
# fewer failed tickets do not make up for the tickets never drawn; 5 scores a little more (119)
# but fails twice as many tickets as 12, which is no longer "safe".
SAFE_TICKET_TRAINS = 8
# With nothing left to build for, routes at least this long are claimed (shorter ones score little).
SPARE_LENGTH = 3


@dataclass(frozen=True)
class Seen:
    """What the bot reads from its view, in board terms (card codes, route ids)."""

    seat: int
    hand: tuple[int, ...]  # 9 counts by card code
    tickets: tuple[int, ...]
    offered: tuple[int, ...]
    trains: int
    board: Board
    last_round: bool


def basic(view: Message, legal: list[Action], rng: Rng) -> Action:
    """A ticket-driven route builder (see the module docstring)."""
    assert isinstance(view, pb.TtrEuropeView)
    seen = read_view(view)
    kinds = {a["kind"] for a in legal}
    if "keep_tickets" in kinds:
        return keep_tickets(seen, legal)
    if "withdraw_tunnel" in kinds:  # the tunnel is ours: pay the extra when we can
        return _cheapest(legal, "pay_tunnel") or {"kind": "withdraw_tunnel"}
    plan = plan_routes(seen.board, seen.tickets)
    claim = claim_route(seen, legal, plan.routes)
    if claim is not None:
        return claim
    if "build_station" in kinds and plan.cut_city is not None:
        station = _cheapest([a for a in legal if a["kind"] == "build_station" and a["city"] == plan.cut_city],
                            "build_station")
        if station is not None:
            return station
    if not plan.routes and not plan.unreachable and "draw_tickets" in kinds and not seen.last_round \
            and seen.trains >= SAFE_TICKET_TRAINS:
        return {"kind": "draw_tickets"}
    if not plan.routes or seen.last_round:
        # Nothing left to build for (or the last turn): score a long route, ending the game sooner.
        spare = _longest_claim(legal)
        if spare is not None and (seen.last_round or ROUTES[spare["route"]].length >= min(SPARE_LENGTH, seen.trains)
                                  or "draw_card" not in kinds):
            return spare
    draw = draw_card(view, seen, legal, plan.routes)
    if draw is not None:
        return draw
    spare = _longest_claim(legal)
    return spare if spare is not None else legal[rng.below(len(legal))]


def greedy(view: Message, legal: list[Action], rng: Rng) -> Action:
    """The longest route it can pay for, else a blind card; the fewest, cheapest tickets (no plan)."""
    kinds = {a["kind"] for a in legal}
    if "keep_tickets" in kinds:
        return min(legal, key=lambda a: (len(a["tickets"]), sum(TICKETS[t].points for t in a["tickets"])))
    if "withdraw_tunnel" in kinds:
        return _cheapest(legal, "pay_tunnel") or {"kind": "withdraw_tunnel"}
    claim = _longest_claim(legal)
    if claim is not None:
        return claim
    draws = [a for a in legal if a["kind"] == "draw_card"]
    if draws:
        return next((a for a in draws if a["slot"] is None), draws[0])
    return legal[rng.below(len(legal))]


def read_view(view: pb.TtrEuropeView) -> Seen:
    """The seat's own hand, tickets and trains, and the board as it stands."""
    private = view.private
    seat = private.seat
    hand = [0] * (LOCO + 1)
    for card in private.hand:
        hand[card.color - 1] = card.count
    me = view.players[seat]
    stations = frozenset(s.city for s in view.stations if s.seat == seat)
    board = Board(seat, tuple(view.route_owners), stations, len(view.players),
                  frozenset(s.city for s in view.stations), me.trains)
    return Seen(seat, tuple(hand), tuple(t.id for t in private.tickets), tuple(t.id for t in private.offered_tickets),
                me.trains, board, view.phase == pb.TTR_PHASE_LAST_ROUND)


def keep_tickets(seen: Seen, legal: list[Action]) -> Action:
    """The offered subset most worth keeping: the most points whose paths fit the trains left."""
    budget = int(seen.trains * TICKET_SHARE)

    def worth(action: Action) -> tuple[int, int]:
        kept = tuple(action["tickets"])
        plan = plan_routes(seen.board, seen.tickets + kept)
        if plan.unreachable or plan.trains > budget:
            return -plan.trains - 100 * len(plan.unreachable), 0
        return sum(TICKETS[t].points for t in kept), -plan.trains

    return max(legal, key=worth)


def claim_route(seen: Seen, legal: list[Action], wanted: Iterable[int]) -> Action | None:
    """The claim of a planned route, the longest first, paid with the cards least needed elsewhere."""
    wanted = set(wanted)
    wanted |= {PARTNER[r] for r in wanted if r in PARTNER}  # either route of a double pair will do
    claims = [a for a in legal if a["kind"] == "claim_route" and a["route"] in wanted]
    if not claims:
        return None
    needs = colour_needs(seen, wanted)

    def rank(action: Action) -> tuple[int, int, int, int]:
        colour = -1 if action["color"] is None else CARD_CODE[action["color"]]
        spare = seen.hand[colour] - needs.get(colour, 0) if colour >= 0 else 0
        return ROUTES[action["route"]].length, -action["locos"], spare, -action["route"]

    return max(claims, key=rank)


def colour_needs(seen: Seen, routes: Iterable[int]) -> dict[int, int]:
    """Cards of each colour the planned coloured routes still need (gray routes are counted apart)."""
    needs: dict[int, int] = {}
    for rid in routes:
        route = ROUTES[rid]
        if route.color != GRAY:
            needs[route.color] = needs.get(route.color, 0) + route.length
    return needs


def draw_card(view: pb.TtrEuropeView, seen: Seen, legal: list[Action], routes: Iterable[int]) -> Action | None:
    """A face-up card the plan needs, a locomotive when a ferry or a long gap calls for it, else blind."""
    draws = {a["slot"]: a for a in legal if a["kind"] == "draw_card"}
    if not draws:
        return None
    routes = list(routes)
    deficit = _deficits(seen, routes)
    best_slot, best_gap = None, 0
    for slot in draws:
        if slot is None:
            continue
        code = view.face_up[slot] - 1
        if code != LOCO and deficit.get(code, 0) > best_gap:
            best_slot, best_gap = slot, deficit[code]
    if best_slot is not None:
        return draws[best_slot]
    ferry_locos = sum(ROUTES[r].locomotives for r in routes)
    for slot, action in draws.items():
        if slot is not None and view.face_up[slot] - 1 == LOCO and (
                ferry_locos > seen.hand[LOCO] or None not in draws):
            return action
    if None in draws:
        return draws[None]
    return next(iter(draws.values()))


# Helpers


def _deficits(seen: Seen, routes: list[int]) -> dict[int, int]:
    """Cards of each colour still missing for the planned routes; a gray route wants the colour held most."""
    needs = colour_needs(seen, routes)
    deficit = {c: n - seen.hand[c] for c, n in needs.items() if n > seen.hand[c]}
    grays = [ROUTES[r].length for r in routes if ROUTES[r].color == GRAY]
    if grays:
        spare = [(seen.hand[c] - needs.get(c, 0), -c) for c in range(LOCO)]
        colour = -max(spare)[1]
        deficit[colour] = deficit.get(colour, 0) + max(0, max(grays) - max(spare)[0])
    return deficit


def _cheapest(legal: list[Action], kind: str) -> Action | None:
    """The payment of ``kind`` that spends the fewest locomotives."""
    options = [a for a in legal if a["kind"] == kind]
    return min(options, key=lambda a: (a["locos"], a["cards"])) if options else None


def _longest_claim(legal: list[Action]) -> Action | None:
    """The claim that scores most, spending the fewest locomotives."""
    claims = [a for a in legal if a["kind"] == "claim_route"]
    if not claims:
        return None
    return max(claims, key=lambda a: (ROUTES[a["route"]].points, -a["locos"], -a["route"]))


BOTS: dict[str, Bot] = {"basic": basic, "greedy": greedy}
