"""The Bandolier (Armed & Dangerous, AD-045): all it does, in one place.

Once per turn, 1 of its cubes pays for one more BANG! card than the limit allows: an extra BANG!
(``attacks.EXTRA_BANGS``) that ``attacks.may_shoot_again`` asks and the play pays for. Its row's ``use``
is no phase-2 action (effect ``none``).
"""

from __future__ import annotations

from tabletop_server.service.games.bang.cubes import pay_use, use_payable
from tabletop_server.service.games.bang.effects.attacks import EXTRA_BANGS, ExtraBang
from tabletop_server.service.games.bang.layout import Event, State
from tabletop_server.service.games.bang.state import card_in_effect
from tabletop_server.service.games.bang.turn import count_use, uses

KEY = "bandolier"


def bandolier(state: State, seat: int) -> str | None:
    """A Bandolier in effect that can pay for one more BANG! card this turn (1 of its cubes, once per turn)."""
    card = card_in_effect(state, seat, KEY)
    if card is None or uses(state, seat, KEY) or not use_payable(state, seat, card):
        return None
    return card


class Bandolier(ExtraBang):
    """1 of its cubes, once per turn, for a BANG! card beyond the limit."""

    def payable(self, state: State, seat: int) -> bool:
        return "supply" in state and bandolier(state, seat) is not None

    def pay(self, state: State, seat: int, events: list[Event]) -> None:
        card = bandolier(state, seat)
        assert card is not None  # checked: payable
        count_use(state, seat, KEY)
        pay_use(state, seat, card, events, reason=KEY)


EXTRA_BANGS.add(KEY, Bandolier())
