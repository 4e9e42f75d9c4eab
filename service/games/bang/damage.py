"""Damage, the dying window, elimination, rewards and penalties, and the win check.

Follows NOTES (c) "Response windows" and "Game over and elimination bookkeeping":
damage is applied, the dying window opens when life drops to 0 or below (only Beer
or Sid Ketchum's ability can close it), on-hit abilities run after it (Bart Cassidy
and El Gringo get nothing when the hit eliminates them), then elimination reveals the
role, Vulture Sam takes the cards, rewards and penalties apply, and the winners are
checked after every single elimination (roles.json ``win_rules_machine``) by the game
mode's win rule: ``standard`` for 4 to 8 players (with 8, each of the two Renegades plays
alone: only the last one alive wins, and the Sheriff killed while facing both gives the
Outlaws the win, DC-042/043), ``three_player`` for the Dodge City 3-player game.
"""

from __future__ import annotations

from collections.abc import Callable

from tabletop_server.service.engine.errors import RuleError
from tabletop_server.service.engine.handlers import Registry
from tabletop_server.service.games.bang.abilities import ability_of
from tabletop_server.service.games.bang.layout import Action, AfterHitStep, DyingRequest, Event, State
from tabletop_server.service.games.bang.pending import RequestKind, Step, request, step
from tabletop_server.service.games.bang.reasons import Reason
from tabletop_server.service.games.bang.state import (
    alive_seats,
    any_args,
    clear_table,
    draw,
    player,
    push,
    seats_from,
)
from tabletop_server.service.games.bang.tables import KILL_RULES, TYPE_OF, WIN_RULE_OF, mode_of

# The cards that answer the dying window, by effect name: the life one gives the dying seat. Registered by
# the card's module (``effects/healing.py``: Beer, BANG-046); no other card saves (DC-015).
Revive = Callable[[State, int], int]
REVIVES: Registry[Revive] = Registry("dying-window card")


def damage(state: State, seat: int, amount: int, source: int | None, events: list[Event],
           quiet: bool = False) -> None:
    """Take ``amount`` life from ``seat``; ``source`` is the responsible player (None: Dynamite).

    ``quiet``: the hit ignores the target's character ability, so no on-hit ability runs (a Big
    Fifty shot, AD-047: Bart Cassidy, El Gringo, Julie Cutter get nothing)."""
    p = player(state, seat)
    left = p["life"] - amount
    # Life never goes below 0: the dying window keeps how many points are still missing
    # to stay alive (2 life - 3 damage: 2 Beers needed, BANG-047).
    p["life"] = max(0, left)
    events.append({"kind": "damage", "seat": seat, "amount": amount, "life": p["life"],
                   "other": source})
    # Stack order: the dying window (top) resolves before the on-hit abilities.
    if not quiet:
        push(state, "after_hit", None, source, hit=seat, amount=amount)
    if left <= 0:
        push(state, "dying", seat, source, need=1 - left)


def heal(state: State, seat: int, amount: int, events: list[Event], reason: str) -> None:
    """Regain life, never above the maximum (BANG-045)."""
    p = player(state, seat)
    gained = max(0, min(amount, p["max"] - p["life"]))
    p["life"] += gained
    events.append({"kind": "heal", "seat": seat, "amount": gained, "life": p["life"], "reason": reason})


def revive(state: State, req: DyingRequest, amount: int, events: list[Event], reason: str) -> None:
    """Heal inside the dying window: the missing points first, then life from 1."""
    seat = req["seat"]
    p = player(state, seat)
    req["args"]["need"] -= amount
    if req["args"]["need"] <= 0:
        p["life"] = min(p["max"], 1 - req["args"]["need"])
        req["args"]["need"] = 0
    events.append({"kind": "heal", "seat": seat, "amount": amount, "life": p["life"], "reason": reason})
    if p["life"] >= 1 and state["pending"] and state["pending"][-1] is req:
        state["pending"].pop()


def beers_can_save(state: State, seat: int, need: int) -> bool:
    """Whether the Beers (``REVIVES``) and Sid Ketchum's discards in hand can bring ``seat`` back to 1 life."""
    if len(alive_seats(state)) <= 2:
        return False  # Beer has no effect with two players left (BANG-048).
    p = player(state, seat)
    lives = [REVIVES[TYPE_OF[c].effect](state, seat) for c in p["hand"] if TYPE_OF[c].effect in REVIVES]
    extra = (len(p["hand"]) - len(lives)) // 2 if ability_of(state, seat).activations(state, seat) else 0
    return bool(lives) and sum(lives) + extra >= need


def eliminate(state: State, seat: int, killer: int | None, events: list[Event]) -> None:
    """Remove a player from the game and settle rewards, penalties and the winners."""
    p = player(state, seat)
    p["alive"] = False
    p["life"] = 0
    events.append({"kind": "eliminated", "seat": seat, "role": p["role"], "other": killer})
    for other in seats_from(state, seat, include_self=False):
        ability_of(state, other).on_other_eliminated(state, other, seat, events)
    if killer is not None and killer != seat and player(state, killer)["alive"]:
        settle_kill(state, seat, killer, events)
    _discard_everything(state, seat, events, reason="eliminated")
    winners = WIN_RULES[WIN_RULE_OF[len(state["p"])]](state, seat, killer)
    if winners is not None:
        state["winners"] = winners
        state["phase"] = "over"
        for req in state["pending"]:  # cards a pending request held (a General Store's) are not lost
            state["discard"].extend(any_args(req).get("cards", []))
        state["pending"].clear()
        events.append({"kind": "game_over", "seats": winners, "roles": [q["role"] for q in state["p"]]})


def settle_kill(state: State, dead: int, killer: int, events: list[Event]) -> None:
    """The first reward or penalty of the game mode that matches (BANG-026, 027; data in roles.json)."""
    victim, by = player(state, dead)["role"], player(state, killer)["role"]
    for rule in KILL_RULES[WIN_RULE_OF[len(state["p"])]]:
        if rule.victim in ("any", victim) and rule.killer in ("any", by):
            if rule.then == "draw":
                draw(state, killer, rule.count, events, reason="reward")
            else:
                _discard_everything(state, killer, events, reason="penalty")
            return


WinRule = Callable[[State, int, "int | None"], "list[int] | None"]
WIN_RULES: Registry[WinRule] = Registry("win rule")


def win_rule(name: str) -> Callable[[WinRule], WinRule]:
    """Register how a variant decides the winners after an elimination; twice raises."""
    def deco(fn: WinRule) -> WinRule:
        return WIN_RULES.add(name, fn)
    return deco


@win_rule("standard")
def winners_now(state: State, dead: int | None = None, killer: int | None = None) -> list[int] | None:
    """4 to 7 (and 8) players: the winning seats if the game is over, else None (after every elimination)."""
    roles = [q["role"] for q in state["p"]]
    alive = alive_seats(state)
    sheriff = roles.index("sheriff")
    if not state["p"][sheriff]["alive"]:
        if len(alive) == 1 and roles[alive[0]] == "renegade":
            return alive
        return [s for s, r in enumerate(roles) if r == "outlaw"]
    if all(roles[s] in ("sheriff", "deputy") for s in alive):
        return [s for s, r in enumerate(roles) if r in ("sheriff", "deputy")]
    return None


@win_rule("three_player")
def own_target_or_last(state: State, dead: int | None = None, killer: int | None = None) -> list[int] | None:
    """3 players (Dodge City, DC-047, DC-048): a player who personally kills his own target wins at once;
    after any other first death (another player's kill, Dynamite) the two survivors play to be the last
    one alive, so the second death always ends the game."""
    alive = alive_seats(state)
    if len(alive) == 1:
        return alive
    if dead is not None and killer is not None and killer != dead and player(state, killer)["alive"]:
        targets = mode_of(len(state["p"])).targets
        if targets.get(player(state, killer)["role"]) == player(state, dead)["role"]:
            return [killer]
    return None


@request("dying")
class Dying(RequestKind[DyingRequest]):
    """The dying window: Beer (several if needed) or Sid Ketchum, else elimination (BANG-024, 046, 047)."""

    answers = frozenset({"respond", "pass"})

    def legal(self, state: State, req: DyingRequest) -> list[Action]:
        seat = req["seat"]
        out: list[Action] = [{"type": "pass"}]
        if beers_can_save(state, seat, req["args"]["need"]):
            seen: set[str] = set()
            for c in player(state, seat)["hand"]:
                if TYPE_OF[c].effect in REVIVES and c not in seen:
                    seen.add(c)
                    out.append({"type": "respond", "card": c})
        return out

    def check(self, state: State, req: DyingRequest, action: Action) -> None:
        if action["type"] == "pass":
            return
        card = action["card"]
        if TYPE_OF[card].effect not in REVIVES:
            raise RuleError(Reason.WRONG_ANSWER, "Only a Beer can save you from a lethal hit", card=card)
        if len(alive_seats(state)) <= 2:
            raise RuleError(Reason.BEER_WITH_TWO_PLAYERS, "Beer has no effect with two players left")
        if not beers_can_save(state, req["seat"], req["args"]["need"]):
            raise RuleError(Reason.BEER_CANNOT_SAVE, "Your Beers cannot bring you back above 0 life")

    def resolve(self, state: State, req: DyingRequest, action: Action, events: list[Event]) -> None:
        seat = req["seat"]
        if action["type"] == "pass":
            state["pending"].pop()
            eliminate(state, seat, req["source"], events)
            return
        p = player(state, seat)
        p["hand"].remove(action["card"])
        state["discard"].append(action["card"])
        saver = TYPE_OF[action["card"]].effect
        events.append({"kind": "respond", "seat": seat, "cards": [action["card"]], "reason": saver})
        revive(state, req, REVIVES[saver](state, seat), events, reason=saver)
        ability_of(state, seat).on_respond(state, seat, events)  # Molly Stark

    def settled(self, state: State, req: DyingRequest) -> bool:
        return bool(req["args"]["need"] <= 0)

    def auto(self, state: State, req: DyingRequest) -> Action | None:
        seat = req["seat"]
        if ability_of(state, seat).activations(state, seat):
            return None
        if player(state, seat)["hand"] and len(alive_seats(state)) > 2:
            return None  # asked even without enough Beers: waiting must not reveal his hand
        return {"type": "pass"}


@step("after_hit")
class AfterHit(Step[AfterHitStep]):
    """On-hit abilities, after the dying window and only for a survivor (RULINGS BANG-085/091)."""

    def run(self, state: State, req: AfterHitStep, events: list[Event]) -> None:
        seat = req["args"]["hit"]
        if player(state, seat)["alive"]:
            ability_of(state, seat).on_hit(state, seat, req["args"]["amount"], req["source"], events)


# Helpers

def _discard_everything(state: State, seat: int, events: list[Event], reason: str) -> None:
    p = player(state, seat)
    if p.get("cubes"):  # his character's cubes go back to the supply (AD-030; the Sheriff's penalty too)
        lost = p.pop("cubes")
        state["supply"] += lost
        events.append({"kind": "cubes", "seat": seat, "cards": [], "amount": -lost, "reason": reason})
    cards = p["hand"] + clear_table(state, seat)
    p["hand"] = []
    if cards:
        state["discard"].extend(cards)
        events.append({"kind": "discard", "seat": seat, "cards": cards, "reason": reason})
