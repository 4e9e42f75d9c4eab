"""Every base character's ability on both sides of its condition (issue 9, BANG-084..106).

Each test sets the condition up once true and once false (the same table otherwise)
and looks only at what the public functions show: the hands, lives, ``legal_actions``
and the events. Black Jack is every table's default character (his ability only
touches phase 1), so a seat without a named character has no other ability.
"""

from __future__ import annotations

import pytest
from bang_helpers import act, equip, give, kinds, pass_all, pending_kind, play, stack_deck, table

from tabletop_server.service.engine.errors import RuleError
from tabletop_server.service.games import bang


def chars(n: int, **at: str) -> list[str]:
    """Black Jack everywhere except the given seats (``s1="bart_cassidy"``)."""
    out = ["black_jack"] * n
    for key, name in at.items():
        out[int(key[1:])] = name
    return out


def draws_of(events: list[dict[str, object]], seat: int, reason: str) -> list[object]:
    """The cards of the ``draw`` events of ``seat`` with ``reason``."""
    return [c for e in events if e["kind"] == "draw" and e["seat"] == seat and e["reason"] == reason
            for c in e["cards"]]  # type: ignore[attr-defined]


# Bart Cassidy (BANG-084, 085)

@pytest.mark.rule("BANG-084")
def test_bart_cassidy_draws_one_per_life_lost_and_only_when_hit() -> None:
    st = table(4, chars=chars(4, s1="bart_cassidy"))
    top = stack_deck(st, ["beer", "duel"])
    miss = give(st, 1, ["missed"])[0]
    play(st, 0, give(st, 0, ["bang"])[0], target=1)
    act(st, 1, {"type": "respond", "card": miss})
    assert st["p"][1]["hand"] == [] and st["deck"][-1] == top[0]  # missed: no hit, no draw
    st["bangs"] = 0
    events = play(st, 0, give(st, 0, ["bang"])[0], target=1)
    assert st["p"][1]["life"] == 3 and st["p"][1]["hand"] == [top[0]]
    assert draws_of(events, 1, "bart_cassidy") == [top[0]]
    # A Black Jack hit the same way draws nothing.
    st = table(4)
    stack_deck(st, ["beer"])
    play(st, 0, give(st, 0, ["bang"])[0], target=1)
    assert st["p"][1]["life"] == 3 and st["p"][1]["hand"] == []


# Black Jack (BANG-086): the second card's suit, each of the four

@pytest.mark.rule("BANG-086")
@pytest.mark.parametrize(("second", "third"), [("beer:7h", True), ("bang:Qd", True), ("bang:9c", False),
                                               ("any:8s", False)])
def test_black_jack_draws_a_third_card_on_a_red_second_card_only(second: str, third: bool) -> None:
    st = table(4)
    top = stack_deck(st, ["bang:Ah", second, "missed:10c"])
    events = act(st, 0, {"type": "end_turn"})
    assert st["p"][1]["hand"] == (top if third else top[:2])
    assert draws_of(events, 1, "black_jack_shown") == [top[1]]
    assert draws_of(events, 1, "black_jack") == ([top[2]] if third else [])
    assert st["phase"] == "play" and bang.to_act(st) == [1]


@pytest.mark.rule("BANG-086", "BANG-015")
def test_a_character_without_a_draw_ability_draws_two_even_on_a_red_second_card() -> None:
    st = table(4, chars=chars(4, s1="bart_cassidy"))
    top = stack_deck(st, ["bang:Ah", "beer:7h", "missed:10c"])
    act(st, 0, {"type": "end_turn"})
    assert st["p"][1]["hand"] == top[:2] and st["deck"][-1] == top[2]


# El Gringo (BANG-089..091)

@pytest.mark.rule("BANG-089")
def test_el_gringo_takes_one_random_card_of_the_shooters_several() -> None:
    st = table(4, chars=chars(4, s1="el_gringo"))
    b, *rest = give(st, 0, ["bang", "beer", "duel", "panic"])
    events = play(st, 0, b, target=1)
    assert st["p"][1]["life"] == 2 and len(st["p"][1]["hand"]) == 1 and len(st["p"][0]["hand"]) == 2
    taken = st["p"][1]["hand"][0]
    assert taken in rest and taken not in st["p"][0]["hand"]
    take = next(e for e in events if e["kind"] == "take")
    assert take == {"kind": "take", "seat": 1, "other": 0, "cards": [taken], "reason": "hand"}
    # The shooter's hand is empty: nothing to take, nothing happens.
    st = table(4, chars=chars(4, s1="el_gringo"))
    events = play(st, 0, give(st, 0, ["bang"])[0], target=1)
    assert st["p"][1]["hand"] == [] and "take" not in kinds(events)


@pytest.mark.rule("BANG-090")
def test_el_gringo_hit_by_dynamite_takes_nothing() -> None:
    st = table(4, chars=chars(4, s1="el_gringo"))
    give(st, 0, ["beer", "duel"])
    equip(st, 1, ["dynamite"])
    stack_deck(st, ["any:5s"])
    st["p"][0]["life"] = 5
    events = act(st, 0, {"type": "end_turn"})
    assert "explode" in kinds(events) and "take" not in kinds(events)


@pytest.mark.rule("BANG-089")
def test_a_black_jack_hit_takes_nothing_from_the_shooter() -> None:
    st = table(4)
    b, *rest = give(st, 0, ["bang", "beer"])
    play(st, 0, b, target=1)
    assert st["p"][0]["hand"] == rest and st["p"][1]["hand"] == []


# Jesse Jones (BANG-092)

@pytest.mark.rule("BANG-092")
def test_jesse_jones_takes_one_card_of_several_and_the_second_from_the_deck() -> None:
    st = table(4, chars=chars(4, s1="jesse_jones"))
    victim = give(st, 3, ["beer", "duel", "panic"])
    top = stack_deck(st, ["bang", "missed"])
    act(st, 0, {"type": "end_turn"})
    assert bang.legal_actions(st, 1) == [{"type": "draw", "source": "deck"},
                                         {"type": "draw", "source": "player", "target": 3}]
    events = act(st, 1, {"type": "draw", "source": "player", "target": 3})
    first, second = st["p"][1]["hand"]
    assert first in victim and second == top[0]  # one from seat 3's hand, one from the deck top
    assert sorted(st["p"][3]["hand"]) == sorted(c for c in victim if c != first)
    assert st["deck"][-1] == top[1] and st["phase"] == "play"
    assert [e["kind"] for e in events][:2] == ["take", "draw"]


@pytest.mark.rule("BANG-092")
def test_jesse_jones_is_offered_only_players_with_cards_and_no_choice_when_none() -> None:
    st = table(5, chars=chars(5, s1="jesse_jones"))
    give(st, 0, ["beer"])
    give(st, 4, ["duel"])
    give(st, 3, ["panic"])
    st["p"][3]["alive"] = False
    act(st, 0, {"type": "end_turn"})
    assert bang.legal_actions(st, 1) == [{"type": "draw", "source": "deck"},
                                         {"type": "draw", "source": "player", "target": 4},
                                         {"type": "draw", "source": "player", "target": 0}]
    for bad, reason in ((3, "EMPTY_HAND"), (2, "EMPTY_HAND"), (1, "EMPTY_HAND")):
        with pytest.raises(RuleError) as err:
            act(st, 1, {"type": "draw", "source": "player", "target": bad})
        assert err.value.reason == reason
    with pytest.raises(RuleError):
        act(st, 1, {"type": "draw", "source": "discard"})
    # Nobody else holds a card: phase 1 is the ordinary draw of 2, nothing is asked.
    st = table(4, chars=chars(4, s1="jesse_jones"))
    top = stack_deck(st, ["bang", "missed"])
    act(st, 0, {"type": "end_turn"})
    assert pending_kind(st) is None and st["p"][1]["hand"] == top and st["phase"] == "play"


# Kit Carlson (BANG-094)

@pytest.mark.rule("BANG-094")
def test_kit_carlson_puts_the_chosen_card_back_on_top_for_the_next_draw() -> None:
    st = table(4, chars=chars(4, s1="kit_carlson"))
    a, b, c = stack_deck(st, ["bang", "beer", "missed"])
    act(st, 0, {"type": "end_turn"})
    assert bang.legal_actions(st, 1) == [{"type": "choose", "card": x} for x in (a, b, c)]
    duel = give(st, 0, ["duel"])[0]
    with pytest.raises(RuleError) as err:
        act(st, 1, {"type": "choose", "card": duel})
    assert (err.value.reason, err.value.details) == ("NOT_A_CHOICE", {"card": duel})
    events = act(st, 1, {"type": "choose", "card": a})
    assert st["p"][1]["hand"] == [b, c] and st["deck"][-1] == a and st["phase"] == "play"
    assert kinds(events) == ["draw", "put_back"]
    st["p"][1]["hand"] = [give(st, 1, ["stagecoach"])[0]]
    play(st, 1, st["p"][1]["hand"][0])
    assert a in st["p"][1]["hand"]


@pytest.mark.rule("BANG-094", "BANG-016")
def test_kit_carlson_with_fewer_than_three_cards_left_just_draws_them() -> None:
    st = table(4, chars=chars(4, s1="kit_carlson"))
    keep = st["deck"][-2:]
    st["deck"] = list(keep)
    events = act(st, 0, {"type": "end_turn"})
    assert pending_kind(st) is None and sorted(st["p"][1]["hand"]) == sorted(keep)
    assert st["phase"] == "play" and "look" not in kinds(events)
    # Exactly three: he is asked.
    st = table(4, chars=chars(4, s1="kit_carlson"))
    st["deck"] = st["deck"][-3:]
    act(st, 0, {"type": "end_turn"})
    assert pending_kind(st) == "kit_carlson"


# Pedro Ramirez (BANG-097)

@pytest.mark.rule("BANG-097")
def test_pedro_ramirez_takes_the_top_of_the_discard_pile_or_declines() -> None:
    st = table(4, chars=chars(4, s1="pedro_ramirez"))
    under, top_discard = give(st, 2, ["duel", "beer"])
    st["p"][2]["hand"] = []
    st["discard"] = [under, top_discard]
    deck_top = stack_deck(st, ["bang", "missed"])
    act(st, 0, {"type": "end_turn"})
    assert pending_kind(st) == "draw"
    act(st, 1, {"type": "draw", "source": "discard"})
    assert st["p"][1]["hand"] == [top_discard, deck_top[0]] and st["discard"] == [under]
    # Declined: two from the deck, the discard pile untouched.
    st = table(4, chars=chars(4, s1="pedro_ramirez"))
    st["discard"] = [st["deck"].pop(0)]
    deck_top = stack_deck(st, ["bang", "missed"])
    act(st, 0, {"type": "end_turn"})
    act(st, 1, {"type": "draw", "source": "deck"})
    assert st["p"][1]["hand"] == deck_top and len(st["discard"]) == 1
    with pytest.raises(RuleError):
        act(st, 2, {"type": "draw", "source": "deck"})


# Sid Ketchum (BANG-099)

@pytest.mark.rule("BANG-099")
def test_sid_ketchum_is_offered_his_ability_only_below_maximum_with_two_cards() -> None:
    st = table(4, chars=chars(4, s0="sid_ketchum"))
    one = give(st, 0, ["duel"])
    st["p"][0]["life"] = 3
    assert [a for a in bang.legal_actions(st, 0) if a["type"] == "ability"] == []
    with pytest.raises(RuleError) as err:
        act(st, 0, {"type": "ability", "cards": one})
    assert err.value.reason == "NEED_TWO_CARDS"
    two = one + give(st, 0, ["panic"])
    assert [a for a in bang.legal_actions(st, 0) if a["type"] == "ability"] == [{"type": "ability", "cards": two}]
    foreign = give(st, 1, ["beer"])[0]
    for bad, reason, details in (([two[0], two[0]], "NEED_TWO_CARDS", {}), ([*two, two[0]], "NEED_TWO_CARDS", {}),
                                 ([two[0], foreign], "CARD_NOT_IN_HAND", {"card": foreign})):
        with pytest.raises(RuleError) as err:
            act(st, 0, {"type": "ability", "cards": bad})
        assert (err.value.reason, err.value.details) == (reason, details)
    st["p"][0]["life"] = 5
    assert [a for a in bang.legal_actions(st, 0) if a["type"] == "ability"] == []
    with pytest.raises(RuleError) as err:
        act(st, 0, {"type": "ability", "cards": two})
    assert err.value.reason == "LIFE_AT_MAXIMUM"
    st["p"][0]["life"] = 4
    events = act(st, 0, {"type": "ability", "cards": two})
    assert st["p"][0]["life"] == 5 and st["p"][0]["hand"] == [] and st["discard"][-2:] == two
    assert kinds(events) == ["discard", "heal"]


@pytest.mark.rule("BANG-099")
def test_sid_ketchum_out_of_turn_while_asked_and_a_black_jack_has_no_ability() -> None:
    st = table(4, chars=chars(4, s1="sid_ketchum"))
    st["p"][1]["life"] = 2
    two = give(st, 1, ["duel", "panic", "beer"])[:2]
    play(st, 0, give(st, 0, ["bang"])[0], target=1)
    assert {"type": "ability", "cards": two} in bang.legal_actions(st, 1)
    act(st, 1, {"type": "ability", "cards": two})
    assert st["p"][1]["life"] == 3 and pending_kind(st) == "bang"
    pass_all(st)
    assert st["p"][1]["life"] == 2
    st = table(4)
    st["p"][0]["life"] = 2
    cards = give(st, 0, ["duel", "panic"])
    assert not [a for a in bang.legal_actions(st, 0) if a["type"] == "ability"]
    with pytest.raises(RuleError) as err:
        act(st, 0, {"type": "ability", "cards": cards})
    assert err.value.reason == "NO_SUCH_ABILITY"


# Suzy Lafayette (BANG-101)

@pytest.mark.rule("BANG-101")
def test_suzy_lafayette_draws_when_her_last_card_goes_not_before() -> None:
    st = table(4, chars=chars(4, s0="suzy_lafayette"))
    st["p"][0]["life"] = 3
    beer, keep = give(st, 0, ["beer", "duel"])
    top = stack_deck(st, ["bang"])
    play(st, 0, beer)
    assert st["p"][0]["hand"] == [keep] and st["deck"][-1] == top[0]
    events = play(st, 0, keep, target=2)
    assert st["p"][0]["hand"] == top and draws_of(events, 0, "suzy_lafayette") == top
    # A Black Jack whose hand empties draws nothing.
    st = table(4)
    st["p"][0]["life"] = 3
    play(st, 0, give(st, 0, ["beer"])[0])
    assert st["p"][0]["hand"] == []


# Vulture Sam (BANG-104)

@pytest.mark.rule("BANG-104", "BANG-025")
def test_vulture_sam_takes_hand_and_table_others_discard_them() -> None:
    for sam in (True, False):
        st = table(5, chars=chars(5, s3="vulture_sam" if sam else "black_jack"),
                   roles=["sheriff", "deputy", "outlaw", "renegade", "outlaw"])
        hand = give(st, 2, ["beer", "panic"])
        gear = equip(st, 2, ["barrel", "volcanic"])
        st["p"][2]["life"] = 1
        play(st, 0, give(st, 0, ["gatling"])[0])
        pass_all(st)
        assert not st["p"][2]["alive"] and st["p"][2]["hand"] == [] and st["p"][2]["table"] == []
        if sam:
            assert sorted(st["p"][3]["hand"]) == sorted(hand + gear) and st["p"][3]["table"] == []
            assert not any(c in st["discard"] for c in hand + gear)
        else:
            assert st["p"][3]["hand"] == [] and all(c in st["discard"] for c in hand + gear)


# The passive characters (traits), through legal_actions

def bang_targets(state: dict[str, object], seat: int) -> set[int]:
    """The seats a BANG! in ``seat``'s hand may target now."""
    return {a["target"] for a in bang.legal_actions(state, seat)
            if a["type"] == "play" and a.get("card", "").startswith("base.bang.")}


@pytest.mark.rule("BANG-096", "BANG-039", "BANG-040")
def test_paul_regret_is_out_of_colt_reach_at_one_seat() -> None:
    st = table(4, chars=chars(4, s1="paul_regret"))
    give(st, 0, ["bang"])
    assert bang_targets(st, 0) == {3}
    equip(st, 0, ["schofield"])
    assert bang_targets(st, 0) == {1, 2, 3}


@pytest.mark.rule("BANG-098", "BANG-039")
def test_rose_doolan_reaches_one_seat_further() -> None:
    st = table(5, chars=chars(5, s0="rose_doolan"))
    give(st, 0, ["bang"])
    assert bang_targets(st, 0) == {1, 2, 3, 4}
    st = table(5)
    give(st, 0, ["bang"])
    assert bang_targets(st, 0) == {1, 4}


@pytest.mark.rule("BANG-106", "BANG-018")
def test_willy_the_kid_may_play_a_second_bang_others_may_not() -> None:
    for willy in (True, False):
        st = table(4, chars=chars(4, s0="willy_the_kid" if willy else "black_jack"))
        b1, b2 = give(st, 0, ["bang", "bang"])
        play(st, 0, b1, target=1)
        assert (bang_targets(st, 0) == {1, 3}) is willy
        if not willy:
            with pytest.raises(RuleError):
                play(st, 0, b2, target=1)


@pytest.mark.rule("BANG-087", "BANG-088")
def test_calamity_janet_plays_missed_as_bang_others_cannot() -> None:
    for janet in (True, False):
        st = table(4, chars=chars(4, s0="calamity_janet" if janet else "black_jack"))
        m = give(st, 0, ["missed"])[0]
        plays = [a for a in bang.legal_actions(st, 0) if a.get("card") == m]
        assert plays == ([{"type": "play", "card": m, "target": 1}, {"type": "play", "card": m, "target": 3}]
                         if janet else [])


@pytest.mark.rule("BANG-093")
def test_jourdonnais_is_offered_a_barrel_draw_others_are_not() -> None:
    for jourd in (True, False):
        st = table(4, chars=chars(4, s1="jourdonnais" if jourd else "black_jack"))
        give(st, 1, ["beer"])
        stack_deck(st, ["beer:8h"])
        play(st, 0, give(st, 0, ["bang"])[0], target=1)
        assert ({"type": "barrel"} in bang.legal_actions(st, 1)) is jourd
        if jourd:
            act(st, 1, {"type": "barrel"})
            assert st["p"][1]["life"] == 4 and not st["pending"]


@pytest.mark.rule("BANG-095", "BANG-075")
def test_lucky_duke_flips_two_a_black_jack_one() -> None:
    for duke in (True, False):
        st = table(4, chars=chars(4, s1="lucky_duke" if duke else "black_jack"))
        equip(st, 1, ["jail"])
        flips = stack_deck(st, ["any:4s", "beer:9h", "bang", "bang", "bang"])
        act(st, 0, {"type": "end_turn"})
        if duke:
            assert pending_kind(st) == "pick" and st["discard"][-2:] == flips[:2]
            act(st, 1, {"type": "choose", "card": flips[1]})
            assert st["turn"] == 1 and st["phase"] == "play"
        else:
            assert flips[0] in st["discard"] and flips[1] not in st["discard"]
            assert st["turn"] == 2  # jailed: the turn passed


@pytest.mark.rule("BANG-100")
def test_slab_the_killer_needs_two_missed_others_one() -> None:
    for slab in (True, False):
        st = table(4, chars=chars(4, s0="slab_the_killer" if slab else "black_jack"))
        m = give(st, 1, ["missed", "missed"])
        play(st, 0, give(st, 0, ["bang"])[0], target=1)
        act(st, 1, {"type": "respond", "card": m[0]})
        assert (pending_kind(st) == "bang") is slab
        if slab:
            act(st, 1, {"type": "respond", "card": m[1]})
        assert st["p"][1]["life"] == 4 and not st["pending"]


# The exact events of each ability (clients read every field)

@pytest.mark.rule("BANG-094")
def test_kit_carlson_events_and_request() -> None:
    st = table(4, chars=chars(4, s1="kit_carlson"))
    a, b, c = stack_deck(st, ["bang", "beer", "missed"])
    events = act(st, 0, {"type": "end_turn"})
    assert events[-1] == {"kind": "look", "seat": 1, "cards": [a, b, c], "count": 3, "reason": "kit_carlson"}
    assert st["pending"] == [{"kind": "kit_carlson", "seat": 1, "source": 1, "args": {"cards": [a, b, c]}}]
    assert act(st, 1, {"type": "choose", "card": b}) == [
        {"kind": "draw", "seat": 1, "cards": [a, c], "count": 2, "reason": "kit_carlson"},
        {"kind": "put_back", "seat": 1, "cards": [b], "count": 1}]
    st = table(4, chars=chars(4, s1="kit_carlson"))
    st["deck"] = st["deck"][-2:]
    two = list(reversed(st["deck"]))
    events = act(st, 0, {"type": "end_turn"})
    assert events[-1] == {"kind": "draw", "seat": 1, "cards": two, "count": 2, "reason": "draw"}
    st = table(4, chars=chars(4, s1="kit_carlson"))
    st["deck"] = []
    events = act(st, 0, {"type": "end_turn"})
    assert events[-1] == {"kind": "turn", "seat": 1, "count": 2} and st["phase"] == "play"


@pytest.mark.rule("BANG-097", "BANG-092")
def test_pedro_and_jesse_events_and_requests() -> None:
    st = table(4, chars=chars(4, s1="pedro_ramirez"))
    st["discard"] = [st["deck"].pop(0)]
    top = stack_deck(st, ["bang"])
    act(st, 0, {"type": "end_turn"})
    assert st["pending"] == [{"kind": "draw", "seat": 1, "source": 1, "args": {}}]
    assert bang.view(st, 2).pending[0].source_seat == 1
    pile = st["discard"][0]
    assert act(st, 1, {"type": "draw", "source": "discard"}) == [
        {"kind": "draw", "seat": 1, "cards": [pile], "count": 1, "reason": "discard_pile"},
        {"kind": "draw", "seat": 1, "cards": top, "count": 1, "reason": "draw"}]
    st = table(4, chars=chars(4, s1="jesse_jones"))
    held = give(st, 2, ["beer"])
    top = stack_deck(st, ["bang", "duel"])
    act(st, 0, {"type": "end_turn"})
    assert st["pending"] == [{"kind": "draw", "seat": 1, "source": 1, "args": {}}]
    assert act(st, 1, {"type": "draw", "source": "player", "target": 2}) == [
        {"kind": "take", "seat": 1, "other": 2, "cards": held, "reason": "hand"},
        {"kind": "draw", "seat": 1, "cards": top[:1], "count": 1, "reason": "draw"}]


@pytest.mark.rule("BANG-084", "BANG-101", "BANG-099", "BANG-104")
def test_bart_suzy_sid_and_sam_events() -> None:
    st = table(4, chars=chars(4, s1="bart_cassidy"))
    top = stack_deck(st, ["beer"])
    events = play(st, 0, give(st, 0, ["bang"])[0], target=1)
    assert events[-1] == {"kind": "draw", "seat": 1, "cards": top, "count": 1, "reason": "bart_cassidy"}
    st = table(4, chars=chars(4, s0="suzy_lafayette"))
    st["p"][0]["life"] = 3
    top = stack_deck(st, ["bang"])
    events = play(st, 0, give(st, 0, ["beer"])[0])
    assert events[-1] == {"kind": "draw", "seat": 0, "cards": top, "count": 1, "reason": "suzy_lafayette"}
    st = table(4, chars=chars(4, s0="sid_ketchum"))
    st["p"][0]["life"] = 2
    two = give(st, 0, ["duel", "panic", "beer"])[:2]
    assert act(st, 0, {"type": "ability", "cards": two}) == [
        {"kind": "discard", "seat": 0, "cards": two, "reason": "sid_ketchum"},
        {"kind": "heal", "seat": 0, "amount": 1, "life": 3, "reason": "sid_ketchum"}]
    st = table(5, chars=chars(5, s3="vulture_sam"), roles=["sheriff", "deputy", "outlaw", "renegade", "outlaw"])
    hand = give(st, 2, ["beer"])
    gear = equip(st, 2, ["barrel"])
    st["p"][2]["life"] = 1
    events = play(st, 0, give(st, 0, ["duel"])[0], target=2) + pass_all(st)
    assert [e for e in events if e["kind"] == "take"] == [
        {"kind": "take", "seat": 3, "other": 2, "cards": hand, "reason": "hand"},
        {"kind": "take", "seat": 3, "other": 2, "cards": gear, "reason": "table"}]
