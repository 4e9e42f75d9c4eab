"""A made-up card for issue 30's shape test, in a module of its own: the Hex.

Blue, played in front of another player (as the Jail is). At the start of its holder's turn, after the
draw! checks and before phase 1 (as the Bomb's check is; a lost turn skips it), it is discarded and he
loses 1 life, caused by no one. It is its row and this module: an effect that places it, and a start-of-turn
step added with ``turn.add_start_step``, only in games with the made-up expansion ``x_shape``.
No existing module is touched.
"""

from __future__ import annotations

from typing import Any

from tabletop_server.service.engine.ruleset import Action, Event, State
from tabletop_server.service.games.bang.damage import damage
from tabletop_server.service.games.bang.effects import Effect, effect
from tabletop_server.service.games.bang.effects.equipment import put_in_play
from tabletop_server.service.games.bang.pending import Step, step
from tabletop_server.service.games.bang.state import Request, card_in_effect, discard_from_table, player
from tabletop_server.service.games.bang.turn import add_start_step

KEY = "x_hex"
STEP = "x_t_hex"
EXPANSION = "x_shape"
ROW: dict[str, Any] = {"key": KEY, "name": "Hex", "color": "blue", "effect": KEY, "target": "other",
                       "text": "Play in front of another player. At the start of his turn he loses 1 life."}


@effect(KEY)
class Hex(Effect):
    """Put the Hex in front of its target."""

    placed = True

    def resolve(self, state: State, seat: int, card: str, action: Action, events: list[Event]) -> None:
        put_in_play(state, seat, action["target"], card, events)


@step(STEP)
class HexStrikes(Step):
    """The start of the holder's turn: the Hex is discarded and he loses 1 life."""

    def run(self, state: State, req: Request, events: list[Event]) -> None:
        seat = req["source"]
        card = card_in_effect(state, seat, KEY)
        if not player(state, seat)["alive"] or card is None:
            return
        discard_from_table(state, seat, card)
        events.append({"kind": "discard", "seat": seat, "cards": [card], "reason": KEY})
        damage(state, seat, 1, None, events)


def install() -> None:
    """Queue its step at the start of every turn of its expansion's games, before phase 1 (run at import;
    again by the test after it took the step out)."""
    add_start_step(STEP, before="t_draw", expansion=EXPANSION, skippable=True)


install()
