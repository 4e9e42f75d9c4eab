"""The core: one action to use a card in play (``use``), beside playing one from the hand.

Green cards (test rows shaped like Dodge City's, see ``bang_core_helpers``) go into play
face up, are usable from the player's next turn on, and are discarded from play to use
them; the effect is the same handler a card from the hand uses (paying apart from doing).
"""

from __future__ import annotations

import copy

import pytest
from bang_core_helpers import extra_cards
from bang_helpers import act, equip, give, kinds, pending_kind, play, table

from tabletop_server.service.engine.errors import RuleError
from tabletop_server.service.engine.ruleset import State
from tabletop_server.service.games import bang
from tabletop_server.service.games.bang import codec


def until_turn(state: State, seat: int) -> None:
    """End turns (Black Jack everywhere: nothing else is asked) until ``seat``'s phase 2 comes again."""
    act(state, state["turn"], {"type": "end_turn"})
    while state["turn"] != seat:
        act(state, state["turn"], {"type": "end_turn"})
    assert state["phase"] == "play"


def refused(state: State, seat: int, action: dict[str, object]) -> str:
    """The reason ``action`` is refused with; the state is unchanged."""
    before = copy.deepcopy(state)
    with pytest.raises(RuleError) as err:
        bang.apply(state, seat, action)
    assert state == before
    return str(err.value.reason)


def test_a_green_card_is_used_from_play_only_from_the_next_turn() -> None:
    with extra_cards("t_pony") as ids:
        st = table(4)
        pony = give(st, 0, [ids["t_pony"][0]])[0]
        assert kinds(play(st, 0, pony)) == ["equip"]
        assert st["p"][0]["table"] == [pony]
        use = {"type": "use", "card": pony}
        assert use not in bang.legal_actions(st, 0)
        assert refused(st, 0, use) == "CARD_NOT_READY"
        until_turn(st, 0)
        assert use in bang.legal_actions(st, 0)
        hand = len(st["p"][0]["hand"])
        events = act(st, 0, use)
        assert kinds(events)[:2] == ["use", "draw"] and events[0]["cards"] == [pony]
        assert len(st["p"][0]["hand"]) == hand + 3
        assert st["p"][0]["table"] == [] and st["discard"][-1] == pony
        assert pony not in st.get("marks", {})


def test_a_bang_effect_from_play_is_not_the_turns_bang_card_and_ignores_reach() -> None:
    with extra_cards("t_rifle") as ids:
        st = table(5)
        rifle = equip(st, 0, [ids["t_rifle"][0]])[0]  # in play before this turn: ready
        missed = give(st, 2, ["missed"])[0]
        assert {"type": "use", "card": rifle, "target": 2} in bang.legal_actions(st, 0)
        events = act(st, 0, {"type": "use", "card": rifle, "target": 2})  # distance 2, Colt reach 1
        assert events[0] == {"kind": "use", "seat": 0, "cards": [rifle], "other": 2}
        assert pending_kind(st) == "bang" and st["pending"][-1]["args"]["need"] == 1
        act(st, 2, {"type": "respond", "card": missed})
        assert st["bangs"] == 0
        bang_card = give(st, 0, ["bang"])[0]
        assert {"type": "play", "card": bang_card, "target": 1} in bang.legal_actions(st, 0)


def test_slab_the_killer_needs_two_missed_for_his_bang_cards_only() -> None:
    with extra_cards("t_rifle") as ids:
        st = table(4, chars=["slab_the_killer", "black_jack", "black_jack", "black_jack"])
        rifle = equip(st, 0, [ids["t_rifle"][0]])[0]
        give(st, 1, ["missed"])
        act(st, 0, {"type": "use", "card": rifle, "target": 1})
        assert st["pending"][-1]["args"]["need"] == 1
        st2 = table(4, chars=["slab_the_killer", "black_jack", "black_jack", "black_jack"])
        give(st2, 1, ["missed"])
        play(st2, 0, give(st2, 0, ["bang"])[0], target=1)
        assert st2["pending"][-1]["args"]["need"] == 2


def test_use_is_refused_for_what_is_not_a_usable_card_in_play() -> None:
    with extra_cards("t_hat", "t_pony") as ids:
        st = table(4)
        hat = equip(st, 0, [ids["t_hat"][0]])[0]
        barrel = equip(st, 0, ["barrel"])[0]
        pony = give(st, 0, [ids["t_pony"][0]])[0]
        assert refused(st, 0, {"type": "use", "card": hat}) == "CARD_NOT_PLAYABLE_NOW"  # Missed! only
        assert refused(st, 0, {"type": "use", "card": barrel}) == "CARD_NOT_PLAYABLE_NOW"
        assert refused(st, 0, {"type": "use", "card": pony}) == "CARD_NOT_IN_PLAY"
        assert refused(st, 1, {"type": "use", "card": hat}) == "NOT_YOUR_TURN"
        assert not [a for a in bang.legal_actions(st, 0) if a["type"] == "use"]


def test_use_round_trips_through_the_codec_and_its_event_encodes() -> None:
    for action in ({"type": "use", "card": "base.barrel.Ks"},
                   {"type": "use", "card": "base.barrel.Ks", "target": 0, "pick": "hand"}):
        assert bang.decode_action(bang.encode_action(action)) == action
    pb = bang.encode_event({"kind": "use", "seat": 1, "cards": ["base.barrel.Ks"], "other": 2})
    assert pb.kind == codec.bang_pb2.BANG_EVENT_KIND_USE and pb.other_seat == 2
