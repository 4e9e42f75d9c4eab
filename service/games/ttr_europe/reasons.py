"""Why a Ticket to Ride: Europe action is refused: stable UPPER_SNAKE codes (DESIGN 9).

Engine-wide reasons (``NOT_YOUR_TURN``, ``GAME_FINISHED``, ...) come from
``service.engine.errors.EngineReason``; these are the game's own.
"""

from __future__ import annotations

from enum import StrEnum


class TtrReason(StrEnum):
    """Reasons specific to Ticket to Ride: Europe."""

    # Malformed input (MalformedAction).
    UNKNOWN_ACTION = "UNKNOWN_ACTION"
    UNKNOWN_ROUTE = "UNKNOWN_ROUTE"
    UNKNOWN_CITY = "UNKNOWN_CITY"
    UNKNOWN_TICKET = "UNKNOWN_TICKET"
    INVALID_SLOT = "INVALID_SLOT"
    INVALID_PAYMENT = "INVALID_PAYMENT"
    # Rules versions: a newer release's game, met mid rolling upgrade (retry on another replica).
    RULES_VERSION_UNSUPPORTED = "RULES_VERSION_UNSUPPORTED"
    # Turn structure.
    WRONG_PHASE = "WRONG_PHASE"
    MUST_DRAW_SECOND_CARD = "MUST_DRAW_SECOND_CARD"
    MUST_CHOOSE_TICKETS = "MUST_CHOOSE_TICKETS"
    MUST_DECIDE_TUNNEL = "MUST_DECIDE_TUNNEL"
    NO_TUNNEL_PENDING = "NO_TUNNEL_PENDING"
    CANNOT_PASS = "CANNOT_PASS"
    # Drawing train cards.
    EMPTY_SLOT = "EMPTY_SLOT"
    SECOND_LOCOMOTIVE = "SECOND_LOCOMOTIVE"
    NO_CARDS_LEFT = "NO_CARDS_LEFT"
    # Paying.
    INSUFFICIENT_CARDS = "INSUFFICIENT_CARDS"
    WRONG_COLOR = "WRONG_COLOR"
    WRONG_CARD_COUNT = "WRONG_CARD_COUNT"
    FERRY_NEEDS_LOCOMOTIVES = "FERRY_NEEDS_LOCOMOTIVES"
    # Routes.
    ROUTE_ALREADY_CLAIMED = "ROUTE_ALREADY_CLAIMED"
    DOUBLE_ROUTE_CLOSED = "DOUBLE_ROUTE_CLOSED"
    DOUBLE_ROUTE_OWNED = "DOUBLE_ROUTE_OWNED"
    NOT_ENOUGH_TRAINS = "NOT_ENOUGH_TRAINS"
    # Stations.
    CITY_HAS_STATION = "CITY_HAS_STATION"
    NO_STATIONS_LEFT = "NO_STATIONS_LEFT"
    # Tickets.
    NO_TICKETS_LEFT = "NO_TICKETS_LEFT"
    TICKET_NOT_OFFERED = "TICKET_NOT_OFFERED"
    TOO_FEW_TICKETS_KEPT = "TOO_FEW_TICKETS_KEPT"
