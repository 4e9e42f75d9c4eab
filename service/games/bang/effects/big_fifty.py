"""The Big Fifty (Armed & Dangerous, AD-047, NOTES b #17): all it does, in one place.

A Dangerous weapon (reach 6): its row's ``use.args.shot`` is ``ignore``, so a BANG! card it pays for
is played with ``weapon: "ignore"`` and its shot carries the flag ``ignore``. This one handler says
what that means, as a modifier and as the weapon's shot:

- the shot ignores its target's cards in play and ability (``ignores_target``, asked through
  ``modifiers.ignores_target``): his Barrels, Missed! cards in play and ability do not count when he
  answers (``effects/attacks``), and Ms. Abigail may not ignore the card (``play``);
- a target out of reach or unaffected only because of his own cards or ability (his Mustang, Hideout,
  Paul Regret, Apache Kid) may be chosen (``reaches``: reach counted without his distance modifiers),
  and then its cube is due (``forced``: paid without asking).
"""

from __future__ import annotations

from collections.abc import Mapping

from tabletop_server.service.games.bang.distance import in_reach, seat_distance, weapon_range
from tabletop_server.service.games.bang.layout import Action, State
from tabletop_server.service.games.bang.modifiers import Modifier, modifier
from tabletop_server.service.games.bang.state import passive_sum
from tabletop_server.service.games.bang.targeting import affects
from tabletop_server.service.games.bang.upgrades import SHOTS, Shot

SHOT = "ignore"


@modifier("big_fifty")
class IgnoringShot(Shot, Modifier):
    """The target's cards in play and ability are ignored for the shot."""

    def ignores_target(self, shot: Mapping[str, object]) -> bool:
        """Its shot carries the flag; the play about to shoot it names it as its weapon."""
        return bool(shot.get(SHOT)) or shot.get("weapon") == SHOT

    def reaches(self, state: State, seat: int, target: int) -> bool:
        """Reach counted without the target's own distance modifiers (NOTES b #17)."""
        return max(1, seat_distance(state, seat, target) + passive_sum(state, seat, "distance_out")) \
            <= weapon_range(state, seat)

    def forced(self, state: State, seat: int, action: Action) -> bool:
        """The target is in reach and affected only when his cards and ability are ignored (AD-047)."""
        target = action.get("target")
        return target is not None and (not in_reach(state, seat, target)
                                       or not affects(state, seat, target, action["card"]))


SHOTS.add(SHOT, IgnoringShot())
