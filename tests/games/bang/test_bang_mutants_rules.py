"""Rule scenarios that pin what the BANG! mutation run found unpinned (issue 9).

Each test names the exact events or view fields a player receives after a rule ran:
the heal events of the dying window (Beer, Sid Ketchum) and of Saloon, Lucky Duke's
choice event, the source card of a Gatling or Indians! request, and the General Store
cards left over when fewer players than cards are alive.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from bang_helpers import act, dead, equip, give, kinds, pending_kind, play, stack_deck, table

from tabletop_server.service.engine.errors import RuleError
from tabletop_server.service.games import bang


def chars(n: int, **at: str) -> list[str]:
    """Black Jack everywhere but the seats named ``s<seat>=character``."""
    return [at.get(f"s{i}", "black_jack") for i in range(n)]


@pytest.mark.rule("BANG-047")
def test_two_beers_against_a_double_hit_heal_one_point_each_then_life_one() -> None:
    st = table(5)
    beers = give(st, 1, ["beer", "beer"])
    dyn = equip(st, 1, ["dynamite"])[0]
    # Seat 1's turn starts with the Dynamite check: a 5 of spades explodes (3 damage on 2 life: 2 missing).
    st["p"][1]["life"] = 2
    stack_deck(st, ["any:5s"])
    act(st, 0, {"type": "end_turn"})
    assert pending_kind(st) == "dying" and st["pending"][-1]["args"]["need"] == 2 and dyn in st["discard"]
    events = act(st, 1, {"type": "respond", "card": beers[0]})
    heals = [e for e in events if e["kind"] == "heal"]
    assert heals == [{"kind": "heal", "seat": 1, "amount": 1, "life": 0, "reason": "beer"}]
    assert pending_kind(st) == "dying" and st["pending"][-1]["args"]["need"] == 1 and st["p"][1]["life"] == 0
    events = act(st, 1, {"type": "respond", "card": beers[1]})
    heals = [e for e in events if e["kind"] == "heal"]
    assert heals == [{"kind": "heal", "seat": 1, "amount": 1, "life": 1, "reason": "beer"}]
    assert st["p"][1]["life"] == 1 and st["p"][1]["alive"]
    assert all(r["kind"] != "dying" for r in st["pending"])


@pytest.mark.rule("BANG-099")
def test_sid_ketchum_saves_himself_with_a_heal_event_named_after_him() -> None:
    st = table(4, chars=chars(4, s1="sid_ketchum"))
    st["p"][1]["life"] = 1
    a, b = give(st, 1, ["panic", "cat_balou"])
    shot = give(st, 0, ["bang"])[0]
    play(st, 0, shot, target=1)
    act(st, 1, {"type": "pass"})
    assert pending_kind(st) == "dying"
    events = act(st, 1, {"type": "ability", "cards": [a, b]})
    assert [e for e in events if e["kind"] == "heal"] == [
        {"kind": "heal", "seat": 1, "amount": 1, "life": 1, "reason": "sid_ketchum"}]
    assert st["p"][1]["alive"] and st["p"][1]["life"] == 1 and pending_kind(st) != "dying"


@pytest.mark.rule("BANG-067")
def test_saloon_heal_events_name_the_saloon() -> None:
    st = table(4)
    for p in st["p"]:
        p["life"] -= 1
    saloon = give(st, 0, ["saloon"])[0]
    events = play(st, 0, saloon)
    assert [e for e in events if e["kind"] == "heal"] == [
        {"kind": "heal", "seat": s, "amount": 1, "life": st["p"][s]["max"], "reason": "saloon"} for s in range(4)]


@pytest.mark.rule("BANG-095")
def test_lucky_duke_choice_event_names_seat_card_and_check() -> None:
    st = table(4, chars=chars(4, s1="lucky_duke"))
    equip(st, 1, ["jail"])
    x, y = stack_deck(st, ["any:4s", "beer:9h"])
    act(st, 0, {"type": "end_turn"})
    assert pending_kind(st) == "pick"
    events = act(st, 1, {"type": "choose", "card": y})
    assert [e for e in events if e["kind"] == "choose"] == [
        {"kind": "choose", "seat": 1, "cards": [y], "reason": "jail"}]
    assert x in st["discard"]


@pytest.mark.rule("BANG-062", "BANG-063")
@pytest.mark.parametrize("key", ["gatling", "indians"])
def test_gatling_and_indians_requests_show_their_source_card(key: str) -> None:
    st = table(4)
    card = give(st, 0, [key])[0]
    for seat in (1, 2, 3):
        give(st, seat, ["beer"])  # a card in hand: each target is asked
    play(st, 0, card)
    assert st["pending"] and all(r["args"]["card"] == card for r in st["pending"])
    pb = bang.view(st, 1)
    assert [r.source_card.id for r in pb.pending] == [card] * len(pb.pending)


@pytest.mark.rule("BANG-061")
def test_general_store_cards_left_when_the_next_seat_is_its_player_go_to_the_discard_pile() -> None:
    st = table(4)
    store = give(st, 0, ["general_store"])[0]
    shown = stack_deck(st, ["any:2h", "any:3h", "any:4h", "any:5h"])
    play(st, 0, store)
    act(st, 0, {"type": "choose", "card": shown[0]})
    act(st, 1, {"type": "choose", "card": shown[1]})
    st["p"][3].update(alive=False, life=0)  # seat 3 left the table meanwhile: seat 2 is the last to choose
    events = act(st, 2, {"type": "choose", "card": shown[2]})
    assert kinds(events)[0] == "take" and st["discard"][-1] == shown[3]
    assert pending_kind(st) is None and st["phase"] == "play" and st["turn"] == 0


def dynamite_hit(char: str, life: int, hand: list[str]) -> tuple[dict[str, Any], list[str]]:
    """Seat 1 (``char``) holding ``hand`` at ``life`` takes 3 Dynamite damage at his turn's start."""
    st = table(5, chars=chars(5, s1=char))
    ids = give(st, 1, hand)
    equip(st, 1, ["dynamite"])
    st["p"][1]["life"] = life
    stack_deck(st, ["any:5s"])
    act(st, 0, {"type": "end_turn"})
    assert pending_kind(st) == "dying"
    return st, ids


def beer_refusal(st: dict[str, Any], card: str) -> tuple[str, str, dict[str, str]]:
    before = json.dumps(st, sort_keys=True)
    with pytest.raises(RuleError) as err:
        act(st, 1, {"type": "respond", "card": card})
    assert json.dumps(st, sort_keys=True) == before
    return err.value.reason, err.value.message, err.value.details


@pytest.mark.rule("BANG-047", "BANG-099")
def test_sid_ketchum_counts_two_cards_per_missing_point_besides_his_beers() -> None:
    # 2 life - 3: two points missing; one Beer plus two other cards (one Sid Ketchum point) can save him.
    st, (beer, _, _) = dynamite_hit("sid_ketchum", 2, ["beer", "panic", "duel"])
    assert {"type": "respond", "card": beer} in bang.legal_actions(st, 1)
    events = act(st, 1, {"type": "respond", "card": beer})
    assert [e for e in events if e["kind"] in ("respond", "heal")] == [
        {"kind": "respond", "seat": 1, "cards": [beer], "reason": "beer"},
        {"kind": "heal", "seat": 1, "amount": 1, "life": 0, "reason": "beer"}]
    # Two other cards are worth one point, not two: one Beer and two cards do not cover three points.
    st, (beer, _, _) = dynamite_hit("sid_ketchum", 1, ["beer", "panic", "duel"])
    assert {"type": "respond", "card": beer} not in bang.legal_actions(st, 1)
    assert beer_refusal(st, beer) == ("BEER_CANNOT_SAVE", "Your Beers cannot bring you back above 0 life", {})
    # Four other cards are two points: one Beer then covers three.
    st, (beer, *_) = dynamite_hit("sid_ketchum", 1, ["beer", "panic", "duel", "bang", "bang"])
    assert {"type": "respond", "card": beer} in bang.legal_actions(st, 1)


@pytest.mark.rule("BANG-047")
def test_without_sid_ketchum_other_cards_do_not_count_towards_a_save() -> None:
    st, (beer, _, _) = dynamite_hit("black_jack", 2, ["beer", "panic", "duel"])
    assert {"type": "respond", "card": beer} not in bang.legal_actions(st, 1)
    assert beer_refusal(st, beer) == ("BEER_CANNOT_SAVE", "Your Beers cannot bring you back above 0 life", {})


@pytest.mark.rule("BANG-048")
def test_a_beer_with_two_players_left_is_refused_with_its_message() -> None:
    # Play never leaves this window open (the engine passes for him with two players left), so the
    # position is built: seat 1 dying, two players alive, a Beer in hand. The check still refuses.
    st = table(4)
    dead(st, 2, 3)
    beer = give(st, 1, ["beer", "panic"])[0]
    st["p"][1]["life"] = 0
    st["pending"] = [{"kind": "dying", "seat": 1, "source": 0, "args": {"need": 1}}]
    assert beer_refusal(st, beer) == ("BEER_WITH_TWO_PLAYERS", "Beer has no effect with two players left", {})


@pytest.mark.rule("BANG-018")
def test_the_view_counts_every_bang_played_with_volcanic() -> None:
    st = table(4)
    equip(st, 0, ["volcanic"])
    a, b = give(st, 0, ["bang", "bang"])
    play(st, 0, a, target=1)
    play(st, 0, b, target=1)
    assert st["p"][1]["life"] == st["p"][1]["max"] - 2
    assert bang.view(st, 0).bangs_played == 2 and bang.view(st, None).bangs_played == 2
