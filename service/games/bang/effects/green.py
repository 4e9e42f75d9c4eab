"""Green cards (Dodge City): played face up in front of their player, used later from play.

Playing one is ``placed`` like a blue card (never two of one name in front of a player);
it is marked with the first turn it may be used (``state["marks"][card]["ready"]``, the
next turn number: "usable only after the turn in which it was played", RULINGS DC-009).
Using it is the ``use`` action: ``play.py`` discards it from play and resolves the row's
``use`` effect, the same handler a card from the hand uses; the ones with the Missed!
symbol (``use.missed``) answer a BANG! out of turn (``effects/attacks.py``).
"""

from __future__ import annotations

from tabletop_server.service.games.bang.effects import Effect, effect
from tabletop_server.service.games.bang.effects.equipment import check_no_duplicate, put_in_play
from tabletop_server.service.games.bang.layout import Action, Event, State


@effect("green")
class Green(Effect):
    """A green card goes into play in front of its player, usable from his next turn on."""

    placed = True

    def check(self, state: State, seat: int, card: str, action: Action) -> None:
        check_no_duplicate(state, seat, card)

    def resolve(self, state: State, seat: int, card: str, action: Action, events: list[Event]) -> None:
        put_in_play(state, seat, seat, card, events)
        state.setdefault("marks", {})[card] = {"ready": int(state["turn_no"]) + 1}


@effect("none")
class NoEffect(Effect):
    """A use whose whole effect is answering (Ten Gallon Hat, Iron Plate, Sombrero: a Missed! only)."""

    def resolve(self, state: State, seat: int, card: str, action: Action, events: list[Event]) -> None:
        return None
