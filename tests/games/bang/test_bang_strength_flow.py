"""Roles and game flow, each rule on both sides of what it depends on (issue 9).

Penalty and reward by the roles of killer and victim, the winners for every role set
(4 to 7 players), the Sheriff's extra life, and the hand limit at exactly the limit and
one over. Everything goes through the public ruleset functions on tables dealt by
``bang.setup`` (``bang_helpers.table``).
"""

from __future__ import annotations

import pytest
from bang_helpers import act, dead, duel_kill, equip, give, kinds, pending_kind, stack_deck, table

from tabletop_server.service.engine.errors import RuleError
from tabletop_server.service.games import bang
from tabletop_server.service.games.bang.tables import CHARACTERS, ROLE_POOLS
from tabletop_server.service.games.bang.view import PHASES

FIVE = ["sheriff", "deputy", "outlaw", "renegade", "outlaw"]


def seats_of(n: int, role: str) -> list[int]:
    """The seats holding ``role`` in ``table(n)``'s default deal (the pool in data order)."""
    return [s for s, r in enumerate(ROLE_POOLS[n]) if r == role]


# Penalty and reward (BANG-026, BANG-027)

@pytest.mark.rule("BANG-026")
def test_sheriff_killing_his_deputy_discards_hand_and_table() -> None:
    st = table(5, roles=FIVE)
    hand = give(st, 0, ["beer", "panic", "missed"])
    barrel = equip(st, 0, ["barrel"])[0]
    events = duel_kill(st, 0, 1)
    assert not st["p"][1]["alive"]
    assert st["p"][0]["hand"] == [] and st["p"][0]["table"] == []
    assert all(c in st["discard"] for c in [*hand, barrel])
    penalty = [e for e in events if e["kind"] == "discard" and e.get("reason") == "penalty"]
    assert [sorted(e["cards"]) for e in penalty] == [sorted([*hand, barrel])] and penalty[0]["seat"] == 0


@pytest.mark.rule("BANG-026", "BANG-027")
def test_sheriff_killing_an_outlaw_keeps_his_cards_and_draws_three() -> None:
    st = table(5, roles=FIVE)
    hand = give(st, 0, ["beer", "panic"])
    barrel = equip(st, 0, ["barrel"])[0]
    reward = stack_deck(st, ["bang", "missed", "beer"])
    duel_kill(st, 0, 2)
    assert not st["p"][2]["alive"]
    assert st["p"][0]["hand"] == hand + reward and st["p"][0]["table"] == [barrel]


@pytest.mark.rule("BANG-026", "BANG-027")
def test_sheriff_killing_the_renegade_keeps_his_cards_and_draws_nothing() -> None:
    st = table(5, roles=FIVE)
    hand = give(st, 0, ["beer", "panic"])
    barrel = equip(st, 0, ["barrel"])[0]
    events = duel_kill(st, 0, 3)
    assert not st["p"][3]["alive"]
    assert st["p"][0]["hand"] == hand and st["p"][0]["table"] == [barrel]
    assert not [e for e in events if e["kind"] == "draw" and e["seat"] == 0]


@pytest.mark.rule("BANG-026", "BANG-027")
@pytest.mark.parametrize("killer_role", ["outlaw", "renegade"])
def test_a_deputy_killed_by_anyone_but_the_sheriff_costs_nothing_and_pays_nothing(killer_role: str) -> None:
    roles = ["sheriff", "deputy", "outlaw", "renegade", "outlaw"]
    killer = roles.index(killer_role)
    st = table(5, roles=roles)
    hand = give(st, killer, ["beer", "panic"])
    duel_kill(st, killer, 1)
    assert not st["p"][1]["alive"] and st["p"][killer]["hand"] == hand


@pytest.mark.rule("BANG-027")
@pytest.mark.parametrize("killer_role", ["sheriff", "deputy", "outlaw", "renegade"])
def test_whoever_kills_an_outlaw_draws_three(killer_role: str) -> None:
    roles = ["sheriff", "deputy", "outlaw", "renegade", "outlaw"]
    killer = roles.index(killer_role)
    st = table(5, roles=roles)
    reward = stack_deck(st, ["bang", "missed", "beer", "duel"])
    duel_kill(st, killer, 4)
    assert not st["p"][4]["alive"]
    assert st["p"][killer]["hand"] == reward[:3] and st["deck"][-1] == reward[3]


@pytest.mark.rule("BANG-027")
def test_an_outlaw_killed_by_dynamite_rewards_nobody() -> None:
    st = table(5, roles=FIVE)
    st["p"][2]["life"] = 1
    equip(st, 2, ["dynamite"])
    st["turn"] = 1
    stack_deck(st, ["any:5s"])
    events = act(st, 1, {"type": "end_turn"})  # seat 2's turn starts with the Dynamite check
    assert not st["p"][2]["alive"] and "explode" in kinds(events)
    assert not [e for e in events if e["kind"] == "draw" and e["reason"] == "reward"]
    assert st["p"][1]["hand"] == []


# Winners (BANG-028..031), for every role set

@pytest.mark.rule("BANG-029", "BANG-004")
@pytest.mark.parametrize("n", [4, 5, 6, 7])
def test_sheriff_killed_by_an_outlaw_the_outlaws_win_dead_ones_too(n: int) -> None:
    outlaws = seats_of(n, "outlaw")
    st = table(n)
    dead(st, outlaws[0])
    duel_kill(st, outlaws[-1], 0)
    assert bang.is_over(st) and st["winners"] == outlaws and bang.to_act(st) == []


@pytest.mark.rule("BANG-029")
@pytest.mark.parametrize("n", [5, 6, 7])
def test_renegade_kills_the_sheriff_with_a_deputy_alive_the_outlaws_win(n: int) -> None:
    st = table(n)
    dead(st, *seats_of(n, "outlaw"))
    duel_kill(st, seats_of(n, "renegade")[0], 0)
    assert st["winners"] == seats_of(n, "outlaw")


@pytest.mark.rule("BANG-028", "BANG-029")
@pytest.mark.parametrize("n", [4, 5, 6, 7])
def test_renegade_wins_alone_only_as_the_last_one_alive(n: int) -> None:
    renegade = seats_of(n, "renegade")[0]
    others = [s for s in range(1, n) if s != renegade]
    st = table(n)
    dead(st, *others)
    events = duel_kill(st, renegade, 0)
    assert st["winners"] == [renegade]
    over = next(e for e in events if e["kind"] == "game_over")
    assert over["seats"] == [renegade] and over["roles"] == list(ROLE_POOLS[n])
    # One other player still alive (the last outlaw): the Renegade is not last, the Outlaws win.
    st = table(n)
    dead(st, *others[:-1])
    duel_kill(st, renegade, 0)
    assert st["winners"] == seats_of(n, "outlaw")


@pytest.mark.rule("BANG-030", "BANG-031")
@pytest.mark.parametrize("n", [4, 5, 6, 7])
def test_law_wins_once_outlaws_and_renegade_are_all_dead(n: int) -> None:
    outlaws, renegade = seats_of(n, "outlaw"), seats_of(n, "renegade")[0]
    law = [s for s, r in enumerate(ROLE_POOLS[n]) if r in ("sheriff", "deputy")]
    # The last Outlaw dies, the Renegade lives: the game goes on.
    st = table(n)
    dead(st, *outlaws[:-1])
    duel_kill(st, 0, outlaws[-1])
    assert not bang.is_over(st) and st["winners"] == []
    # The Renegade dies, one Outlaw lives: the game goes on.
    st = table(n)
    dead(st, *outlaws[:-1])
    duel_kill(st, 0, renegade)
    assert not bang.is_over(st)
    # The last of them dies (a Deputy already dead still wins).
    st = table(n)
    dead(st, *outlaws, *law[2:])
    duel_kill(st, 0, renegade)
    assert bang.is_over(st) and st["winners"] == law


@pytest.mark.rule("BANG-030")
def test_a_deputy_killing_the_last_enemy_wins_with_the_sheriff() -> None:
    st = table(5, roles=FIVE)
    dead(st, 2, 3)
    duel_kill(st, 1, 4)
    assert st["winners"] == [0, 1]


@pytest.mark.rule("BANG-031", "BANG-013")
def test_after_an_elimination_that_ends_nothing_the_turn_goes_on_clockwise() -> None:
    st = table(5, roles=FIVE)
    duel_kill(st, 0, 1)
    assert st["phase"] == "play" and bang.to_act(st) == [0]
    act(st, 0, {"type": "end_turn"})
    assert st["turn"] == 2  # seat 1 is dead: skipped


# Setup: the Sheriff's extra life, starting hands (BANG-009, BANG-010, BANG-013)

def opening_draws(state: dict[str, object], seat: int) -> int:
    """Cards ``seat`` got from the opening events (the Sheriff's first phase 1)."""
    return sum(len(e.get("cards", [])) for e in state.get("opening", [])  # type: ignore[union-attr]
               if e["kind"] == "draw" and e["seat"] == seat)


@pytest.mark.rule("BANG-009", "BANG-010", "BANG-013")
@pytest.mark.parametrize("n", [4, 5, 6, 7])
@pytest.mark.parametrize("extra_card", [False, True])
def test_the_sheriff_has_one_more_life_and_card_only_by_house_rule(n: int, extra_card: bool) -> None:
    for seed in range(6):
        st = bang.setup({"sheriff_extra_card": extra_card}, n, seed)
        sheriff = [p["role"] for p in st["p"]].index("sheriff")
        assert st["turn"] == sheriff and sorted(p["role"] for p in st["p"]) == sorted(ROLE_POOLS[n])
        for seat, p in enumerate(st["p"]):
            bullets = CHARACTERS[p["char"]].life
            is_sheriff = seat == sheriff
            assert p["life"] == p["max"] == bullets + is_sheriff
            dealt = len(p["hand"]) - opening_draws(st, seat)
            assert dealt == bullets + (is_sheriff and extra_card)


# Hand limit (BANG-023, BANG-014)

@pytest.mark.rule("BANG-023", "BANG-014")
@pytest.mark.parametrize("life", [1, 2, 4])
def test_a_hand_at_exactly_the_limit_discards_nothing(life: int) -> None:
    st = table(4)
    st["p"][0]["life"] = life
    hand = give(st, 0, ["beer", "panic", "missed", "duel"][:life])
    events = act(st, 0, {"type": "end_turn"})
    assert st["p"][0]["hand"] == hand and st["turn"] == 1
    assert "discard" not in kinds(events) and kinds(events)[:2] == ["end_turn", "turn"]


@pytest.mark.rule("BANG-023", "BANG-014")
@pytest.mark.parametrize("life", [1, 2, 4])
def test_one_card_over_the_limit_discards_exactly_one(life: int) -> None:
    st = table(4)
    st["p"][0]["life"] = life
    hand = give(st, 0, ["beer", "panic", "missed", "duel", "stagecoach"][:life + 1])
    act(st, 0, {"type": "end_turn"})
    assert pending_kind(st) == "discard" and st["phase"] == "discard" and bang.to_act(st) == [0]
    assert bang.legal_actions(st, 0) == [{"type": "discard", "card": c} for c in hand]
    assert bang.view(st, 0).phase == PHASES["discard"]
    for seat in (1, 2, 3):
        assert bang.legal_actions(st, seat) == []
    events = act(st, 0, {"type": "discard", "card": hand[-1]})
    assert st["p"][0]["hand"] == hand[:-1] and hand[-1] in st["discard"]
    assert st["turn"] == 1 and kinds(events)[:2] == ["discard", "turn"]
    assert events[0] == {"kind": "discard", "seat": 0, "cards": [hand[-1]], "reason": "hand_limit"}


@pytest.mark.rule("BANG-023")
def test_two_over_the_limit_asks_twice_and_refuses_other_moves() -> None:
    st = table(4)
    st["p"][0]["life"] = 2
    hand = give(st, 0, ["beer", "panic", "missed", "duel"])
    act(st, 0, {"type": "end_turn"})
    for wrong in ({"type": "end_turn"}, {"type": "play", "card": hand[0]}):
        with pytest.raises(RuleError):
            act(st, 0, wrong)
    other = give(st, 1, ["bang"])[0]
    with pytest.raises(RuleError) as err:
        act(st, 0, {"type": "discard", "card": other})
    assert (err.value.reason, err.value.details) == ("CARD_NOT_IN_HAND", {"card": other})
    act(st, 0, {"type": "discard", "card": hand[0]})
    assert pending_kind(st) == "discard" and st["turn"] == 0
    act(st, 0, {"type": "discard", "card": hand[1]})
    assert st["p"][0]["hand"] == hand[2:] and st["turn"] == 1


@pytest.mark.rule("BANG-023", "BANG-099")
def test_sid_ketchum_healing_in_phase_three_ends_the_discard_at_the_new_limit() -> None:
    st = table(4, chars=["sid_ketchum", "black_jack", "black_jack", "black_jack"])
    st["p"][0]["life"] = 1
    hand = give(st, 0, ["beer", "panic", "missed", "duel"])
    act(st, 0, {"type": "end_turn"})
    assert pending_kind(st) == "discard"
    act(st, 0, {"type": "ability", "cards": hand[:2]})
    # Life 2, hand 2: exactly at the limit, so the turn passes without another discard.
    assert st["p"][0]["life"] == 2 and st["p"][0]["hand"] == hand[2:] and st["turn"] == 1
