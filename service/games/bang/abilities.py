"""Character abilities: the hooks a character may implement, and their registry (DESIGN 7).

A character row names its handler (``"ability": "bart_cassidy"``); passive numbers
(distance, Barrel, BANG! limit) are ``traits`` in the row, and the handler implements
the hooks the ability needs. The handlers live in ``characters/`` (``base.py`` holds the 16
base characters; an expansion adds its own modules), which register here; this module sits
below every mechanic that consults a character, so that none of them imports a character's
module (no import cycle: a character's ability may use any mechanic). Registering a name twice raises.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from tabletop_server.service.engine.errors import RuleError
from tabletop_server.service.engine.handlers import Registry
from tabletop_server.service.games.bang.catalog import CardType
from tabletop_server.service.games.bang.layout import Action, BangRequest, DuelRequest, Event, State
from tabletop_server.service.games.bang.reasons import Reason
from tabletop_server.service.games.bang.tables import CHARACTERS

A = TypeVar("A", bound=type["Ability"])


class Ability:
    """Hooks a character may implement; the defaults do nothing."""

    # Whether the ``ability`` action names a ``target`` seat (Doc Holyday); otherwise one is refused.
    takes_target: bool = False

    def draw_phase(self, state: State, seat: int, events: list[Event]) -> bool:
        """Phase 1 instead of drawing 2; return False to draw normally."""
        return False

    def draw_options(self, state: State, seat: int) -> list[Action]:
        """Phase 1 choices offered by a ``draw`` request (Jesse Jones, Pedro Ramirez)."""
        return []

    def draw_choice(self, state: State, seat: int, action: Action, events: list[Event]) -> None:
        """Apply a checked phase 1 choice."""

    def on_hit(self, state: State, seat: int, amount: int, source: int | None, events: list[Event]) -> None:
        """After a hit that the player survived (after the dying window, NOTES c)."""

    def on_other_eliminated(self, state: State, seat: int, dead: int, events: list[Event]) -> None:
        """Another character was eliminated (before his cards are discarded)."""

    def on_empty_hand(self, state: State, seat: int, events: list[Event]) -> None:
        """The player's hand became empty."""

    def unaffected_by(self, card: str) -> bool:
        """Whether ``card``, played or used by another seat, has no effect on the player (Apache Kid)."""
        return False

    def on_respond(self, state: State, seat: int, events: list[Event]) -> None:
        """The player answered a request with a card from his hand (Molly Stark)."""

    def on_duel_over(self, state: State, seat: int, duel: DuelRequest) -> None:
        """A Duel the player took part in is over (before its loser's damage; Molly Stark's replacements)."""

    def may_ignore(self, seat: int, by: int, card: str) -> bool:
        """Whether the player may choose to ignore ``card`` of another seat ``by`` aimed at him alone (Ms. Abigail)."""
        return False

    def on_card_placed(self, state: State, seat: int, by: int, card: str) -> None:
        """Another seat ``by`` put a blue or orange card in play (Armed & Dangerous: Al Preacher)."""

    def on_shot_cancelled(self, state: State, seat: int, shot: BangRequest, events: list[Event]) -> None:
        """A BANG! effect of this player was cancelled (``shot`` is its request; Bloody Mary)."""

    def plays_as(self, card_type: CardType) -> CardType:
        """How a card of ``card_type`` from the player's hand plays in his turn (Calamity Janet's Missed!)."""
        return card_type

    def hand_limit(self, state: State, fixed: int) -> int:
        """Phase 3 hand limit of a character with the ``hand_limit`` trait ``fixed`` (``turn.hand_limit``)."""
        return fixed

    def activations(self, state: State, seat: int) -> list[Action]:
        """Legal uses of an activated ability now."""
        return []

    def check_activate(self, state: State, seat: int, action: Action) -> None:
        """Raise RuleError unless the ability may be used as ``action`` says."""
        raise RuleError(Reason.NO_SUCH_ABILITY, "Your character has no ability to activate")

    def activate(self, state: State, seat: int, action: Action, events: list[Event]) -> None:
        """Use the activated ability (checked)."""


ABILITIES: Registry[Ability] = Registry("ability")
# The abilities that implement ``on_empty_hand`` (Suzy Lafayette's): the engine asks after every step whether a
# hand is empty, and a hand that is empty is common, so it calls none of the others to do nothing.
EMPTY_HAND_ABILITIES: set[str] = set()


def ability(name: str) -> Callable[[A], A]:
    """Register an ability handler class under ``name``."""
    def deco(cls: A) -> A:
        ABILITIES.add(name, cls())
        if cls.on_empty_hand is not Ability.on_empty_hand:
            EMPTY_HAND_ABILITIES.add(name)
        return cls
    return deco


def ability_of(state: State, seat: int) -> Ability:
    """The ability handler of the seat's acting character (see ``state.acting_character``; the lookup of
    :func:`ability_name`, written out: every action asks it several times)."""
    p = state["p"][seat]
    return ABILITIES[CHARACTERS[p.get("as") or p["char"]].ability]


def ability_name(state: State, seat: int) -> str:
    """The registered name of the seat's acting character's ability (the reason its events give)."""
    p = state["p"][seat]
    return CHARACTERS[p.get("as") or p["char"]].ability
