"""Helpers for BANG! scenario tests, imported as ``bang_helpers`` (conftest.py puts this folder on the path).

Build a scenario with :func:`table` (every card back in the deck, seat 0's phase 2,
nothing pending), place cards with :func:`give` / :func:`equip`, and stack the deck
with :func:`stack_deck` (first card listed = first drawn). Cards are named by id
(``"base.bang.2c"``), by name key (``"bang"``: any free copy), or by key and sign
(``"beer:7h"`` = the 7 of hearts Beer, ``"any:5s"`` = any card of 5 of spades). Then
act with :func:`act` / :func:`play`, which round-trip the state through JSON like the
service does, and read the returned events. Example::

    st = table(4, chars=["black_jack", "bart_cassidy", "black_jack", "black_jack"])
    bang_card = give(st, 0, ["bang"])[0]
    stack_deck(st, ["beer"])                 # Bart's draw
    play(st, 0, bang_card, target=1)         # seat 1 cannot answer: hit at once
    assert hand_keys(st, 1) == ["beer"]

Seat 0 is the Sheriff unless ``roles`` says otherwise; characters default to Black
Jack, whose ability only touches phase 1 (so end_turn draws 2, or 3 on a red 2nd card).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tabletop_server.service.engine.errors import RuleError
from tabletop_server.service.engine.ruleset import Action, Event, State
from tabletop_server.service.games import bang
from tabletop_server.service.games.bang.state import all_cards
from tabletop_server.service.games.bang.tables import CARDS, CHARACTERS, ROLE_POOLS, deck_and_characters

SUIT_LETTER = {"h": "hearts", "d": "diamonds", "c": "clubs", "s": "spades"}
PASS: Action = {"type": "pass"}


def table(n: int = 4, chars: list[str] | None = None, roles: list[str] | None = None, turn: int = 0,
          seed: int = 1, **opts: Any) -> State:
    """A clean n-player table: roles by seat from the mode's pool unless ``roles`` says otherwise
    (seat 0 is the Sheriff; with 3 players, Dodge City: Deputy, Outlaw, Renegade; with 8:
    S, R, O, O, O, D, D, R).

    Characters default to Black Jack (whose ability only touches phase 1). Life is the
    character's bullets, +1 for the Sheriff. Hands and tables are empty, it is
    ``turn``'s phase 2, and nothing is pending. The deck holds the cards of the game's
    expansions (``expansions=["dodge_city"]``).
    """
    state = bang.setup(opts, n, seed)
    roles = roles or list(ROLE_POOLS[n])
    chars = chars or ["black_jack"] * n
    state["deck"] = sorted(deck_and_characters(state["opts"]["expansions"])[0])
    state["discard"] = []
    for seat, p in enumerate(state["p"]):
        life = CHARACTERS[chars[seat]].life + (1 if roles[seat] == "sheriff" else 0)
        p.update(role=roles[seat], char=chars[seat], life=life, max=life, hand=[], table=[], alive=True)
    state.update(turn=turn, phase="play", pending=[], bangs=0, turn_no=1, winners=[])
    if "supply" in state:  # Armed & Dangerous: every cube back in the supply (Red Ringo's 4 too)
        state["supply"] = 32
        state.pop("marks", None)
        for p in state["p"]:
            p.pop("cubes", None)
    return state


def ad_table(n: int = 4, **kw: Any) -> State:
    """A clean table (see :func:`table`) with Armed & Dangerous' cards and its 32 cubes in the supply
    (``expansions`` may add Dodge City: ``ad_table(4, expansions=["dodge_city"])``). Needs the
    ``armed`` fixture while the expansion is not offered to clients."""
    expansions = ["armed_and_dangerous", *kw.pop("expansions", [])]
    return table(n, expansions=expansions, **kw)


def first_readings(state: State) -> State:
    """Make ``state`` a game stored before issue 32 (rules version ``bang-ad-1``): every recharge
    cube is placed, and a green card used from play is stretched by a paid Bell Tower and spends it."""
    state["v"] = "bang-ad-1"
    return state


def recharge(state: State, seat: int, pick: str | None = "character") -> list[Event]:
    """Answer the recharge cube ``seat`` is offered (AD-009, AD-011): place it on ``pick``, or
    decline it (``pick=None``)."""
    req = state["pending"][-1]
    assert (req["kind"], req["seat"], req["args"].get("optional")) == ("place_cubes", seat, True), req
    return act(state, seat, {"type": "pass"} if pick is None else {"type": "choose", "pick": pick})


# Orange cards the A&D tests never use: where drain() parks cubes to empty the supply.
PARKING = ["ace_up_the_sleeve", "bandolier", "bell_tower", "beer_keg", "lockpick", "tumbleweed", "big_fifty"]


def drain(st: State, left: int) -> None:
    """Park cubes on seat 3 (his character, then orange cards) until the supply holds ``left``."""
    from tabletop_server.service.games.bang import cubes
    set_cubes(st, 3, "character", min(4, st["supply"] - left))
    for name in PARKING:
        if st["supply"] == left:
            break
        card = equip(st, 3, [name])[0]
        set_cubes(st, 3, card, min(4, st["supply"] - left))
    assert st["supply"] == left and cubes.total(st) == cubes.SUPPLY


def set_cubes(state: State, seat: int, holder: str, count: int) -> None:
    """Put exactly ``count`` cubes on a holder of ``seat`` (``"character"`` or an orange card's id in
    play), taken from or given back to the supply, so the 32 are conserved."""
    from tabletop_server.service.games.bang import cubes
    have = cubes.on(state, seat, holder)
    state["supply"] -= count - have
    assert state["supply"] >= 0, "not that many cubes left in the supply"
    if holder == cubes.CHARACTER:
        if count:
            state["p"][seat]["cubes"] = count
        else:
            state["p"][seat].pop("cubes", None)
    else:
        state.setdefault("marks", {}).setdefault(holder, {})["cubes"] = count


def cubes_on(state: State, seat: int, holder: str = "character") -> int:
    """Cubes on a holder of ``seat`` (his character by default, or an orange card's id)."""
    from tabletop_server.service.games.bang import cubes
    return cubes.on(state, seat, holder)


def orange(state: State, seat: int, name: str, count: int = 3) -> str:
    """Put an orange card (id, key or ``key:sign``) in play in front of ``seat`` with ``count`` cubes
    from the supply; returns its id."""
    card = equip(state, seat, [name])[0]
    set_cubes(state, seat, card, count)
    return card


def with_weapon(state: State, weapon: str, count: int = 3, card: str = "bang:4d") -> tuple[str, str]:
    """Seat 0 with the orange ``weapon`` in play (``count`` cubes on it) and a BANG! card in hand (the 4 of
    diamonds unless ``card`` says otherwise: a diamond, so the Double Barrel may be used); returns both ids."""
    return orange(state, 0, weapon, count), give(state, 0, [card])[0]


def shoot(state: State, card: str, target: int, weapon: str) -> list[Event]:
    """Seat 0 plays the BANG! ``card`` at ``target`` and uses ``weapon`` when asked (AD-019); returns the
    events of the weapon's use."""
    play(state, 0, card, target=target)
    return act(state, 0, {"type": "use", "card": weapon})


def card_id(state: State, name: str, free_only: bool = True) -> str:
    """Resolve an id, a key or ``key:RANKsuit`` to a card id still in the deck or discard pile."""
    if name in CARDS:
        return name
    key, _, sign = name.partition(":")
    pool = state["deck"] + state["discard"] if free_only else all_cards(state)
    for cid in pool:
        c = CARDS[cid]
        if key in (c.key, "any") and (not sign or (c.rank + c.suit[0]) == sign):
            return cid
    raise LookupError(f"no free card {name!r}")


def _take(state: State, name: str) -> str:
    cid = card_id(state, name)
    for pile in (state["deck"], state["discard"]):
        if cid in pile:
            pile.remove(cid)
            return cid
    for p in state["p"]:
        for zone in (p["hand"], p["table"]):
            if cid in zone:
                zone.remove(cid)
                return cid
    raise LookupError(cid)


def stack_deck(state: State, cards: list[str]) -> list[str]:
    """Put ``cards`` on top of the deck, the first listed drawn first; returns their ids."""
    ids = [_take(state, c) for c in cards]
    state["deck"].extend(reversed(ids))
    return ids


def give(state: State, seat: int, cards: list[str]) -> list[str]:
    """Put cards into a seat's hand; returns their ids."""
    ids = [_take(state, c) for c in cards]
    state["p"][seat]["hand"].extend(ids)
    return ids


def equip(state: State, seat: int, cards: list[str]) -> list[str]:
    """Put cards in play in front of a seat; returns their ids."""
    ids = [_take(state, c) for c in cards]
    state["p"][seat]["table"].extend(ids)
    return ids


def act(state: State, seat: int, action: Action) -> list[Event]:
    """Apply an action after a JSON round trip (as the service stores states); returns the events."""
    fresh = json.loads(json.dumps(state))
    events = bang.apply(fresh, seat, action)
    state.clear()
    state.update(fresh)
    return events


def play(state: State, seat: int, card: str, target: int | None = None, pick: str | None = None) -> list[Event]:
    """Play a card from hand (id) in phase 2."""
    action: Action = {"type": "play", "card": card}
    if target is not None:
        action["target"] = target
    if pick is not None:
        action["pick"] = pick
    return act(state, seat, action)


def kinds(events: list[Event]) -> list[str]:
    """The kinds of a list of events, for compact asserts."""
    return [e["kind"] for e in events]


def hand_keys(state: State, seat: int) -> list[str]:
    """The name keys in a seat's hand."""
    return sorted(CARDS[c].key for c in state["p"][seat]["hand"])


def table_keys(state: State, seat: int) -> list[str]:
    """The name keys in play in front of a seat."""
    return sorted(CARDS[c].key for c in state["p"][seat]["table"])


def pending_kind(state: State) -> str | None:
    """The kind of the request on top, if any."""
    return state["pending"][-1]["kind"] if state["pending"] else None


def pass_all(state: State) -> list[Event]:
    """Every asked seat takes the hit / gives up, until nothing is pending; returns the events.

    The engine answers for a player only when his hand is empty (and no Barrel or ability
    is left): whether he holds a Missed! or a Beer must not show in how the game proceeds.
    """
    events: list[Event] = []
    while state["pending"] and state["phase"] != "over":
        events += act(state, bang.to_act(state)[0], {"type": "pass"})
    return events


def duel_kill(state: State, killer: int, victim: int) -> list[Event]:
    """``killer`` eliminates ``victim`` in ``killer``'s phase 2 with a Duel (any distance).

    The victim is put at 1 life with an empty hand, so he cannot answer and the engine
    takes the lost Duel for him; the killer's own hand is left as it was. Returns the events.
    """
    state["turn"], state["phase"] = killer, "play"
    state["p"][victim]["life"] = 1
    for card in list(state["p"][victim]["hand"]):
        state["p"][victim]["hand"].remove(card)
        state["deck"].insert(0, card)
    duel = give(state, killer, ["duel"])[0]
    return play(state, killer, duel, target=victim)


def dead(state: State, *seats: int) -> None:
    """Mark seats as already eliminated before the scenario starts (cards back in the deck)."""
    for seat in seats:
        p = state["p"][seat]
        state["deck"][:0] = p["hand"] + p["table"]
        p.update(alive=False, life=0, hand=[], table=[])


def rewrite(folder: Path, name: str, change: Callable[[Any], object]) -> None:
    """Apply ``change`` to the JSON document ``folder/name`` in place (a damaged copy of the data)."""
    doc = json.loads((folder / name).read_text(encoding="utf-8"))
    change(doc)
    (folder / name).write_text(json.dumps(doc), encoding="utf-8")


def chars(n: int, **at: str) -> list[str]:
    """Characters of an n-player table: Black Jack everywhere, except ``s<seat>=key``."""
    out = ["black_jack"] * n
    for k, v in at.items():
        out[int(k[1:])] = v
    return out


def refusal(st: State, seat: int, action: Action) -> RuleError:
    """The action is not listed and is refused without changing anything; the error, to read."""
    assert action not in bang.legal_actions(st, seat)
    before = copy.deepcopy(st)
    with pytest.raises(RuleError) as err:
        bang.apply(st, seat, action)
    assert st == before
    return err.value


def refused(st: State, seat: int, action: Action, reason: str) -> None:
    """The action is not listed, is refused with ``reason``, and changes nothing."""
    assert refusal(st, seat, action).reason == reason