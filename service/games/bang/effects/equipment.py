"""Blue cards: Barrel, Mustang, Scope, the weapons, Jail and Dynamite (BANG-019, 021, 036..041, 070, 075).

Passive effects live in the card rows (``passive``, ``weapon_range``); playing one puts
it in front of a player. Never two cards of the same name in front of one player, and
one weapon at a time: a new weapon discards the old one.
"""

from __future__ import annotations

from tabletop_server.service.engine.errors import RuleError
from tabletop_server.service.games.bang.effects import Effect, effect
from tabletop_server.service.games.bang.layout import Action, Event, State
from tabletop_server.service.games.bang.reasons import Reason
from tabletop_server.service.games.bang.state import in_play, leave_play, player, weapon
from tabletop_server.service.games.bang.tables import KEY_OF, TYPE_OF


def check_no_duplicate(state: State, owner: int, card: str) -> None:
    """Refuse a second card of the same name in front of ``owner``."""
    if in_play(state, owner, KEY_OF[card]):
        raise RuleError(Reason.DUPLICATE_EQUIPMENT,
                        f"Seat {owner} already has a {TYPE_OF[card].name} in play", card=card, seat=owner)


def put_in_play(state: State, seat: int, owner: int, card: str, events: list[Event]) -> None:
    """Move a card from ``seat``'s hand in front of ``owner``."""
    player(state, seat)["hand"].remove(card)
    player(state, owner)["table"].append(card)
    events.append({"kind": "equip", "seat": seat, "other": owner, "cards": [card]})


@effect("equip")
class Equip(Effect):
    """Equipment in front of its player; a weapon replaces the weapon in play."""

    placed = True

    def check(self, state: State, seat: int, card: str, action: Action) -> None:
        check_no_duplicate(state, seat, card)

    def resolve(self, state: State, seat: int, card: str, action: Action, events: list[Event]) -> None:
        old = weapon(state, seat) if TYPE_OF[card].weapon_range else None
        if old is not None:
            leave_play(state, seat, old)
            state["discard"].append(old)
            events.append({"kind": "discard", "seat": seat, "cards": [old], "reason": "weapon_replaced"})
        put_in_play(state, seat, seat, card, events)


@effect("jail")
class Jail(Effect):
    """Jail: on any other player except the Sheriff, at any distance."""

    placed = True

    def check(self, state: State, seat: int, card: str, action: Action) -> None:
        target = action["target"]
        if player(state, target)["role"] == "sheriff":
            raise RuleError(Reason.JAIL_ON_SHERIFF, "The Sheriff cannot be put in Jail")
        check_no_duplicate(state, target, card)

    def resolve(self, state: State, seat: int, card: str, action: Action, events: list[Event]) -> None:
        put_in_play(state, seat, action["target"], card, events)


@effect("dynamite")
class Dynamite(Effect):
    """Dynamite: in front of its player; checked at the start of his next turn."""

    placed = True

    def check(self, state: State, seat: int, card: str, action: Action) -> None:
        check_no_duplicate(state, seat, card)

    def resolve(self, state: State, seat: int, card: str, action: Action, events: list[Event]) -> None:
        put_in_play(state, seat, seat, card, events)
