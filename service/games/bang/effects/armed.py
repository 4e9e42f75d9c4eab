"""Armed & Dangerous brown cards with effects of their own: Arrow, Squaw, Whip's use, Reloading, Rust.

Caravan (``draw_cards``), A Little Nip (``heal``), Quick Shot and Flintlock (``bang``) and Duck!
(``dodge``) reuse the base handlers; their upgrades are rows (``upgrades.py``). The bought
upgrades reach a handler as the committed action's ``bought`` (how many) and ``extra`` (the
extra targets). Facts: AD-046, 058, 060, 063, 065.
"""

from __future__ import annotations

from tabletop_server.service.engine.errors import RuleError
from tabletop_server.service.games.bang import cubes
from tabletop_server.service.games.bang.cube_requests import ask_placement
from tabletop_server.service.games.bang.effects import Effect, effect, effect_args
from tabletop_server.service.games.bang.effects.draws import TakeOrDiscard
from tabletop_server.service.games.bang.layout import Action, Event, State
from tabletop_server.service.games.bang.reasons import Reason
from tabletop_server.service.games.bang.state import leave_play, player, push, seats_from
from tabletop_server.service.games.bang.targeting import affected


@effect("arrow")
class Arrow(Effect):
    """Arrow (AD-065): each target (any other player, any distance; more with the upgrade) discards a
    BANG! card or loses 1 life, answered as Indians! is (no other card with a BANG! symbol)."""

    def resolve(self, state: State, seat: int, card: str, action: Action, events: list[Event]) -> None:
        for target in reversed([action["target"], *action.get("extra", [])]):
            push(state, "indians", target, seat, card=card)


class _InPlayOnly(TakeOrDiscard):
    """A card in play of any player (never his hand), at any distance; ``reason`` names the discard."""

    reason = ""

    def check(self, state: State, seat: int, card: str, action: Action) -> None:
        if action.get("pick") == "hand":
            raise RuleError(Reason.CARD_NOT_IN_PLAY, "Choose a card in play, not the hand", card="hand")
        super().check(state, seat, card, action)

    def picks(self, state: State, seat: int, target: int) -> list[str]:
        return list(player(state, target)["table"])

    def resolve(self, state: State, seat: int, card: str, action: Action, events: list[Event]) -> None:
        """The card leaves play: discarded, or into the player's hand when an upgrade was bought (Squaw's)."""
        target, pick = action["target"], action["pick"]
        if pick not in player(state, target)["table"]:
            return
        leave_play(state, target, pick)
        if action.get("bought"):
            player(state, seat)["hand"].append(pick)
            events.append({"kind": "take", "seat": seat, "other": target, "cards": [pick], "reason": "table"})
            return
        state["discard"].append(pick)
        events.append({"kind": "discard", "seat": target, "cards": [pick], "reason": self.reason})


@effect("squaw")
class Squaw(_InPlayOnly):
    """Squaw (AD-063): discard any one card in play; with the upgrade, take it into your hand instead."""

    reason = "squaw"


@effect("whip")
class Whip(_InPlayOnly):
    """Whip (AD-046): discard any one card in play of any player, at any distance (no upgrade)."""

    reason = "whip"


@effect("reloading")
class Reloading(Effect):
    """Reloading (AD-058): 3 cubes from the supply, spread over your holders (at most 4 each)."""

    def resolve(self, state: State, seat: int, card: str, action: Action, events: list[Event]) -> None:
        ask_placement(state, seat, int(effect_args(card, action)["count"]), "reloading")


@effect("rust")
class Rust(Effect):
    """Rust (AD-060): every other player loses 1 cube from each of his holders; they go on your
    character up to 4, the rest to the supply. An emptied card is discarded (a Bomb explodes)."""

    def resolve(self, state: State, seat: int, card: str, action: Action, events: list[Event]) -> None:
        taken = 0
        for other in affected(state, seat, card, seats_from(state, seat, include_self=False), events):
            for holder in cubes.holders(state, other):
                taken += cubes.take(state, other, holder, 1, events, "rust")
        cubes.place_taken(state, seat, taken, events, "rust")
