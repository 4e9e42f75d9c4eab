"""Armed & Dangerous: the Dangerous (orange) cards in play, their own uses paid from their own cubes,
and the Bomb (AD-004..008, 015..017, 043..046, 048..052, 059, 064, 067)."""

from __future__ import annotations

import pytest
from bang_helpers import (
    act,
    ad_table,
    chars,
    cubes_on,
    equip,
    first_readings,
    give,
    kinds,
    orange,
    pending_kind,
    play,
    recharge,
    refusal,
    refused,
    set_cubes,
    stack_deck,
    table_keys,
)

from tabletop_server.service.engine.ruleset import Action, Event, State
from tabletop_server.service.games import bang

pytestmark = pytest.mark.usefixtures("armed")


def use(st: State, seat: int, card: str, target: int | None = None, pick: str | None = None) -> list[Event]:
    """Use an orange card in play, checked to be listed first."""
    action: Action = {"type": "use", "card": card}
    if target is not None:
        action["target"] = target
    if pick is not None:
        action["pick"] = pick
    assert action in bang.legal_actions(st, seat), action
    return act(st, seat, action)


def uses_of(st: State, seat: int, card: str) -> list[Action]:
    """The listed uses of one card."""
    return [a for a in bang.legal_actions(st, seat) if a["type"] == "use" and a["card"] == card]


def end_turn(st: State) -> list[Event]:
    """The turn player ends his turn (discarding down to his life first, if need be); the next turn starts."""
    seat = st["turn"]
    events = act(st, seat, {"type": "end_turn"})
    while pending_kind(st) in ("discard", "place_cubes") and st["turn"] == seat:
        req = st["pending"][-1]
        events += act(st, seat, bang.legal_actions(st, seat)[0] if req["kind"] == "place_cubes"
                      else {"type": "discard", "card": st["p"][seat]["hand"][0]})
    return events


def refused_reason(st: State, action: Action) -> str:
    """The reason seat 0's action is refused (checked not listed and changing nothing)."""
    return str(refusal(st, 0, action).reason)


def checks(events: list[Event]) -> list[tuple[str, list[str]]]:
    """The draw! checks in a list of events: (what for, the cards flipped)."""
    return [(e["reason"], e["cards"]) for e in events if e["kind"] == "check"]


# Orange cards in play: like blue cards, with 3 cubes (AD-004, 005, 006)


@pytest.mark.rule("AD-005", "AD-010")
def test_an_orange_object_enters_play_with_three_cubes_from_the_supply() -> None:
    st = ad_table(4)
    crate = give(st, 0, ["crate"])[0]
    events = play(st, 0, crate)
    assert events == [{"kind": "equip", "seat": 0, "other": 0, "cards": [crate]},
                      {"kind": "cubes", "seat": 0, "cards": [crate], "amount": 3, "reason": "loaded"}]
    assert st["p"][0]["table"] == [crate] and st["p"][0]["hand"] == [] and crate not in st["discard"]
    assert cubes_on(st, 0, crate) == 3 and cubes_on(st, 0) == 0 and st["supply"] == 29
    assert st["pending"] == []  # no recharge cube for an orange card (RULINGS AD-010)


@pytest.mark.rule("AD-005")
def test_an_orange_weapon_also_enters_play_with_three_cubes() -> None:
    st = ad_table(4)
    thunderer = give(st, 0, ["thunderer"])[0]
    play(st, 0, thunderer)
    assert st["p"][0]["table"] == [thunderer] and cubes_on(st, 0, thunderer) == 3 and st["supply"] == 29


@pytest.mark.rule("AD-004")
def test_an_orange_card_stays_in_play_across_turns_with_its_cubes() -> None:
    st = ad_table(4)
    whip = give(st, 0, ["whip"])[0]
    play(st, 0, whip)
    for _ in range(4):
        end_turn(st)
    assert st["turn"] == 0 and st["p"][0]["table"] == [whip] and cubes_on(st, 0, whip) == 3
    assert st["supply"] == 29


@pytest.mark.rule("AD-004", "AD-018")
def test_an_orange_weapon_replaces_the_weapon_in_play() -> None:
    st = ad_table(4)
    schofield = equip(st, 0, ["schofield"])[0]
    thunderer = give(st, 0, ["thunderer"])[0]
    events = play(st, 0, thunderer)
    assert events[0] == {"kind": "discard", "seat": 0, "cards": [schofield], "reason": "weapon_replaced"}
    assert st["p"][0]["table"] == [thunderer] and st["discard"] == [schofield]
    assert cubes_on(st, 0, thunderer) == 3 and st["supply"] == 29


@pytest.mark.rule("AD-018", "AD-015")
def test_an_orange_weapon_replaced_by_a_new_weapon_returns_its_cubes() -> None:
    st = ad_table(4)
    thunderer = orange(st, 0, "thunderer", 2)
    assert st["supply"] == 30
    winchester = give(st, 0, ["winchester"])[0]
    play(st, 0, winchester)
    recharge(st, 0)
    assert st["p"][0]["table"] == [winchester] and st["discard"] == [thunderer]
    assert cubes_on(st, 0, thunderer) == 0 and thunderer not in st.get("marks", {})
    assert st["supply"] == 31  # the Thunderer's 2 back (32), then 1 recharge cube for the blue Winchester
    assert pending_kind(st) is None and cubes_on(st, 0) == 1


@pytest.mark.rule("AD-018")
def test_an_orange_weapon_replaced_by_another_orange_weapon_returns_its_cubes() -> None:
    st = ad_table(4)
    thunderer = orange(st, 0, "thunderer", 1)
    fifty = give(st, 0, ["big_fifty"])[0]
    play(st, 0, fifty)
    assert st["p"][0]["table"] == [fifty] and st["discard"] == [thunderer]
    assert cubes_on(st, 0, fifty) == 3 and st["supply"] == 29


@pytest.mark.rule("AD-006")
def test_the_bomb_may_be_played_in_front_of_any_player_at_any_distance() -> None:
    st = ad_table(4)
    equip(st, 2, ["mustang"])  # distance 3
    bomb = give(st, 0, ["bomb"])[0]
    plays = [a for a in bang.legal_actions(st, 0) if a["type"] == "play"]
    assert plays == [{"type": "play", "card": bomb, "target": t} for t in (0, 1, 2, 3)]
    events = play(st, 0, bomb, target=2)
    assert events == [{"kind": "equip", "seat": 0, "other": 2, "cards": [bomb]},
                      {"kind": "cubes", "seat": 2, "cards": [bomb], "amount": 3, "reason": "loaded"}]
    assert table_keys(st, 2) == ["bomb", "mustang"] and st["p"][0]["table"] == []
    assert cubes_on(st, 2, bomb) == 3 and st["supply"] == 29 and st["pending"] == []


@pytest.mark.rule("AD-006")
def test_the_bomb_may_be_played_in_front_of_oneself() -> None:
    st = ad_table(4)
    bomb = give(st, 0, ["bomb"])[0]
    play(st, 0, bomb, target=0)
    assert st["p"][0]["table"] == [bomb] and cubes_on(st, 0, bomb) == 3 and st["supply"] == 29


# Using an orange card: its own cubes (AD-007, 008)


@pytest.mark.rule("AD-007", "AD-046")
def test_an_orange_card_pays_only_from_its_own_cubes() -> None:
    st = ad_table(4)
    whip = orange(st, 0, "whip", 2)
    set_cubes(st, 0, "character", 4)
    barrel = equip(st, 1, ["barrel"])[0]
    assert uses_of(st, 0, whip) == []
    refused(st, 0, {"type": "use", "card": whip, "target": 1, "pick": barrel}, "NOT_ENOUGH_CUBES")
    set_cubes(st, 0, whip, 3)
    assert {"type": "use", "card": whip, "target": 1, "pick": barrel} in bang.legal_actions(st, 0)


@pytest.mark.rule("AD-008", "AD-049")
def test_a_crate_paying_its_last_two_cubes_is_discarded_at_once() -> None:
    st = ad_table(4)
    crate = orange(st, 1, "crate", 2)
    give(st, 1, ["beer"])
    play(st, 0, give(st, 0, ["bang"])[0], target=1)
    events = use(st, 1, crate)
    assert events == [{"kind": "use", "seat": 1, "cards": [crate], "reason": "missed"},
                      {"kind": "cubes", "seat": 1, "cards": [crate], "amount": -2, "reason": "use"},
                      {"kind": "discard", "seat": 1, "cards": [crate], "reason": "no_cubes"}]
    assert st["p"][1]["table"] == [] and st["discard"][-1] == crate and st["p"][1]["life"] == 4
    assert st["pending"] == [] and st["supply"] == 32


@pytest.mark.rule("AD-007", "AD-049")
def test_a_crate_with_one_cube_is_not_offered_and_cannot_answer() -> None:
    st = ad_table(4)
    crate = orange(st, 1, "crate", 1)
    set_cubes(st, 1, "character", 4)
    give(st, 1, ["beer"])
    play(st, 0, give(st, 0, ["bang"])[0], target=1)
    assert bang.legal_actions(st, 1) == [{"type": "pass"}]
    refused(st, 1, {"type": "use", "card": crate}, "NOT_ENOUGH_CUBES")


@pytest.mark.rule("AD-049")
def test_a_crate_with_three_cubes_keeps_one_after_cancelling() -> None:
    st = ad_table(4)
    crate = orange(st, 1, "crate", 3)
    give(st, 1, ["beer"])
    play(st, 0, give(st, 0, ["bang"])[0], target=1)
    assert bang.legal_actions(st, 1) == [{"type": "pass"}, {"type": "use", "card": crate}]
    use(st, 1, crate)
    assert st["p"][1]["table"] == [crate] and cubes_on(st, 1, crate) == 1 and st["supply"] == 31
    assert st["p"][1]["life"] == 4 and st["pending"] == []


@pytest.mark.rule("AD-049", "AD-025")
def test_a_crate_answers_a_gatling_but_not_a_duel_or_an_arrow() -> None:
    st = ad_table(4)
    crate = orange(st, 1, "crate", 3)
    give(st, 1, ["beer"])
    play(st, 0, give(st, 0, ["gatling"])[0])
    assert bang.to_act(st) == [1] and bang.legal_actions(st, 1) == [{"type": "pass"}, {"type": "use", "card": crate}]
    for card in ("duel", "arrow"):
        st = ad_table(4)
        crate = orange(st, 1, "crate", 3)
        give(st, 1, ["beer"])
        play(st, 0, give(st, 0, [card])[0], target=1)
        assert bang.to_act(st) == [1] and bang.legal_actions(st, 1) == [{"type": "pass"}], card
        refused(st, 1, {"type": "use", "card": crate}, "WRONG_ANSWER")


# Crate and Barrel against Slab the Killer, in either order (AD-049)


def _slab_shoots_crate_and_barrel() -> tuple[State, str, str]:
    st = ad_table(4, chars=chars(4, s0="slab_the_killer"))
    crate = orange(st, 1, "crate", 3)
    barrel = equip(st, 1, ["barrel"])[0]
    give(st, 1, ["beer"])
    play(st, 0, give(st, 0, ["bang"])[0], target=1)
    assert pending_kind(st) == "bang" and st["pending"][-1]["args"]["need"] == 2
    assert bang.legal_actions(st, 1) == [{"type": "pass"}, {"type": "use", "card": crate},
                                         {"type": "barrel", "card": barrel}]
    return st, crate, barrel


@pytest.mark.rule("AD-049")
def test_barrel_first_then_crate_cancels_slabs_bang() -> None:
    st, crate, barrel = _slab_shoots_crate_and_barrel()
    stack_deck(st, ["any:5h"])
    act(st, 1, {"type": "barrel", "card": barrel})
    assert bang.legal_actions(st, 1) == [{"type": "pass"}, {"type": "use", "card": crate}]
    use(st, 1, crate)
    assert st["pending"] == [] and st["p"][1]["life"] == 4 and cubes_on(st, 1, crate) == 1


@pytest.mark.rule("AD-049")
def test_crate_first_then_barrel_cancels_slabs_bang() -> None:
    st, crate, barrel = _slab_shoots_crate_and_barrel()
    use(st, 1, crate)
    assert pending_kind(st) == "bang" and cubes_on(st, 1, crate) == 1
    assert bang.legal_actions(st, 1) == [{"type": "pass"}, {"type": "barrel", "card": barrel}]
    stack_deck(st, ["any:5h"])
    act(st, 1, {"type": "barrel", "card": barrel})
    assert st["pending"] == [] and st["p"][1]["life"] == 4


@pytest.mark.rule("AD-049")
def test_crate_then_a_failed_barrel_against_slab_still_hits() -> None:
    st, crate, barrel = _slab_shoots_crate_and_barrel()
    use(st, 1, crate)
    stack_deck(st, ["any:5s"])
    act(st, 1, {"type": "barrel", "card": barrel})
    assert bang.legal_actions(st, 1) == [{"type": "pass"}]  # the Crate's last cube cannot pay its 2
    act(st, 1, {"type": "pass"})
    assert st["p"][1]["life"] == 3 and st["p"][1]["table"] == [crate, barrel]


# Removing orange cards: their cubes go back (AD-015, 016, 017)


@pytest.mark.rule("AD-015")
def test_cat_balou_on_a_crate_returns_its_cubes_to_the_supply() -> None:
    st = ad_table(4)
    crate = orange(st, 1, "crate", 3)
    assert st["supply"] == 29
    cat = give(st, 0, ["cat_balou"])[0]
    play(st, 0, cat, target=1, pick=crate)
    assert st["p"][1]["table"] == [] and crate in st["discard"] and st["supply"] == 32
    assert crate not in st.get("marks", {})


@pytest.mark.rule("AD-016")
def test_panic_on_an_orange_card_takes_it_without_its_cubes_and_it_is_reloaded_when_played() -> None:
    st = ad_table(4)
    whip = orange(st, 1, "whip", 1)
    set_cubes(st, 1, "character", 2)
    panic = give(st, 0, ["panic"])[0]
    play(st, 0, panic, target=1, pick=whip)
    assert st["p"][0]["hand"] == [whip] and st["p"][1]["table"] == []
    assert st["supply"] == 30 and cubes_on(st, 1) == 2 and whip not in st.get("marks", {})
    play(st, 0, whip)
    assert st["p"][0]["table"] == [whip] and cubes_on(st, 0, whip) == 3 and st["supply"] == 27


@pytest.mark.rule("AD-017")
def test_panic_and_cat_balou_target_cards_never_cubes() -> None:
    st = ad_table(4)
    crate = orange(st, 1, "crate", 3)
    mustang = equip(st, 1, ["mustang"])[0]
    set_cubes(st, 1, "character", 2)
    give(st, 1, ["beer"])
    cat = give(st, 0, ["cat_balou"])[0]
    picks = {a["pick"] for a in bang.legal_actions(st, 0) if a.get("target") == 1}
    assert picks == {"hand", crate, mustang}
    refused(st, 0, {"type": "play", "card": cat, "target": 1, "pick": "character"}, "BAD_TARGET")


# The uses (AD-044, 046, 048, 059)


@pytest.mark.rule("AD-044")
def test_ace_up_the_sleeve_pays_two_of_its_cubes_to_draw_one() -> None:
    st = ad_table(4)
    ace = orange(st, 0, "ace_up_the_sleeve", 3)
    top = stack_deck(st, ["beer"])[0]
    assert uses_of(st, 0, ace) == [{"type": "use", "card": ace}]
    events = use(st, 0, ace)
    assert kinds(events) == ["use", "cubes", "draw"]
    assert st["p"][0]["hand"] == [top] and cubes_on(st, 0, ace) == 1 and st["supply"] == 31
    assert st["p"][0]["table"] == [ace]
    refused(st, 0, {"type": "use", "card": ace}, "NOT_ENOUGH_CUBES")


@pytest.mark.rule("AD-044")
def test_ace_up_the_sleeve_with_two_cubes_is_used_once_and_discarded() -> None:
    st = ad_table(4)
    ace = orange(st, 0, "ace_up_the_sleeve", 2)
    use(st, 0, ace)
    assert len(st["p"][0]["hand"]) == 1 and st["p"][0]["table"] == [] and st["discard"] == [ace]
    assert st["supply"] == 32


@pytest.mark.rule("AD-044")
def test_ace_up_the_sleeve_is_not_used_out_of_turn() -> None:
    st = ad_table(4)
    ace = orange(st, 1, "ace_up_the_sleeve", 3)
    refused(st, 1, {"type": "use", "card": ace}, "NOT_YOUR_TURN")


@pytest.mark.rule("AD-046")
def test_whip_discards_a_card_in_play_at_any_distance_and_is_discarded_empty() -> None:
    st = ad_table(4)
    whip = orange(st, 0, "whip", 3)
    mustang, barrel = equip(st, 2, ["mustang", "barrel"])  # distance 3
    give(st, 2, ["beer"])
    events = use(st, 0, whip, target=2, pick=barrel)
    assert events == [{"kind": "use", "seat": 0, "cards": [whip], "other": 2},
                      {"kind": "cubes", "seat": 0, "cards": [whip], "amount": -3, "reason": "use"},
                      {"kind": "discard", "seat": 0, "cards": [whip], "reason": "no_cubes"},
                      {"kind": "discard", "seat": 2, "cards": [barrel], "reason": "whip"}]
    assert st["p"][2]["table"] == [mustang] and len(st["p"][2]["hand"]) == 1
    assert st["p"][0]["table"] == [] and st["discard"] == [whip, barrel] and st["supply"] == 32


@pytest.mark.rule("AD-046")
def test_whip_offers_every_card_in_play_and_never_a_hand() -> None:
    st = ad_table(4)
    whip = orange(st, 0, "whip", 3)
    mustang = equip(st, 2, ["mustang"])[0]
    scope = equip(st, 0, ["scope"])[0]
    give(st, 2, ["beer"])
    give(st, 1, ["beer"])
    assert uses_of(st, 0, whip) == [{"type": "use", "card": whip, "target": 0, "pick": scope},
                                    {"type": "use", "card": whip, "target": 2, "pick": mustang}]
    refused(st, 0, {"type": "use", "card": whip, "target": 2, "pick": "hand"}, "CARD_NOT_IN_PLAY")


@pytest.mark.rule("AD-046", "AD-051")
def test_whip_on_the_bomb_discards_it_without_an_explosion() -> None:
    st = ad_table(4)
    whip = orange(st, 0, "whip", 4)
    bomb = orange(st, 2, "bomb", 3)
    use(st, 0, whip, target=2, pick=bomb)
    assert st["p"][2]["table"] == [] and st["p"][2]["life"] == 4 and bomb in st["discard"]
    assert cubes_on(st, 0, whip) == 1 and st["supply"] == 31 and st["pending"] == []


@pytest.mark.rule("AD-048")
def test_beer_keg_pays_three_cubes_for_one_life_and_is_discarded_empty() -> None:
    st = ad_table(4)
    keg = orange(st, 0, "beer_keg", 3)
    st["p"][0]["life"] = 3
    events = use(st, 0, keg)
    assert kinds(events) == ["use", "cubes", "discard", "heal"]
    assert st["p"][0]["life"] == 4 and st["p"][0]["table"] == [] and st["discard"] == [keg]
    assert st["supply"] == 32


@pytest.mark.rule("AD-048", "AD-026")
def test_beer_keg_is_never_offered_out_of_turn_even_when_dying() -> None:
    st = ad_table(4)
    keg = orange(st, 1, "beer_keg", 4)
    st["p"][1]["life"] = 1
    give(st, 1, ["panic"])
    play(st, 0, give(st, 0, ["bang"])[0], target=1)
    assert bang.legal_actions(st, 1) == [{"type": "pass"}]
    act(st, 1, {"type": "pass"})
    assert pending_kind(st) == "dying" and bang.legal_actions(st, 1) == [{"type": "pass"}]
    act(st, 1, {"type": "pass"})
    assert not st["p"][1]["alive"] and cubes_on(st, 1, keg) == 0 and st["supply"] == 32


@pytest.mark.rule("AD-048", "AD-026", "AD-050")
def test_beer_keg_cannot_save_its_owner_from_the_bomb_at_his_own_turn_start() -> None:
    st, _bomb = _bomb_on_seat_1(1)
    keg = orange(st, 1, "beer_keg", 3)
    st["p"][1]["life"] = 2
    give(st, 1, ["panic"])
    stack_deck(st, ["any:4s", "any:2s", "any:3s"])
    end_turn(st)
    assert pending_kind(st) == "dying" and bang.legal_actions(st, 1) == [{"type": "pass"}]
    refused(st, 1, {"type": "use", "card": keg}, "WRONG_ANSWER")


@pytest.mark.rule("AD-048")
def test_beer_keg_is_refused_at_full_life() -> None:
    st = ad_table(4)
    keg = orange(st, 0, "beer_keg", 3)
    assert uses_of(st, 0, keg) == []
    refused(st, 0, {"type": "use", "card": keg}, "LIFE_AT_MAXIMUM")


@pytest.mark.rule("AD-048", "AD-007")
def test_beer_keg_with_two_cubes_cannot_be_used() -> None:
    st = ad_table(4)
    keg = orange(st, 0, "beer_keg", 2)
    set_cubes(st, 0, "character", 4)
    st["p"][0]["life"] = 3
    assert uses_of(st, 0, keg) == []
    refused(st, 0, {"type": "use", "card": keg}, "NOT_ENOUGH_CUBES")


@pytest.mark.rule("AD-048")
def test_beer_keg_is_not_a_beer_and_heals_with_two_players_left() -> None:
    st = ad_table(4)
    for seat in (2, 3):
        st["p"][seat].update(alive=False, life=0)
    keg = orange(st, 0, "beer_keg", 4)
    st["p"][0]["life"] = 3
    use(st, 0, keg)
    assert st["p"][0]["life"] == 4 and cubes_on(st, 0, keg) == 1


@pytest.mark.rule("AD-059")
def test_lockpick_takes_a_card_from_any_hand_at_any_distance_and_is_discarded_empty() -> None:
    st = ad_table(4)
    lockpick = orange(st, 0, "lockpick", 3)
    mustang = equip(st, 2, ["mustang"])[0]
    beer = give(st, 2, ["beer"])[0]
    assert uses_of(st, 0, lockpick) == [{"type": "use", "card": lockpick, "target": 2}]
    events = use(st, 0, lockpick, target=2)
    assert events[-1] == {"kind": "take", "seat": 0, "other": 2, "cards": [beer], "reason": "hand"}
    assert st["p"][0]["hand"] == [beer] and st["p"][2]["hand"] == [] and st["p"][2]["table"] == [mustang]
    assert st["p"][0]["table"] == [] and st["discard"] == [lockpick] and st["supply"] == 32


@pytest.mark.rule("AD-059")
def test_lockpick_cannot_take_from_an_empty_hand_nor_a_card_in_play() -> None:
    st = ad_table(4)
    lockpick = orange(st, 0, "lockpick", 4)
    mustang = equip(st, 2, ["mustang"])[0]
    refused(st, 0, {"type": "use", "card": lockpick, "target": 2}, "NOTHING_TO_TAKE")
    give(st, 2, ["beer"])
    assert refused_reason(st, {"type": "use", "card": lockpick, "target": 2, "pick": mustang}) == "UNEXPECTED_TARGET"
    refused(st, 0, {"type": "use", "card": lockpick, "target": 0}, "TARGET_SELF")


# Bandolier (AD-045)


@pytest.mark.rule("AD-045")
def test_bandolier_pays_one_cube_for_one_extra_bang_card_per_turn() -> None:
    st = ad_table(4)
    bandolier = orange(st, 0, "bandolier", 3)
    first, second, third = give(st, 0, ["bang", "bang", "bang"])
    for seat in (1, 3):
        give(st, seat, ["beer"])
    play(st, 0, first, target=1)
    act(st, 1, {"type": "pass"})
    assert cubes_on(st, 0, bandolier) == 3
    events = play(st, 0, second, target=3)
    assert events[1:3] == [{"kind": "use", "seat": 0, "cards": [bandolier], "reason": "bandolier"},
                          {"kind": "cubes", "seat": 0, "cards": [bandolier], "amount": -1, "reason": "use"}]
    act(st, 3, {"type": "pass"})
    assert st["p"][3]["life"] == 3 and cubes_on(st, 0, bandolier) == 2 and st["supply"] == 30
    refused(st, 0, {"type": "play", "card": third, "target": 1}, "BANG_ALREADY_PLAYED")


@pytest.mark.rule("AD-045")
def test_bandolier_is_not_paid_for_the_first_bang_card() -> None:
    st = ad_table(4)
    bandolier = orange(st, 0, "bandolier", 1)
    give(st, 1, ["beer"])
    play(st, 0, give(st, 0, ["bang"])[0], target=1)
    assert cubes_on(st, 0, bandolier) == 1 and st["p"][0]["table"] == [bandolier]


@pytest.mark.rule("AD-045")
def test_bandolier_extra_bang_must_respect_distance() -> None:
    st = ad_table(4)
    orange(st, 0, "bandolier", 3)
    first, second = give(st, 0, ["bang", "bang"])
    give(st, 1, ["beer"])
    play(st, 0, first, target=1)
    act(st, 1, {"type": "pass"})
    refused(st, 0, {"type": "play", "card": second, "target": 2}, "OUT_OF_RANGE")
    assert {"type": "play", "card": second, "target": 3} in bang.legal_actions(st, 0)


@pytest.mark.rule("AD-045")
def test_bandolier_with_its_last_cube_is_discarded_when_paid() -> None:
    st = ad_table(4)
    bandolier = orange(st, 0, "bandolier", 1)
    first, second, third = give(st, 0, ["bang", "bang", "bang"])
    give(st, 1, ["beer"])
    give(st, 3, ["beer"])
    play(st, 0, first, target=1)
    act(st, 1, {"type": "pass"})
    play(st, 0, second, target=3)
    assert st["p"][0]["table"] == [] and bandolier in st["discard"] and st["supply"] == 32
    act(st, 3, {"type": "pass"})
    refused(st, 0, {"type": "play", "card": third, "target": 1}, "BANG_ALREADY_PLAYED")


@pytest.mark.rule("AD-045", "AD-066")
def test_bandolier_extra_bang_may_trigger_the_thunderer() -> None:
    st = ad_table(4)
    bandolier = orange(st, 0, "bandolier", 3)
    thunderer = orange(st, 0, "thunderer", 3)
    first, second = give(st, 0, ["bang", "bang"])
    give(st, 1, ["beer"])
    give(st, 3, ["beer"])
    play(st, 0, first, target=1)
    assert pending_kind(st) == "weapon"
    act(st, 0, {"type": "pass"})  # no Thunderer for the first BANG!
    act(st, 1, {"type": "pass"})
    play(st, 0, second, target=3)
    assert pending_kind(st) == "weapon"
    assert bang.legal_actions(st, 0) == [{"type": "use", "card": thunderer}, {"type": "pass"}]
    act(st, 0, {"type": "use", "card": thunderer})
    assert second in st["p"][0]["hand"] and cubes_on(st, 0, thunderer) == 2 and cubes_on(st, 0, bandolier) == 2


@pytest.mark.rule("AD-045")
def test_bandolier_is_not_paid_while_volcanic_lifts_the_limit() -> None:
    st = ad_table(4)
    bandolier = orange(st, 0, "bandolier", 3)
    equip(st, 0, ["volcanic"])
    first, second = give(st, 0, ["bang", "bang"])
    give(st, 1, ["beer"])
    play(st, 0, first, target=1)
    act(st, 1, {"type": "pass"})
    events = play(st, 0, second, target=1)
    assert kinds(events) == ["play"] and cubes_on(st, 0, bandolier) == 3 and st["supply"] == 29


@pytest.mark.rule("AD-045")
def test_bandolier_is_usable_again_in_the_next_turn() -> None:
    st = ad_table(4)
    bandolier = orange(st, 0, "bandolier", 3)
    for seat in (1, 3):
        give(st, seat, ["beer"])
    first, second = give(st, 0, ["bang", "bang"])
    play(st, 0, first, target=1)
    act(st, 1, {"type": "pass"})
    play(st, 0, second, target=3)
    act(st, 3, {"type": "pass"})
    for _ in range(4):
        end_turn(st)
    assert st["turn"] == 0
    st["deck"].extend(st["p"][0]["hand"])
    st["p"][0]["hand"] = []
    third, fourth = give(st, 0, ["bang", "bang"])
    play(st, 0, third, target=1)
    act(st, 1, {"type": "pass"})
    play(st, 0, fourth, target=3)
    assert cubes_on(st, 0, bandolier) == 1


@pytest.mark.rule("AD-007")
def test_orange_cards_with_an_answer_use_are_not_used_as_a_phase_2_action() -> None:
    st = ad_table(4)
    cards = [orange(st, 0, name, 3) for name in ("tumbleweed", "crate", "bandolier", "thunderer")]
    assert [a for a in bang.legal_actions(st, 0) if a["type"] == "use"] == []
    for card in cards:
        refused(st, 0, {"type": "use", "card": card}, "CARD_NOT_PLAYABLE_NOW")
    assert [cubes_on(st, 0, c) for c in cards] == [3, 3, 3, 3]


# The Bomb (AD-050, 051, 052)


def _bomb_on_seat_1(count: int = 3) -> tuple[State, str]:
    st = ad_table(4)
    bomb = orange(st, 1, "bomb", count)
    return st, bomb


@pytest.mark.rule("AD-050")
def test_a_black_bomb_check_removes_two_cubes() -> None:
    st, bomb = _bomb_on_seat_1(3)
    stack_deck(st, ["any:8c", "any:2s", "any:3s"])
    events = end_turn(st)
    assert checks(events) == [("bomb", [st["discard"][0]])]
    assert {"kind": "cubes", "seat": 1, "cards": [bomb], "amount": -2, "reason": "bomb"} in events
    assert st["turn"] == 1 and st["phase"] == "play" and st["p"][1]["table"] == [bomb]
    assert cubes_on(st, 1, bomb) == 1 and st["p"][1]["life"] == 4 and st["supply"] == 31


@pytest.mark.rule("AD-050")
def test_a_bomb_running_out_of_cubes_explodes_for_two_life() -> None:
    st, bomb = _bomb_on_seat_1(1)
    stack_deck(st, ["any:4s", "any:2s", "any:3s"])
    events = end_turn(st)
    assert {"kind": "explode", "seat": 1, "cards": [bomb]} in events
    assert {"kind": "damage", "seat": 1, "amount": 2, "life": 2, "other": None} in events
    assert st["p"][1]["table"] == [] and bomb in st["discard"] and st["p"][1]["life"] == 2
    assert st["supply"] == 32 and st["turn"] == 1 and st["phase"] == "play"


@pytest.mark.rule("AD-050")
def test_a_bomb_with_two_cubes_explodes_on_a_black_check() -> None:
    st, bomb = _bomb_on_seat_1(2)
    stack_deck(st, ["any:Kc", "any:2s", "any:3s"])
    end_turn(st)
    assert bomb in st["discard"] and st["p"][1]["table"] == [] and st["p"][1]["life"] == 2 and st["supply"] == 32


@pytest.mark.rule("AD-050")
def test_a_red_bomb_check_passes_it_with_its_cubes_to_a_chosen_player() -> None:
    st, bomb = _bomb_on_seat_1(1)
    stack_deck(st, ["any:5d", "any:2s", "any:3s"])
    end_turn(st)
    assert pending_kind(st) == "pass_bomb" and bang.to_act(st) == [1]
    assert bang.legal_actions(st, 1) == [{"type": "choose", "target": t} for t in (2, 3, 0)]
    err = refusal(st, 1, {"type": "choose", "target": 1})
    assert (err.reason, err.message, err.details) == (
        "NOT_A_CHOICE", "Pass the Bomb to another living player", {"target": "1"})
    events = act(st, 1, {"type": "choose", "target": 3})
    assert events[0] == {"kind": "move", "seat": 1, "other": 3, "cards": [bomb], "reason": "bomb"}
    assert st["p"][1]["table"] == [] and st["p"][3]["table"] == [bomb]
    assert cubes_on(st, 3, bomb) == 1 and st["supply"] == 31  # it keeps its cube
    assert st["turn"] == 1 and st["phase"] == "play" and st["p"][1]["life"] == 4
    # P4 checks it at the start of his own turn: the last cube goes, it explodes.
    stack_deck(st, ["any:6s", "any:7s", "any:4s", "any:9c", "any:Js"])
    end_turn(st)  # seat 2's turn: no Bomb
    assert st["turn"] == 2 and st["p"][3]["table"] == [bomb]
    events = end_turn(st)
    assert checks(events) == [("bomb", [card_id_of(st, "4s")])]
    assert st["p"][3]["table"] == [] and st["p"][3]["life"] == 2 and st["supply"] == 32


def card_id_of(st: State, sign: str) -> str:
    """The id of the discarded card of that sign."""
    from tabletop_server.service.games.bang.tables import CARDS
    return next(str(c) for c in st["discard"] if CARDS[c].rank + CARDS[c].suit[0] == sign)


@pytest.mark.rule("AD-050")
def test_a_passed_bomb_never_goes_to_a_player_who_has_one_or_to_the_dead() -> None:
    st, bomb = _bomb_on_seat_1(3)
    st["p"][2].update(alive=False, life=0)
    stack_deck(st, ["any:5h", "any:2s", "any:3s"])
    end_turn(st)
    assert st["p"][1]["table"] == [bomb]
    assert bang.legal_actions(st, 1) == [{"type": "choose", "target": 3}, {"type": "choose", "target": 0}]


@pytest.mark.rule("AD-050")
def test_a_bomb_explosion_gives_no_one_credit() -> None:
    """The Bomb's explosion has no author: El Gringo takes no card from the player of the Bomb, and an
    Outlaw killed by it earns no one the 3-card reward."""
    st = ad_table(4, chars=chars(4, s1="el_gringo"))
    bomb = give(st, 0, ["bomb"])[0]
    play(st, 0, bomb, target=1)
    set_cubes(st, 1, bomb, 1)
    give(st, 0, ["beer"])  # the Bomb's player holds a card El Gringo could take
    stack_deck(st, ["any:4s", "any:2s", "any:3s"])
    events = end_turn(st)
    assert {"kind": "damage", "seat": 1, "amount": 2, "life": 1, "other": None} in events
    assert not [e for e in events if e["kind"] == "take"]
    assert len(st["p"][0]["hand"]) == 1 and st["p"][1]["life"] == 1
    assert bomb in st["discard"]


@pytest.mark.rule("AD-050")
def test_a_bomb_explosion_that_kills_an_outlaw_rewards_no_one() -> None:
    st = ad_table(4, roles=["sheriff", "outlaw", "outlaw", "renegade"])
    bomb = give(st, 0, ["bomb"])[0]
    play(st, 0, bomb, target=1)
    set_cubes(st, 1, bomb, 2)
    st["p"][1]["life"] = 2
    stack_deck(st, ["any:4s", "any:2s", "any:3s", "any:5s"])
    events = end_turn(st)
    assert not st["p"][1]["alive"] and bomb in st["discard"] and st["turn"] == 2
    assert [e for e in events if e["kind"] == "draw" and e.get("reason") == "reward"] == []
    assert all(len(st["p"][s]["hand"]) == 0 for s in (0, 3))
    assert st["supply"] == 32


@pytest.mark.rule("AD-050")
def test_a_bomb_explosion_that_kills_a_deputy_costs_the_sheriff_nothing() -> None:
    st = ad_table(4, roles=["sheriff", "deputy", "outlaw", "renegade"])
    bomb = give(st, 0, ["bomb"])[0]
    play(st, 0, bomb, target=1)
    set_cubes(st, 1, bomb, 1)
    st["p"][1]["life"] = 2
    kept = give(st, 0, ["beer", "panic"])
    stack_deck(st, ["any:4s", "any:2s", "any:3s"])
    end_turn(st)
    assert not st["p"][1]["alive"] and st["p"][0]["hand"] == kept and st["turn"] == 2


@pytest.mark.rule("AD-050", "AD-026")
def test_a_beer_saves_the_bomb_holder_who_then_plays_his_turn() -> None:
    st, bomb = _bomb_on_seat_1(1)
    st["p"][1]["life"] = 2
    beer = give(st, 1, ["beer"])[0]
    stack_deck(st, ["any:4s", "any:2s", "any:3s"])
    end_turn(st)
    assert pending_kind(st) == "dying" and st["pending"][-1]["source"] is None
    assert bang.legal_actions(st, 1) == [{"type": "pass"}, {"type": "respond", "card": beer}]
    act(st, 1, {"type": "respond", "card": beer})
    assert st["p"][1]["life"] == 1 and st["turn"] == 1 and st["phase"] == "play"
    assert len(st["p"][1]["hand"]) == 2 and bomb in st["discard"]


@pytest.mark.rule("AD-051", "AD-023")
def test_paying_an_upgrade_with_the_bombs_last_cube_makes_it_explode() -> None:
    st = ad_table(4)
    bomb = orange(st, 0, "bomb", 1)
    set_cubes(st, 0, "character", 1)
    caravan = give(st, 0, ["caravan"])[0]
    play(st, 0, caravan)
    assert bang.legal_actions(st, 0) == [{"type": "pass"}, {"type": "upgrade"}]
    events = act(st, 0, {"type": "upgrade"})  # 2 cubes owned, 2 to pay: both go without asking
    assert {"kind": "explode", "seat": 0, "cards": [bomb]} in events
    assert {"kind": "damage", "seat": 0, "amount": 2, "life": 3, "other": None} in events
    assert st["p"][0]["table"] == [] and len(st["p"][0]["hand"]) == 3 and st["supply"] == 32


@pytest.mark.rule("AD-050")
def test_a_bomb_killing_the_sheriff_at_his_turn_start_ends_the_game() -> None:
    st = ad_table(4, turn=3)
    bomb = orange(st, 0, "bomb", 1)
    st["p"][0]["life"] = 2
    stack_deck(st, ["any:4s", "any:2s", "any:3s"])
    events = end_turn(st)
    assert kinds(events)[-4:] == ["explode", "damage", "eliminated", "game_over"]
    assert st["phase"] == "over" and st["winners"] == [2, 3] and st["pending"] == []
    assert bomb in st["discard"]


@pytest.mark.rule("AD-050")
def test_with_two_players_left_the_bomb_passes_to_the_other_without_asking() -> None:
    st, bomb = _bomb_on_seat_1(3)
    for seat in (2, 3):
        st["p"][seat].update(alive=False, life=0)
    stack_deck(st, ["any:4h", "any:2s", "any:3s"])
    events = end_turn(st)
    assert {"kind": "move", "seat": 1, "other": 0, "cards": [bomb], "reason": "bomb"} in events
    assert st["p"][0]["table"] == [bomb] and cubes_on(st, 0, bomb) == 3 and st["pending"] == []


@pytest.mark.rule("AD-051")
def test_cat_balou_on_the_bomb_discards_it_and_no_one_loses_life() -> None:
    st, bomb = _bomb_on_seat_1(1)
    cat = give(st, 0, ["cat_balou"])[0]
    play(st, 0, cat, target=1, pick=bomb)
    assert st["p"][1]["table"] == [] and bomb in st["discard"] and st["p"][1]["life"] == 4
    assert st["supply"] == 32 and st["pending"] == []


@pytest.mark.rule("AD-051")
def test_panic_on_the_bomb_takes_it_without_an_explosion() -> None:
    st = ad_table(4)
    bomb = orange(st, 1, "bomb", 1)
    panic = give(st, 0, ["panic"])[0]
    play(st, 0, panic, target=1, pick=bomb)
    assert st["p"][0]["hand"] == [bomb] and st["p"][1]["life"] == 4 and st["supply"] == 32


@pytest.mark.rule("AD-051", "AD-063")
def test_squaw_on_the_bomb_discards_it_without_an_explosion() -> None:
    st, bomb = _bomb_on_seat_1(1)
    squaw = give(st, 0, ["squaw"])[0]
    play(st, 0, squaw, target=1, pick=bomb)
    assert st["p"][1]["table"] == [] and bomb in st["discard"] and st["p"][1]["life"] == 4
    assert st["supply"] == 32 and st["pending"] == []


@pytest.mark.rule("AD-051", "AD-060")
def test_rust_taking_the_bombs_last_cube_makes_it_explode() -> None:
    st, bomb = _bomb_on_seat_1(1)
    rust = give(st, 0, ["rust"])[0]
    events = play(st, 0, rust)
    assert {"kind": "explode", "seat": 1, "cards": [bomb]} in events
    assert st["p"][1]["table"] == [] and st["p"][1]["life"] == 2 and bomb in st["discard"]
    assert cubes_on(st, 0) == 1 and st["supply"] == 31


@pytest.mark.rule("AD-052")
def test_the_bomb_is_checked_after_dynamite_and_jail() -> None:
    st = ad_table(4)
    dynamite, jail = equip(st, 1, ["dynamite", "jail"])
    bomb = orange(st, 1, "bomb", 3)
    ten, jack, two = stack_deck(st, ["any:10h", "any:Jh", "any:2c", "any:2s", "any:3s"])[:3]
    events = end_turn(st)
    assert checks(events) == [("dynamite", [ten]), ("jail", [jack]), ("bomb", [two])]
    assert st["p"][2]["table"] == [dynamite] and st["p"][1]["table"] == [bomb]
    assert jail in st["discard"] and cubes_on(st, 1, bomb) == 1
    assert st["turn"] == 1 and st["phase"] == "play"


@pytest.mark.rule("AD-052")
def test_after_a_failed_jail_the_bomb_is_not_checked() -> None:
    """RULINGS AD-052: the failed Jail ends the turn, so the Bomb waits for the next one."""
    st = ad_table(4)
    jail = equip(st, 1, ["jail"])[0]
    bomb = orange(st, 1, "bomb", 1)
    spade, club = stack_deck(st, ["any:5s", "any:8c", "any:2s", "any:3s"])[:2]
    events = end_turn(st)
    assert checks(events) == [("jail", [spade])]
    assert st["p"][1]["table"] == [bomb] and cubes_on(st, 1, bomb) == 1 and st["p"][1]["life"] == 4
    assert jail in st["discard"] and st["turn"] == 2 and club in st["p"][2]["hand"]  # seat 2 draws it


# Tumbleweed (AD-064, 043)


def _jailed_seat_1_and_tumbleweed_on(seat: int, count: int = 3) -> tuple[State, str]:
    st = ad_table(4)
    equip(st, 1, ["jail"])
    weed = orange(st, seat, "tumbleweed", count)
    return st, weed


@pytest.mark.rule("AD-064")
def test_tumbleweed_redoes_another_players_draw_and_the_first_result_no_longer_counts() -> None:
    st, weed = _jailed_seat_1_and_tumbleweed_on(2)
    heart, spade = stack_deck(st, ["any:5h", "any:5s", "any:2s", "any:3s"])[:2]
    events = end_turn(st)
    assert checks(events) == [("jail", [heart])]
    assert pending_kind(st) == "redraw" and bang.to_act(st) == [2]
    assert bang.legal_actions(st, 2) == [{"type": "use", "card": weed}, {"type": "pass"}]
    refused(st, 1, {"type": "pass"}, "NOT_YOUR_DECISION")
    crate = orange(st, 2, "crate", 3)
    refused(st, 2, {"type": "use", "card": crate}, "WRONG_ANSWER")
    events = act(st, 2, {"type": "use", "card": weed})
    assert events[:2] == [{"kind": "use", "seat": 2, "cards": [weed], "reason": "tumbleweed", "other": 1},
                          {"kind": "cubes", "seat": 2, "cards": [weed], "amount": -1, "reason": "use"}]
    assert checks(events) == [("jail", [spade])]
    assert cubes_on(st, 2, weed) == 2 and pending_kind(st) == "redraw"  # he could pay again
    act(st, 2, {"type": "pass"})
    assert st["turn"] == 2 and st["p"][1]["hand"] == []  # P2 stays jailed: his turn is skipped
    assert heart in st["discard"] and spade in st["discard"] and st["supply"] == 32 - 2 - 3


@pytest.mark.rule("AD-064")
def test_tumbleweed_declined_lets_the_draw_stand() -> None:
    st, weed = _jailed_seat_1_and_tumbleweed_on(2)
    stack_deck(st, ["any:5h", "any:2s", "any:3s"])
    end_turn(st)
    act(st, 2, {"type": "pass"})
    assert st["turn"] == 1 and st["phase"] == "play" and cubes_on(st, 2, weed) == 3


@pytest.mark.rule("AD-064")
def test_tumbleweed_may_be_paid_twice_for_a_third_draw() -> None:
    st, weed = _jailed_seat_1_and_tumbleweed_on(2, 2)
    h1, s1, h2 = stack_deck(st, ["any:5h", "any:5s", "any:9h", "any:2s", "any:3s"])[:3]
    events = end_turn(st)
    events += act(st, 2, {"type": "use", "card": weed})
    events += act(st, 2, {"type": "use", "card": weed})
    assert checks(events) == [("jail", [h1]), ("jail", [s1]), ("jail", [h2])]
    # the Tumbleweed's last cube is gone: it is discarded and nothing more is asked
    assert st["p"][2]["table"] == [] and weed in st["discard"] and st["supply"] == 32
    assert st["turn"] == 1 and st["phase"] == "play"


@pytest.mark.rule("AD-064")
def test_tumbleweed_works_on_its_holders_own_draw() -> None:
    st, weed = _jailed_seat_1_and_tumbleweed_on(1)
    spade, heart = stack_deck(st, ["any:5s", "any:5h", "any:2s", "any:3s"])[:2]
    events = end_turn(st)
    assert checks(events) == [("jail", [spade])]
    assert pending_kind(st) == "redraw" and bang.to_act(st) == [1]
    events = act(st, 1, {"type": "use", "card": weed})
    assert checks(events) == [("jail", [heart])]
    act(st, 1, {"type": "pass"})
    assert st["turn"] == 1 and st["phase"] == "play" and cubes_on(st, 1, weed) == 2


@pytest.mark.rule("AD-064")
def test_tumbleweed_on_a_barrel_draw_out_of_its_holders_turn() -> None:
    st = ad_table(4)
    barrel = equip(st, 1, ["barrel"])[0]
    weed = orange(st, 3, "tumbleweed", 1)
    give(st, 1, ["beer"])
    play(st, 0, give(st, 0, ["bang"])[0], target=1)
    stack_deck(st, ["any:5h", "any:5s"])
    act(st, 1, {"type": "barrel", "card": barrel})
    assert pending_kind(st) == "redraw" and bang.to_act(st) == [3]
    act(st, 3, {"type": "use", "card": weed})
    assert st["p"][3]["table"] == [] and pending_kind(st) == "bang"  # the redraw failed
    assert bang.legal_actions(st, 1) == [{"type": "pass"}]
    act(st, 1, {"type": "pass"})
    assert st["p"][1]["life"] == 3


@pytest.mark.rule("AD-064", "AD-050")
def test_tumbleweed_on_a_bomb_draw() -> None:
    st, bomb = _bomb_on_seat_1(2)
    weed = orange(st, 0, "tumbleweed", 3)
    stack_deck(st, ["any:8c", "any:8h", "any:2s", "any:3s"])
    end_turn(st)
    assert pending_kind(st) == "redraw" and bang.to_act(st) == [0]
    act(st, 0, {"type": "use", "card": weed})
    act(st, 0, {"type": "pass"})
    assert pending_kind(st) == "pass_bomb" and cubes_on(st, 1, bomb) == 2


@pytest.mark.rule("AD-064")
def test_tumbleweed_on_a_dynamite_draw_turns_an_explosion_into_a_pass() -> None:
    st = ad_table(4)
    dynamite = equip(st, 1, ["dynamite"])[0]
    weed = orange(st, 1, "tumbleweed", 3)
    spade, heart = stack_deck(st, ["any:5s", "any:Kh", "any:2c", "any:3c"])[:2]
    events = end_turn(st)
    assert checks(events) == [("dynamite", [spade])] and pending_kind(st) == "redraw"
    events = act(st, 1, {"type": "use", "card": weed})
    events += act(st, 1, {"type": "pass"})
    assert checks(events) == [("dynamite", [heart])]
    assert st["p"][1]["life"] == 4 and st["p"][2]["table"] == [dynamite] and cubes_on(st, 1, weed) == 2


@pytest.mark.rule("AD-064", "AD-052")
def test_a_jail_escape_undone_by_tumbleweed_still_skips_the_bomb() -> None:
    st = ad_table(4)
    equip(st, 1, ["jail"])
    bomb = orange(st, 1, "bomb", 1)
    weed = orange(st, 2, "tumbleweed", 3)
    stack_deck(st, ["any:5h", "any:5s", "any:8c", "any:2c", "any:3c"])
    end_turn(st)
    act(st, 2, {"type": "use", "card": weed})
    events = act(st, 2, {"type": "pass"})
    assert checks(events) == [] and st["turn"] == 2  # no Bomb draw!
    assert st["p"][1]["table"] == [bomb] and cubes_on(st, 1, bomb) == 1 and st["p"][1]["life"] == 4


@pytest.mark.rule("AD-064")
def test_no_tumbleweed_question_without_a_tumbleweed_cube_holder() -> None:
    st = ad_table(4)
    equip(st, 1, ["jail"])
    stack_deck(st, ["any:5h", "any:2c", "any:3c"])
    end_turn(st)
    assert st["pending"] == [] and st["turn"] == 1 and st["phase"] == "play"


@pytest.mark.rule("AD-043", "AD-064")
def test_lucky_duke_with_tumbleweed_redoes_the_whole_two_card_draw() -> None:
    st = ad_table(4, chars=chars(4, s1="lucky_duke"))
    barrel = equip(st, 1, ["barrel"])[0]
    weed = orange(st, 1, "tumbleweed", 3)
    give(st, 1, ["beer"])
    play(st, 0, give(st, 0, ["bang"])[0], target=1)
    flipped = stack_deck(st, ["any:3s", "any:4c", "any:5c", "any:9h"])
    events = act(st, 1, {"type": "barrel", "card": barrel})
    assert checks(events) == [("barrel", flipped[:2])]
    assert pending_kind(st) == "redraw" and bang.to_act(st) == [1]
    events = act(st, 1, {"type": "use", "card": weed})
    assert checks(events) == [("barrel", flipped[2:])]
    act(st, 1, {"type": "pass"})
    assert pending_kind(st) == "pick"
    assert bang.legal_actions(st, 1) == [{"type": "choose", "card": flipped[2]},
                                         {"type": "choose", "card": flipped[3]}]
    refused(st, 1, {"type": "choose", "card": flipped[0]}, "NOT_A_CHOICE")
    act(st, 1, {"type": "choose", "card": flipped[3]})
    assert st["pending"] == [] and st["p"][1]["life"] == 4
    assert all(c in st["discard"] for c in flipped) and cubes_on(st, 1, weed) == 2


# Bell Tower (AD-067)


@pytest.mark.rule("AD-067")
def test_bell_tower_puts_everyone_at_distance_one_for_the_next_card_only() -> None:
    st = ad_table(4)
    tower = orange(st, 0, "bell_tower", 3)
    mustang = equip(st, 2, ["mustang"])[0]  # distance 3 from the Colt
    give(st, 2, ["beer"])
    panic, bang_card = give(st, 0, ["panic", "bang"])
    refused(st, 0, {"type": "play", "card": panic, "target": 2, "pick": mustang}, "OUT_OF_RANGE")
    use(st, 0, tower)
    assert cubes_on(st, 0, tower) == 2
    assert {"type": "play", "card": panic, "target": 2, "pick": mustang} in bang.legal_actions(st, 0)
    assert {"type": "play", "card": bang_card, "target": 2} in bang.legal_actions(st, 0)
    play(st, 0, panic, target=2, pick=mustang)
    assert mustang in st["p"][0]["hand"]
    # the next card is at normal distance again (2 without the Mustang)
    refused(st, 0, {"type": "play", "card": bang_card, "target": 2}, "OUT_OF_RANGE")
    use(st, 0, tower)
    play(st, 0, bang_card, target=2)
    act(st, 2, {"type": "pass"})
    assert st["p"][2]["life"] == 3 and cubes_on(st, 0, tower) == 1


@pytest.mark.rule("AD-067")
def test_bell_tower_is_spent_by_the_next_card_even_one_without_a_target() -> None:
    st = ad_table(4)
    tower = orange(st, 0, "bell_tower", 3)
    give(st, 2, ["beer"])
    st["p"][0]["life"] = 3
    beer, bang_card = give(st, 0, ["beer", "bang"])
    use(st, 0, tower)
    play(st, 0, beer)
    refused(st, 0, {"type": "play", "card": bang_card, "target": 2}, "OUT_OF_RANGE")


@pytest.mark.rule("AD-067")
def test_bell_tower_distance_does_not_carry_over_to_the_next_turn() -> None:
    st = ad_table(4)
    tower = orange(st, 0, "bell_tower", 3)
    use(st, 0, tower)
    for _ in range(4):
        end_turn(st)
    assert st["turn"] == 0 and st["phase"] == "play"
    give(st, 2, ["beer"])
    bang_card = give(st, 0, ["bang"])[0]
    refused(st, 0, {"type": "play", "card": bang_card, "target": 2}, "OUT_OF_RANGE")


@pytest.mark.rule("AD-067")
def test_bell_tower_with_one_cube_is_discarded_when_used() -> None:
    st = ad_table(4)
    tower = orange(st, 0, "bell_tower", 1)
    give(st, 2, ["beer"])
    bang_card = give(st, 0, ["bang"])[0]
    use(st, 0, tower)
    assert st["p"][0]["table"] == [] and tower in st["discard"]
    play(st, 0, bang_card, target=2)  # the distance still applies to this card
    assert pending_kind(st) == "bang" and st["pending"][-1]["seat"] == 2


@pytest.mark.rule("AD-067")
def test_bell_tower_spent_by_a_green_card_used_from_play_in_a_bang_ad_1_game() -> None:
    """The first reading, kept for games stored as ``bang-ad-1``: using a green card from play is playing
    it (Dodge City), so it is the Bell's next card (RULINGS now says otherwise: test_ad_readings.py)."""
    st = first_readings(ad_table(4, expansions=["dodge_city"]))
    tower = orange(st, 0, "bell_tower", 3)
    derringer = equip(st, 0, ["derringer"])[0]  # Derringer: distance 1
    give(st, 2, ["beer", "beer"])
    bang_card = give(st, 0, ["bang"])[0]
    refused(st, 0, {"type": "use", "card": derringer, "target": 2}, "OUT_OF_RANGE")
    use(st, 0, tower)
    use(st, 0, derringer, target=2)
    act(st, 2, {"type": "pass"})
    assert st["p"][2]["life"] == 3
    refused(st, 0, {"type": "play", "card": bang_card, "target": 2}, "OUT_OF_RANGE")
