"""Playing a card: pay for it, then do its effect (DESIGN 16; NOTES c "BANG! card vs BANG! effect").

The effect handlers in ``effects/`` never touch the source of the effect: paying is done
here, once per kind of source, and then the handler's ``resolve`` runs the same way
whatever paid for it. Sources:

- a card from the hand (``play``): discarded, announced by a ``play`` event (with
  ``other`` when it has a target); blue and green cards are ``placed`` instead (going
  into play is their effect, nothing is paid);
- a card in play (``use``, green cards now, orange cards later): discarded from play
  (orange: its cubes), see :func:`use_from_play`;
- an ability (Doc Holyday's two discards): the ability pays, then calls the effect.

After the card is paid for, a committed play runs through ``STAGES`` (:func:`proceed`), each
of which may stop to ask its player (or its target) a follow-up question; the request that
asks calls :func:`proceed` again with the next stage once answered, so legal actions never
multiply card x target x every way to pay:

- ``cost``: a row's extra ``cost`` (discard more cards, ``costs.py``);
- ``upgrade``: an Armed & Dangerous upgrade, bought with cubes (``upgrades.py``);
- ``weapon``: a Dangerous weapon's option for a real BANG! card, paid before the target reacts
  (``upgrades.py``);
- ``ignore``: a target who may ignore the card (Ms. Abigail; ``Ability.may_ignore``);
- ``effect``: the card's effect.

The BANG! card limit (one per turn, BANG-018) belongs to playing a BANG! *card* from the
hand, so it is checked and counted here, not in the BANG! effect (a BANG! effect from a
card in play or an ability does not count).
"""

from __future__ import annotations

from tabletop_server.service.engine.errors import MalformedAction, RuleError
from tabletop_server.service.games.bang.abilities import ability_of
from tabletop_server.service.games.bang.catalog import CardType
from tabletop_server.service.games.bang.costs import ask_cost, check_payable
from tabletop_server.service.games.bang.cubes import armed, on, pay_use
from tabletop_server.service.games.bang.effects import EFFECTS, Effect
from tabletop_server.service.games.bang.effects.attacks import may_shoot_again, pay_extra_bang
from tabletop_server.service.games.bang.layout import Action, Event, PlayStep, State
from tabletop_server.service.games.bang.modifiers import (
    card_played,
    card_played_out,
    ignores_target,
    seen_without_card_modifiers,
)
from tabletop_server.service.games.bang.pending import PLAY, Step, step
from tabletop_server.service.games.bang.reasons import Reason
from tabletop_server.service.games.bang.state import (
    discard_from_hand,
    passive_sum,
    player,
    push,
    ready,
    source_seat,
)
from tabletop_server.service.games.bang.tables import TYPE_OF
from tabletop_server.service.games.bang.targeting import check_affects, check_target
from tabletop_server.service.games.bang.upgrades import (
    after_placed,
    offer_upgrade,
    offer_weapon,
    reached_by_shot,
)
from tabletop_server.service.games.bang.versions import first_ad_readings

STAGES = ("cost", "upgrade", "weapon", "ignore", "effect")
PLAIN_STAGES = ("cost", "effect")  # a game without Armed & Dangerous (no upgrades, weapons, Ms. Abigail)


def play_type(state: State, seat: int, card: str) -> CardType:
    """How a card plays: as its player's character says (``Ability.plays_as``: Calamity Janet's Missed!)."""
    return ability_of(state, seat).plays_as(TYPE_OF[card])


def check_play(state: State, seat: int, action: Action) -> None:
    """Check a card played from the hand in phase 2: in hand, targeting, the BANG! limit, the card's rules."""
    card = action["card"]
    if card not in player(state, seat)["hand"]:
        raise RuleError(Reason.CARD_NOT_IN_HAND, "That card is not in your hand", card=card)
    t = play_type(state, seat, card)
    try:
        check_target(state, seat, t, action)
        check_affects(state, seat, card, action)
    except RuleError as err:
        if not (t.bang_card and _reached_by_shot(state, seat, action, err)):
            raise
    handler = EFFECTS[TYPE_OF[card].effect]
    check_effect(state, seat, t.name, handler, card, action)
    if t.bang_card and not may_shoot_again(state, seat):
        raise RuleError(Reason.BANG_ALREADY_PLAYED, "You have already played a BANG! this turn")
    handler.check(state, seat, card, action)
    if t.cost:
        check_payable(state, seat, card, t.cost, in_hand=True)


def _reached_by_shot(state: State, seat: int, action: Action, err: RuleError) -> bool:
    """A BANG! card out of reach or at a player it does not affect, whose weapon's shot reaches him (a Big
    Fifty's ignores his cards in play and ability; its cube is then due, ``upgrades.offer_weapon``)."""
    if not armed(state) or err.reason not in (Reason.OUT_OF_RANGE, Reason.TARGET_UNAFFECTED):
        return False
    return reached_by_shot(state, seat, action)


def check_effect(state: State, seat: int, name: str, handler: Effect, card: str, action: Action) -> None:
    """The fields every source shares: a ``pick`` only for cards that take one."""
    if "pick" in action and not handler.takes_pick:
        # A field the card cannot use is refused, never ignored (it would be kept in the log).
        raise MalformedAction(Reason.UNEXPECTED_TARGET, f"{name} takes no card of a player", field="pick")


def play_from_hand(state: State, seat: int, action: Action, events: list[Event]) -> None:
    """Pay for a checked card from the hand, then resolve its effect."""
    card = action["card"]
    handler = EFFECTS[TYPE_OF[card].effect]
    card_played(state, seat, card)
    if handler.placed:  # going into play is the whole effect; nothing else is asked
        card_played_out(state)
        handler.resolve(state, seat, card, action, events)
        if armed(state):
            after_placed(state, seat, card, events)
        return
    pay_from_hand(state, seat, card, action, events)
    t = play_type(state, seat, card)
    if t.bang_card:  # the row's fact (DC-016): Punch and Springfield are BANG! effects, not BANG! cards
        if state["bangs"] and not passive_sum(state, seat, "unlimited_bang"):
            pay_extra_bang(state, seat, events)
        state["bangs"] += 1
    proceed(state, seat, action, events, spec=t)


def spec_of(state: State, seat: int, action: Action) -> CardType:
    """What a committed play or use does: the played card's type (as it plays), or its ``use``."""
    t = TYPE_OF[action["card"]]
    if action["type"] == "use" and t.use is not None:
        return t.use
    return play_type(state, seat, action["card"]) if action["type"] == "play" else t


def proceed(state: State, seat: int, action: Action, events: list[Event], stage: str = "cost",
            spec: CardType | None = None) -> None:
    """Run a committed play's stages from ``stage`` on; one that asks a question stops here.

    The Armed & Dangerous stages are skipped in other games (no cubes, no Ms. Abigail), so that the
    base game pays nothing for them."""
    spec = spec or spec_of(state, seat, action)
    names = STAGES if "supply" in state else PLAIN_STAGES
    for name in names[names.index(stage) if stage in names else names.index("effect"):]:
        if _STAGE[name](state, seat, action, spec, events):
            return


def _cost_stage(state: State, seat: int, action: Action, spec: CardType, events: list[Event]) -> bool:
    return bool(spec.cost) and ask_cost(state, seat, action, spec.cost)


def _upgrade_stage(state: State, seat: int, action: Action, spec: CardType, events: list[Event]) -> bool:
    if action["type"] != "play":
        return False
    return offer_upgrade(state, seat, action)


def _weapon_stage(state: State, seat: int, action: Action, spec: CardType, events: list[Event]) -> bool:
    # The BANG! card as it plays: Calamity Janet's Missed! is her BANG! card, for the limit and the weapon (AD-020).
    if action["type"] != "play" or not spec.bang_card:
        return False
    return offer_weapon(state, seat, action)


def _ignore_stage(state: State, seat: int, action: Action, spec: CardType, events: list[Event]) -> bool:
    """A sole target who may ignore the card is asked first (Ms. Abigail; Big Fifty overrides her)."""
    target = action.get("target")
    if (target is None or target == seat or action["type"] != "play" or action.get("extra")
            or ignores_target(action)):
        return False
    if not ability_of(state, target).may_ignore(target, seat, action["card"]):
        return False
    push(state, "ignore", target, seat, card=action["card"], action=action.copy())
    return True


def _effect_stage(state: State, seat: int, action: Action, spec: CardType, events: list[Event]) -> bool:
    card_played_out(state)
    target = action.get("target")
    if isinstance(target, int) and not state["p"][target]["alive"]:
        # Its target left the game while the play's cost was pending (he conceded; nobody dies meanwhile
        # otherwise): the card is spent and does nothing, as a card aimed at a player no longer there.
        return True
    EFFECTS[spec.effect].resolve(state, seat, action["card"], action, events)
    return True


def _reach_seen(state: State, card: str) -> State:
    """The state a used card's reach is checked in: a green card's use is no card played, so a paid
    Bell Tower does not stretch it (AD-067; ``bang-ad-1``: it does). An orange card's use reaches any
    distance anyway (Lockpick, Whip)."""
    if TYPE_OF[card].color == "green" and not first_ad_readings(state):
        return seen_without_card_modifiers(state)
    return state


_STAGE = {"cost": _cost_stage, "upgrade": _upgrade_stage, "weapon": _weapon_stage, "ignore": _ignore_stage,
          "effect": _effect_stage}


@step(PLAY)
class PlayInProgress(Step[PlayStep]):
    """A committed play, as data (``pending.play_step``): its seat (``source``), its action (card, target,
    what was decided for it) and the stage to run next. A stage's request, once answered, names the
    next stage (``pending.continue_play``) and the pipeline goes on here."""

    def run(self, state: State, req: PlayStep, events: list[Event]) -> None:
        args = req["args"]
        proceed(state, source_seat(req), args["action"], events, args["stage"])


def pay_from_hand(state: State, seat: int, card: str, action: Action, events: list[Event]) -> None:
    """Discard the played card from the hand, face up: the table sees it (and its target)."""
    discard_from_hand(state, seat, card)
    event: Event = {"kind": "play", "seat": seat, "cards": [card]}
    if action.get("target") is not None:
        event["other"] = action["target"]
    events.append(event)


def check_use(state: State, seat: int, action: Action) -> CardType:
    """Check a card used from play in its player's phase 2: in front of him, usable, ready, then like a
    played card. (His own cards act in his own turn, so no silence applies: an answer with a card in
    play is checked by ``attacks.check_missed_in_play``.)"""
    card = action["card"]
    if card not in player(state, seat)["table"]:
        raise RuleError(Reason.CARD_NOT_IN_PLAY, "That card is not in play in front of you", card=card)
    use = TYPE_OF[card].use
    if use is None:
        raise RuleError(Reason.CARD_NOT_PLAYABLE_NOW, f"{TYPE_OF[card].name} is not used from play", card=card)
    if not ready(state, card):
        raise RuleError(Reason.CARD_NOT_READY, f"{use.name} can be used from the turn after it was played",
                        card=card)
    if use.missed:
        raise RuleError(Reason.CARD_NOT_PLAYABLE_NOW, f"{use.name} is used only to cancel a shot at you", card=card)
    if use.when != "own_turn":
        raise RuleError(Reason.CARD_NOT_PLAYABLE_NOW, f"{use.name} is used only {_WHEN_TEXT[use.when]}", card=card)
    check_cubes(state, seat, card)
    check_target(_reach_seen(state, card), seat, use, action)
    check_affects(state, seat, card, action)
    handler = EFFECTS[use.effect]
    check_effect(state, seat, use.name, handler, card, action)
    handler.check(state, seat, card, action)
    if use.cost:
        check_payable(state, seat, card, use.cost, in_hand=False)
    return use


def use_from_play(state: State, seat: int, action: Action, events: list[Event]) -> None:
    """Pay for a checked card in play (discard it from play), then resolve its use.

    Using a card in play is not playing a card (RULINGS AD-067): a Bell Tower paid before neither
    stretches it nor is spent by it, and stays for the next card played from the hand. A ``bang-ad-1``
    game keeps the first reading: a green card's use is stretched by it and spends it."""
    if TYPE_OF[action["card"]].color == "green" and first_ad_readings(state):
        card_played(state, seat, action["card"])
    pay_use(state, seat, action["card"], events, target=action.get("target"))
    proceed(state, seat, action, events)


def check_cubes(state: State, seat: int, card: str) -> None:
    """An orange card's use is paid from its own cubes only (AD-007)."""
    use = TYPE_OF[card].use
    need = int(use.cost.get("cubes", 0)) if use is not None else 0
    if on(state, seat, card) < need:
        raise RuleError(Reason.NOT_ENOUGH_CUBES, f"{TYPE_OF[card].name} needs {need} of its own cubes",
                        card=card, need=need)


_WHEN_TEXT = {"bang_card": "as you play a BANG! card", "extra_bang": "by playing a second BANG! card",
              "draw_check": "when someone draws!"}
