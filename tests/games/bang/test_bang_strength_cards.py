"""Card and table rules, each tested so that it fails when its rule breaks (issue 9).

Every scenario goes through the public ruleset functions (``legal_actions`` and
``apply``, via the helpers' ``act``/``play``) on a table set up by ``bang_helpers``,
and tests both sides of each boundary: what a BANG! may target with every distance
modifier and weapon, every suit and rank of a "draw!", the dying window with two and
with three players left.
"""

from __future__ import annotations

import pytest
from bang_helpers import act, card_id, equip, give, kinds, pending_kind, play, stack_deck, table, table_keys

from tabletop_server.service.engine.errors import RuleError
from tabletop_server.service.engine.ruleset import Action, State
from tabletop_server.service.games import bang
from tabletop_server.service.games.bang.catalog import RANK_VALUE
from tabletop_server.service.games.bang.tables import CARDS

SUITS = ("hearts", "diamonds", "clubs", "spades")
RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")


def refusal(state: State, seat: int, action: Action) -> str:
    """The reason ``apply`` gives for refusing ``action`` (the state is left as it was)."""
    with pytest.raises(RuleError) as err:
        act(state, seat, action)
    return err.value.reason


def bang_targets(state: State, seat: int = 0) -> list[int]:
    """The seats a BANG! card in ``seat``'s hand may be played at, from ``legal_actions``."""
    return sorted(a["target"] for a in bang.legal_actions(state, seat)
                  if a["type"] == "play" and CARDS[a["card"]].key == "bang")


def sign(rank: str, suit: str) -> str:
    """A helpers' card name for any card of that rank and suit."""
    return f"any:{rank}{suit[0]}"


def reach_table(chars: list[str] | None = None) -> State:
    """7 seats, seat 0 (the Sheriff) holds a BANG!: seat distances 1, 2, 3, 3, 2, 1."""
    st = table(7, chars=chars)
    give(st, 0, ["bang"])
    return st


def eight_seats() -> State:
    """An 8-seat table (the base game deals 4 to 7: an 8th seat is added by hand) whose
    targets sit at every distance from 1 to 6 from seat 0:

    seat 1: 1, seat 2: 2, seat 6 (Paul Regret): 2 + 1 = 3, seat 5 (Paul Regret): 3 + 1 = 4,
    seat 3 (Paul Regret, Mustang): 3 + 2 = 5, seat 4 (Paul Regret, Mustang): 4 + 2 = 6, seat 7: 1.
    """
    chars = ["black_jack", "black_jack", "black_jack", "paul_regret", "paul_regret", "paul_regret",
             "paul_regret"]
    st = table(7, chars=chars)
    st["p"].append({**st["p"][1], "hand": [], "table": [], "role": "outlaw"})
    equip(st, 3, ["mustang"])
    equip(st, 4, ["mustang"])
    give(st, 0, ["bang"])
    return st


DISTANCE_OF_EIGHT = {1: 1, 2: 2, 3: 5, 4: 6, 5: 4, 6: 3, 7: 1}


# BANG! reach: what a BANG! may actually target (BANG-034..041, 096, 098)

@pytest.mark.rule("BANG-039", "BANG-040", "BANG-042")
def test_colt_reaches_distance_one_not_two() -> None:
    st = reach_table()
    assert bang_targets(st) == [1, 6]
    bang_card = st["p"][0]["hand"][0]
    assert refusal(st, 0, {"type": "play", "card": bang_card, "target": 2}) == "OUT_OF_RANGE"
    assert refusal(st, 0, {"type": "play", "card": bang_card, "target": 5}) == "OUT_OF_RANGE"
    play(st, 0, bang_card, target=6)
    assert st["p"][6]["life"] == 3  # seat 6 held nothing: the hit is applied at once


@pytest.mark.rule("BANG-036", "BANG-039")
def test_mustang_puts_its_owner_one_further_for_a_bang_not_the_other_way() -> None:
    st = reach_table()
    equip(st, 1, ["mustang"])
    assert bang_targets(st) == [6]  # seat 1 is at 2 now
    assert refusal(st, 0, {"type": "play", "card": st["p"][0]["hand"][0], "target": 1}) == "OUT_OF_RANGE"
    equip(st, 0, ["schofield"])
    assert bang_targets(st) == [1, 2, 5, 6]  # range 2 reaches the Mustang at 2 again
    # The owner of a Mustang sees the others at their normal distance.
    st2 = reach_table()
    equip(st2, 0, ["mustang"])
    assert bang_targets(st2) == [1, 6]


@pytest.mark.rule("BANG-037", "BANG-039")
def test_scope_brings_everyone_one_closer_for_its_owner_only() -> None:
    st = reach_table()
    equip(st, 0, ["scope"])
    assert bang_targets(st) == [1, 2, 5, 6]  # 2 - 1 = 1; seats 3 and 4 at 3 - 1 = 2
    assert refusal(st, 0, {"type": "play", "card": st["p"][0]["hand"][0], "target": 3}) == "OUT_OF_RANGE"
    play(st, 0, st["p"][0]["hand"][0], target=2)
    assert st["p"][2]["life"] == 3
    # The others see the owner of a Scope normally: seat 2 (Colt) cannot reach seat 0 at 2.
    st2 = reach_table()
    equip(st2, 0, ["scope"])
    st2["turn"] = 2
    give(st2, 2, ["bang"])
    assert bang_targets(st2, 2) == [1, 3]


@pytest.mark.rule("BANG-038", "BANG-039")
def test_scope_and_mustang_cancel_out() -> None:
    st = reach_table()
    equip(st, 0, ["scope"])
    equip(st, 2, ["mustang"])
    assert bang_targets(st) == [1, 5, 6]  # seat 2: 2 - 1 + 1 = 2


@pytest.mark.rule("BANG-096", "BANG-036", "BANG-039")
def test_paul_regret_is_one_further_and_two_with_a_mustang() -> None:
    st = reach_table(chars=["black_jack", "paul_regret", "black_jack", "black_jack", "black_jack",
                            "black_jack", "black_jack"])
    assert bang_targets(st) == [6]  # Paul at 1 + 1 = 2
    equip(st, 0, ["schofield"])
    assert bang_targets(st) == [1, 2, 5, 6]
    equip(st, 1, ["mustang"])
    assert bang_targets(st) == [2, 5, 6]  # Paul with a Mustang: 1 + 2 = 3
    assert refusal(st, 0, {"type": "play", "card": st["p"][0]["hand"][0], "target": 1}) == "OUT_OF_RANGE"
    play(st, 0, give(st, 0, ["remington"])[0])
    assert 1 in bang_targets(st)


@pytest.mark.rule("BANG-098", "BANG-037", "BANG-039")
def test_rose_doolan_sees_one_closer_and_two_with_a_scope_never_below_one() -> None:
    st = reach_table(chars=["rose_doolan"] + ["black_jack"] * 6)
    assert bang_targets(st) == [1, 2, 5, 6]  # 2 - 1 = 1, 3 - 1 = 2
    assert refusal(st, 0, {"type": "play", "card": st["p"][0]["hand"][0], "target": 3}) == "OUT_OF_RANGE"
    equip(st, 0, ["scope"])
    assert bang_targets(st) == [1, 2, 3, 4, 5, 6]  # 3 - 2 = 1; 1 - 2 stays 1
    equip(st, 3, ["mustang"])
    assert bang_targets(st) == [1, 2, 4, 5, 6]  # 3 - 2 + 1 = 2
    # Others see Rose normally: seat 2 cannot reach her at 2.
    st["turn"] = 2
    give(st, 2, ["bang"])
    assert 0 not in bang_targets(st, 2)


@pytest.mark.rule("BANG-039", "BANG-040", "BANG-041", "BANG-078", "BANG-079", "BANG-080", "BANG-081",
                  "BANG-082")
@pytest.mark.parametrize("weapon,reach", [(None, 1), ("volcanic", 1), ("schofield", 2), ("remington", 3),
                                           ("rev_carabine", 4), ("winchester", 5)])
def test_every_weapon_reaches_its_range_and_not_one_more(weapon: str | None, reach: int) -> None:
    st = eight_seats()
    if weapon:
        play(st, 0, give(st, 0, [weapon])[0])
    assert bang_targets(st) == sorted(s for s, d in DISTANCE_OF_EIGHT.items() if d <= reach)
    bang_card = next(c for c in st["p"][0]["hand"] if CARDS[c].key == "bang")
    too_far = next(s for s, d in DISTANCE_OF_EIGHT.items() if d == reach + 1)
    assert refusal(st, 0, {"type": "play", "card": bang_card, "target": too_far}) == "OUT_OF_RANGE"
    at_range = next(s for s, d in DISTANCE_OF_EIGHT.items() if d == reach)
    play(st, 0, bang_card, target=at_range)
    assert st["p"][at_range]["life"] == st["p"][at_range]["max"] - 1


@pytest.mark.rule("BANG-035", "BANG-039")
def test_a_dead_player_no_longer_counts_toward_reach() -> None:
    st = reach_table()
    assert 2 not in bang_targets(st)
    st["p"][1]["alive"] = False
    assert bang_targets(st) == [2, 6]  # seat 1 dead: seat 2 at 1, seat 1 no target


# "Distance 1" cards (Panic!) count Mustang and Scope, never weapons (BANG-053, 065)

def panic_targets(state: State) -> list[int]:
    """The seats a Panic! in seat 0's hand may be played at (any pick), from ``legal_actions``."""
    return sorted({a["target"] for a in bang.legal_actions(state, 0)
                   if a["type"] == "play" and CARDS[a["card"]].key == "panic"})


@pytest.mark.rule("BANG-053", "BANG-065", "BANG-066")
def test_panic_reaches_distance_one_with_modifiers_never_weapons() -> None:
    st = table(5)
    give(st, 0, ["panic"])
    for s in range(1, 5):
        give(st, s, ["beer"])
    assert panic_targets(st) == [1, 4]  # yourself has nothing to take
    equip(st, 0, ["winchester"])
    assert panic_targets(st) == [0, 1, 4]  # the Winchester (in play) can be taken back; reach unchanged
    equip(st, 1, ["mustang"])
    assert panic_targets(st) == [0, 4]
    panic = st["p"][0]["hand"][0]
    assert refusal(st, 0, {"type": "play", "card": panic, "target": 1, "pick": "hand"}) == "OUT_OF_RANGE"
    equip(st, 0, ["scope"])
    assert panic_targets(st) == [0, 1, 2, 3, 4]  # seat 1: 1 + 1 - 1 = 1, seats 2, 3: 2 - 1 = 1


# Draw! checks: every suit and rank (BANG-049, 069, 070, 075, 076)

@pytest.mark.rule("BANG-069", "BANG-049", "BANG-050")
@pytest.mark.parametrize("suit", SUITS)
def test_barrel_cancels_on_a_heart_only(suit: str) -> None:
    for rank in RANKS:
        st = table(4)
        barrel = equip(st, 1, ["barrel"])[0]
        give(st, 1, ["beer"])  # a hand: the shot waits for his answer
        flipped = stack_deck(st, [sign(rank, suit)])[0]
        play(st, 0, give(st, 0, ["bang"])[0], target=1)
        events = act(st, 1, {"type": "barrel", "card": barrel})
        assert flipped == st["discard"][-1]
        success = next(e["success"] for e in events if e["kind"] == "barrel")
        assert success is (suit == "hearts"), (rank, suit)
        if suit == "hearts":
            assert not st["pending"] and st["p"][1]["life"] == 4
        else:
            assert pending_kind(st) == "bang" and {"type": "barrel", "card": barrel} not in bang.legal_actions(st, 1)
            act(st, 1, {"type": "pass"})
            assert st["p"][1]["life"] == 3


@pytest.mark.rule("BANG-075", "BANG-076", "BANG-049")
@pytest.mark.parametrize("suit", SUITS)
def test_jail_escapes_on_a_heart_only_and_is_discarded_either_way(suit: str) -> None:
    for rank in RANKS:
        st = table(4)
        jail = equip(st, 1, ["jail"])[0]
        flipped = card_id(st, sign(rank, suit))
        black = [c for c in st["deck"] if CARDS[c].suit in ("clubs", "spades") and c != flipped][:2]
        stack_deck(st, [flipped, *black])  # then phase 1: two black cards (Black Jack draws 2)
        events = act(st, 0, {"type": "end_turn"})
        assert jail in st["discard"] and "jail" not in table_keys(st, 1), (rank, suit)
        assert next(e["success"] for e in events if e["kind"] == "jail") is (suit == "hearts")
        if suit == "hearts":
            assert st["turn"] == 1 and st["phase"] == "play" and len(st["p"][1]["hand"]) == 2
        else:
            assert st["turn"] == 2 and st["p"][1]["hand"] == [], (rank, suit)


@pytest.mark.rule("BANG-070", "BANG-049", "BANG-071", "BANG-074")
@pytest.mark.parametrize("suit", SUITS)
def test_dynamite_explodes_on_spades_two_to_nine_only(suit: str) -> None:
    for rank in RANKS:
        explodes = suit == "spades" and 2 <= RANK_VALUE[rank] <= 9
        st = table(4)
        dyn = equip(st, 1, ["dynamite"])[0]
        if rank + suit[0] == CARDS[dyn].rank + CARDS[dyn].suit[0]:
            continue  # the 2 of hearts is the Dynamite itself (and a heart never explodes)
        stack_deck(st, [sign(rank, suit)])
        events = act(st, 0, {"type": "end_turn"})
        assert ("explode" in kinds(events)) is explodes, (rank, suit)
        if explodes:
            assert st["p"][1]["life"] == 1 and dyn in st["discard"] and not st["p"][2]["table"]
        else:
            assert st["p"][1]["life"] == 4 and st["p"][2]["table"] == [dyn], (rank, suit)


@pytest.mark.rule("BANG-049", "BANG-070")
def test_ranks_run_two_to_ace() -> None:
    """The Ace is high (BANG-049): it is not a 1, so an Ace of spades never explodes (tested above)."""
    assert [RANK_VALUE[r] for r in RANKS] == list(range(2, 15))


# The dying window (BANG-024, 046..048, 068)

def shot_at_one_life(alive: int, char: str = "black_jack") -> State:
    """Seat 1 (an Outlaw) at 1 life holding a Beer and a Missed! is hit by the Sheriff's BANG!.

    ``alive`` players are left (the others, from seat 4 down, are dead); seat 1 passes on
    the shot, so the dying window is open or already closed.
    """
    st = table(4, chars=["black_jack", char, "black_jack", "black_jack"],
               roles=["sheriff", "outlaw", "outlaw", "renegade"])
    for seat in range(alive, 4):
        st["p"][seat]["alive"] = False
    st["p"][1]["life"] = 1
    give(st, 1, ["beer", "missed"])
    play(st, 0, give(st, 0, ["bang"])[0], target=1)
    act(st, 1, {"type": "pass"})
    return st


def beer_of(state: State, seat: int) -> str:
    """The Beer in a seat's hand."""
    return next(c for c in state["p"][seat]["hand"] if CARDS[c].key == "beer")


@pytest.mark.rule("BANG-048", "BANG-024", "BANG-046")
def test_beer_saves_from_a_lethal_hit_with_three_players_left() -> None:
    st = shot_at_one_life(alive=3)
    beer = beer_of(st, 1)
    assert pending_kind(st) == "dying" and bang.legal_actions(st, 1) == [{"type": "pass"},
                                                                        {"type": "respond", "card": beer}]
    act(st, 1, {"type": "respond", "card": beer})
    assert st["p"][1]["alive"] and st["p"][1]["life"] == 1 and beer in st["discard"] and not st["pending"]


@pytest.mark.rule("BANG-048", "BANG-024")
def test_a_player_holding_a_beer_dies_with_two_players_left() -> None:
    st = shot_at_one_life(alive=2)
    assert not st["p"][1]["alive"] and bang.is_over(st) and st["winners"] == [0]


@pytest.mark.rule("BANG-048", "BANG-024", "BANG-099")
def test_beer_is_refused_in_the_dying_window_with_two_players_left() -> None:
    """Sid Ketchum's ability keeps the window open, so the Beer itself is what is refused."""
    st = shot_at_one_life(alive=2, char="sid_ketchum")
    beer = beer_of(st, 1)
    assert pending_kind(st) == "dying"
    assert [a for a in bang.legal_actions(st, 1) if a["type"] == "respond"] == []
    assert refusal(st, 1, {"type": "respond", "card": beer}) == "BEER_WITH_TWO_PLAYERS"
    act(st, 1, {"type": "ability", "cards": sorted(st["p"][1]["hand"])})  # Sid's 2 cards still save him
    assert st["p"][1]["alive"] and st["p"][1]["life"] == 1


@pytest.mark.rule("BANG-068", "BANG-024")
def test_a_saloon_is_no_beer_in_the_dying_window() -> None:
    st = table(5, chars=["black_jack", "sid_ketchum", "black_jack", "black_jack", "black_jack"])
    st["p"][1]["life"] = 1
    saloon = give(st, 1, ["saloon", "missed"])[0]
    play(st, 0, give(st, 0, ["bang"])[0], target=1)
    act(st, 1, {"type": "pass"})
    assert pending_kind(st) == "dying"
    assert [a for a in bang.legal_actions(st, 1) if a["type"] == "respond"] == []
    assert refusal(st, 1, {"type": "respond", "card": saloon}) == "WRONG_ANSWER"
    assert refusal(st, 1, {"type": "respond", "card": st["p"][1]["hand"][1]}) == "WRONG_ANSWER"  # a Missed!
    act(st, 1, {"type": "pass"})
    assert not st["p"][1]["alive"]


@pytest.mark.rule("BANG-045", "BANG-048")
@pytest.mark.parametrize("alive,healed", [(2, 0), (3, 1), (4, 1)])
def test_beer_in_your_turn_heals_one_unless_two_players_are_left(alive: int, healed: int) -> None:
    st = table(4)
    for seat in range(alive, 4):
        st["p"][seat]["alive"] = False
    st["p"][0]["life"] = 3
    play(st, 0, give(st, 0, ["beer"])[0])
    assert st["p"][0]["life"] == 3 + healed


# Cat Balou on yourself (RULINGS BANG-066): your own hand included

@pytest.mark.rule("BANG-054", "BANG-066", "BANG-052")
def test_cat_balou_discards_a_card_of_your_own_hand() -> None:
    st = table(4)
    cat, other = give(st, 0, ["cat_balou", "beer"])
    own = {"type": "play", "card": cat, "target": 0, "pick": "hand"}
    assert own in bang.legal_actions(st, 0)
    events = act(st, 0, own)
    assert st["p"][0]["hand"] == [] and st["discard"][-2:] == [cat, other]
    assert {"kind": "discard", "seat": 0, "cards": [other], "reason": "cat_balou"} in events


@pytest.mark.rule("BANG-054", "BANG-066")
def test_cat_balou_on_your_own_hand_needs_another_card() -> None:
    st = table(4)
    cat = give(st, 0, ["cat_balou"])[0]
    own = {"type": "play", "card": cat, "target": 0, "pick": "hand"}
    assert own not in bang.legal_actions(st, 0)
    assert refusal(st, 0, own) == "NOTHING_TO_TAKE"
    dyn = equip(st, 0, ["dynamite"])[0]
    assert [a for a in bang.legal_actions(st, 0) if a.get("target") == 0] == [{**own, "pick": dyn}]


@pytest.mark.rule("BANG-066", "BANG-065")
def test_panic_on_yourself_takes_back_a_card_in_play_never_from_your_hand() -> None:
    st = table(4)
    panic, _ = give(st, 0, ["panic", "beer"])
    own = {"type": "play", "card": panic, "target": 0, "pick": "hand"}
    assert [a for a in bang.legal_actions(st, 0) if a.get("target") == 0] == []
    assert refusal(st, 0, own) == "NOTHING_TO_TAKE"
    barrel = equip(st, 0, ["barrel"])[0]
    assert [a for a in bang.legal_actions(st, 0) if a.get("target") == 0] == [{**own, "pick": barrel}]
    act(st, 0, {**own, "pick": barrel})
    assert barrel in st["p"][0]["hand"] and st["p"][0]["table"] == []


# Rewards and penalties on an elimination, every killer and victim role (BANG-026, 027)

POOL_OF_SEVEN = ["sheriff", "deputy", "deputy", "outlaw", "outlaw", "outlaw", "renegade"]
KILLS = [(k, v) for k in ("sheriff", "deputy", "outlaw", "renegade") for v in ("sheriff", "deputy", "outlaw", "renegade")
         if v != "sheriff" or k != "sheriff"]
KILLS = [(k, v) for k, v in KILLS if not (k == v == "renegade")]


@pytest.mark.rule("BANG-026", "BANG-027")
@pytest.mark.parametrize("killer,victim", KILLS)
def test_rewards_and_penalties_for_every_killer_and_victim(killer: str, victim: str) -> None:
    rest = list(POOL_OF_SEVEN)
    rest.remove(killer)
    rest.remove(victim)
    st = table(7, roles=[killer, victim, *rest])
    st["p"][1]["life"] = 1
    bang_card, kept = give(st, 0, ["bang", "missed"])
    barrel = equip(st, 0, ["barrel"])[0]
    top = stack_deck(st, ["beer", "duel", "panic"])
    play(st, 0, bang_card, target=1)
    assert not st["p"][1]["alive"]
    if victim == "outlaw":  # anyone, even an Outlaw, draws 3
        assert st["p"][0]["hand"] == [kept, *top] and st["p"][0]["table"] == [barrel]
    elif victim == "deputy" and killer == "sheriff":  # the Sheriff loses everything
        assert st["p"][0]["hand"] == [] and st["p"][0]["table"] == [] and {kept, barrel} <= set(st["discard"])
    else:
        assert st["p"][0]["hand"] == [kept] and st["p"][0]["table"] == [barrel]


# Targeting refusals: each names its reason, its field and its details (BANG-053)

def refused(state: State, seat: int, action: Action) -> RuleError:
    """The error ``apply`` raises for ``action``."""
    with pytest.raises(RuleError) as err:
        act(state, seat, action)
    return err.value


@pytest.mark.rule("BANG-053", "BANG-039")
def test_targeting_refusals_name_reason_field_and_details() -> None:
    st = table(5)
    bang_card, coach, panic, cat = give(st, 0, ["bang", "stagecoach", "panic", "cat_balou"])
    st["p"][4]["alive"] = False
    cases: list[tuple[Action, str, str | None, dict[str, str]]] = [
        ({"type": "play", "card": coach, "target": 1}, "UNEXPECTED_TARGET", "target", {}),
        ({"type": "play", "card": bang_card}, "MISSING_TARGET", "target", {}),
        ({"type": "play", "card": bang_card, "target": "1"}, "BAD_TARGET", "target", {}),
        ({"type": "play", "card": bang_card, "target": 5}, "BAD_TARGET", "target", {}),
        ({"type": "play", "card": bang_card, "target": 4}, "TARGET_DEAD", None, {"target": "4"}),
        ({"type": "play", "card": bang_card, "target": 0}, "TARGET_SELF", None, {}),
        ({"type": "play", "card": bang_card, "target": 2}, "OUT_OF_RANGE", None, {"target": "2", "distance": "2"}),
        ({"type": "play", "card": panic, "target": 2, "pick": "hand"}, "OUT_OF_RANGE", None,
         {"target": "2", "distance": "2"}),
    ]
    for action, reason, field, details in cases:
        err = refused(st, 0, action)
        assert (err.reason, getattr(err, "field", None), err.details) == (reason, field, details), action
        assert err.message != err.reason.replace("_", " ").capitalize(), action  # a message of its own
    give(st, 2, ["beer"])
    play(st, 0, cat, target=2, pick="hand")  # Cat Balou: any distance
    assert st["p"][2]["hand"] == []


# Saloon and equipment (BANG-019, 041, 067)

@pytest.mark.rule("BANG-067", "BANG-045")
def test_saloon_heals_the_living_from_its_player_clockwise_never_above_max() -> None:
    st = table(5, turn=2)
    st["p"][4]["alive"], st["p"][4]["life"] = False, 0
    for seat, life in ((0, 3), (1, 4), (2, 1), (3, 2)):
        st["p"][seat]["life"] = life
    saloon = give(st, 2, ["saloon"])[0]
    events = play(st, 2, saloon)
    assert events[0] == {"kind": "play", "seat": 2, "cards": [saloon]}
    heals = [(e["seat"], e["amount"]) for e in events if e["kind"] == "heal"]
    assert heals == [(2, 1), (3, 1), (0, 1), (1, 0)]
    assert [p["life"] for p in st["p"]] == [4, 4, 2, 3, 0]


@pytest.mark.rule("BANG-041", "BANG-019", "BANG-021")
def test_only_a_weapon_replaces_the_weapon_in_play() -> None:
    st = table(4)
    schofield = equip(st, 0, ["schofield"])[0]
    barrel, mustang, rev = give(st, 0, ["barrel", "mustang", "rev_carabine"])
    play(st, 0, barrel)
    play(st, 0, mustang)
    assert st["p"][0]["table"] == [schofield, barrel, mustang]
    events = play(st, 0, rev)
    assert st["p"][0]["table"] == [barrel, mustang, rev] and st["discard"][-1] == schofield
    assert {"kind": "discard", "seat": 0, "cards": [schofield], "reason": "weapon_replaced"} in events
    assert {"kind": "equip", "seat": 0, "other": 0, "cards": [rev]} in events
    assert sorted(bang_targets_any(st)) == [1, 2, 3]


def bang_targets_any(state: State) -> list[int]:
    """BANG! targets of seat 0 after giving him a BANG!."""
    give(state, 0, ["bang"])
    return bang_targets(state)


@pytest.mark.rule("BANG-075", "BANG-053")
def test_jail_at_any_distance_goes_in_front_of_its_target() -> None:
    st = table(7, turn=3, roles=["sheriff", "outlaw", "outlaw", "outlaw", "deputy", "deputy", "renegade"])
    jail = give(st, 3, ["jail"])[0]
    targets = sorted(a["target"] for a in bang.legal_actions(st, 3) if a.get("card") == jail)
    assert targets == [1, 2, 4, 5, 6]  # every other player but the Sheriff, at any distance
    events = play(st, 3, jail, target=6)
    assert st["p"][6]["table"] == [jail] and st["p"][3]["hand"] == []
    assert {"kind": "equip", "seat": 3, "other": 6, "cards": [jail]} in events


def test_request_and_step_kinds_share_one_namespace() -> None:
    """A pending entry names a request kind or an engine step: one name cannot be both.

    Registered here at run time (the real kinds register at import, before any test).
    """
    from tabletop_server.service.games.bang.pending import REQUESTS, STEPS, RequestKind, Step, request, step
    try:
        probe = request("strength_probe")(type("Probe", (RequestKind,), {}))
        assert isinstance(REQUESTS["strength_probe"], probe)
        with pytest.raises(ValueError, match="step kind 'strength_probe' registered twice"):
            step("strength_probe")(type("ProbeStep", (Step,), {}))
        probe_step = step("strength_probe_step")(type("ProbeStep", (Step,), {}))
        assert isinstance(STEPS["strength_probe_step"], probe_step)
        with pytest.raises(ValueError, match="request kind 'strength_probe_step' registered twice"):
            request("strength_probe_step")(type("Probe", (RequestKind,), {}))
    finally:
        REQUESTS.pop("strength_probe", None)
        STEPS.pop("strength_probe_step", None)
        STEPS.pop("strength_probe", None)
        REQUESTS.pop("strength_probe_step", None)


def test_a_registered_draw_check_keeps_its_rule_and_outcome() -> None:
    """``check`` registers (good, resolve) as given and returns the outcome function unchanged."""
    from tabletop_server.service.games.bang.checks import CHECKS, check, is_heart

    def outcome(state: State, seat: int, good: bool, events: list[dict[str, object]]) -> None:
        """A draw! outcome that does nothing."""

    try:
        assert check("strength_probe", is_heart)(outcome) is outcome
        assert (CHECKS["strength_probe"].good, CHECKS["strength_probe"].resolve) == (is_heart, outcome)
    finally:
        CHECKS.pop("strength_probe", None)


@pytest.mark.rule("BANG-095", "BANG-075")
def test_lucky_duke_chooses_one_of_his_two_flipped_cards_only() -> None:
    st = table(4, chars=["black_jack", "lucky_duke", "black_jack", "black_jack"])
    equip(st, 1, ["jail"])
    spade, heart, other = stack_deck(st, ["any:4s", "any:9h", "any:Kc"])
    act(st, 0, {"type": "end_turn"})
    assert pending_kind(st) == "pick"
    assert bang.legal_actions(st, 1) == [{"type": "choose", "card": spade}, {"type": "choose", "card": heart}]
    err = refused(st, 1, {"type": "choose", "card": other})
    assert (err.reason, err.details) == ("NOT_A_CHOICE", {"card": other})
    assert err.message != "Not a choice"
    act(st, 1, {"type": "choose", "card": spade})  # the spade counts: he stays in Jail
    assert st["turn"] == 2
