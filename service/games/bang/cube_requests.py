"""Armed & Dangerous: paying and placing cubes as follow-up decisions (DESIGN 16; AD-022, 028, 058).

Which holder gives or takes each cube is asked after the play or ability is committed, one
cube at a time, so legal actions never list every way to split a payment:

- ``pay_cubes``: pay ``cubes`` cubes from any of the seat's holders (an upgrade, Al Preacher,
  Mexicali Kid); a card emptied by a payment is discarded at once (AD-023). What was paid for
  waits below the request on the stack (an upgrade request, a shot, a ``draw_step``), so it
  resolves once the last cube is paid.
- ``place_cubes``: put ``count`` cubes from the supply on the seat's holders: one by one
  (``split``: a recharge, Reloading) or all on one holder (Bass Greeves, AD-034). Cubes that
  no longer fit stay in the supply (AD-013, 058). A recharge (``optional``: AD-009, AD-011,
  RULINGS: "you *may* add 1") may also be declined cube by cube with ``pass``: the declined
  cube stays in the supply and is not offered again (``bang-ad-1`` games: always placed).

Both answer ``choose`` ``pick`` = ``character`` or an orange card's id, and answer themselves
when only one holder qualifies and nothing may be declined (cubes are public, so waiting
reveals nothing).
"""

from __future__ import annotations

from tabletop_server.service.engine.errors import RuleError
from tabletop_server.service.games.bang import cubes
from tabletop_server.service.games.bang.layout import (
    Action,
    DrawStepEntry,
    Event,
    PayCubesRequest,
    PlaceCubesRequest,
    State,
)
from tabletop_server.service.games.bang.pending import RequestKind, Step, request, step
from tabletop_server.service.games.bang.reasons import Reason
from tabletop_server.service.games.bang.state import draw, player, push, source_seat
from tabletop_server.service.games.bang.versions import first_ad_readings


def ask_payment(state: State, seat: int, need: int, reason: str) -> None:
    """Ask ``seat`` for ``need`` cubes (checked to be there: ``cubes.owned``)."""
    push(state, "pay_cubes", seat, seat, cubes=need, reason=reason)


def ask_placement(state: State, seat: int, count: int, reason: str, split: bool = True) -> None:
    """Ask ``seat`` where ``count`` cubes from the supply go (nothing when no holder has room)."""
    if cubes.with_room(state, seat):
        push(state, "place_cubes", seat, seat, count=count, split=split, reason=reason)


def ask_recharge(state: State, seat: int, reason: str) -> None:
    """Offer ``seat`` 1 recharge cube (a blue card played, a card forced out in phase 3): his to place
    or decline (AD-009, AD-011); a ``bang-ad-1`` game places it (its first reading)."""
    if not cubes.with_room(state, seat):
        return
    if first_ad_readings(state):
        push(state, "place_cubes", seat, seat, count=1, split=True, reason=reason)
    else:
        push(state, "place_cubes", seat, seat, count=1, split=True, reason=reason, optional=True)


@request("pay_cubes")
class PayCubes(RequestKind[PayCubesRequest]):
    """Pay the cubes a committed upgrade or ability costs, one at a time, from any holder."""

    answers = frozenset({"choose"})
    abilities = False
    choose_field = "pick"

    def legal(self, state: State, req: PayCubesRequest) -> list[Action]:
        return [{"type": "choose", "pick": h} for h in _paying(state, req["seat"])]

    def check(self, state: State, req: PayCubesRequest, action: Action) -> None:
        if action["pick"] not in _paying(state, req["seat"]):
            raise RuleError(Reason.NOT_A_CUBE_HOLDER, "Pay from your character or one of your orange cards "
                            "that holds a cube", pick=action["pick"])

    def resolve(self, state: State, req: PayCubesRequest, action: Action, events: list[Event]) -> None:
        seat, args = req["seat"], req["args"]
        args["cubes"] -= 1
        if args["cubes"] <= 0:
            state["pending"].remove(req)  # before the cube: an emptied Bomb's damage goes on top
        cubes.remove(state, seat, action["pick"], 1, events, args["reason"])

    def settled(self, state: State, req: PayCubesRequest) -> bool:
        return bool(req["args"]["cubes"] <= 0 or not _paying(state, req["seat"]))

    def auto(self, state: State, req: PayCubesRequest) -> Action | None:
        paying = _paying(state, req["seat"])
        if len(paying) == 1 or cubes.owned(state, req["seat"]) <= req["args"]["cubes"]:
            return {"type": "choose", "pick": paying[0]}  # one holder, or every cube must go
        return None


@request("place_cubes")
class PlaceCubes(RequestKind[PlaceCubesRequest]):
    """Put cubes from the supply on the seat's holders (at most 4 each); ``pass`` declines one that is
    ``optional`` (a recharge)."""

    answers = frozenset({"choose", "pass"})
    abilities = False
    choose_field = "pick"

    def legal(self, state: State, req: PlaceCubesRequest) -> list[Action]:
        picks: list[Action] = [{"type": "choose", "pick": h} for h in cubes.with_room(state, req["seat"])]
        return picks + [{"type": "pass"}] if req["args"].get("optional") else picks

    def check(self, state: State, req: PlaceCubesRequest, action: Action) -> None:
        if action["type"] == "pass":
            if not req["args"].get("optional"):  # as before "pass" was an answer here (bang-ad-1)
                raise RuleError(Reason.WRONG_ANSWER, f"Answer the pending {req['kind']} request",
                                request=req["kind"])
            return
        if action["pick"] not in cubes.with_room(state, req["seat"]):
            raise RuleError(Reason.NO_ROOM_FOR_CUBES, "Place cubes on your character or one of your orange cards "
                            "with room (at most 4 on each)", pick=action["pick"])

    def resolve(self, state: State, req: PlaceCubesRequest, action: Action, events: list[Event]) -> None:
        seat, args = req["seat"], req["args"]
        count = 1 if args["split"] else args["count"]
        if action["type"] == "pass":  # declined: the cube stays in the supply, never offered again
            events.append({"kind": "pass", "seat": seat, "reason": args["reason"]})
        else:
            cubes.add(state, seat, action["pick"], count, events, args["reason"])
        args["count"] -= count
        if args["count"] <= 0 and req in state["pending"]:
            state["pending"].remove(req)

    def settled(self, state: State, req: PlaceCubesRequest) -> bool:
        return bool(req["args"]["count"] <= 0 or not cubes.with_room(state, req["seat"]))

    def auto(self, state: State, req: PlaceCubesRequest) -> Action | None:
        room = cubes.with_room(state, req["seat"])
        return {"type": "choose", "pick": room[0]} if len(room) == 1 and not req["args"].get("optional") else None


@step("draw_step")
class DrawStep(Step[DrawStepEntry]):
    """Draw ``count`` cards once what lies above is done (Al Preacher's card after his payment)."""

    def run(self, state: State, req: DrawStepEntry, events: list[Event]) -> None:
        seat = source_seat(req)
        if player(state, seat)["alive"]:
            draw(state, seat, int(req["args"]["count"]), events, reason=str(req["args"]["reason"]))


# Helpers

def _paying(state: State, seat: int) -> list[str]:
    return [h for h in cubes.holders(state, seat) if cubes.on(state, seat, h) > 0]
