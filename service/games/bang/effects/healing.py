"""Healing: Beer and Saloon (BANG-045..048, 067, 068); Whisky, Tequila and Canteen (Dodge City)."""

from __future__ import annotations

from tabletop_server.service.engine.errors import RuleError
from tabletop_server.service.games.bang.damage import REVIVES, heal
from tabletop_server.service.games.bang.effects import Effect, effect, effect_args
from tabletop_server.service.games.bang.layout import Action, Event, State
from tabletop_server.service.games.bang.reasons import Reason
from tabletop_server.service.games.bang.state import alive_seats, player, seats_from, trait
from tabletop_server.service.games.bang.tables import KEY_OF

BEER_HEAL = 1


def beer_heal(state: State, seat: int) -> int:
    """Life one Beer gives ``seat``: 1, or the character's ``beer_heal`` trait (Tequila Joe: 2)."""
    return int(trait(state, seat, "beer_heal") or BEER_HEAL)


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


REVIVES.add("beer", beer_heal)  # a Beer also answers its player's dying window (BANG-046, 047)


@effect("saloon")
class Saloon(Effect):
    """Saloon: every living player regains 1 life, starting with its player (not a Beer)."""

    def resolve(self, state: State, seat: int, card: str, action: Action, events: list[Event]) -> None:
        for s in seats_from(state, seat, include_self=True):
            heal(state, s, 1, events, reason="saloon")


@effect("heal")
class Heal(Effect):
    """Whisky (2, yourself), Tequila (1, any player), Canteen (1, used from play), A Little Nip and
    Beer Keg (Armed & Dangerous, 1; used from play): regain
    ``args.count`` life, never above the maximum (DC-013, 056, 063).

    Not a Beer: not affected by the two-players-left rule, never offered in the dying window
    (only Beer saves you, DC-015), and played or used only in your own phase 2. Like Beer,
    refused when the one it heals is at full life (it would be paid for nothing).
    """

    def check(self, state: State, seat: int, card: str, action: Action) -> None:
        target = action.get("target", seat)
        p = player(state, target)
        if p["life"] >= p["max"]:
            who = "You are" if target == seat else f"Seat {target} is"
            raise RuleError(Reason.LIFE_AT_MAXIMUM, f"{who} already at full life", target=target)

    def resolve(self, state: State, seat: int, card: str, action: Action, events: list[Event]) -> None:
        # A Little Nip: one more life per upgrade bought (AD-057).
        heal(state, action.get("target", seat), int(effect_args(card, action)["count"]) + int(action.get("bought", 0)),
             events, reason=KEY_OF[card])
