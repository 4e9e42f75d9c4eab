"""Dodge City's 8-player and 3-player games (DC-041..051), through the ruleset's own setup and actions.

Every test uses the ``dodge_city`` fixture (a no-op now that the expansion is offered to clients).
``table(n, ..., expansions=["dodge_city"])`` gives the mode's own
role pool (3 players: Deputy, Outlaw, Renegade in seats 0, 1, 2; 8 players: S, R, O, O, O, D, D, R).
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from bang_helpers import act, dead, duel_kill, equip, give, hand_keys, kinds, play, stack_deck, table
from tabletop.v1 import bang_pb2

from tabletop_server.service.engine.errors import RuleError
from tabletop_server.service.engine.ruleset import State
from tabletop_server.service.games import bang
from tabletop_server.service.games.bang.tables import CHARACTERS, MODES, ROLES

pytestmark = pytest.mark.usefixtures("dodge_city")
DC = ["dodge_city"]
DEPUTY, OUTLAW, RENEGADE = 0, 1, 2  # table(3)'s seats


def three(**kw: object) -> State:
    """A clean 3-player Dodge City table: Deputy 0, Outlaw 1, Renegade 2, seat 0's phase 2."""
    return table(3, expansions=DC, **kw)  # type: ignore[arg-type]


def game_over(events: list[dict[str, object]]) -> dict[str, object] | None:
    return next((e for e in events if e["kind"] == "game_over"), None)


# The 8-player game (DC-041..043)

@pytest.mark.rule("DC-041")
@pytest.mark.parametrize("seed", range(6))
def test_eight_players_deal_s_d_d_o_o_o_r_r_face_down(seed: int) -> None:
    st = bang.setup({"expansions": DC}, 8, seed)
    roles = [p["role"] for p in st["p"]]
    assert Counter(roles) == {"sheriff": 1, "deputy": 2, "outlaw": 3, "renegade": 2}
    assert st["turn"] == roles.index("sheriff")  # the Sheriff starts, as in the base game
    for viewer in range(8):
        seen = {p.seat for p in bang.view(st, viewer).players if p.role != bang_pb2.BANG_ROLE_UNSPECIFIED}
        assert seen == {viewer, roles.index("sheriff")}


@pytest.mark.rule("DC-042")
def test_eight_players_each_renegade_alone_only_the_last_one_alive_wins() -> None:
    st = table(8, expansions=DC)  # S 0, R 1, O 2..4, D 5, 6, R 7
    dead(st, 2, 3, 4, 5, 6)
    events = duel_kill(st, 1, 7)  # R1 kills R2: the Sheriff and R1 are left, the game goes on
    assert game_over(events) is None and st["phase"] != "over"
    events = duel_kill(st, 1, 0)  # R1 kills the Sheriff: he is the last one alive
    over = game_over(events)
    assert over is not None and over["seats"] == [1] and st["winners"] == [1]


@pytest.mark.rule("DC-043")
def test_eight_players_sheriff_killed_first_while_facing_both_renegades_the_outlaws_win() -> None:
    st = table(8, expansions=DC)
    dead(st, 2, 3, 4, 5, 6)
    over = game_over(duel_kill(st, 1, 0))
    assert over is not None and over["seats"] == [2, 3, 4]  # the dead Outlaws; neither Renegade


@pytest.mark.rule("DC-042")
def test_eight_players_the_law_wins_when_both_renegades_and_the_outlaws_are_dead() -> None:
    st = table(8, expansions=DC)
    dead(st, 2, 3, 4, 7)
    over = game_over(duel_kill(st, 0, 1))  # the Sheriff kills the last Renegade
    assert over is not None and over["seats"] == [0, 5, 6]


# The 3-player game (DC-044..051)

@pytest.mark.rule("DC-044")
@pytest.mark.parametrize("seed", range(8))
def test_three_players_deal_deputy_outlaw_renegade_face_up(seed: int) -> None:
    st = bang.setup({"expansions": DC}, 3, seed)
    roles = [p["role"] for p in st["p"]]
    assert sorted(roles) == ["deputy", "outlaw", "renegade"]  # no Sheriff
    assert all(p["life"] == p["max"] == CHARACTERS[p["char"]].life for p in st["p"])  # no Sheriff's bullet
    for viewer in (*range(3), None):
        shown = [bang_pb2.BangRole.Name(p.role) for p in bang.view(st, viewer).players]
        assert shown == [f"BANG_ROLE_{r.upper()}" for r in roles]


@pytest.mark.rule("DC-044")
def test_three_player_deals_vary_with_the_seed() -> None:
    deals = {tuple(p["role"] for p in bang.setup({"expansions": DC}, 3, seed)["p"]) for seed in range(30)}
    assert len(deals) == 6  # every permutation occurs: dealt at random


@pytest.mark.rule("DC-044")
def test_four_players_with_dodge_city_keep_roles_face_down() -> None:
    st = bang.setup({"expansions": DC}, 4, 1)
    sheriff = [p["role"] for p in st["p"]].index("sheriff")
    seen = {p.seat for p in bang.view(st, None).players if p.role != bang_pb2.BANG_ROLE_UNSPECIFIED}
    assert seen == {sheriff}


@pytest.mark.rule("DC-045")
def test_three_player_targets_and_goals() -> None:
    mode = MODES["three_player"]
    assert dict(mode.targets) == {"deputy": "renegade", "renegade": "outlaw", "outlaw": "deputy"}
    goals = {p.role: p.role_goal for p in bang.view(three(), None).players}
    assert "Kill the Renegade yourself" in goals[bang_pb2.BANG_ROLE_DEPUTY]
    assert "Kill the Outlaw yourself" in goals[bang_pb2.BANG_ROLE_RENEGADE]
    assert "Kill the Deputy yourself" in goals[bang_pb2.BANG_ROLE_OUTLAW]
    # The 4-to-8 player games show the role card's own goal.
    four = bang.view(table(4, expansions=DC), 0).players[0]
    assert four.role_goal == ROLES["sheriff"].goal


@pytest.mark.rule("DC-046")
@pytest.mark.parametrize("seed", range(8))
def test_three_players_the_deputy_takes_the_first_turn(seed: int) -> None:
    st = bang.setup({"expansions": DC}, 3, seed)
    deputy = [p["role"] for p in st["p"]].index("deputy")
    assert st["turn"] == deputy and bang.to_act(st) == [deputy]
    assert bang.opening_events(st)[0] == {"kind": "turn", "seat": deputy, "count": 1}
    for _ in range(20):  # his draw (a character's choice, if any), then end the turn at once
        seat = bang.to_act(st)[0]
        actions = bang.legal_actions(st, seat)
        act(st, seat, {"type": "end_turn"} if {"type": "end_turn"} in actions else actions[0])
        if st["turn"] != deputy:
            break
    assert st["turn"] == (deputy + 1) % 3  # then clockwise, as usual


@pytest.mark.rule("DC-047")
def test_killing_your_own_target_wins_at_once() -> None:
    st = three()
    over = game_over(duel_kill(st, DEPUTY, RENEGADE))  # the Deputy's target
    assert over is not None and over["seats"] == [DEPUTY] and st["phase"] == "over"
    assert st["p"][OUTLAW]["alive"]  # although the Outlaw is alive


@pytest.mark.rule("DC-047")
@pytest.mark.parametrize(("killer", "victim"), [(RENEGADE, OUTLAW), (OUTLAW, DEPUTY)])
def test_every_role_wins_by_killing_its_target(killer: int, victim: int) -> None:
    st = three()
    over = game_over(duel_kill(st, killer, victim))
    assert over is not None and over["seats"] == [killer]


@pytest.mark.rule("DC-047")
def test_a_bang_on_the_target_wins_too() -> None:
    st = three()
    st["p"][RENEGADE]["life"] = 1
    bang_card = give(st, DEPUTY, ["bang"])[0]
    over = game_over(play(st, DEPUTY, bang_card, target=RENEGADE))  # empty hand: hit at once
    assert over is not None and over["seats"] == [DEPUTY]


@pytest.mark.rule("DC-048")
def test_someone_else_kills_your_target_then_the_last_one_alive_wins() -> None:
    st = three()
    events = duel_kill(st, OUTLAW, RENEGADE)  # the Deputy's target, not the Outlaw's
    assert game_over(events) is None and st["phase"] != "over"
    over = game_over(duel_kill(st, DEPUTY, OUTLAW))  # not his first target: he is the last one alive
    assert over is not None and over["seats"] == [DEPUTY]


@pytest.mark.rule("DC-048")
def test_after_a_wrong_kill_the_other_survivor_can_win_too() -> None:
    st = three()
    duel_kill(st, DEPUTY, OUTLAW)  # the Renegade's target, killed by the Deputy
    over = game_over(duel_kill(st, RENEGADE, DEPUTY))
    assert over is not None and over["seats"] == [RENEGADE]


@pytest.mark.rule("DC-048")
def test_dynamite_killing_a_target_leaves_the_two_survivors_to_fight() -> None:
    st = three(turn=OUTLAW)
    st["p"][RENEGADE]["life"] = 3
    equip(st, RENEGADE, ["dynamite"])
    stack_deck(st, ["any:5s"])  # 2..9 of spades: explodes, 3 damage
    events = act(st, OUTLAW, {"type": "end_turn"})  # the Renegade's turn starts: Dynamite checks
    assert "explode" in kinds(events) and not st["p"][RENEGADE]["alive"]
    assert game_over(events) is None and st["phase"] != "over"  # nobody killed him: no winner yet
    over = game_over(duel_kill(st, OUTLAW, DEPUTY))
    assert over is not None and over["seats"] == [OUTLAW]


@pytest.mark.rule("DC-049")
@pytest.mark.parametrize(("killer", "victim"), [(OUTLAW, RENEGADE), (DEPUTY, OUTLAW), (RENEGADE, DEPUTY)])
def test_any_kill_draws_three_whatever_the_roles(killer: int, victim: int) -> None:
    st = three()
    before = len(st["p"][killer]["hand"])
    events = duel_kill(st, killer, victim)
    rewards = [e for e in events if e["kind"] == "draw" and e.get("reason") == "reward"]
    assert [(e["seat"], len(e["cards"])) for e in rewards] == [(killer, 3)]
    assert len(st["p"][killer]["hand"]) == before + 3


@pytest.mark.rule("DC-049")
def test_a_dynamite_death_rewards_nobody() -> None:
    st = three(turn=OUTLAW)
    equip(st, RENEGADE, ["dynamite"])
    st["p"][RENEGADE]["life"] = 3
    stack_deck(st, ["any:5s"])
    events = act(st, OUTLAW, {"type": "end_turn"})
    assert not st["p"][RENEGADE]["alive"] and not [e for e in events if e.get("reason") == "reward"]


@pytest.mark.rule("DC-049")
def test_in_the_standard_game_killing_a_renegade_draws_nothing() -> None:
    st = table(4, expansions=DC)  # S, R, O, O: the other side of the boundary
    events = duel_kill(st, 0, 1)
    assert not [e for e in events if e.get("reason") == "reward"]


@pytest.mark.rule("DC-050")
@pytest.mark.parametrize("target", [DEPUTY, RENEGADE])
def test_jail_on_anyone_with_three_players(target: int) -> None:
    st = three(turn=OUTLAW)
    jail = give(st, OUTLAW, ["jail"])[0]
    assert {"type": "play", "card": jail, "target": target} in bang.legal_actions(st, OUTLAW)
    play(st, OUTLAW, jail, target=target)
    assert jail in st["p"][target]["table"]


@pytest.mark.rule("DC-050")
def test_jail_on_the_sheriff_is_still_refused_with_four_players() -> None:
    st = table(4, expansions=DC, turn=2)
    jail = give(st, 2, ["jail"])[0]
    with pytest.raises(RuleError) as err:
        play(st, 2, jail, target=0)
    assert err.value.reason == "JAIL_ON_SHERIFF"


@pytest.mark.rule("DC-051")
def test_beer_does_not_save_with_two_left() -> None:
    st = three()
    duel_kill(st, OUTLAW, RENEGADE)  # first elimination: the Deputy and the Outlaw are left
    st["p"][OUTLAW]["life"] = 1
    beer = give(st, OUTLAW, ["beer"])[0]
    bang_card = give(st, DEPUTY, ["bang"])[0]
    st["turn"], st["phase"] = DEPUTY, "play"
    play(st, DEPUTY, bang_card, target=OUTLAW)
    over = game_over(act(st, OUTLAW, {"type": "pass"}))  # the hit: his Beer cannot save him
    assert not st["p"][OUTLAW]["alive"] and beer in st["discard"]
    assert over is not None and over["seats"] == [DEPUTY]


@pytest.mark.rule("DC-051")
def test_beer_in_your_turn_heals_nothing_with_two_left() -> None:
    st = three()
    duel_kill(st, OUTLAW, RENEGADE)
    st["turn"], st["phase"] = DEPUTY, "play"
    st["p"][DEPUTY]["life"] = 1
    events = play(st, DEPUTY, give(st, DEPUTY, ["beer"])[0])
    heal = next(e for e in events if e["kind"] == "heal")
    assert heal["amount"] == 0 and st["p"][DEPUTY]["life"] == 1


@pytest.mark.rule("DC-051")
def test_beer_saves_with_three_left() -> None:
    st = three()
    st["p"][OUTLAW]["life"] = 1
    beer = give(st, OUTLAW, ["beer"])[0]
    bang_card = give(st, DEPUTY, ["bang"])[0]
    play(st, DEPUTY, bang_card, target=OUTLAW)
    act(st, OUTLAW, {"type": "pass"})
    assert st["pending"][-1]["kind"] == "dying"
    assert {"type": "respond", "card": beer} in bang.legal_actions(st, OUTLAW)
    act(st, OUTLAW, {"type": "respond", "card": beer})
    assert st["p"][OUTLAW]["alive"] and st["p"][OUTLAW]["life"] == 1 and hand_keys(st, OUTLAW) == []


# Random games through legal actions only: every game ends, and its winners agree with the mode

def random_game(seats: int, seed: int) -> State:
    rng = random.Random(seed)
    st = bang.setup({"expansions": DC}, seats, seed)
    for _ in range(3000):
        if bang.is_over(st):
            return st
        seat = rng.choice(bang.to_act(st))
        bang.apply(st, seat, rng.choice(bang.legal_actions(st, seat)))
    raise AssertionError(f"{seats} players, seed {seed}: no end")


@pytest.mark.rule("DC-047", "DC-048")
@pytest.mark.parametrize("seed", range(40))
def test_random_three_player_games_end_with_one_winner(seed: int) -> None:
    st = random_game(3, seed)
    alive = [s for s, p in enumerate(st["p"]) if p["alive"]]
    assert len(st["winners"]) == 1 and st["winners"][0] in alive and len(alive) in (1, 2)


@pytest.mark.rule("DC-042", "DC-043")
@pytest.mark.parametrize("seed", range(20))
def test_random_eight_player_games_end_with_the_winners_of_one_side(seed: int) -> None:
    st = random_game(8, seed)
    roles = [p["role"] for p in st["p"]]
    won = sorted(roles[s] for s in st["winners"])
    alive = [s for s, p in enumerate(st["p"]) if p["alive"]]
    assert won in (["deputy", "deputy", "sheriff"], ["outlaw", "outlaw", "outlaw"], ["renegade"])
    if won == ["renegade"]:
        assert alive == st["winners"]  # the last one alive, never both Renegades
