"""Refusals pinned with reason, message, field and details (issue 9, stop-19 run, group g2).

A client shows the message and reads the reason, the field and the details; the mutation run
of ``de6d571`` changed each of these without any test noticing. Verdicts:
``docs/mutation_runs/bang_stop19_g2.md``.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from bang_core_helpers import extra_cards, extra_characters
from bang_helpers import act, equip, give, pending_kind, play, table

from tabletop_server.service.engine.errors import MalformedAction, RuleError
from tabletop_server.service.engine.ruleset import State
from tabletop_server.service.games import bang
from tabletop_server.service.games.bang import actions, versions
from tabletop_server.service.games.bang.tables import TYPES


def refusal(state: State, seat: int, action: Any) -> RuleError:
    before = copy.deepcopy(state)
    with pytest.raises(RuleError) as err:
        bang.apply(state, seat, action)
    assert state == before
    return err.value


def shape(state: State, action: Any) -> tuple[str, str, str]:
    err = refusal(state, 0, action)
    assert isinstance(err, MalformedAction)
    return err.reason, err.message, err.field


def test_a_game_of_other_rules_names_every_version_this_server_plays(monkeypatch: pytest.MonkeyPatch) -> None:
    st = table(4)
    st["v"] = "bang-old-0"
    monkeypatch.setattr(versions, "SUPPORTED_RULES_VERSIONS", frozenset({"bang-z-2", "bang-a-1"}))
    err = refusal(st, 0, {"type": "end_turn"})
    assert err.reason == "RULES_VERSION_UNSUPPORTED" and err.details == {"rules_version": "bang-old-0"}
    assert err.message == ("This game follows rules 'bang-old-0'; this server plays bang-a-1, bang-z-2. Retry later "
                           "(a replica of the release that plays it), or create a new game")


def test_a_finished_game_says_so() -> None:
    st = table(4)
    st["phase"] = "over"
    err = refusal(st, 0, {"type": "end_turn"})
    assert (err.reason, err.message) == ("GAME_FINISHED", "The game is over")


def test_the_chain_cap_names_its_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    st = table(7)
    g = give(st, 0, ["gatling"])[0]
    monkeypatch.setattr(actions, "MAX_CHAIN", 4)
    with pytest.raises(RuleError) as err:
        bang.apply(st, 0, {"type": "play", "card": g})
    assert (err.value.reason, err.value.message) == ("CHAIN_LIMIT", "More than 4 engine steps for one action")


def test_an_unknown_or_shapeless_action_is_refused_on_its_type() -> None:
    st = table(4)
    assert shape(st, {"type": "fly"}) == ("UNKNOWN_ACTION", "Unknown action type 'fly'", "type")
    assert shape(st, ["end_turn"]) == ("UNKNOWN_ACTION", "Unknown action type None", "type")


def test_a_pick_that_is_no_card_is_refused_before_anything_else() -> None:
    st = table(4)
    reason, message, field = shape(st, {"type": "choose", "pick": "nowhere"})
    # The text grew "or a character" with Vera Custer (Dodge City); both begin alike.
    assert (reason, field) == ("BAD_TARGET", "pick") and message.startswith("pick must be 'hand'")
    shot = give(st, 0, ["bang"])[0]
    assert shape(st, {"type": "play", "card": shot, "target": 1, "pick": 5}) == (
        "BAD_TARGET", "pick must be 'hand' or a card id in play", "pick")
    assert shape(st, {"type": "use", "card": shot, "pick": 5}) == (
        "BAD_TARGET", "pick must be 'hand' or a card id in play", "pick")


def test_a_choose_names_only_the_field_its_request_takes() -> None:
    st = table(4)
    play(st, 0, give(st, 0, ["general_store"])[0])
    assert pending_kind(st) == "store"
    offered = st["pending"][-1]["args"]["cards"][0]
    assert shape(st, {"type": "choose", "card": offered, "pick": "nowhere"}) == (
        "UNEXPECTED_FIELD", "This request takes choose.card, not pick", "pick")
    with extra_cards("t_brawl") as ids:
        st = table(4)
        brawl = give(st, 0, [ids["t_brawl"][0]])[0]
        give(st, 0, ["bang"])
        give(st, 1, ["beer"])
        barrel = equip(st, 1, ["barrel"])[0]
        play(st, 0, brawl)
        assert pending_kind(st) == "victim_card"
        assert shape(st, {"type": "choose", "card": barrel}) == (
            "MISSING_TARGET", "Answer this request with choose.pick", "pick")
        assert shape(st, {"type": "choose", "pick": "hand", "card": barrel}) == (
            "UNEXPECTED_FIELD", "This request takes choose.pick, not card", "card")


def test_an_answer_with_a_card_not_in_hand_names_the_card() -> None:
    st = table(4)
    give(st, 1, ["missed"])
    play(st, 0, give(st, 0, ["bang"])[0], target=1)
    elsewhere = st["deck"][0]
    err = refusal(st, 1, {"type": "respond", "card": elsewhere})
    assert (err.reason, err.message, err.details) == ("CARD_NOT_IN_HAND", "That card is not in your hand",
                                                      {"card": elsewhere})


def test_costs_refused_with_the_card_and_what_is_missing() -> None:
    with extra_cards("t_whisky") as ids:
        st = table(4)
        whisky = give(st, 0, [ids["t_whisky"][0]])[0]
        err = refusal(st, 0, {"type": "play", "card": whisky})
        assert (err.reason, err.message, err.details) == (
            "COST_NOT_PAYABLE", "Test Whisky costs 1 more card(s) from your hand", {"card": whisky, "need": "1"})
        give(st, 0, ["bang", "beer"])
        play(st, 0, whisky)
        assert pending_kind(st) == "cost"
        elsewhere = st["deck"][0]
        err = refusal(st, 0, {"type": "discard", "card": elsewhere})
        assert (err.reason, err.message, err.details) == ("CARD_NOT_IN_HAND", "Pay with a card from your hand",
                                                          {"card": elsewhere})


def test_a_silenced_card_in_play_is_named() -> None:
    with extra_characters("t_belle"), extra_cards("t_hat") as ids:
        st = table(4, chars=["t_belle", "black_jack", "black_jack", "black_jack"])
        hat = equip(st, 1, [ids["t_hat"][0]])[0]
        give(st, 1, ["beer"])
        play(st, 0, give(st, 0, ["bang"])[0], target=1)
        err = refusal(st, 1, {"type": "use", "card": hat})
        assert (err.reason, err.message, err.details) == (
            "CARD_SILENCED", "Your cards in play have no effect in this turn", {"card": hat})


def test_a_pick_for_a_use_that_takes_none_names_the_use() -> None:
    with extra_cards("t_rifle") as ids:
        st = table(4)
        rifle = equip(st, 0, [ids["t_rifle"][0]])[0]
        use = TYPES["t_rifle"].use
        assert use is not None
        assert shape(st, {"type": "use", "card": rifle, "target": 1, "pick": "hand"}) == (
            "UNEXPECTED_TARGET", f"{use.name} takes no card of a player", "pick")


def test_an_ability_used_up_names_its_limit() -> None:
    with extra_characters("t_doc"):
        st = table(4, chars=["t_doc", "black_jack", "black_jack", "black_jack"])
        a, b = give(st, 0, ["bang", "beer"])
        act(st, 0, {"type": "ability", "cards": [a]})
        err = refusal(st, 0, {"type": "ability", "cards": [b]})
        assert (err.reason, err.message, err.details) == (
            "USED_UP_THIS_TURN", "test_swap can be used 1 time(s) per turn", {"limit": "1"})
