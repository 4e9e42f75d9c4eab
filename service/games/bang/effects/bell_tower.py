"""The Bell Tower (Armed & Dangerous, AD-067): all it does, in one place.

Using it (an orange card's ``use``, paid with its cubes) starts a lasting modifier, ``state["bell"]``:
for the next card its player plays from the hand, every player is at distance 1 from him. While no
card is played it holds his seat; the card played next holds it as ``[seat, card]`` until it resolves
or is ignored (Ms. Abigail), and any other player's card, or a new turn, ends it. It is for a *card*:
an ability's shot (Doc Holyday, Mexicali Kid: AD-038) and a green card used from play (RULINGS AD-067;
``bang-ad-1`` games: it is stretched and spends it, ``play.use_from_play``) do not see it
(``cards_only``, ``modifiers.seen_without_card_modifiers``).
"""

from __future__ import annotations

from typing import Final

from tabletop_server.service.games.bang.effects import Effect, effect
from tabletop_server.service.games.bang.layout import Action, Event, State
from tabletop_server.service.games.bang.modifiers import Modifier, modifier

KEY: Final = "bell"


@effect("bell_tower")
class BellTower(Effect):
    """Start the modifier: the next card of its player reaches everyone at distance 1."""

    def resolve(self, state: State, seat: int, card: str, action: Action, events: list[Event]) -> None:
        state[KEY] = seat


@modifier("bell_tower")
class BellTowerInForce(Modifier):
    """Everyone at distance 1 from its player, for his next card from the hand."""

    key = KEY
    cards_only = True

    def distance(self, state: State, a: int) -> int | None:
        bell = state[KEY]
        return 1 if bell == a or (isinstance(bell, list) and bell[0] == a) else None

    def card_played(self, state: State, seat: int, card: str) -> None:
        """It applies to its player's card played now (until it resolves), never to a later one."""
        if state[KEY] == seat:
            state[KEY] = [seat, card]
        else:
            state.pop(KEY)

    def card_played_out(self, state: State) -> None:
        if isinstance(state.get(KEY), list):
            state.pop(KEY)

    def turn_started(self, state: State) -> None:
        state.pop(KEY, None)
