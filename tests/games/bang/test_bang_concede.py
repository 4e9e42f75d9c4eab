"""Conceding in BANG! (``bang.concede``; no rule covers it, docs/bang.md "Conceding").

The player is eliminated with the usual reveal; nobody earns a reward or a penalty unless he
concedes in the dying window (then the hit kills him); what he left open closes without losing
a card; his turn passes on.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from bang_helpers import act, chars, dead, give, hand_keys, pending_kind, play, stack_deck, table
from hypothesis import given, settings
from hypothesis import strategies as st

from tabletop_server.service.engine.errors import EngineReason, RuleError
from tabletop_server.service.engine.rng import Rng, seed_state
from tabletop_server.service.games import bang
from tabletop_server.service.games.bang.reasons import Reason
from tabletop_server.service.games.bang.state import all_cards

State = dict[str, Any]


def concede(state: State, seat: int) -> list[dict[str, Any]]:
    """Concede after a JSON round trip, as the service stores states."""
    fresh = json.loads(json.dumps(state))
    events = bang.concede(fresh, seat)
    state.clear()
    state.update(fresh)
    return events


def conserved(state: State) -> None:
    cards = all_cards(state)
    assert len(cards) == len(set(cards)) == 80


@pytest.mark.parametrize("seats", [4, 5, 6, 7])
def test_the_player_is_eliminated_with_his_role_shown_and_cards_discarded(seats: int) -> None:
    state = table(seats)
    held = give(state, 2, ["bang", "beer"])
    events = concede(state, 2)
    out = next(e for e in events if e["kind"] == "eliminated")
    assert out == {"kind": "eliminated", "seat": 2, "role": state["p"][2]["role"], "other": None}
    assert not state["p"][2]["alive"] and state["p"][2]["hand"] == []
    assert set(held) <= set(state["discard"])
    assert bang.to_act(state) == [0] and state["turn"] == 0
    conserved(state)


def test_no_reward_for_an_outlaw_who_concedes() -> None:
    state = table(4, roles=["sheriff", "outlaw", "outlaw", "renegade"])
    concede(state, 1)
    assert state["p"][0]["hand"] == []  # nobody killed him: no 3 cards


def test_no_penalty_when_a_deputy_concedes_in_the_sheriffs_turn() -> None:
    state = table(5, roles=["sheriff", "deputy", "outlaw", "outlaw", "renegade"])
    kept = give(state, 0, ["bang", "missed"])
    concede(state, 1)
    assert state["p"][0]["hand"] == kept


def test_conceding_in_the_dying_window_is_a_kill_by_the_hit() -> None:
    """Seat 1 (Outlaw, 1 life, a Beer in hand) is hit by the Sheriff: the dying window waits for
    the Beer. Conceding there: the Sheriff killed him and draws 3 (BANG-026's reward)."""
    state = table(4, roles=["sheriff", "outlaw", "outlaw", "renegade"])
    state["p"][1]["life"] = 1
    give(state, 1, ["beer"])
    bang_card = give(state, 0, ["bang"])[0]
    play(state, 0, bang_card, target=1)
    act(state, 1, {"type": "pass"})  # takes the hit
    assert pending_kind(state) == "dying"
    events = concede(state, 1)
    assert {"kind": "eliminated", "seat": 1, "role": "outlaw", "other": 0} in events
    assert len(state["p"][0]["hand"]) == 3
    conserved(state)


def test_the_turn_player_conceding_passes_the_turn() -> None:
    state = table(4, roles=["sheriff", "outlaw", "outlaw", "renegade"], turn=2)
    events = concede(state, 2)
    assert {"kind": "turn", "seat": 3, "count": 2} in events
    assert state["turn"] == 3 and bang.to_act(state) == [3]
    conserved(state)


def test_a_target_who_concedes_answers_nothing_and_the_turn_goes_on() -> None:
    state = table(4)
    give(state, 1, ["missed"])
    bang_card = give(state, 0, ["bang"])[0]
    play(state, 0, bang_card, target=1)
    assert bang.to_act(state) == [1]
    concede(state, 1)
    assert state["pending"] == [] and bang.to_act(state) == [0] and state["phase"] == "play"


def test_a_card_played_before_conceding_still_resolves() -> None:
    """The turn player shoots, then concedes while the target decides: the target still answers,
    then the turn passes on."""
    state = table(4, roles=["sheriff", "outlaw", "outlaw", "renegade"], turn=1)
    give(state, 2, ["missed"])
    bang_card = give(state, 1, ["bang"])[0]
    play(state, 1, bang_card, target=2)
    concede(state, 1)
    assert bang.to_act(state) == [2]
    life = state["p"][2]["life"]
    act(state, 2, {"type": "pass"})
    assert state["p"][2]["life"] == life - 1 and state["turn"] == 2
    conserved(state)


def test_a_duel_ends_when_one_side_concedes() -> None:
    state = table(4)
    give(state, 1, ["bang"])
    duel = give(state, 0, ["duel"])[0]
    play(state, 0, duel, target=1)
    lives = [p["life"] for p in state["p"]]
    concede(state, 1)
    assert state["pending"] == [] and [p["life"] for p in state["p"]] == [lives[0], 0, *lives[2:]]


@pytest.mark.parametrize("steps", [
    [(0, 1)],          # the source, at his own first pick
    [(1, 3)],          # the next but one chooser, before his pick
    [(2, 0)],          # the last one to pick, while another chooses
    [(2, 1)],          # the source, who picked already
    [(0, 1), (3, 0)],  # the source at once, then the last chooser at his pick: the rest is discarded
])
def test_the_general_store_passes_over_a_player_who_concedes(steps: list[tuple[int, int]]) -> None:
    """Seat 1 plays the General Store at a 5-player table (the Sheriff at seat 2): 5 cards, picked
    by 1, 2, 3, 4, 0. Each step is (picks first, seat that concedes then): every other seat gets
    exactly one card, the rest is discarded."""
    state = table(5, roles=["deputy", "renegade", "sheriff", "outlaw", "outlaw"], turn=1)
    store = give(state, 1, ["general_store"])[0]
    play(state, 1, store)
    shown = list(state["pending"][-1]["args"]["cards"])
    out = set()
    for before, seat in steps:
        for _ in range(before):
            act(state, bang.to_act(state)[0], {"type": "choose", "card": state["pending"][-1]["args"]["cards"][0]})
        concede(state, seat)
        out.add(seat)
    while pending_kind(state) == "store":
        seat = bang.to_act(state)[0]
        assert seat not in out
        act(state, seat, {"type": "choose", "card": state["pending"][-1]["args"]["cards"][0]})
    assert state["phase"] == "play"
    for seat in set(range(5)) - out:
        assert len(set(state["p"][seat]["hand"]) & set(shown)) == 1
    assert set(shown) - {c for p in state["p"] for c in p["hand"]} <= set(state["discard"])
    conserved(state)


def test_kit_carlsons_three_cards_are_not_lost() -> None:
    state = table(4, chars=chars(4, s1="kit_carlson", s2="vulture_sam"), turn=0)
    looked = stack_deck(state, ["bang", "missed", "beer"])
    act(state, 0, {"type": "end_turn"})
    assert pending_kind(state) == "kit_carlson" and bang.to_act(state) == [1]
    concede(state, 1)
    assert set(looked) <= set(state["p"][2]["hand"])  # Vulture Sam takes everything he had
    assert state["turn"] == 2
    conserved(state)


def test_vulture_sam_takes_the_conceding_players_cards() -> None:
    state = table(4, chars=chars(4, s3="vulture_sam"))
    held = give(state, 1, ["bang", "beer"])
    concede(state, 1)
    assert set(held) <= set(state["p"][3]["hand"]) and hand_keys(state, 3) == ["bang", "beer"]


def test_the_sheriff_conceding_ends_the_game_for_the_outlaws() -> None:
    state = table(4, roles=["sheriff", "outlaw", "outlaw", "renegade"])
    events = concede(state, 0)
    assert state["phase"] == "over" and state["winners"] == [1, 2]
    assert events[-1]["kind"] == "game_over" and bang.to_act(state) == []


def test_the_last_outlaw_conceding_ends_it_for_the_law_with_a_store_open() -> None:
    state = table(4, roles=["sheriff", "deputy", "outlaw", "renegade"], turn=2)
    dead(state, 3)
    store = give(state, 2, ["general_store"])[0]
    play(state, 2, store)
    concede(state, 2)
    assert state["phase"] == "over" and state["winners"] == [0, 1] and state["pending"] == []
    conserved(state)  # the store's cards were discarded, not lost


def test_refusals() -> None:
    state = table(4)
    dead(state, 3)
    with pytest.raises(RuleError) as err:
        bang.concede(state, 3)
    assert err.value.reason == Reason.PLAYER_ELIMINATED
    concede(state, 0)
    with pytest.raises(RuleError) as err:
        bang.concede(state, 1)
    assert err.value.reason == EngineReason.GAME_FINISHED


def test_a_rematch_keeps_the_options_and_carries_the_table_over() -> None:
    options = bang.decode_options(None) | {"expansions": ["dodge_city"], "sheriff_extra_card": True,
                                           "sheriff_seat": 3, "retired_characters": ["bart_cassidy"]}
    state = table(5, chars=["black_jack", "jourdonnais", "kit_carlson", "slab_the_killer", "willy_the_kid"],
                  expansions=["dodge_city"])
    dead(state, 2)
    state["phase"] = "over"
    fresh = bang.rematch(state, options)
    assert fresh["expansions"] == ["dodge_city"] and fresh["sheriff_extra_card"] is True
    assert fresh["sheriff_seat"] == 1  # passes on from seat 0, not the old option's 3
    assert fresh["retired_characters"] == [state["p"][2]["char"]]
    assert {k["seat"] for k in fresh["kept_characters"]} == {0, 1, 3, 4}
    bang.setup(fresh, 5, 7)  # a game the rules deal


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), seats=st.integers(4, 7), moves=st.integers(0, 150), who=st.integers(0, 6))
def test_conceding_anywhere_conserves_the_cards_and_the_game_ends(seed: int, seats: int, moves: int,
                                                                  who: int) -> None:
    """Random play; at a random moment a random living player concedes (whoever is to decide);
    random play on to the end: every card is somewhere, once, and nobody out is asked again."""
    rng = Rng({"rng": seed_state(seed)})
    state = bang.setup(None, seats, seed)
    for step in range(3000):
        if bang.is_over(state):
            break
        seat = who % seats
        if step == moves and state["p"][seat]["alive"]:
            bang.concede(state, seat)
            conserved(state)
            continue
        actor = bang.to_act(state)[0]
        assert state["p"][actor]["alive"]
        bang.apply(state, actor, rng.choice(bang.legal_actions(state, actor)))
    assert bang.is_over(state)
    conserved(state)
