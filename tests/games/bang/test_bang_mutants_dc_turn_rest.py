"""Dodge City characters acting in their own turn: the rest of the stop-20 mutation run.

Chuck Wengam (DC-023), Doc Holyday (DC-024, DC-025) and José Delgado (DC-029) use their abilities
"in their turn" only in phase 2 with nothing pending, even when the pending request is their own
(phase 3's discard). Doc Holyday's two payments are announced as discards naming his target, and
the BANG! effect that follows shows, as its source, the paid card that affects the target (a
non-diamond against Apache Kid), also when the whole hand is paid without asking. Survivors of
``service/games/bang/characters/dodge_city_turn.py``; verdicts:
``docs/mutation_runs/bang_stop20_dc_turn_rest.md``.
"""

from __future__ import annotations

import pytest
from bang_helpers import act, chars, equip, give, pending_kind, refusal, stack_deck, table
from tabletop.v1 import bang_pb2

from tabletop_server.service.engine.ruleset import Action, State
from tabletop_server.service.games import bang

pytestmark = pytest.mark.usefixtures("dodge_city")
DC = ["dodge_city"]


def shoot(target: int) -> Action:
    return {"type": "ability", "cards": [], "target": target}


def paid(card: str, victim: int) -> dict[str, object]:
    """The event of one of Doc Holyday's (seat 0) two discards."""
    return {"kind": "discard", "seat": 0, "cards": [card], "reason": "doc_holyday", "other": victim}


def requests(st: State, viewer: int) -> list[tuple[object, ...]]:
    """The pending requests as the viewer's client reads them: kind, seat, source seat (None if unset),
    source card, Missed! needed, cards to discard, opponent seat (None if unset)."""
    return [(bang_pb2.BangRequestKind.Name(r.kind), r.seat, r.source_seat if r.HasField("source_seat") else None,
             r.source_card.id, r.missed_needed, r.cards_to_discard,
             r.opponent_seat if r.HasField("opponent_seat") else None) for r in bang.view(st, viewer).pending]


def cost(discard: int, victim: int) -> tuple[object, ...]:
    """Doc Holyday's (seat 0) payment request, as read by a client."""
    return ("BANG_REQUEST_KIND_COST", 0, 0, "", 0, discard, victim)


def shot(card: str, victim: int) -> tuple[object, ...]:
    """The BANG! effect of Doc Holyday (seat 0) on ``victim``, as read by a client."""
    return ("BANG_REQUEST_KIND_BANG", victim, 0, card, 1, 0, None)


# In his own turn, but not with nothing pending (DC-023, DC-024, DC-029)


ABILITIES = [
    pytest.param("chuck_wengam", "Chuck Wengam", [], None, marks=pytest.mark.rule("DC-023"), id="chuck"),
    pytest.param("doc_holyday", "Doc Holyday", [], 2, marks=pytest.mark.rule("DC-024"), id="doc"),
    pytest.param("jose_delgado", "José Delgado", ["barrel"], None, marks=pytest.mark.rule("DC-029"), id="jose"),
]


@pytest.mark.parametrize(("char", "name", "named", "target"), ABILITIES)
def test_own_turn_abilities_wait_while_his_own_phase_3_discard_is_pending(
        char: str, name: str, named: list[str], target: int | None) -> None:
    """The "during his turn" of the three abilities is phase 2 with nothing pending: asked to discard down to his
    life at the end of his own turn, the ability is neither listed nor accepted; in phase 2 it was both."""
    st = table(4, chars=chars(4, s1=char), turn=1, expansions=DC)
    hand = give(st, 1, [*named, "beer", "beer", "missed", "missed", "bang", "bang"])
    action: Action = {"type": "ability", "cards": hand[:len(named)]}
    if target is not None:
        action["target"] = target
    assert action in bang.legal_actions(st, 1)
    assert act(st, 1, {"type": "end_turn"}) == [{"kind": "end_turn", "seat": 1}]
    assert (st["turn"], st["phase"], pending_kind(st)) == (1, "discard", "discard")
    assert not [a for a in bang.legal_actions(st, 1) if a["type"] == "ability"]
    err = refusal(st, 1, action)
    assert (err.reason, err.message, err.details) == (
        "ABILITY_NOT_NOW", f"{name}'s ability is used in his own turn, with nothing pending", {})
    assert st["p"][1]["hand"] == hand and st["p"][1]["life"] == st["p"][1]["max"]


@pytest.mark.rule("DC-023")
def test_chuck_wengam_may_not_trade_while_answering_his_own_duel() -> None:
    """DC-023: a request pending in his own phase 2 (his Duel answered with a BANG!) stops the trade
    too; once the Duel is over, with nothing pending, it is offered again."""
    st = table(4, chars=chars(4, s1="chuck_wengam"), turn=1, expansions=DC)
    duel, mine = give(st, 1, ["duel", "bang:8c"])
    give(st, 2, ["bang:5c"])
    act(st, 1, {"type": "play", "card": duel, "target": 2})
    act(st, 2, {"type": "respond", "card": st["p"][2]["hand"][0]})
    assert pending_kind(st) == "duel" and st["pending"][-1]["seat"] == 1
    chuck: Action = {"type": "ability", "cards": []}
    err = refusal(st, 1, chuck)
    assert (err.reason, err.message) == (
        "ABILITY_NOT_NOW", "Chuck Wengam's ability is used in his own turn, with nothing pending")
    act(st, 1, {"type": "respond", "card": mine})
    assert st["pending"] == [] and st["phase"] == "play"
    assert chuck in bang.legal_actions(st, 1)


# Doc Holyday's payment and the shot that follows (DC-024, DC-025)


@pytest.mark.rule("DC-024")
def test_doc_holydays_two_discards_name_his_target_and_the_shot_shows_its_card() -> None:
    """DC-024: each payment is a public discard by Doc naming his target; after the second the target
    is asked to answer a BANG! effect from Doc that needs one Missed!, its source the first paid card;
    taking it is a hit from Doc. The payment request shows Doc as its source and the cards still due."""
    st = table(4, chars=chars(4, s0="doc_holyday"), expansions=DC)
    first, second, kept = give(st, 0, ["beer", "stagecoach", "panic"])
    give(st, 1, ["missed"])
    assert act(st, 0, shoot(1)) == []
    assert pending_kind(st) == "doc_holyday" and requests(st, 2) == [cost(2, 1)]
    assert act(st, 0, {"type": "discard", "card": first}) == [paid(first, 1)]
    assert pending_kind(st) == "doc_holyday" and requests(st, 2) == [cost(1, 1)]
    assert act(st, 0, {"type": "discard", "card": second}) == [paid(second, 1)]
    assert pending_kind(st) == "bang" and requests(st, 1) == [shot(first, 1)]
    assert st["p"][0]["hand"] == [kept] and st["discard"][-2:] == [first, second]
    assert act(st, 1, {"type": "pass"}) == [
        {"kind": "pass", "seat": 1, "reason": "bang"},
        {"kind": "damage", "seat": 1, "amount": 1, "life": st["p"][1]["max"] - 1, "other": 0}]


@pytest.mark.rule("DC-025")
def test_doc_holydays_shot_at_apache_kid_comes_from_the_card_that_is_not_a_diamond() -> None:
    """DC-025: Doc pays a club and then a diamond at Apache Kid: the club affects him, so the BANG!
    effect's source is the club, not the diamond paid last."""
    st = table(4, chars=chars(4, s0="doc_holyday", s1="apache_kid"), expansions=DC)
    club, diamond, _ = give(st, 0, ["bang:9c", "bang:4d", "beer"])
    give(st, 1, ["missed"])
    act(st, 0, shoot(1))
    assert act(st, 0, {"type": "discard", "card": club}) == [paid(club, 1)]
    assert act(st, 0, {"type": "discard", "card": diamond}) == [paid(diamond, 1)]
    assert requests(st, 1) == [shot(club, 1)]


@pytest.mark.rule("DC-025")
def test_doc_holyday_with_two_cards_pays_both_unasked_even_a_diamond_first_at_apache_kid() -> None:
    """DC-025: with exactly two cards in hand the whole hand goes without asking (its size is public):
    the diamond first, then the club; the shot reaches Apache Kid with the club as its source."""
    st = table(4, chars=chars(4, s0="doc_holyday", s1="apache_kid"), expansions=DC)
    diamond, club = give(st, 0, ["bang:4d", "bang:9c"])
    give(st, 1, ["missed"])
    assert shoot(1) in bang.legal_actions(st, 0)
    assert act(st, 0, shoot(1)) == [paid(diamond, 1), paid(club, 1)]
    assert st["p"][0]["hand"] == [] and st["discard"][-2:] == [diamond, club]
    assert pending_kind(st) == "bang" and requests(st, 1) == [shot(club, 1)]


# José Delgado's trade (DC-029, DC-030)


@pytest.mark.rule("DC-029")
@pytest.mark.parametrize("in_play", [False, True], ids=["from_hand", "house_rule_in_play"])
def test_jose_delgado_announces_the_blue_discard_and_the_two_cards_drawn_for_it(in_play: bool) -> None:
    """DC-029: the blue card goes to the discard pile as José Delgado's discard, then he draws two
    for his ability (not as a phase-1 draw); with the house rule the card comes from play."""
    st = table(4, chars=chars(4, s1="jose_delgado"), turn=1, expansions=DC, jose_delgado_in_play=in_play)
    barrel = (equip if in_play else give)(st, 1, ["barrel"])[0]
    top = stack_deck(st, ["beer", "missed"])
    assert act(st, 1, {"type": "ability", "cards": [barrel]}) == [
        {"kind": "discard", "seat": 1, "cards": [barrel], "reason": "jose_delgado"},
        {"kind": "draw", "seat": 1, "cards": top, "count": 2, "reason": "jose_delgado"},
    ]
    assert st["p"][1]["hand"] == top and st["p"][1]["table"] == [] and st["discard"][-1] == barrel


@pytest.mark.rule("DC-029")
@pytest.mark.parametrize("in_play", [False, True], ids=["from_hand", "house_rule_in_play"])
def test_jose_delgado_refusals_say_which_card_and_why(in_play: bool) -> None:
    """DC-029: exactly one card; it must be in his hand (in play with the house rule), and blue
    (a green card is not); each refusal names the card. The blue card is then accepted."""
    st = table(4, chars=chars(4, s1="jose_delgado"), turn=1, expansions=DC, jose_delgado_in_play=in_play)
    put = equip if in_play else give
    barrel, mustang = put(st, 1, ["barrel", "mustang"])
    green = put(st, 1, ["canteen"])[0]
    elsewhere = (give if in_play else equip)(st, 1, ["scope"])[0]
    for cards in ([], [barrel, mustang]):
        err = refusal(st, 1, {"type": "ability", "cards": cards})
        assert (err.reason, err.message, err.details) == (
            "NEED_ONE_CARD", "José Delgado discards exactly one blue card", {})
    err = refusal(st, 1, {"type": "ability", "cards": [elsewhere]})
    if in_play:
        assert (err.reason, err.message, err.details) == (
            "CARD_NOT_IN_PLAY", "Discard a blue card you have in play (house rule)", {"card": elsewhere})
    else:
        assert (err.reason, err.message, err.details) == (
            "CARD_NOT_IN_HAND", "Discard a blue card from your hand", {"card": elsewhere})
    err = refusal(st, 1, {"type": "ability", "cards": [green]})
    assert (err.reason, err.message, err.details) == (
        "NOT_A_BLUE_CARD", "Only a blue-bordered card can be discarded", {"card": green})
    act(st, 1, {"type": "ability", "cards": [barrel]})
    assert st["discard"][-1] == barrel


# Vera Custer's choice (DC-038)


@pytest.mark.rule("DC-038")
def test_vera_custers_choice_is_her_own_request_at_the_start_of_her_turn() -> None:
    """DC-038: with two other living characters to copy, her turn starts with a request to her,
    from her own ability (her seat its source), before she draws."""
    st = table(4, chars=chars(4, s1="vera_custer", s2="chuck_wengam"), expansions=DC)
    act(st, 0, {"type": "end_turn"})
    assert (st["turn"], st["phase"], pending_kind(st)) == (1, "draw", "vera_custer")
    assert [(r.seat, r.HasField("source_seat"), r.source_seat) for r in bang.view(st, 0).pending] == [(1, True, 1)]
