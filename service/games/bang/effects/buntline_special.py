"""The Buntline Special (Armed & Dangerous, AD-053, AD-042): all it does, in one place.

A Dangerous weapon (reach 2): its row's ``use.args.shot`` is ``buntline``, so a BANG! card it pays for
carries the flag ``buntline``. When that shot is cancelled in any way (a Missed! effect, a Barrel, a
Crate...: ``upgrades.shot_cancelled``), its target discards a card of his choice from his hand, when he
has one: the ``discard_one`` request below.
"""

from __future__ import annotations

from tabletop_server.service.games.bang.layout import Action, BangRequest, DiscardOneRequest, Event, State
from tabletop_server.service.games.bang.pending import DiscardFromHand, request
from tabletop_server.service.games.bang.state import player, push
from tabletop_server.service.games.bang.upgrades import SHOTS, Shot

SHOT = "buntline"
CARD = "buntline_special"  # the reason its discard is announced with


class DiscardOnCancel(Shot):
    """A cancelled shot costs its target a card of his choice."""

    def cancelled(self, state: State, shot: BangRequest) -> None:
        if player(state, shot["seat"])["hand"]:
            push(state, "discard_one", shot["seat"], shot["source"], reason=CARD)


@request("discard_one")
class DiscardOne(DiscardFromHand[DiscardOneRequest]):
    """Discard one card of your choice from your hand (Buntline Special, AD-053)."""

    def resolve(self, state: State, req: DiscardOneRequest, action: Action, events: list[Event]) -> None:
        state["pending"].pop()
        player(state, req["seat"])["hand"].remove(action["card"])
        state["discard"].append(action["card"])
        events.append({"kind": "discard", "seat": req["seat"], "cards": [action["card"]],
                       "reason": req["args"]["reason"]})

    def settled(self, state: State, req: DiscardOneRequest) -> bool:
        return not player(state, req["seat"])["hand"]

    def auto(self, state: State, req: DiscardOneRequest) -> Action | None:
        hand = player(state, req["seat"])["hand"]
        return {"type": "discard", "card": hand[0]} if len(hand) == 1 else None


SHOTS.add(SHOT, DiscardOnCancel())
