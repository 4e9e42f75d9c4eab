"""The core: turn-start steps and per-turn counters are data.

``turn.START_STEPS`` is the ordered list of start-of-turn steps (Dynamite, Jail, phase 1);
an expansion inserts its own (the Bomb, Vera Custer's choice after the checks). Per-turn
counters count any ability or card per seat; the limit is a data trait
(``uses_per_turn``), none meaning unlimited. Test characters from ``bang_core_helpers``.
"""

from __future__ import annotations

import copy

import pytest
from bang_core_helpers import extra_characters, start_step_before
from bang_helpers import act, equip, give, stack_deck, table

from tabletop_server.service.engine.errors import RuleError
from tabletop_server.service.games import bang
from tabletop_server.service.games.bang.turn import START_STEPS


def test_the_start_of_turn_runs_the_listed_steps_in_order() -> None:
    # Vera Custer (Dodge City) drops her copy before the checks and chooses after them; the Bomb
    # (Armed & Dangerous, queued only in its games) is checked after Dynamite and Jail (AD-052).
    assert START_STEPS == ["vera_forget", "t_dynamite", "t_jail", "vera_choose", "t_bomb", "t_draw"]
    with start_step_before("t_draw"):
        st = table(4)
        equip(st, 1, ["dynamite", "jail"])
        st.pop("test_seen")  # the Sheriff's first turn, in setup
        stack_deck(st, ["beer:7h", "bang:Ad"])  # Dynamite safe (a heart), Jail not escaped (a diamond)
        events = act(st, 0, {"type": "end_turn"})
        kinds = [e["kind"] for e in events]
        assert kinds.index("check") < kinds.index("jail")
        # The recorded step ran after both checks, and before the phase 1 draw (the Jail skipped it).
        seat_1, seat_2 = st["test_seen"]  # seat 1 lost his turn in Jail; seat 2's turn started
        assert seat_1 == kinds[:kinds.index("jail") + 1]
        assert seat_2[len(seat_1)] == "turn" and "draw" not in seat_2[len(seat_1):]  # before seat 2's draw
        assert "draw" in kinds[len(seat_2):]


@pytest.mark.parametrize("expansions", [[], ["dodge_city"]])
def test_a_start_step_of_one_character_is_queued_only_for_that_characters_turn(expansions: list[str]) -> None:
    """Vera Custer's steps are queued in her turns only: every other turn (and every base game) starts
    with the three base steps, as before the expansion (its cost is paid only where it applies)."""
    from tabletop_server.service.games.bang.turn import start_turn

    st = table(4, chars=["black_jack", "vera_custer", "black_jack", "black_jack"], expansions=expansions)
    start_turn(st, 2, [])
    assert [r["kind"] for r in reversed(st["pending"])] == ["t_dynamite", "t_jail", "t_draw"]
    st["pending"] = []
    start_turn(st, 1, [])
    assert [r["kind"] for r in reversed(st["pending"])] == ["vera_forget", "t_dynamite", "t_jail", "vera_choose",
                                                            "t_draw"]


def test_an_ability_is_limited_per_turn_by_its_trait_and_the_counter_resets() -> None:
    with extra_characters("t_doc"):
        st = table(4, chars=["t_doc", "black_jack", "black_jack", "black_jack"])
        a, b = give(st, 0, ["bang", "beer"])
        act(st, 0, {"type": "ability", "cards": [a]})
        assert st["uses"] == {"0:test_swap": 1}
        assert not [x for x in bang.legal_actions(st, 0) if x["type"] == "ability"]
        before = copy.deepcopy(st)
        with pytest.raises(RuleError) as err:
            bang.apply(st, 0, {"type": "ability", "cards": [b]})
        assert err.value.reason == "USED_UP_THIS_TURN" and st == before
        act(st, 0, {"type": "end_turn"})
        assert "uses" not in st  # dropped when the next turn starts


def test_without_a_limit_an_ability_is_unlimited() -> None:
    with extra_characters("t_chuck"):
        st = table(4, chars=["t_chuck", "black_jack", "black_jack", "black_jack"])
        give(st, 0, ["bang", "beer", "panic"])
        for _ in range(3):
            card = st["p"][0]["hand"][0]
            act(st, 0, {"type": "ability", "cards": [card]})
        assert st["uses"] == {"0:test_swap": 3}


def test_add_start_step_inserts_just_before_its_step_and_refuses_a_second_time() -> None:
    """How an expansion adds a start-of-turn step (the Bomb after the Jail, Vera Custer's choice)."""
    from tabletop_server.service.games.bang.turn import add_start_step

    before = list(START_STEPS)
    try:
        add_start_step("t_record", before="t_jail")
        assert START_STEPS == [*before[:before.index("t_jail")], "t_record", *before[before.index("t_jail"):]]
        with pytest.raises(ValueError, match=r"^start step 't_record' added twice$"):
            add_start_step("t_record", before="t_draw")
        assert START_STEPS.count("t_record") == 1
    finally:
        START_STEPS[:] = before


def test_a_start_step_added_for_one_character_is_queued_only_in_that_characters_turns() -> None:
    """``add_start_step(..., character=key)``: the step runs at the start of that (printed) character's
    turns only, as Vera Custer's two do; every other turn starts without it."""
    from tabletop_server.service.games.bang.turn import START_STEP_CHARACTER, add_start_step, start_turn

    before = list(START_STEPS)
    try:
        add_start_step("t_record", before="t_draw", character="black_jack")
        assert START_STEP_CHARACTER["t_record"] == "black_jack"
        st = table(4, chars=["kit_carlson", "black_jack", "kit_carlson", "kit_carlson"])
        start_turn(st, 1, [])
        assert [r["kind"] for r in reversed(st["pending"])] == ["t_dynamite", "t_jail", "t_record", "t_draw"]
        st["pending"] = []
        start_turn(st, 2, [])
        assert [r["kind"] for r in reversed(st["pending"])] == ["t_dynamite", "t_jail", "t_draw"]
    finally:
        START_STEPS[:] = before
        START_STEP_CHARACTER.pop("t_record", None)
