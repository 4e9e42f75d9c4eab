"""The turn: setup, phase 1, BANG!/Missed!/Beer, phase 3 and the next player."""

from __future__ import annotations

from collections import Counter

import pytest
from bang_helpers import act, give, hand_keys, kinds, pending_kind, play, stack_deck, table

from tabletop_server.service.engine.errors import MalformedAction, RuleError
from tabletop_server.service.games import bang
from tabletop_server.service.games.bang.state import all_cards


@pytest.mark.rule("BANG-004", "BANG-009", "BANG-013")
@pytest.mark.parametrize("n", [4, 5, 6, 7])
def test_setup_roles_life_and_first_turn(n: int) -> None:
    pools = {4: "RSOO", 5: "RSOOD", 6: "RSOOOD", 7: "RSOOODD"}
    for seed in range(20):
        st = bang.setup({}, n, seed)
        roles = Counter(p["role"][0].upper() for p in st["p"])
        assert roles == Counter(pools[n])
        assert len({p["char"] for p in st["p"]}) == n
        sheriff = next(i for i, p in enumerate(st["p"]) if p["role"] == "sheriff")
        assert st["turn"] == sheriff
        assert len(all_cards(st)) == 80 and len(set(all_cards(st))) == 80
        for p in st["p"]:
            from tabletop_server.service.games.bang.tables import CHARACTERS
            bullets = CHARACTERS[p["char"]].life
            assert p["max"] == p["life"] == bullets + (p["role"] == "sheriff")


@pytest.mark.rule("BANG-010")
@pytest.mark.parametrize("extra", [False, True])
def test_sheriff_starting_hand_is_printed_bullets_unless_house_rule(extra: bool) -> None:
    from tabletop_server.service.games.bang.setup import (
        setup as deal,  # the deal alone, before the Sheriff's first draw
    )
    from tabletop_server.service.games.bang.tables import CHARACTERS
    for seed in range(20):
        st = deal({"sheriff_extra_card": extra}, 4 + seed % 4, seed)
        for p in st["p"]:
            bullets = CHARACTERS[p["char"]].life
            assert len(p["hand"]) == bullets + (extra and p["role"] == "sheriff"), (seed, p["role"])


@pytest.mark.usefixtures("not_offered")
def test_expansion_not_available_is_malformed() -> None:
    with pytest.raises(MalformedAction) as err:
        bang.setup({"expansions": ["armed_and_dangerous"]}, 4, 1)
    assert err.value.reason == "EXPANSION_NOT_AVAILABLE"
    assert len(bang.setup({"expansions": ["dodge_city"]}, 4, 1)["deck"]) > 80  # Dodge City is offered
    assert err.value.field == "options.bang.expansions"


@pytest.mark.rule("BANG-014", "BANG-015", "BANG-042", "BANG-043", "BANG-044")
def test_a_full_turn_draw_bang_missed_beer_discard_end() -> None:
    st = table(4, chars=["willy_the_kid", "black_jack", "black_jack", "black_jack"])
    st["p"][0]["life"] = 3
    bang_card, beer = give(st, 0, ["bang", "beer"])
    missed = give(st, 1, ["missed"])[0]
    events = play(st, 0, bang_card, target=1)
    assert pending_kind(st) == "bang" and bang.to_act(st) == [1]
    events = act(st, 1, {"type": "respond", "card": missed})
    assert "damage" not in kinds(events)
    assert bang_card in st["discard"] and missed in st["discard"]
    play(st, 0, beer)
    assert st["p"][0]["life"] == 4
    # End the turn: seat 1 starts and draws 2 (stacked); Black Jack shows the 2nd (a club: no 3rd card).
    stack_deck(st, ["stagecoach", "panic:Jh"])
    stack_deck(st, ["bang:2c", "bang:3c"])
    events = act(st, 0, {"type": "end_turn"})
    assert st["turn"] == 1 and st["phase"] == "play"
    assert hand_keys(st, 1) == ["bang", "bang"]


@pytest.mark.rule("BANG-023")
def test_phase_three_discards_down_to_life() -> None:
    st = table(4)
    st["p"][0]["life"] = 2
    give(st, 0, ["bang", "missed", "panic", "beer", "duel"])
    act(st, 0, {"type": "end_turn"})
    assert pending_kind(st) == "discard" and st["phase"] == "discard"
    with pytest.raises(RuleError) as err:
        act(st, 0, {"type": "end_turn"})
    assert err.value.reason == "WRONG_ANSWER"
    for _ in range(3):
        act(st, 0, {"type": "discard", "card": st["p"][0]["hand"][0]})
    assert len(st["p"][0]["hand"]) == 2 and st["turn"] == 1


def test_unknown_card_is_malformed() -> None:
    st = table(4)
    with pytest.raises(MalformedAction) as err:
        act(st, 0, {"type": "play", "card": "base.nope.2c"})
    assert err.value.reason == "UNKNOWN_CARD" and err.value.field == "card"
