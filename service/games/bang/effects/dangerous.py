"""Armed & Dangerous: the Dangerous (orange) cards in play (AD-004..008, 014..016, 044..067).

An orange card behaves like a blue one (same-name rule, a weapon replaces the weapon in play,
removable by Panic!, Cat Balou and the like) and enters play with 3 cubes from the supply; it
cannot be played when the supply holds fewer (AD-014). Using it is the ``use`` action: its
row's ``use`` says the effect and the cubes it costs, paid from the card itself
(``cubes.pay_use``). The uses that are not a phase-2 action are asked where they apply:
Crate answers a shot (``attacks.missed_in_play``), Tumbleweed a draw! (``checks.Redraw``),
Bandolier pays for a second BANG! card (``play``), the weapons' effects are offered with a
BANG! card (``upgrades.WeaponOption``). The Bell Tower's use is a lasting modifier (``bell_tower.py``).
The Bomb, an orange card too, has its own module (``bomb.py``).
"""

from __future__ import annotations

from tabletop_server.service.engine.errors import RuleError
from tabletop_server.service.games.bang import cubes
from tabletop_server.service.games.bang.effects import Effect, effect
from tabletop_server.service.games.bang.effects.equipment import check_no_duplicate, put_in_play
from tabletop_server.service.games.bang.layout import Action, Event, State
from tabletop_server.service.games.bang.reasons import Reason
from tabletop_server.service.games.bang.state import (
    game_rng,
    leave_play,
    player,
    weapon,
)
from tabletop_server.service.games.bang.tables import TYPE_OF


@effect("dangerous")
class Dangerous(Effect):
    """An orange card goes into play with 3 cubes, in front of its player (the Bomb: of any player)."""

    placed = True

    def check(self, state: State, seat: int, card: str, action: Action) -> None:
        check_no_duplicate(state, action.get("target", seat), card)
        if int(state["supply"]) < cubes.DANGEROUS_CUBES:
            raise RuleError(Reason.CUBE_SUPPLY_SHORT, f"The supply holds {state['supply']} cubes; "
                            f"{TYPE_OF[card].name} needs {cubes.DANGEROUS_CUBES}", supply=int(state["supply"]))

    def resolve(self, state: State, seat: int, card: str, action: Action, events: list[Event]) -> None:
        owner = action.get("target", seat)
        old = weapon(state, owner) if TYPE_OF[card].weapon_range else None
        if old is not None:
            leave_play(state, owner, old)  # an orange weapon's cubes go back with it (AD-018)
            state["discard"].append(old)
            events.append({"kind": "discard", "seat": owner, "cards": [old], "reason": "weapon_replaced"})
        put_in_play(state, seat, owner, card, events)
        cubes.load(state, card)
        events.append({"kind": "cubes", "seat": owner, "cards": [card], "amount": cubes.DANGEROUS_CUBES,
                       "reason": "loaded"})


@effect("lockpick")
class Lockpick(Effect):
    """Lockpick (AD-059): a random card from the hand of any other player, at any distance."""

    def check(self, state: State, seat: int, card: str, action: Action) -> None:
        if not player(state, action["target"])["hand"]:
            raise RuleError(Reason.NOTHING_TO_TAKE, f"Seat {action['target']} has no cards in hand",
                            target=action["target"])

    def resolve(self, state: State, seat: int, card: str, action: Action, events: list[Event]) -> None:
        hand = player(state, action["target"])["hand"]
        if not hand:
            return
        taken = hand.pop(game_rng(state).below(len(hand)))
        player(state, seat)["hand"].append(taken)
        events.append({"kind": "take", "seat": seat, "other": action["target"], "cards": [taken], "reason": "hand"})
