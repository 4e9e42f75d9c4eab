"""Dodge City: Molly Stark (DC-031..033) and Vera Custer (DC-038..040, with Vulture Sam)."""

from __future__ import annotations

import pytest
from bang_core_helpers import extra_cards
from bang_helpers import act, chars, dead, equip, give, kinds, pending_kind, play, refused, stack_deck, table
from tabletop.v1 import bang_pb2

from tabletop_server.service.engine.ruleset import Event, State
from tabletop_server.service.games import bang
from tabletop_server.service.games.bang.tables import CARDS

pytestmark = pytest.mark.usefixtures("dodge_city")
DC = ["dodge_city"]



def molly_draws(events: list[Event]) -> list[int]:
    return [e["count"] for e in events if e["kind"] == "draw" and e.get("reason") == "molly_stark"]


def molly(turn: int = 0) -> State:
    return table(4, chars=chars(4, s1="molly_stark"), turn=turn, expansions=DC)


@pytest.mark.rule("DC-031")
def test_molly_stark_draws_for_each_answer_out_of_her_turn() -> None:
    st = molly()
    missed, bang_card = give(st, 1, ["missed", "bang"])
    play(st, 0, give(st, 0, ["bang"])[0], target=1)
    assert molly_draws(act(st, 1, {"type": "respond", "card": missed})) == [1]
    play(st, 0, give(st, 0, ["indians"])[0])
    assert molly_draws(act(st, 1, {"type": "respond", "card": bang_card})) == [1]
    # A lethal hit, answered with a Beer in the dying window: +1 too.
    st = molly()
    st["p"][1]["life"] = 1
    beer = give(st, 1, ["beer"])[0]
    play(st, 0, give(st, 0, ["gatling"])[0])
    act(st, 1, {"type": "pass"})
    assert pending_kind(st) == "dying"
    events = act(st, 1, {"type": "respond", "card": beer})
    assert molly_draws(events) == [1] and st["p"][1]["life"] == 1


@pytest.mark.rule("DC-031")
def test_molly_stark_draws_nothing_in_her_own_turn() -> None:
    st = molly(turn=1)
    st["p"][1]["life"] = 2
    assert molly_draws(play(st, 1, give(st, 1, ["beer"])[0])) == []
    # Her own Duel: the BANG! she gives in her turn is not replaced.
    bang_card = give(st, 1, ["bang"])[0]
    give(st, 2, ["bang"])
    play(st, 1, give(st, 1, ["duel"])[0], target=2)
    act(st, 2, {"type": "respond", "card": st["p"][2]["hand"][0]})
    events = act(st, 1, {"type": "respond", "card": bang_card})
    assert "damage" in kinds(events) and molly_draws(events) == []


@pytest.mark.rule("DC-032")
def test_molly_stark_draws_her_duel_replacements_after_the_duel() -> None:
    st = molly()
    mine = give(st, 1, ["bang", "bang"])
    theirs = give(st, 0, ["duel", "bang", "bang"])
    play(st, 0, theirs[0], target=1)
    for i in range(2):
        events = act(st, 1, {"type": "respond", "card": mine[i]})
        assert molly_draws(events) == [] and len(st["p"][1]["hand"]) == 1 - i
        events = act(st, 0, {"type": "respond", "card": theirs[1 + i]})
    # Her hand is empty: she loses the Duel at once, then draws the two replacements.
    assert kinds(events)[-3:] == ["pass", "damage", "draw"] and molly_draws(events) == [2]
    assert st["p"][1]["life"] == 3 and len(st["p"][1]["hand"]) == 2 and st["pending"] == []


@pytest.mark.rule("DC-032")
def test_molly_starks_duel_replacements_come_after_her_dying_window() -> None:
    st = molly()
    st["p"][1]["life"] = 1
    mine = give(st, 1, ["bang", "missed"])
    theirs = give(st, 0, ["duel", "bang"])
    stack_deck(st, ["beer"])  # what she would draw: it must not be there to save her
    play(st, 0, theirs[0], target=1)
    act(st, 1, {"type": "respond", "card": mine[0]})
    act(st, 0, {"type": "respond", "card": theirs[1]})
    act(st, 1, {"type": "pass"})
    assert pending_kind(st) == "dying" and all(CARDS[c].key != "beer" for c in st["p"][1]["hand"])
    events = act(st, 1, {"type": "pass"})
    assert "eliminated" in kinds(events) and molly_draws(events) == []


@pytest.mark.rule("DC-033")
def test_cards_taken_or_discarded_from_molly_stark_are_not_replaced() -> None:
    st = molly()
    give(st, 1, ["missed"])
    events = play(st, 0, give(st, 0, ["cat_balou"])[0], target=1, pick="hand")
    assert st["p"][1]["hand"] == [] and molly_draws(events) == []
    give(st, 1, ["missed"])
    events = play(st, 0, give(st, 0, ["panic"])[0], target=1, pick="hand")
    assert st["p"][1]["hand"] == [] and molly_draws(events) == []
    # A card for several victims (Brawl's shape, a test row): her card goes, nothing replaces it.
    with extra_cards("t_brawl") as ids:
        st = molly()
        give(st, 1, ["missed"])
        brawl = give(st, 0, [ids["t_brawl"][0], "bang"])[0]
        events = play(st, 0, brawl)
        assert st["p"][1]["hand"] == [] and molly_draws(events) == [] and st["pending"] == []


def vera(**at: str) -> State:
    """Vera Custer at seat 1; seat 0 is about to end his turn."""
    return table(4, chars=chars(4, s1="vera_custer", **at), expansions=DC)


@pytest.mark.rule("DC-038")
def test_vera_custer_chooses_a_living_character_before_drawing_and_has_his_ability() -> None:
    st = vera(s2="willy_the_kid", s3="jourdonnais")
    events = act(st, 0, {"type": "end_turn"})
    assert pending_kind(st) == "vera_custer" and "draw" not in [e["kind"] for e in events if e.get("seat") == 1]
    assert bang.legal_actions(st, 1) == [{"type": "choose", "pick": k}
                                         for k in ("willy_the_kid", "jourdonnais", "black_jack")]
    assert bang.view(st, 1).pending[0].kind == bang_pb2.BANG_REQUEST_KIND_COPY_CHARACTER
    events = act(st, 1, {"type": "choose", "pick": "willy_the_kid"})
    assert events[0] == {"kind": "choose", "seat": 1, "other": 2, "reason": "vera_custer"}
    assert kinds(events)[1] == "draw" and st["p"][1]["life"] == 3 and st["p"][1]["char"] == "vera_custer"
    first, second = give(st, 1, ["bang", "bang"])
    play(st, 1, first, target=2)
    play(st, 1, second, target=2)  # Willy the Kid's ability: a second BANG! card
    assert st["bangs"] == 2 and st["p"][2]["life"] == st["p"][2]["max"] - 2


@pytest.mark.rule("DC-038")
def test_vera_custers_copy_lasts_until_her_next_turn_and_the_dead_are_not_choices() -> None:
    st = vera(s3="jourdonnais")
    act(st, 0, {"type": "end_turn"})
    act(st, 1, {"type": "choose", "pick": "jourdonnais"})
    act(st, 1, {"type": "end_turn"})
    while st["pending"]:
        act(st, bang.to_act(st)[0], {"type": "discard", "card": st["p"][1]["hand"][0]})
    give(st, 1, ["beer"])
    play(st, 2, give(st, 2, ["bang"])[0], target=1)
    assert {"type": "barrel"} in bang.legal_actions(st, 1)  # Jourdonnais' Barrel in seat 2's turn
    act(st, 1, {"type": "pass"})
    for seat in (2, 3, 0):
        act(st, seat, {"type": "end_turn"})
        while st["pending"] and pending_kind(st) == "discard":
            act(st, seat, {"type": "discard", "card": st["p"][seat]["hand"][0]})
    assert pending_kind(st) == "vera_custer" and "as" not in st["p"][1]
    st = vera(s2="willy_the_kid")
    dead(st, 2)
    act(st, 0, {"type": "end_turn"})
    refused(st, 1, {"type": "choose", "pick": "willy_the_kid"}, "NOT_A_CHOICE")
    refused(st, 1, {"type": "choose", "pick": "vera_custer"}, "NOT_A_CHOICE")


@pytest.mark.rule("DC-038")
def test_vera_custers_old_copy_is_gone_before_her_draw_checks() -> None:
    st = vera(s3="lucky_duke")
    st["p"][1]["as"] = "lucky_duke"  # copied in her last turn
    equip(st, 1, ["dynamite"])
    stack_deck(st, ["beer:7h", "bang:Kd"])  # the Dynamite's draw!: one card only
    events = act(st, 0, {"type": "end_turn"})
    checks = [e for e in events if e["kind"] == "check"]
    assert len(checks) == 1 and len(checks[0]["cards"]) == 1 and pending_kind(st) == "vera_custer"


@pytest.mark.rule("DC-039")
def test_a_failed_jail_skips_vera_custers_choice_and_leaves_her_without_ability() -> None:
    st = vera(s3="jourdonnais")
    st["p"][1]["as"] = "jourdonnais"  # copied in her last turn
    equip(st, 1, ["jail"])
    stack_deck(st, ["missed:5s"])  # the Jail's draw!: a spade, not escaped
    events = act(st, 0, {"type": "end_turn"})
    assert {"kind": "jail", "seat": 1, "success": False} in events
    assert st["turn"] == 2 and "as" not in st["p"][1] and "vera_custer" not in [r["kind"] for r in st["pending"]]
    give(st, 1, ["beer"])
    play(st, 2, give(st, 2, ["bang"])[0], target=1)
    assert pending_kind(st) == "bang" and {"type": "barrel"} not in bang.legal_actions(st, 1)
    # Escaping the Jail (a heart), she chooses as usual.
    st = vera(s3="jourdonnais")
    equip(st, 1, ["jail"])
    stack_deck(st, ["beer:7h"])
    act(st, 0, {"type": "end_turn"})
    assert pending_kind(st) == "vera_custer" and st["turn"] == 1


def kill_seat_2(st: State) -> tuple[list[Event], list[str]]:
    """Seat 1 shoots seat 2 (1 life, two cards in hand, a Barrel in play), who gives up; his cards' ids."""
    st["turn"] = 1
    st["p"][2]["life"] = 1
    cards = give(st, 2, ["stagecoach", "panic"]) + equip(st, 2, ["barrel"])
    play(st, 1, give(st, 1, ["bang"])[0], target=2)
    act(st, 2, {"type": "pass"})
    return act(st, 2, {"type": "pass"}), cards


@pytest.mark.rule("DC-040")
def test_vera_custer_copying_vulture_sam_shares_the_cards_one_at_a_time() -> None:
    st = table(4, chars=chars(4, s0="vulture_sam", s3="vera_custer"), expansions=DC)
    st["p"][3]["as"] = "vulture_sam"
    events, (coach, panic, barrel) = kill_seat_2(st)
    assert st["p"][3]["hand"] == [coach, barrel] and st["p"][0]["hand"] == [panic]  # Vera is closer to seat 2
    takes = [(e["seat"], e["cards"], e["reason"]) for e in events if e["kind"] == "take"]
    assert takes == [(3, [coach], "hand"), (3, [barrel], "table"), (0, [panic], "hand")]


@pytest.mark.rule("DC-040")
def test_a_single_vulture_sam_takes_every_card() -> None:
    st = table(4, chars=chars(4, s0="vulture_sam", s3="vera_custer"), expansions=DC)
    _, cards = kill_seat_2(st)
    assert st["p"][0]["hand"] == cards and st["p"][3]["hand"] == []


@pytest.mark.rule("DC-038")
def test_a_sheriff_vera_custer_chooses_in_the_games_first_turn() -> None:
    opts = {"expansions": DC, "kept_characters": [{"seat": 0, "character": "vera_custer"}], "sheriff_seat": 0}
    st = bang.setup(opts, 4, 7)
    assert pending_kind(st) == "vera_custer" and bang.to_act(st) == [0] and st["p"][0]["hand"] != []
    assert [e["kind"] for e in bang.opening_events(st)] == ["turn"]  # phase 1 waits for her choice
    act(st, 0, bang.legal_actions(st, 0)[0])
    assert st["phase"] == "play" and "as" in st["p"][0]
