"""Hidden information: no view, projected event or encoded event shows a seat another
seat's hand cards, the deck, Kit Carlson's secret cards or an unrevealed role (BANG-005,
DESIGN 10; issue 9).

The oracle here is independent of ``view.py``: it works from the states before and after
each action. A card is *secret from* viewer ``v`` when, after the action, it lies in the
deck, in another seat's hand or among the cards Kit Carlson is choosing from, unless
``v`` already knew it: it was public before the action (in play, on the discard pile,
in a General Store offer), or in ``v``'s own hand before or after, or it is the second
card Black Jack must show (BANG-086). Every event kind the rules can emit is produced
by some scenario below; a kind added to the rules without one fails
:func:`test_every_event_kind_the_rules_emit_is_checked` instead of passing unchecked.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from bang_helpers import act, equip, give, stack_deck, table

from service.engine.ruleset import Action, Event, State
from service.games import bang
from service.games.bang.codec import EVENT_PB, ROLE_PB

SEEN_KINDS: set[str] = set()


def known_public(state: State) -> set[str]:
    """Cards every seat has seen: in play, on the discard pile, offered by a General Store, and the
    card a pending request answers (played face up; a reshuffle may since have put it in the deck)."""
    out = set(state["discard"])
    for p in state["p"]:
        out |= set(p["table"])
    for req in state["pending"]:
        if req["kind"] == "store":
            out |= set(req["args"]["cards"])
        if req["kind"] in ("bang", "indians", "duel") and req["args"].get("card"):
            out.add(req["args"]["card"])
    return out


def secret_from(state: State, viewer: int | None, known: set[str], unseen: set[str] | None = None) -> set[str]:
    """Cards of ``state`` that ``viewer`` must not see, ``known`` (already seen) excepted.

    ``unseen`` is the deck before the action: a card in the deck after it is secret if it
    was in the deck before too (drawn and put back, or never drawn); one that reached the
    deck from the discard pile by a reshuffle was seen on its way.
    """
    out = set(state["deck"]) & (set(state["deck"]) if unseen is None else unseen)
    for seat, p in enumerate(state["p"]):
        if seat != viewer:
            out |= set(p["hand"])
    for req in state["pending"]:
        if req["kind"] == "kit_carlson" and req["seat"] != viewer:
            out |= set(req["args"]["cards"])
    return out - known


def viewers(state: State) -> list[int | None]:
    """Every seat and a spectator."""
    return [None, *range(len(state["p"]))]


def role_may_show(state: State, owner: int, viewer: int | None) -> bool:
    """BANG-005: own role, the Sheriff's, a dead player's, or every role once the game is over."""
    p = state["p"][owner]
    return viewer == owner or p["role"] == "sheriff" or not p["alive"] or state["phase"] == "over"


def view_cards(pb: Any) -> set[str]:
    """Every card id anywhere in a view message."""
    out = {c.id for c in pb.hand} | {c.id for pl in pb.players for c in pl.in_play}
    out |= {c.id for r in pb.pending for c in r.cards} | {r.source_card.id for r in pb.pending if r.source_card.id}
    if pb.discard_top.id:
        out.add(pb.discard_top.id)
    return out


def check_view(state: State, viewer: int | None) -> None:
    """The view shows only what ``viewer`` may know, and his own hand in full."""
    pb = bang.view(state, viewer)
    own = set(state["p"][viewer]["hand"]) if viewer is not None else set()
    leaked = view_cards(pb) & secret_from(state, viewer, known_public(state) | own)
    assert not leaked, (viewer, leaked)
    assert [c.id for c in pb.hand] == (state["p"][viewer]["hand"] if viewer is not None else [])
    for i, pl in enumerate(pb.players):
        assert pl.hand_count == len(state["p"][i]["hand"])
        shown = role_may_show(state, i, viewer)
        assert pl.role == (ROLE_PB[state["p"][i]["role"]] if shown else 0), (viewer, i)
        assert bool(pl.role_goal) is shown


def check_events(before: State, after: State, events: list[Event]) -> None:
    """Each event, projected for and encoded to each viewer, shows nothing secret from him,
    and hides nothing from those who may know it: the seats involved, and everybody when
    every card of the event was or is now in the open."""
    public = known_public(before)
    shown = {c for e in events if e["kind"] == "draw" and e.get("reason") == "black_jack_shown" for c in e["cards"]}
    # A drawn card is secret when drawn (a reshuffle hides which one), whatever happens to it next.
    drawn = {c for e in events if e["kind"] in ("draw", "take", "look") for c in e.get("cards", [])}
    in_open = ((public | known_public(after)) - drawn) | shown
    for event in events:
        involved = {event.get("seat")} | ({event.get("other")} if event["kind"] == "take" else set())
        for viewer in viewers(after):
            if viewer in involved or set(event.get("cards", [])) <= in_open:
                assert bang.project(event, viewer) == event, (viewer, event)
    for viewer in viewers(after):
        known = public | shown
        if viewer is not None:
            known |= set(before["p"][viewer]["hand"]) | set(after["p"][viewer]["hand"])
        secret = secret_from(after, viewer, known, set(before["deck"]))
        for event in events:
            SEEN_KINDS.add(event["kind"])
            seen = bang.project(event, viewer)
            assert seen is not None
            assert not set(seen.get("cards", [])) & secret, (viewer, event)
            assert seen.get("count", len(seen.get("cards", []))) == len(event.get("cards", [])) or "cards" not in event
            encoded = bang.encode_event(seen)
            assert not {c.id for c in encoded.cards} & secret
            assert encoded.kind == EVENT_PB[event["kind"]]
            if event.get("role"):
                assert role_may_show(after, event["seat"], viewer), (viewer, event)
            if event.get("roles"):
                assert after["phase"] == "over"


def checked(state: State, seat: int, action: Action) -> list[Event]:
    """``act`` with every view and event checked against the oracle."""
    before = json.loads(json.dumps(state))
    events = act(state, seat, action)
    check_events(before, state, events)
    for viewer in viewers(state):
        check_view(state, viewer)
    return events


def checked_play(state: State, seat: int, card: str, target: int | None = None,
                 pick: str | None = None) -> list[Event]:
    action: Action = {"type": "play", "card": card}
    if target is not None:
        action["target"] = target
    if pick is not None:
        action["pick"] = pick
    return checked(state, seat, action)


def checked_pass_all(state: State) -> None:
    while state["pending"] and state["phase"] != "over":
        checked(state, bang.to_act(state)[0], {"type": "pass"})


def chars(n: int, **at: str) -> list[str]:
    out = ["black_jack"] * n
    for key, name in at.items():
        out[int(key[1:])] = name
    return out


# Scenarios, each producing some event kinds

def phase_one_of_each_drawing_character() -> None:
    for who in ("black_jack", "kit_carlson", "jesse_jones", "pedro_ramirez"):
        st = table(4, chars=chars(4, s1=who))
        give(st, 2, ["beer", "duel"])
        give(st, 0, ["missed"])
        stack_deck(st, ["bang:Ah", "beer:7h", "any:10c"])
        st["discard"] = [st["deck"].pop(0)]
        checked(st, 0, {"type": "end_turn"})
        if who == "kit_carlson":
            checked(st, 1, {"type": "choose", "card": st["pending"][-1]["args"]["cards"][0]})
        elif who == "jesse_jones":
            checked(st, 1, {"type": "draw", "source": "player", "target": 2})
        elif who == "pedro_ramirez":
            checked(st, 1, {"type": "draw", "source": "discard"})


def hand_limit_and_reshuffle() -> None:
    st = table(4)
    st["p"][0]["life"] = 1
    cards = give(st, 0, ["beer", "panic"])
    st["discard"], st["deck"] = st["deck"][:-2], st["deck"][-2:]
    checked(st, 0, {"type": "end_turn"})
    checked(st, 0, {"type": "discard", "card": cards[1]})


def shots_barrels_beer() -> None:
    st = table(5, chars=chars(5, s1="el_gringo", s4="bart_cassidy"))
    give(st, 1, ["missed"])
    barrel = equip(st, 4, ["barrel"])[0]
    stack_deck(st, ["any:2s", "beer", "duel"])
    b, beer, spare = give(st, 0, ["bang", "beer", "panic"])
    st["p"][0]["life"] = 3
    checked_play(st, 0, beer)
    equip(st, 0, ["volcanic"])
    checked_play(st, 0, b, target=1)
    checked(st, 1, {"type": "pass"})  # El Gringo takes the Panic!
    checked_play(st, 0, give(st, 0, ["bang"])[0], target=4)
    checked(st, 4, {"type": "barrel", "card": barrel})  # 2 of spades: hit, and Bart draws
    assert st["p"][4]["life"] == 3 and len(st["p"][4]["hand"]) == 1
    assert spare in st["p"][1]["hand"]
    checked(st, 0, {"type": "end_turn"})


def steal_and_store() -> None:
    st = table(4)
    give(st, 1, ["beer", "duel"])
    mustang = equip(st, 1, ["mustang"])[0]
    equip(st, 0, ["scope"])
    p1, p2, store, blue = give(st, 0, ["panic", "panic", "general_store", "barrel"])
    checked_play(st, 0, p1, target=1, pick="hand")
    checked_play(st, 0, p2, target=1, pick=mustang)
    checked_play(st, 0, blue)
    checked_play(st, 0, store)
    while st["pending"]:
        req = st["pending"][-1]
        checked(st, req["seat"], {"type": "choose", "card": req["args"]["cards"][0]})


def dynamite_jail_and_lucky_duke() -> None:
    st = table(4)
    equip(st, 1, ["dynamite"])
    stack_deck(st, ["any:Ks"])
    checked(st, 0, {"type": "end_turn"})  # the Dynamite moves on
    st = table(4, chars=chars(4, s1="lucky_duke"))
    equip(st, 1, ["jail"])
    flips = stack_deck(st, ["any:4s", "beer:9h"])
    checked(st, 0, {"type": "end_turn"})
    checked(st, 1, {"type": "choose", "card": flips[1]})
    st = table(4)
    equip(st, 1, ["dynamite"])
    stack_deck(st, ["any:5s"])
    checked(st, 0, {"type": "end_turn"})  # it explodes


def eliminations_sam_and_game_over() -> None:
    st = table(5, chars=chars(5, s3="vulture_sam", s0="sid_ketchum"),
               roles=["sheriff", "deputy", "outlaw", "renegade", "outlaw"])
    give(st, 2, ["beer", "duel"])
    equip(st, 2, ["barrel"])
    st["p"][2]["life"] = 1
    st["p"][0]["life"] = 3
    sid = give(st, 0, ["bang", "missed"])
    checked(st, 0, {"type": "ability", "cards": sid})
    checked_play(st, 0, give(st, 0, ["gatling"])[0])
    checked_pass_all(st)
    st["p"][1]["life"] = 1
    checked_play(st, 0, give(st, 0, ["duel"])[0], target=1)  # the penalty
    checked_pass_all(st)
    for seat in (3, 4):
        st["p"][seat]["life"] = 1
        st["p"][seat]["hand"] = []
        checked_play(st, 0, give(st, 0, ["duel"])[0], target=seat)
        checked_pass_all(st)
    assert bang.is_over(st)


def random_games() -> None:
    """A few seeded games of random legal moves from the real deal."""
    for seed in range(3):
        pick = random.Random(seed)
        st = bang.setup({}, 4 + seed, seed)
        opening = bang.opening_events(st)
        check_events(json.loads(json.dumps(st)), st, opening)
        for _ in range(120):
            if bang.is_over(st):
                break
            seat = bang.to_act(st)[0]
            checked(st, seat, pick.choice(bang.legal_actions(st, seat)))


def green_cards_in_play() -> None:
    """A green card put in play, and one used from play (the ``use`` event of issue 10's core;
    test rows from ``bang_core_helpers``, the base deck has no green card)."""
    from bang_core_helpers import extra_cards, extra_characters
    with extra_characters("t_apache"):  # and a card that passes over a player (the ``unaffected`` event)
        st = table(4, chars=["black_jack", "t_apache", "black_jack", "black_jack"])
        indians = give(st, 0, ["indians:Kd"])[0]
        give(st, 2, ["beer"])
        checked(st, 0, {"type": "play", "card": indians})
    with extra_cards("t_pony", "t_rifle") as ids:
        st = table(4)
        pony = give(st, 0, [ids["t_pony"][0]])[0]
        rifle = equip(st, 0, [ids["t_rifle"][0]])[0]
        give(st, 1, ["missed", "beer"])
        checked(st, 0, {"type": "play", "card": pony})
        checked(st, 0, {"type": "use", "card": rifle, "target": 1})


SCENARIOS: list[Callable[[], None]] = [phase_one_of_each_drawing_character, hand_limit_and_reshuffle,
                                       shots_barrels_beer, steal_and_store, dynamite_jail_and_lucky_duke,
                                       eliminations_sam_and_game_over, random_games, green_cards_in_play]


@pytest.mark.rule("BANG-005", "BANG-086", "BANG-094")
@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.__name__)
def test_no_view_or_event_shows_a_secret(scenario: Callable[[], None]) -> None:
    scenario()


def emitted_kinds() -> set[str]:
    """Event kinds written as literals anywhere in the BANG! rules."""
    root = Path(bang.__file__).parent
    text = "".join(p.read_text(encoding="utf-8") for p in root.rglob("*.py"))
    return set(re.findall(r'\{"kind": "([a-z_]+)"', text))


@pytest.mark.rule("BANG-005")
def test_every_event_kind_the_rules_emit_is_checked() -> None:
    SEEN_KINDS.clear()
    for scenario in SCENARIOS:
        scenario()
    kinds = emitted_kinds()
    assert len(kinds) >= 20  # the scan itself works
    assert kinds <= SEEN_KINDS, sorted(kinds - SEEN_KINDS)
    assert SEEN_KINDS <= set(EVENT_PB), sorted(SEEN_KINDS - set(EVENT_PB))


@pytest.mark.rule("BANG-005")
def test_the_oracle_catches_a_leak(monkeypatch: pytest.MonkeyPatch) -> None:
    """The checks above can fail: an unprojected private draw, and a role shown too early."""
    st = table(4)
    stack_deck(st, ["bang", "beer"])
    before = json.loads(json.dumps(st))
    events = act(st, 0, {"type": "end_turn"})
    check_events(before, st, events)
    with monkeypatch.context() as m:
        m.setattr(bang, "project", lambda e, s: e)
        with pytest.raises(AssertionError):
            check_events(before, st, events)
    check_view(st, 3)
    original = bang.view
    with monkeypatch.context() as m:
        m.setattr(bang, "view", lambda s, v: original(dict(s, phase="over"), v))
        with pytest.raises(AssertionError):
            check_view(st, 3)
