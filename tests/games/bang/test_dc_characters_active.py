"""Dodge City characters with choices in their own turn: Chuck Wengam, Doc Holyday, José Delgado,
Pat Brennan (DC-023..025, 029, 030, 034), with José's house rule ``jose_delgado_in_play`` both ways."""

from __future__ import annotations

import json
import random

import pytest
from bang_core_helpers import extra_cards
from bang_helpers import act, chars, equip, give, hand_keys, pending_kind, play, refused, table, table_keys
from tabletop.v1 import bang_pb2

from tabletop_server.service.engine.errors import RuleError
from tabletop_server.service.engine.ruleset import Action, Event, State
from tabletop_server.service.games import bang
from tabletop_server.service.games.bang import codec
from tabletop_server.service.games.bang.tables import CHARACTERS
from tests.volume import volumes

pytestmark = pytest.mark.usefixtures("dodge_city")
DC = ["dodge_city"]



def abilities(st: State, seat: int) -> list[Action]:
    return [a for a in bang.legal_actions(st, seat) if a["type"] == "ability"]


def drawn(events: list[Event], seat: int) -> int:
    return sum(e["count"] for e in events if e["kind"] == "draw" and e["seat"] == seat)


CHUCK: Action = {"type": "ability", "cards": []}


@pytest.mark.rule("DC-023")
def test_chuck_wengam_trades_life_for_cards_but_never_his_last_life() -> None:
    st = table(4, chars=chars(4, s1="chuck_wengam"), turn=1, expansions=DC)
    st["p"][1]["life"] = 3
    for left in (2, 1):
        assert abilities(st, 1) == [CHUCK]
        events = act(st, 1, CHUCK)
        assert st["p"][1]["life"] == left and drawn(events, 1) == 2
    assert len(st["p"][1]["hand"]) == 4
    refused(st, 1, CHUCK, "LAST_LIFE")
    refused(st, 1, {"type": "ability", "cards": [st["p"][1]["hand"][0]]}, "UNEXPECTED_FIELD")


@pytest.mark.rule("DC-023")
def test_chuck_wengam_only_in_his_turn() -> None:
    st = table(4, chars=chars(4, s1="chuck_wengam"), expansions=DC)
    refused(st, 1, CHUCK, "NOT_YOUR_TURN")
    give(st, 1, ["beer"])
    play(st, 0, give(st, 0, ["bang"])[0], target=1)  # asked in seat 0's turn: still not his
    assert pending_kind(st) == "bang" and CHUCK not in bang.legal_actions(st, 1)
    with pytest.raises(RuleError) as err:
        bang.apply(st, 1, CHUCK)
    assert err.value.reason == "ABILITY_NOT_NOW"
    refused(st, 1, {"type": "ability", "cards": [], "target": 0}, "UNEXPECTED_TARGET")


def doc_table(n: int = 5, **at: str) -> State:
    return table(n, chars=chars(n, s0="doc_holyday", **at), expansions=DC)


@pytest.mark.rule("DC-024")
def test_doc_holyday_shoots_once_per_turn_beside_his_bang_card() -> None:
    st = doc_table()
    give(st, 1, ["beer"])
    give(st, 4, ["beer"])
    shot, a, b, c, d = give(st, 0, ["bang", "beer", "panic", "stagecoach", "missed"])
    play(st, 0, shot, target=1)
    act(st, 1, {"type": "pass"})
    # Within the Colt's reach: seats 1 and 4 (distance 1), not 2 or 3 (distance 2).
    assert abilities(st, 0) == [{"type": "ability", "cards": [], "target": t} for t in (1, 4)]
    refused(st, 0, {"type": "ability", "cards": [], "target": 2}, "OUT_OF_RANGE")
    act(st, 0, {"type": "ability", "cards": [], "target": 4})
    assert pending_kind(st) == "doc_holyday" and {"type": "discard", "card": a} in bang.legal_actions(st, 0)
    shown = bang.view(st, 2).pending[-1]  # a cost of two cards, aimed at seat 4, for every seat to see
    assert (shown.kind, shown.cards_to_discard, shown.opponent_seat) == (bang_pb2.BANG_REQUEST_KIND_COST, 2, 4)
    act(st, 0, {"type": "discard", "card": a})
    events = act(st, 0, {"type": "discard", "card": b})
    assert pending_kind(st) == "bang" and st["pending"][-1]["seat"] == 4 and st["pending"][-1]["args"]["need"] == 1
    assert [e["cards"] for e in events if e["kind"] == "discard"] == [[b]] and a in st["discard"]
    act(st, 4, {"type": "pass"})
    assert st["p"][4]["life"] == st["p"][4]["max"] - 1 and st["bangs"] == 1
    assert not abilities(st, 0) and hand_keys(st, 0) == ["missed", "stagecoach"]
    refused(st, 0, {"type": "ability", "cards": [], "target": 1}, "USED_UP_THIS_TURN")
    assert c in st["p"][0]["hand"] and d in st["p"][0]["hand"]


@pytest.mark.rule("DC-024")
def test_doc_holyday_needs_two_cards_and_does_not_spend_his_bang() -> None:
    st = doc_table()
    give(st, 0, ["beer"])
    assert not abilities(st, 0)
    refused(st, 0, {"type": "ability", "cards": [], "target": 1}, "NEED_TWO_CARDS")
    give(st, 0, ["panic"])
    act(st, 0, {"type": "ability", "cards": [], "target": 1})  # two cards: the engine pays them both
    assert st["p"][0]["hand"] == [] and st["bangs"] == 0 and st["p"][1]["life"] == st["p"][1]["max"] - 1
    shot = give(st, 0, ["bang"])[0]
    assert {"type": "play", "card": shot, "target": 1} in bang.legal_actions(st, 0)
    # The action round-trips through the proto with its target.
    doc = {"type": "ability", "cards": [], "target": 4}
    assert codec.decode_action(codec.encode_action(doc)) == doc


@pytest.mark.rule("DC-025")
def test_doc_holyday_reaches_apache_kid_only_with_a_card_that_is_not_a_diamond() -> None:
    st = doc_table(4, s1="apache_kid")
    give(st, 0, ["bang:4d", "bang:9d"])
    assert abilities(st, 0) == [{"type": "ability", "cards": [], "target": 3}]
    refused(st, 0, {"type": "ability", "cards": [], "target": 1}, "TARGET_UNAFFECTED")
    st = doc_table(4, s1="apache_kid")
    four, nine, club = give(st, 0, ["bang:4d", "bang:9d", "bang:9c"])
    give(st, 1, ["beer"])
    act(st, 0, {"type": "ability", "cards": [], "target": 1})
    act(st, 0, {"type": "discard", "card": four})
    refused(st, 0, {"type": "discard", "card": nine}, "TARGET_UNAFFECTED")  # two diamonds: no effect
    act(st, 0, {"type": "discard", "card": club})
    assert pending_kind(st) == "bang" and st["pending"][-1]["seat"] == 1
    act(st, 1, {"type": "pass"})
    assert st["p"][1]["life"] == 2


def jose_table(house: bool = False) -> State:
    st = table(4, chars=chars(4, s0="jose_delgado"), expansions=DC)
    st["opts"]["jose_delgado_in_play"] = house
    return st


@pytest.mark.rule("DC-029")
def test_jose_delgado_discards_a_blue_card_from_his_hand_not_from_play() -> None:
    with extra_cards("t_pony") as ids:
        st = jose_table()
        mustang = equip(st, 0, ["mustang"])[0]
        barrel, beer, pony = give(st, 0, ["barrel", "beer", ids["t_pony"][0]])
        assert abilities(st, 0) == [{"type": "ability", "cards": [barrel]}]
        refused(st, 0, {"type": "ability", "cards": [mustang]}, "CARD_NOT_IN_HAND")
        refused(st, 0, {"type": "ability", "cards": [beer]}, "NOT_A_BLUE_CARD")
        refused(st, 0, {"type": "ability", "cards": [pony]}, "NOT_A_BLUE_CARD")  # green is not blue
        refused(st, 0, {"type": "ability", "cards": [barrel, beer]}, "NEED_ONE_CARD")
        events = act(st, 0, {"type": "ability", "cards": [barrel]})
        assert barrel in st["discard"] and drawn(events, 0) == 2 and table_keys(st, 0) == ["mustang"]


@pytest.mark.rule("DC-029")
def test_jose_delgado_house_rule_discards_a_blue_card_in_play() -> None:
    st = jose_table(house=True)
    mustang = equip(st, 0, ["mustang"])[0]
    barrel = give(st, 0, ["barrel"])[0]
    assert abilities(st, 0) == [{"type": "ability", "cards": [mustang]}]
    refused(st, 0, {"type": "ability", "cards": [barrel]}, "CARD_NOT_IN_PLAY")
    events = act(st, 0, {"type": "ability", "cards": [mustang]})
    assert st["p"][0]["table"] == [] and mustang in st["discard"] and drawn(events, 0) == 2
    assert barrel in st["p"][0]["hand"]


@pytest.mark.rule("DC-030")
@pytest.mark.parametrize("house", [False, True])
def test_jose_delgado_twice_per_turn(house: bool) -> None:
    st = jose_table(house)
    blues = (equip if house else give)(st, 0, ["barrel", "mustang", "scope"])
    for card in blues[:2]:
        act(st, 0, {"type": "ability", "cards": [card]})
    assert st["uses"] == {"0:jose_delgado": 2} and not abilities(st, 0)
    refused(st, 0, {"type": "ability", "cards": [blues[2]]}, "USED_UP_THIS_TURN")
    assert len(st["p"][0]["hand"]) == 4 + (0 if house else 1)


def pat_turn(st: State) -> list[Event]:
    """Seat 0 ends his turn: Pat Brennan's (seat 1) phase 1."""
    return act(st, 0, {"type": "end_turn"})


@pytest.mark.rule("DC-034")
def test_pat_brennan_takes_one_card_in_play_instead_of_drawing() -> None:
    st = table(4, chars=chars(4, s1="pat_brennan"), expansions=DC)
    rifle = equip(st, 3, ["winchester"])[0]
    own = equip(st, 1, ["barrel"])[0]
    pat_turn(st)
    assert pending_kind(st) == "draw"
    legal = bang.legal_actions(st, 1)
    assert {"type": "choose", "pick": rifle} in legal and {"type": "choose", "pick": own} in legal
    assert {"type": "draw", "source": "deck"} in legal
    refused(st, 1, {"type": "choose", "pick": st["deck"][-1]}, "NOT_A_CHOICE")  # not in play
    deck = len(st["deck"])
    events = act(st, 1, {"type": "choose", "pick": rifle})
    assert st["p"][1]["hand"] == [rifle] and st["p"][3]["table"] == [] and len(st["deck"]) == deck
    assert {"kind": "take", "seat": 1, "other": 3, "cards": [rifle], "reason": "table"} in events
    assert st["phase"] == "play" and st["pending"] == []


@pytest.mark.rule("DC-034")
def test_pat_brennan_may_draw_as_usual_and_draws_when_nothing_is_in_play() -> None:
    st = table(4, chars=chars(4, s1="pat_brennan"), expansions=DC)
    equip(st, 2, ["mustang"])
    pat_turn(st)
    events = act(st, 1, {"type": "draw", "source": "deck"})
    assert drawn(events, 1) == 2 and table_keys(st, 2) == ["mustang"]
    st = table(4, chars=chars(4, s1="pat_brennan"), expansions=DC)
    events = pat_turn(st)
    assert st["pending"] == [] and drawn(events, 1) == 2


@pytest.mark.parametrize("rounds", volumes(1, 4))
def test_random_games_with_every_dodge_city_character_seated(rounds: int) -> None:
    """Each Dodge City character plays whole random games (``rounds`` each) through legal actions: every
    listed action applies (also after a JSON round trip and through the codec), every view encodes, and
    each game ends."""
    dc = sorted(k for k, c in CHARACTERS.items() if c.expansion == "dodge_city")
    for game, key in enumerate(dc * rounds):
        rng = random.Random(game)
        state = bang.setup({"expansions": DC}, 4 + game % 4, game)
        seat = game % len(state["p"])
        if seat in bang.to_act(state):  # not in the middle of his old character's decision (a draw choice)
            seat = (seat + 1) % len(state["p"])
        state["p"][seat]["char"] = key  # seated from his next turn on
        state["opts"].update({h: bool(game % 2) for h in ("jose_delgado_in_play", "pixie_pete_draws_four",
                                                          "sean_mallory_unlimited")})
        for _ in range(3000):
            if bang.is_over(state):
                break
            seat = bang.to_act(state)[0]
            action = rng.choice(bang.legal_actions(state, seat))
            assert codec.decode_action(codec.encode_action(action)) == action
            bang.apply(state, seat, action)
            state = json.loads(json.dumps(state))
            bang.view(state, seat)
        assert bang.is_over(state), (key, game)
