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
:func:`test_every_event_and_request_kind_is_checked` instead of passing unchecked.
"""

from __future__ import annotations

import copy
import json
import random
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from bang_helpers import act, equip, give, stack_deck, table

from tabletop_server.service.engine.errors import RuleError
from tabletop_server.service.engine.ruleset import Action, Event, State
from tabletop_server.service.games import bang
from tabletop_server.service.games.bang.codec import EVENT_PB, ROLE_PB
from tabletop_server.service.games.bang.pending import REQUESTS
from tabletop_server.service.games.bang.tables import CARDS, CHARACTERS, mode_of
from tests.volume import volumes

pytestmark = pytest.mark.usefixtures("armed")  # Armed & Dangerous scenarios (a no-op once it is offered)
SEEN_KINDS: set[str] = set()
SEEN_REQUESTS: set[str] = set()  # pending request kinds the oracle checked a view and legal actions under


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
    """BANG-005: own role, the Sheriff's, a dead player's, or every role once the game is over; every
    role in the 3-player game, whose roles are dealt face up (DC-042)."""
    p = state["p"][owner]
    return (viewer == owner or p["role"] == "sheriff" or not p["alive"] or state["phase"] == "over"
            or mode_of(len(state["p"])).face_up)


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


def action_cards(action: Action) -> set[str]:
    """The card ids an action names (``pick`` may be a card in play, ``hand`` or a character key)."""
    out = set(action.get("cards", []))
    out |= {v for v in (action.get("card"), action.get("pick")) if isinstance(v, str) and v in CARDS}
    return out


def check_legal_actions_and_errors(state: State) -> None:
    """Each seat's legal actions name only cards he may know, and a refused action's error names no
    secret card but the ones the caller sent himself."""
    SEEN_REQUESTS.update(r["kind"] for r in state["pending"])
    for viewer in range(len(state["p"])):
        known = known_public(state) | set(state["p"][viewer]["hand"])
        secret = secret_from(state, viewer, known)
        for action in bang.legal_actions(state, viewer):
            assert not action_cards(action) & secret, (viewer, action)
        for action in _refused_candidates(state, viewer):
            try:
                bang.apply(copy.deepcopy(state), viewer, action)
            except RuleError as err:
                text = " ".join([err.message, *err.details.values()])
                named = set(re.findall(r"[a-z_]+\.[a-z_]+\.[0-9AJQK]+[hdcs]", text))
                assert not named & (secret - action_cards(action)), (viewer, action, text)


def _refused_candidates(state: State, viewer: int) -> list[Action]:
    """Actions a seat may send that are likely refused: a card of the deck, another seat's card, a pass."""
    other = state["p"][(viewer + 1) % len(state["p"])]["hand"]
    out: list[Action] = [{"type": "pass"}, {"type": "end_turn"}]
    for card in ([state["deck"][-1]] if state["deck"] else []) + other[:1]:
        out += [{"type": "play", "card": card, "target": (viewer + 1) % len(state["p"])},
                {"type": "respond", "card": card}, {"type": "discard", "card": card}]
    return out


def checked(state: State, seat: int, action: Action) -> list[Event]:
    """``act`` with every view, event, legal action and error checked against the oracle."""
    check_legal_actions_and_errors(state)
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


def random_games(games: int = 3) -> None:
    """A few seeded games of random legal moves from the real deal."""
    for seed in range(games):
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


DC_CHARACTERS = sorted(k for k, c in CHARACTERS.items() if c.expansion == "dodge_city")


def dodge_city_random_games(games: int = 12) -> None:
    """Seeded Dodge City games of random legal moves over every seat count, 3 to 8, with the Dodge City
    characters seated (each at least twice): green cards played and used, costs paid (Brawl, Rag Time,
    Doc Holyday), Vera Custer's copy, Pat Brennan's pick from play, and the house rules on in half."""
    seat_of = iter(DC_CHARACTERS * 3)
    for game in range(games):
        seats = 3 + game % 6
        pick = random.Random(100 + game)
        house = {h: bool(game % 2) for h in ("jose_delgado_in_play", "pixie_pete_draws_four",
                                             "sean_mallory_unlimited")}
        st = bang.setup({"expansions": ["dodge_city"], **house}, seats, 100 + game)
        check_events(json.loads(json.dumps(st)), st, bang.opening_events(st))
        for seat in range(1, min(seats, 4)):  # seated from their first turn (the first seat's has begun)
            st["p"][(st["turn"] + seat) % seats]["char"] = next(seat_of, "black_jack")
        for _ in range(150):
            if bang.is_over(st):
                break
            seat = bang.to_act(st)[0]
            checked(st, seat, pick.choice(bang.legal_actions(st, seat)))


AD_CHARACTERS = sorted(k for k, c in CHARACTERS.items() if c.expansion == "armed_and_dangerous")


def armed_and_dangerous_decisions() -> None:
    """Each Armed & Dangerous question, asked and answered under the oracle: where a recharge cube goes,
    an upgrade and its payment, a Dangerous weapon's option and Buntline's discard, Ms. Abigail's
    ignore, Al Preacher's draw, Tumbleweed's redraw and the Bomb's passing."""
    from bang_helpers import ad_table, orange, pending_kind, set_cubes

    def answer(st: State, action: Action, kind: str) -> None:
        assert pending_kind(st) == kind, (kind, st["pending"][-1:])
        checked(st, st["pending"][-1]["seat"], action)

    st = ad_table(5, chars=chars(5, s1="ms_abigail", s2="al_preacher"))
    crate = orange(st, 0, "crate", 2)
    give(st, 2, ["beer", "missed"])
    set_cubes(st, 2, "character", 2)
    checked_play(st, 0, give(st, 0, ["mustang"])[0])
    answer(st, {"type": "ability", "cards": []}, "preacher")  # Al Preacher pays 2 and draws
    answer(st, {"type": "choose", "pick": crate}, "place_cubes")  # the Mustang's recharge cube
    set_cubes(st, 0, "character", 1)
    checked_play(st, 0, give(st, 0, ["caravan"])[0])
    answer(st, {"type": "upgrade"}, "upgrade")
    answer(st, {"type": "choose", "pick": "character"}, "pay_cubes")  # then the Crate's, the only ones left
    answer(st, {"type": "pass"}, "upgrade")  # no second purchase: draw 3
    give(st, 1, ["beer"])
    checked_play(st, 0, give(st, 0, ["cat_balou:Kh"])[0], target=1, pick="hand")
    answer(st, {"type": "ability", "cards": []}, "ignore")  # Ms. Abigail ignores it
    st = ad_table(4)
    buntline = orange(st, 0, "buntline_special")
    missed = give(st, 1, ["missed", "beer", "duel"])[0]
    checked_play(st, 0, give(st, 0, ["bang:Kh"])[0], target=1)
    answer(st, {"type": "use", "card": buntline}, "weapon")
    answer(st, {"type": "respond", "card": missed}, "bang")
    answer(st, {"type": "discard", "card": st["p"][1]["hand"][0]}, "discard_one")
    st = ad_table(4)
    weed = orange(st, 2, "tumbleweed")
    orange(st, 1, "bomb")
    stack_deck(st, ["any:5h", "any:6s"])
    give(st, 1, ["beer"])
    checked(st, 0, {"type": "end_turn"})
    answer(st, {"type": "use", "card": weed}, "redraw")  # the red draw! is made again
    answer(st, {"type": "pass"}, "redraw")  # and the black one counts
    st = ad_table(4)
    orange(st, 1, "bomb")
    stack_deck(st, ["any:5h"])
    checked(st, 0, {"type": "end_turn"})
    answer(st, {"type": "choose", "target": 3}, "pass_bomb")


def armed_and_dangerous_random_games(games: int = 10) -> None:
    """Seeded Armed & Dangerous games (alone and with Dodge City) of random legal moves, the A&D
    characters seated: cubes gained, paid, moved and lost under the oracle."""
    seat_of = iter(AD_CHARACTERS * 4)
    for game in range(games):
        expansions = ["armed_and_dangerous", *(["dodge_city"] if game % 2 else [])]
        seats = (3 + game % 6) if game % 2 else 4 + game % 4
        pick = random.Random(200 + game)
        st = bang.setup({"expansions": expansions}, seats, 200 + game)
        check_events(json.loads(json.dumps(st)), st, bang.opening_events(st))
        for seat in range(1, min(seats, 4)):
            st["p"][(st["turn"] + seat) % seats]["char"] = next(seat_of, "black_jack")
        for _ in range(150):
            if bang.is_over(st):
                break
            seat = bang.to_act(st)[0]
            checked(st, seat, pick.choice(bang.legal_actions(st, seat)))


SCENARIOS: list[Callable[[], None]] = [phase_one_of_each_drawing_character, hand_limit_and_reshuffle,
                                       shots_barrels_beer, steal_and_store, dynamite_jail_and_lucky_duke,
                                       eliminations_sam_and_game_over, random_games, green_cards_in_play,
                                       dodge_city_random_games, armed_and_dangerous_decisions,
                                       armed_and_dangerous_random_games]


# The many-game scenarios: (games in the fast tier, every game of the scenario, played in ``slow``).
RANDOM_SCENARIOS: dict[Callable[[int], None], tuple[int, int]] = {
    random_games: (1, 3), dodge_city_random_games: (2, 12), armed_and_dangerous_random_games: (2, 10)}


@pytest.mark.rule("BANG-005", "BANG-086", "BANG-094")
@pytest.mark.parametrize("scenario", [s for s in SCENARIOS if s not in RANDOM_SCENARIOS], ids=lambda s: s.__name__)
def test_no_view_or_event_shows_a_secret(scenario: Callable[[], None]) -> None:
    scenario()


@pytest.mark.rule("BANG-005", "BANG-086", "BANG-094")
@pytest.mark.parametrize(("scenario", "games"), [p for s, counts in RANDOM_SCENARIOS.items()
                                                 for p in volumes(*counts, s, name=s.__name__)])
def test_no_view_or_event_of_random_games_shows_a_secret(scenario: Callable[[int], None], games: int) -> None:
    """The random-game scenarios over a quick share of their games (fast tier), and over every one (``slow``)."""
    scenario(games)


def emitted_kinds() -> set[str]:
    """Event kinds written as literals anywhere in the BANG! rules."""
    root = Path(bang.__file__).parent
    text = "".join(p.read_text(encoding="utf-8") for p in root.rglob("*.py"))
    return set(re.findall(r'\{"kind": "([a-z_]+)"', text))


@pytest.mark.slow  # every scenario again, in one test (about 40 s on an idle machine): the whole suite's
@pytest.mark.timeout(1200)  # and sized for it under coverage on a loaded 2-core machine (5 min did not do)
@pytest.mark.rule("BANG-005")
def test_every_event_and_request_kind_is_checked() -> None:
    """Every event kind the rules emit, and every pending request kind (Dodge City's costs, Doc Holyday,
    Vera Custer's copy, Brawl's victims among them), went through the oracle above: the events were
    checked, and the views, legal actions and errors were checked while the request was pending. One
    pass over the scenarios serves both checks (each scenario is also a test of its own above)."""
    SEEN_KINDS.clear()
    SEEN_REQUESTS.clear()
    for scenario in SCENARIOS:
        scenario()
    kinds = emitted_kinds()
    assert len(kinds) >= 20  # the scan itself works
    assert kinds <= SEEN_KINDS, sorted(kinds - SEEN_KINDS)
    assert SEEN_KINDS <= set(EVENT_PB), sorted(SEEN_KINDS - set(EVENT_PB))
    assert set(REQUESTS) <= SEEN_REQUESTS, sorted(set(REQUESTS) - SEEN_REQUESTS)


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
