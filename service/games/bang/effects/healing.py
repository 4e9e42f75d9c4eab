"""Healing: Beer and Saloon (BANG-045..048, 067, 068)."""

from __future__ import annotations

from service.engine.errors import RuleError
from service.engine.ruleset import Action, Event, State
from service.games.bang.damage import beer_heal, heal
from service.games.bang.effects import Effect, effect
from service.games.bang.reasons import Reason
from service.games.bang.state import alive_seats, player, seats_from


@effect("beer")
class Beer(Effect):
    """Beer in your own turn: +1 life, never above the maximum; heals nothing with two players left."""

    def check(self, state: State, seat: int, card: str, action: Action) -> None:
        p = player(state, seat)
        if p["life"] >= p["max"]:
            raise RuleError(Reason.BEER_AT_FULL_LIFE, "You are already at your maximum life")

    def resolve(self, state: State, seat: int, card: str, action: Action, events: list[Event]) -> None:
        # With two players left the card may still be played, it just heals nothing
        # (S2: "jestliže v takovém případě zahrajete kartu Pivo, žádný život si
        # nevyléčíte"; BANG-048). Suzy Lafayette may want her hand empty, for one.
        heal(state, seat, 0 if len(alive_seats(state)) <= 2 else beer_heal(state, seat), events, reason="beer")


@effect("saloon")
class Saloon(Effect):
    """Saloon: every living player regains 1 life, starting with its player (not a Beer)."""

    def resolve(self, state: State, seat: int, card: str, action: Action, events: list[Event]) -> None:
        for s in seats_from(state, seat, include_self=True):
            heal(state, s, 1, events, reason="saloon")
