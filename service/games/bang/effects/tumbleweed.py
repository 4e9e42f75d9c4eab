"""The Tumbleweed (Armed & Dangerous, AD-064): all it does, in one place.

While a Tumbleweed with a cube is in effect, its holder is asked after every draw! (anyone's, his own
included, in or out of his turn) whether he pays 1 of its cubes to have the whole draw! made again, the
earlier result no longer counting (AD-064; Lucky Duke flips two new cards and then chooses, AD-043): a
``redraw`` request, offered through the draw!'s redraw offers (``checks.REDRAWS``). Its row's ``use`` is
no phase-2 action (effect ``none``): the cube is paid here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from tabletop_server.service.engine.errors import MalformedAction, RuleError
from tabletop_server.service.games.bang.checks import REDRAWS, draw_check, settle_check
from tabletop_server.service.games.bang.cubes import pay_use
from tabletop_server.service.games.bang.layout import Action, Event, RedrawDeclinedStep, RedrawRequest, State
from tabletop_server.service.games.bang.pending import RequestKind, Step, request, step
from tabletop_server.service.games.bang.reasons import Reason
from tabletop_server.service.games.bang.state import alive_seats, card_in_effect, player, push

KEY = "tumbleweed"


def offer_redraw(state: State, seat: int, name: str, flips: list[str], ctx: Mapping[str, Any]) -> bool:
    """A draw! was flipped: the holder of a Tumbleweed that can pay is asked first (a ``redraw``)."""
    weed = tumbleweed(state) if "supply" in state else None
    if weed is None:
        return False
    push(state, "redraw", weed[0], seat, card=weed[1], drawer=seat, flipped=flips, check=name, ctx=dict(ctx))
    return True


REDRAWS.add(KEY, offer_redraw)


def tumbleweed(state: State) -> tuple[int, str] | None:
    """The seat whose Tumbleweed in effect can pay for a redraw, and the card (one in the game)."""
    for seat in alive_seats(state):
        card = card_in_effect(state, seat, KEY) if player(state, seat)["table"] else None
        if card is not None and int(state.get("marks", {}).get(card, {}).get("cubes", 0)) >= 1:
            return seat, card
    return None


@request("redraw")
class Redraw(RequestKind[RedrawRequest]):
    """Tumbleweed's holder: ``use`` it (1 of its cubes) to have the draw! made again, or ``pass``."""

    answers = frozenset({"use", "pass"})
    abilities = False

    def legal(self, state: State, req: RedrawRequest) -> list[Action]:
        return [{"type": "use", "card": req["args"]["card"]}, {"type": "pass"}]

    def check(self, state: State, req: RedrawRequest, action: Action) -> None:
        if action["type"] == "use" and action["card"] != req["args"]["card"]:
            raise RuleError(Reason.WRONG_ANSWER, "Answer with your Tumbleweed, or pass", card=action["card"])
        if action["type"] == "use" and ("target" in action or "pick" in action):
            raise MalformedAction(Reason.UNEXPECTED_TARGET, "Tumbleweed takes no target", field="target")

    def resolve(self, state: State, req: RedrawRequest, action: Action, events: list[Event]) -> None:
        state["pending"].pop()
        args = req["args"]
        if action["type"] == "pass":
            settle_check(state, args["drawer"], args["check"], args["flipped"], events, args["ctx"])
            return
        pay_use(state, req["seat"], args["card"], events, reason=KEY, target=args["drawer"])
        draw_check(state, args["drawer"], args["check"], events, args["ctx"])

    def forfeit(self, state: State, req: RedrawRequest, seat: int) -> bool:
        """The holder concedes while asked: the draw! stands, as if he had passed (an engine step settles it)."""
        if req["seat"] == seat:
            declined = cast(dict[str, Any], req)  # the entry becomes an engine step in place (its stack position)
            declined["kind"], declined["seat"] = "redraw_declined", None
        return False


@step("redraw_declined")
class RedrawDeclined(Step[RedrawDeclinedStep]):
    """A redraw nobody asks for any more (its holder conceded): the flipped cards count."""

    def run(self, state: State, req: RedrawDeclinedStep, events: list[Event]) -> None:
        args = req["args"]
        settle_check(state, args["drawer"], args["check"], args["flipped"], events, args["ctx"])
