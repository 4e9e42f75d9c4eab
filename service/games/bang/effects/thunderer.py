"""The Thunderer (Armed & Dangerous, AD-066): all it does, in one place.

A Dangerous weapon: its row's ``use.args.shot`` is ``take_back``. Once its cube is paid for a BANG!
card, the card goes from the discard pile back into its player's hand, before the target reacts.
"""

from __future__ import annotations

from tabletop_server.service.games.bang.layout import Action, Event, State
from tabletop_server.service.games.bang.state import player
from tabletop_server.service.games.bang.upgrades import SHOTS, Shot

SHOT = "take_back"


class TakeBack(Shot):
    """The BANG! card it paid for returns to the hand at once."""

    def paid(self, state: State, seat: int, played: Action, events: list[Event]) -> None:
        if played["card"] in state["discard"]:  # before the target reacts (AD-066)
            state["discard"].remove(played["card"])
            player(state, seat)["hand"].append(played["card"])
            events.append({"kind": "take", "seat": seat, "cards": [played["card"]], "reason": "thunderer"})


SHOTS.add(SHOT, TakeBack())
