"""Dodge City characters acting in their own turn, pinned where mutation testing found them loose.

Chuck Wengam (DC-023), Doc Holyday and his two discards (DC-024, DC-025) and Vera Custer's choice
(DC-038): each refusal is checked for its reason, message, field and details and for changing
nothing, each limit on both of its sides, and each event as a client reads it. Survivors of the
stop-19 run in ``service/games/bang/characters/dodge_city_turn.py``; verdicts:
``docs/mutation_runs/bang_stop20_dc_turn.md``.
"""

from __future__ import annotations

import pytest
from bang_helpers import act, chars, dead, equip, give, pending_kind, play, refusal, stack_deck, table
from dc_cards_helpers import until_turn

from tabletop_server.service.engine.errors import MalformedAction
from tabletop_server.service.engine.ruleset import Action, State
from tabletop_server.service.games import bang

pytestmark = pytest.mark.usefixtures("dodge_city")
DC = ["dodge_city"]
CHUCK: Action = {"type": "ability", "cards": []}


def malformed(st: State, seat: int, action: Action) -> tuple[str, str, str]:
    """Reason, message and field of a refusal that must be a malformed action."""
    err = refusal(st, seat, action)
    assert isinstance(err, MalformedAction)
    return err.reason, err.message, err.field


def doc(n: int = 4, **at: str) -> State:
    """Doc Holyday at seat 0, in his phase 2."""
    return table(n, chars=chars(n, s0="doc_holyday", **at), expansions=DC)


def shoot(target: int) -> Action:
    return {"type": "ability", "cards": [], "target": target}


# Chuck Wengam (DC-023)


@pytest.mark.rule("DC-023")
def test_chuck_wengam_at_two_life_loses_one_and_draws_two_and_says_so() -> None:
    """DC-023: at 2 life the trade is offered; the loss is a damage event with no other source
    than himself, and the two cards are drawn for his ability (not as a phase-1 draw)."""
    st = table(4, chars=chars(4, s1="chuck_wengam"), turn=1, expansions=DC)
    st["p"][1]["life"] = 2
    top = stack_deck(st, ["beer", "missed"])
    assert CHUCK in bang.legal_actions(st, 1)
    events = act(st, 1, CHUCK)
    assert events == [
        {"kind": "damage", "seat": 1, "amount": 1, "life": 1, "other": 1, "reason": "chuck_wengam"},
        {"kind": "draw", "seat": 1, "cards": top, "count": 2, "reason": "chuck_wengam"},
    ]
    assert st["p"][1]["life"] == 1 and st["p"][1]["hand"] == top and st["pending"] == []


@pytest.mark.rule("DC-023")
def test_chuck_wengam_at_one_life_is_refused_with_the_last_life_reason() -> None:
    """DC-023: never his last life: at 1 life the ability is neither listed nor accepted."""
    st = table(4, chars=chars(4, s1="chuck_wengam"), turn=1, expansions=DC)
    st["p"][1]["life"] = 1
    err = refusal(st, 1, CHUCK)
    assert (err.reason, err.message, err.details) == (
        "LAST_LIFE", "Chuck Wengam may not lose his last life point", {})
    assert not [a for a in bang.legal_actions(st, 1) if a["type"] == "ability"]


@pytest.mark.rule("DC-023")
def test_chuck_wengams_ability_names_no_cards() -> None:
    """DC-023: the trade costs life, not cards: an action naming a card is malformed, on the field
    ``cards``, before the life is looked at (also at 1 life)."""
    for life in (3, 1):
        st = table(4, chars=chars(4, s1="chuck_wengam"), turn=1, expansions=DC)
        st["p"][1]["life"] = life
        card = give(st, 1, ["beer"])[0]
        assert malformed(st, 1, {"type": "ability", "cards": [card]}) == (
            "UNEXPECTED_FIELD", "Chuck Wengam's ability discards no cards", "cards")


@pytest.mark.rule("DC-023")
def test_chuck_wengam_asked_in_another_turn_is_told_when_his_ability_works() -> None:
    """DC-023: "in his turn": asked to answer a BANG! in seat 0's turn, he may not trade."""
    st = table(4, chars=chars(4, s1="chuck_wengam"), expansions=DC)
    give(st, 1, ["beer"])
    play(st, 0, give(st, 0, ["bang"])[0], target=1)
    assert pending_kind(st) == "bang"
    err = refusal(st, 1, CHUCK)
    assert (err.reason, err.message) == (
        "ABILITY_NOT_NOW", "Chuck Wengam's ability is used in his own turn, with nothing pending")


# Doc Holyday (DC-024, DC-025)


@pytest.mark.rule("DC-024")
def test_doc_holyday_asked_in_another_turn_is_told_when_his_ability_works() -> None:
    """DC-024: the shot is used in his own turn, with nothing pending."""
    st = table(4, chars=chars(4, s1="doc_holyday"), expansions=DC)
    give(st, 1, ["beer", "missed:5s"])
    play(st, 0, give(st, 0, ["bang"])[0], target=1)
    err = refusal(st, 1, shoot(0))
    assert (err.reason, err.message) == (
        "ABILITY_NOT_NOW", "Doc Holyday's ability is used in his own turn, with nothing pending")


@pytest.mark.rule("DC-024")
def test_doc_holyday_names_only_his_target_and_pays_when_asked() -> None:
    """DC-024: the two discards are asked after the target: naming cards in the ability itself is
    malformed (field ``cards``), whether one card or two, and the target is still free."""
    st = doc()
    a, b = give(st, 0, ["beer", "stagecoach"])
    for cards in ([a], [a, b]):
        assert malformed(st, 0, {"type": "ability", "cards": cards, "target": 1}) == (
            "UNEXPECTED_FIELD", "Name only the target; the two discards are asked next", "cards")
    assert shoot(1) in bang.legal_actions(st, 0)


@pytest.mark.rule("DC-024")
def test_doc_holyday_needs_two_cards_one_is_refused_two_are_paid() -> None:
    """DC-024: "discard 2 cards": with 1 card in hand the shot is refused (and not listed); with
    exactly 2 it is listed and both cards pay for it."""
    st = doc()
    one = give(st, 0, ["beer"])
    err = refusal(st, 0, shoot(1))
    assert (err.reason, err.message, err.details) == (
        "NEED_TWO_CARDS", "Doc Holyday needs two cards in hand to discard", {})
    two = one + give(st, 0, ["stagecoach"])
    assert shoot(1) in bang.legal_actions(st, 0)
    act(st, 0, shoot(1))
    assert st["p"][0]["hand"] == [] and all(c in st["discard"] for c in two)
    assert st["p"][1]["life"] == st["p"][1]["max"] - 1


@pytest.mark.rule("DC-024")
def test_doc_holyday_once_per_turn_and_again_in_his_next_turn() -> None:
    """DC-024: once per turn: the first shot is accepted, a second in the same turn is refused
    (the limit named in the details), and in his next turn he may shoot again."""
    st = doc()
    give(st, 0, ["beer", "stagecoach"])
    act(st, 0, shoot(1))  # seat 1 has no card: the hit lands at once
    give(st, 0, ["panic", "cat_balou"])
    err = refusal(st, 0, shoot(1))
    assert (err.reason, err.details) == ("USED_UP_THIS_TURN", {"limit": "1"})
    assert err.message == "doc_holyday can be used 1 time(s) per turn"
    until_turn(st, 0)
    assert len(st["p"][0]["hand"]) == 4 and shoot(1) in bang.legal_actions(st, 0)  # two kept, two drawn
    act(st, 0, shoot(1))
    assert pending_kind(st) == "doc_holyday" and st["pending"][-1]["args"]["victim"] == 1


@pytest.mark.rule("DC-025")
def test_doc_holyday_cannot_target_apache_kid_with_only_diamonds_in_hand() -> None:
    """DC-025: every card he could discard is a diamond: Apache Kid is refused as the target,
    and the refusal names the seat."""
    st = doc(s1="apache_kid")
    give(st, 0, ["bang:4d", "bang:9d"])
    err = refusal(st, 0, shoot(1))
    assert (err.reason, err.message, err.details) == (
        "TARGET_UNAFFECTED", "Seat 1 is not affected by any card you could discard", {"target": "1"})


@pytest.mark.rule("DC-025")
def test_doc_holydays_second_discard_must_reach_apache_kid_after_a_diamond() -> None:
    """DC-025: after one diamond paid, a second diamond is refused (card and target named); a
    club is listed and accepted, and the shot reaches Apache Kid."""
    st = doc(s1="apache_kid")
    four, nine, club = give(st, 0, ["bang:4d", "bang:9d", "bang:9c"])
    act(st, 0, shoot(1))
    act(st, 0, {"type": "discard", "card": four})
    err = refusal(st, 0, {"type": "discard", "card": nine})
    assert (err.reason, err.message, err.details) == (
        "TARGET_UNAFFECTED", "One of the two cards must be one that affects your target",
        {"card": nine, "target": "1"})
    assert bang.legal_actions(st, 0) == [{"type": "discard", "card": club}]
    act(st, 0, {"type": "discard", "card": club})
    assert st["p"][1]["life"] == st["p"][1]["max"] - 1 and st["p"][0]["hand"] == [nine]


@pytest.mark.rule("DC-024")
def test_doc_holyday_pays_only_with_cards_from_his_own_hand() -> None:
    """DC-024: "from his hand": a card of another player's hand, one in play before him or one
    still in the deck is refused as payment, naming the card; his own card is then accepted."""
    st = doc()
    a, b, c = give(st, 0, ["beer", "stagecoach", "panic"])
    theirs = give(st, 2, ["missed"])[0]
    mine_in_play = equip(st, 0, ["barrel"])[0]
    act(st, 0, shoot(1))
    assert pending_kind(st) == "doc_holyday"
    for card in (theirs, mine_in_play, st["deck"][-1]):
        err = refusal(st, 0, {"type": "discard", "card": card})
        assert (err.reason, err.message, err.details) == (
            "CARD_NOT_IN_HAND", "Pay with a card from your hand", {"card": card})
    act(st, 0, {"type": "discard", "card": a})
    act(st, 0, {"type": "discard", "card": b})
    assert st["p"][0]["hand"] == [c] and st["p"][2]["hand"] == [theirs]


# Vera Custer (DC-038)


def vera(**at: str) -> State:
    """Vera Custer at seat 1; seat 0 is about to end his turn."""
    return table(4, chars=chars(4, s1="vera_custer", **at), expansions=DC)


@pytest.mark.rule("DC-038")
def test_vera_custer_refusals_name_the_pick() -> None:
    """DC-038: a character that is not another living player's is refused, with the pick named:
    her own, a dead player's and one nobody plays."""
    st = vera(s2="willy_the_kid", s3="jourdonnais")
    dead(st, 3)
    act(st, 0, {"type": "end_turn"})
    assert pending_kind(st) == "vera_custer"
    for pick in ("vera_custer", "jourdonnais", "calamity_janet"):
        err = refusal(st, 1, {"type": "choose", "pick": pick})
        assert (err.reason, err.message, err.details) == (
            "NOT_A_CHOICE", "Choose the character of another living player", {"pick": pick})


@pytest.mark.rule("DC-038")
def test_vera_custer_with_one_other_player_left_copies_him_without_being_asked() -> None:
    """DC-038: with only two players alive there is one character to copy: it is taken for her
    and phase 1 follows; with two others alive she is asked."""
    st = vera(s2="willy_the_kid")
    dead(st, 0, 3)
    st["turn"] = 2
    events = act(st, 2, {"type": "end_turn"})
    assert {"kind": "choose", "seat": 1, "other": 2, "reason": "vera_custer"} in events
    assert st["p"][1]["as"] == "willy_the_kid" and st["pending"] == [] and st["phase"] == "play"
    st = vera(s2="willy_the_kid")
    dead(st, 3)
    act(st, 0, {"type": "end_turn"})
    assert pending_kind(st) == "vera_custer" and "as" not in st["p"][1]
    assert bang.legal_actions(st, 1) == [{"type": "choose", "pick": k} for k in ("willy_the_kid", "black_jack")]
