"""The core: character traits and game-mode data instead of constants.

The hand limit (Sean Mallory's shape: ``hand_limit``), the life a Beer gives (Tequila
Joe's shape: ``beer_heal``), and the rewards and penalties of a game mode
(``roles.json`` ``kill_rules``; the 3-player game rewards any kill).
"""

from __future__ import annotations

from bang_core_helpers import extra_characters
from bang_helpers import act, duel_kill, give, hand_keys, kinds, pending_kind, play, table

from tabletop_server.service.games import bang
from tabletop_server.service.games.bang.catalog import KillRule
from tabletop_server.service.games.bang.tables import KILL_RULES


def test_a_hand_limit_trait_replaces_the_life_limit() -> None:
    with extra_characters("t_sean"):
        st = table(4, chars=["t_sean", "black_jack", "black_jack", "black_jack"])
        give(st, 0, ["bang", "bang", "beer", "beer", "panic", "missed"])  # 6 cards, 4 life
        act(st, 0, {"type": "end_turn"})
        assert len(st["p"][0]["hand"]) == 6 and st["turn"] == 1
        st2 = table(4)
        give(st2, 0, ["bang", "bang", "beer", "beer", "panic", "missed"])
        act(st2, 0, {"type": "end_turn"})
        assert pending_kind(st2) == "discard"
        # At the trait's limit and one over (the data row's 10, not the life 4, nor 11).
        for cards, discards in ((10, 0), (11, 1)):
            st3 = table(4, chars=["t_sean", "black_jack", "black_jack", "black_jack"])
            give(st3, 0, st3["deck"][:cards])
            act(st3, 0, {"type": "end_turn"})
            for _ in range(discards):
                assert pending_kind(st3) == "discard"
                act(st3, 0, {"type": "discard", "card": st3["p"][0]["hand"][0]})
            assert len(st3["p"][0]["hand"]) == 10 and st3["turn"] == 1


def test_a_beer_heal_trait_heals_more_and_saves_from_further_down() -> None:
    with extra_characters("t_tequila"):
        st = table(4, chars=["t_tequila", "black_jack", "black_jack", "black_jack"])
        st["p"][0]["life"] = 2
        events = play(st, 0, give(st, 0, ["beer"])[0])
        assert events[-1]["kind"] == "heal" and events[-1]["amount"] == 2 and st["p"][0]["life"] == 4
        st = table(4, chars=["black_jack", "t_tequila", "black_jack", "black_jack"])
        st["p"][1]["life"] = 1
        beer = give(st, 1, ["beer", "bang"])[0]
        play(st, 0, give(st, 0, ["gatling"])[0])
        act(st, 1, {"type": "pass"})  # 1 - 1 = 0: the dying window
        assert pending_kind(st) == "dying"
        assert {"type": "respond", "card": beer} in bang.legal_actions(st, 1)
        act(st, 1, {"type": "respond", "card": beer})
        assert st["p"][1]["life"] == 2 and st["p"][1]["alive"]  # from 0, healed 2


def test_rewards_and_penalties_are_the_game_modes_data() -> None:
    st = table(4)  # S R O O
    events = duel_kill(st, 0, 1)  # the Sheriff kills the Renegade: nothing in the standard game
    assert "reward" not in [e.get("reason") for e in events]
    saved = KILL_RULES["standard"]
    KILL_RULES["standard"] = (KillRule("any", "any", "draw", 3),)
    try:
        st = table(4)
        events = duel_kill(st, 0, 1)
        rewards = [e for e in events if e.get("reason") == "reward"]
        assert len(rewards) == 1 and rewards[0]["seat"] == 0 and rewards[0]["count"] == 3
    finally:
        KILL_RULES["standard"] = saved
    st = table(4)
    events = duel_kill(st, 0, 2)  # an Outlaw: 3 cards
    assert [e["count"] for e in events if e.get("reason") == "reward"] == [3]
    assert "eliminated" in kinds(events) and hand_keys(st, 0) != []
