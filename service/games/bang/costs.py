"""Costs as follow-up decisions (DESIGN 16; issue 10): commit to the card, then pay.

A card (or a card's ``use``) whose row says ``"cost": {"discard": n}`` (Dodge City's
"discard another card" symbol: Brawl, Rag Time, Springfield, Tequila, Whisky) is listed
once per target in ``legal_actions``, never once per target *and* per card that could pay
for it: the play is checked to be payable (``n`` other cards in hand), the card is paid
for as usual, and a ``cost`` request asks its player which cards to discard. When the
last one is discarded the effect resolves, exactly as it would have without a cost.
An orange card's own cost in cubes (``"cost": {"cubes": n}``) is paid from the card as it is
used (``cubes.pay_use``); cubes for upgrades and abilities are asked as ``pay_cubes`` (``upgrades.py``).

Nothing else may happen while a cost is open: abilities are refused (``abilities``
False), so the committed effect always finds what was checked (a Sid Ketchum who
discarded his last cards in between would leave the cost unpayable).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tabletop_server.service.engine.errors import RuleError
from tabletop_server.service.games.bang.layout import Action, CostRequest, Event, State
from tabletop_server.service.games.bang.pending import RequestKind, continue_play, request
from tabletop_server.service.games.bang.reasons import Reason
from tabletop_server.service.games.bang.state import discard_from_hand, player, push
from tabletop_server.service.games.bang.tables import TYPE_OF

DISCARD = "discard"


def check_payable(state: State, seat: int, card: str, cost: Mapping[str, Any], in_hand: bool) -> None:
    """Refuse a play whose cost the hand cannot pay (the played card itself does not count)."""
    need = int(cost.get(DISCARD, 0))
    have = len(player(state, seat)["hand"]) - (1 if in_hand else 0)
    if have < need:
        raise RuleError(Reason.COST_NOT_PAYABLE, f"{TYPE_OF[card].name} costs {need} more card(s) from your hand",
                        card=card, need=need)


def ask_cost(state: State, seat: int, action: Action, cost: Mapping[str, Any]) -> bool:
    """Open the ``cost`` request for a paid card; False when there is nothing more to pay."""
    need = int(cost.get(DISCARD, 0))
    if need <= 0:
        return False
    push(state, "cost", seat, seat, card=action["card"], discard=need, action=action.copy())
    return True


@request("cost")
class PayCost(RequestKind[CostRequest]):
    """Discard the cards a committed play still costs, one at a time; then its effect resolves."""

    answers = frozenset({"discard"})
    abilities = False

    def legal(self, state: State, req: CostRequest) -> list[Action]:
        return [{"type": "discard", "card": c} for c in dict.fromkeys(player(state, req["seat"])["hand"])]

    def check(self, state: State, req: CostRequest, action: Action) -> None:
        if action["card"] not in player(state, req["seat"])["hand"]:
            raise RuleError(Reason.CARD_NOT_IN_HAND, "Pay with a card from your hand", card=action["card"])

    def resolve(self, state: State, req: CostRequest, action: Action, events: list[Event]) -> None:
        seat, args = req["seat"], req["args"]
        discard_from_hand(state, seat, action["card"])
        events.append({"kind": "discard", "seat": seat, "cards": [action["card"]], "reason": "cost"})
        args["discard"] -= 1
        if args["discard"] > 0:
            return
        state["pending"].pop()
        continue_play(state, seat, args["action"], "upgrade", events)

    def auto(self, state: State, req: CostRequest) -> Action | None:
        hand = player(state, req["seat"])["hand"]
        # The whole hand goes: no choice, and the hand count is public.
        return {"type": "discard", "card": hand[0]} if len(hand) <= req["args"]["discard"] else None
