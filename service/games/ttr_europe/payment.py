"""Payments: the cards given for a route, a station or a tunnel's extra cost.

A payment is ``(color, cards, locos)``: ``cards`` cards of one colour plus ``locos``
locomotives (TTR_NOTES section 5: locomotives are wild; a gray route or a station
takes any one colour). In actions it is spelled ``{"color": "red" | None,
"cards": n, "locos": n}``; ``color`` is None exactly when ``cards`` is 0, so every
payment has one spelling and ``legal_actions`` lists each distinct payment once.
"""

from __future__ import annotations

from typing import Any

from tabletop_server.service.engine.errors import MalformedAction, RuleError
from tabletop_server.service.games.ttr_europe.board import CARD_CODE, COLORS, GRAY, LOCO
from tabletop_server.service.games.ttr_europe.reasons import TtrReason

NO_COLOR = -2  # a payment made of locomotives only (distinct from GRAY)
Payment = tuple[int, int, int]


def parse(action: dict[str, Any], field: str) -> Payment:
    """Read a payment from an action; raises MalformedAction when it is not one."""
    cards, locos, color = action.get("cards"), action.get("locos"), action.get("color")
    if type(cards) is not int or type(locos) is not int or cards < 0 or locos < 0:
        raise MalformedAction(TtrReason.INVALID_PAYMENT, "cards and locos must be counts",
                              field=f"{field}.payment")
    if cards == 0:
        if color is not None:
            raise MalformedAction(TtrReason.INVALID_PAYMENT, "leave the colour unset when paying only "
                                  "locomotives", field=f"{field}.payment.color")
        return NO_COLOR, 0, locos
    code = CARD_CODE.get(color) if isinstance(color, str) else None
    if code is None or code == LOCO:
        raise MalformedAction(TtrReason.INVALID_PAYMENT, "name one train colour for the coloured cards "
                              "(locomotives go in locos)", field=f"{field}.payment.color")
    return code, cards, locos


def check(hand: list[int], payment: Payment, size: int, color: int, min_locos: int = 0) -> None:
    """Check that ``payment`` is ``size`` cards matching ``color`` (GRAY: any) that the hand holds."""
    code, cards, locos = payment
    if cards + locos != size:
        raise RuleError(TtrReason.WRONG_CARD_COUNT, f"give exactly {size} cards", needed=size,
                        given=cards + locos)
    if cards and color != GRAY and code != color:
        raise RuleError(TtrReason.WRONG_COLOR, f"pay with {_name(color)} cards or locomotives",
                        needed=_name(color), given=_name(code))
    if locos < min_locos:
        raise RuleError(TtrReason.FERRY_NEEDS_LOCOMOTIVES, f"this ferry needs {min_locos} locomotives",
                        needed=min_locos, given=locos)
    if (cards and hand[code] < cards) or hand[LOCO] < locos:
        raise RuleError(TtrReason.INSUFFICIENT_CARDS, "you do not hold those cards",
                        color=_name(code), cards=cards, locos=locos)


def options(hand: list[int], size: int, color: int, min_locos: int = 0) -> list[Payment]:
    """Every distinct payment of ``size`` cards matching ``color`` (GRAY: any) the hand affords."""
    found: list[Payment] = []
    have_locos = hand[LOCO]
    colors = range(len(COLORS)) if color == GRAY else (color,) if color >= 0 else ()
    for code in colors:
        have = hand[code]
        if not have:
            continue
        for locos in range(max(min_locos, size - have), min(size - 1, have_locos) + 1):
            found.append((code, size - locos, locos))
    if have_locos >= size >= min_locos:
        found.append((NO_COLOR, 0, size))
    return found


def spell(payment: Payment) -> dict[str, Any]:
    """The action/event spelling of a payment."""
    code, cards, locos = payment
    return {"color": COLORS[code] if cards else None, "cards": cards, "locos": locos}


# Helpers


def _name(code: int) -> str:
    """A payment's or a coloured route's colour as a player reads it (gray routes never need naming)."""
    return "locomotive" if code in (NO_COLOR, LOCO) else COLORS[code]
