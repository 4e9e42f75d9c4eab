"""Tests for the survivors of the issue-30 mutation run (``docs/mutation_runs/bang_issue30.md``): the
ability and modifier registries' decorators (run at import, so only a test that calls them kills their
mutants), the acting character's ability name (Vera Custer's copy), the refusal of an ability nobody has,
and a Tumbleweed's declined redraw of a draw! that needs its context (Julie Cutter's)."""

from __future__ import annotations

from collections.abc import Mapping

import pytest
from bang_helpers import (
    PASS,
    act,
    ad_table,
    chars,
    equip,
    give,
    orange,
    pending_kind,
    play,
    refusal,
    shoot,
    stack_deck,
    table,
    with_weapon,
)
from tabletop.v1 import bang_pb2

from tabletop_server.service.engine.errors import MalformedAction
from tabletop_server.service.games import bang
from tabletop_server.service.games.bang import modifiers
from tabletop_server.service.games.bang.abilities import (
    ABILITIES,
    EMPTY_HAND_ABILITIES,
    Ability,
    ability,
    ability_name,
)
from tabletop_server.service.games.bang.layout import Event, State
from tabletop_server.service.games.bang.modifiers import MODIFIERS, Modifier, modifier

ABILITY = {"type": "ability", "cards": []}


def test_the_ability_decorator_registers_an_instance_of_its_class() -> None:
    class MadeUp(Ability):
        pass
    try:
        assert ability("made_up_ability")(MadeUp) is MadeUp
        assert type(ABILITIES["made_up_ability"]) is MadeUp
    finally:
        ABILITIES.pop("made_up_ability", None)


def test_the_ability_decorator_lists_the_abilities_that_implement_on_empty_hand() -> None:
    """``actions._empty_hands`` calls ``on_empty_hand`` only for these; the default does nothing."""
    class Reacts(Ability):
        def on_empty_hand(self, state: State, seat: int, events: list[Event]) -> None:
            pass

    class Keeps(Ability):
        pass
    try:
        ability("made_up_reacts")(Reacts)
        ability("made_up_keeps")(Keeps)
        assert "made_up_reacts" in EMPTY_HAND_ABILITIES and "made_up_keeps" not in EMPTY_HAND_ABILITIES
        assert "suzy_lafayette" in EMPTY_HAND_ABILITIES and "bart_cassidy" not in EMPTY_HAND_ABILITIES
    finally:
        for name in ("made_up_reacts", "made_up_keeps"):
            ABILITIES.pop(name, None)
            EMPTY_HAND_ABILITIES.discard(name)


@pytest.mark.rule("BANG-101")
@pytest.mark.rule("DC-038")
def test_a_character_copying_suzy_lafayette_draws_when_her_hand_empties_and_suzy_herself_need_not() -> None:
    """The empty-hand check reads the acting character: a copy of Suzy's ability draws, the printed Suzy whose
    copy (Vera Custer's ``as``) is another's does not. Every other player holds a card, so the copy's is
    the only empty hand (the check's fast path must see her, not a printed Suzy or another empty hand)."""
    st = table(4)
    st["p"][0]["as"] = "suzy_lafayette"
    for seat in (1, 2, 3):
        give(st, seat, ["missed"])
    st["p"][0]["life"] = 3
    beer = give(st, 0, ["beer"])[0]
    top = stack_deck(st, ["bang"])
    play(st, 0, beer)
    assert st["p"][0]["life"] == 4 and st["p"][0]["hand"] == top
    st = table(4, chars=chars(4, s1="suzy_lafayette"))
    st["p"][1]["as"] = "bart_cassidy"
    for seat in (2, 3):
        give(st, seat, ["missed"])
    last = give(st, 1, ["missed"])[0]
    top = stack_deck(st, ["bang"])
    play(st, 0, give(st, 0, ["panic", "bang"])[0], target=1, pick="hand")
    assert last in st["p"][0]["hand"] and st["p"][1]["hand"] == [] and st["deck"][-1] == top[0]


def test_the_modifier_decorator_registers_by_name_and_state_key_and_refuses_a_key_taken_or_none() -> None:
    class MadeUp(Modifier):
        key = "made_up_key"

    class Keyless(Modifier):
        pass

    class SameKey(Modifier):
        key = "made_up_key"
    try:
        assert modifier("made_up_modifier")(MadeUp) is MadeUp
        handler = MODIFIERS["made_up_modifier"]
        assert type(handler) is MadeUp and modifiers._BY_KEY["made_up_key"] is handler
        assert handler not in modifiers._SILENCERS and handler not in modifiers._IGNORERS
        for name, cls in (("made_up_keyless", Keyless), ("made_up_same_key", SameKey)):
            with pytest.raises(ValueError) as err:
                modifier(name)(cls)
            assert str(err.value) == f"modifier {name!r} needs a state key of its own or a hook asked without one"
        assert modifiers._BY_KEY["made_up_key"] is handler
        state = table(4)
        state["made_up_key"] = 1  # type: ignore[typeddict-unknown-key]
        assert handler in modifiers.in_force(state)
    finally:
        for name in ("made_up_modifier", "made_up_keyless", "made_up_same_key"):
            MODIFIERS.pop(name, None)
        modifiers._BY_KEY.pop("made_up_key", None)


def test_a_modifier_without_a_key_is_asked_by_the_hooks_it_overrides_only() -> None:
    """A character's or a shot's modifier has no state key: ``silenced`` and ``ignores_target`` ask it
    whatever the state holds, and only the hook it overrides; it is never among those kept in the state."""
    class Silencer(Modifier):
        def silences(self, state: State, seat: int) -> bool:
            return seat == 2

    class Ignorer(Modifier):
        def ignores_target(self, shot: Mapping[str, object]) -> bool:
            return shot.get("made_up_flag") is True
    silencers, ignorers = list(modifiers._SILENCERS), list(modifiers._IGNORERS)
    try:
        modifier("made_up_silencer")(Silencer)
        modifier("made_up_ignorer")(Ignorer)
        assert modifiers._SILENCERS == [*silencers, MODIFIERS["made_up_silencer"]]
        assert modifiers._IGNORERS == [*ignorers, MODIFIERS["made_up_ignorer"]]
        assert "" not in modifiers._BY_KEY
        st = table(4)
        assert [modifiers.silenced(st, s) for s in range(4)] == [False, False, True, False]
        assert modifiers.ignores_target({"made_up_flag": True}) and not modifiers.ignores_target({})
        assert not {MODIFIERS["made_up_silencer"], MODIFIERS["made_up_ignorer"]} & set(modifiers.in_force(st))
    finally:
        for name in ("made_up_silencer", "made_up_ignorer"):
            MODIFIERS.pop(name, None)
        modifiers._SILENCERS[:], modifiers._IGNORERS[:] = silencers, ignorers


@pytest.mark.rule("DC-038", "AD-039")
def test_vera_custer_copying_ms_abigail_ignores_a_face_card_in_ms_abigails_name() -> None:
    """The ``unaffected`` event gives the acting ability's name: the copied one."""
    st = ad_table(4, chars=chars(4, s1="vera_custer"))
    st["opts"]["expansions"] = ["dodge_city", "armed_and_dangerous"]
    st["p"][1]["as"] = "ms_abigail"
    assert ability_name(st, 1) == "ms_abigail"
    give(st, 1, ["beer"])
    card = give(st, 0, ["bang:Kd"])[0]
    play(st, 0, card, target=1)
    assert pending_kind(st) == "ignore"
    events = act(st, 1, ABILITY)
    assert {"kind": "unaffected", "seat": 1, "other": 0, "cards": [card], "reason": "ms_abigail"} in events


@pytest.mark.rule("BANG-012")
def test_an_ability_nobody_has_is_refused_with_its_message() -> None:
    st = table(4, chars=chars(4, s0="bart_cassidy"))
    cards = give(st, 0, ["duel", "panic"])
    err = refusal(st, 0, {"type": "ability", "cards": cards})
    assert (err.reason, err.message) == ("NO_SUCH_ABILITY", "Your character has no ability to activate")


@pytest.mark.rule("AD-064", "AD-037")
def test_a_declined_redraw_of_julie_cutters_draw_keeps_its_shooter() -> None:
    """The Tumbleweed's holder concedes while asked: Julie Cutter's red draw! stands and shoots back at the
    seat that hit her (the draw!'s context, kept by the declined redraw)."""
    st = ad_table(4, chars=chars(4, s2="julie_cutter"))
    give(st, 0, ["missed"])
    orange(st, 3, "tumbleweed", 2)
    stack_deck(st, ["any:6d"])
    play(st, 0, give(st, 0, ["gatling"])[0])
    assert (pending_kind(st), st["pending"][-1]["seat"]) == ("redraw", 3)
    bang.concede(st, 3)
    assert [(r["kind"], r["seat"], r["source"]) for r in st["pending"]][-1] == ("bang", 0, 2)


@pytest.mark.rule("AD-047", "BANG-046")
def test_a_big_fifty_hit_at_the_last_life_saved_by_a_beer_closes_a_dying_window_alone_on_the_stack() -> None:
    """A Big Fifty's hit runs no on-hit step (``damage(quiet=True)``), so the dying window is the only pending
    entry: the Beer that brings him back to 1 life closes it (``damage.revive`` checks the top entry, and a
    check of the second one would read past the stack)."""
    st = ad_table(4, chars=chars(4, s1="bart_cassidy"))
    st["p"][1]["life"] = 1
    fifty, bang_card = with_weapon(st, "big_fifty")
    beer = give(st, 1, ["beer"])[0]
    shoot(st, bang_card, 1, fifty)
    act(st, 1, PASS)
    assert [entry["kind"] for entry in st["pending"]] == ["dying"]
    events = act(st, 1, {"type": "respond", "card": beer})
    assert st["pending"] == [] and st["p"][1]["life"] == 1 and st["p"][1]["alive"]
    assert {"kind": "heal", "seat": 1, "amount": 1, "life": 1, "reason": "beer"} in events


@pytest.mark.rule("AD-011", "BANG-023")
def test_the_last_phase_3_discard_ends_phase_3_while_its_recharge_cube_waits() -> None:
    """Down to his limit, phase 3 is over (``end``, in the view too) though the turn waits for the cube his
    forced discard earns: a ``place_cubes`` request for ``hand_limit``, above no ``discard`` request."""
    st = ad_table(4)
    st["p"][0]["life"] = 2
    hand = give(st, 0, ["beer", "panic", "bang"])
    orange(st, 0, "crate", 1)
    act(st, 0, {"type": "end_turn"})
    assert st["phase"] == "discard" and pending_kind(st) == "discard"
    act(st, 0, {"type": "discard", "card": hand[0]})
    assert [entry["kind"] for entry in st["pending"]] == ["place_cubes"]
    assert st["pending"][0]["args"]["reason"] == "hand_limit"
    assert st["phase"] == "end" and st["turn"] == 0
    assert bang.view(st, 0).phase == bang_pb2.BANG_PHASE_END


@pytest.mark.rule("BANG-042")
def test_the_refusal_of_a_shot_answered_with_no_missed_effect_says_why() -> None:
    st = table(4)
    bang_card = give(st, 0, ["bang"])[0]
    beer = give(st, 1, ["beer"])[0]
    play(st, 0, bang_card, target=1)
    assert pending_kind(st) == "bang"
    err = refusal(st, 1, {"type": "respond", "card": beer})
    assert (err.reason, err.message, err.details) == ("WRONG_ANSWER", "Only a Missed! effect cancels a BANG!",
                                                      {"card": beer})
    events = act(st, 1, PASS)
    assert events[:2] == [{"kind": "pass", "seat": 1, "reason": "bang"},
                          {"kind": "damage", "seat": 1, "amount": 1, "life": 3, "other": 0}]


@pytest.mark.rule("AD-047")
def test_the_refusal_of_a_card_in_play_answering_a_big_fifty_shot_says_why() -> None:
    st = ad_table(4, expansions=["dodge_city"])
    fifty, bang_card = with_weapon(st, "big_fifty")
    sombrero = equip(st, 1, ["sombrero"])[0]
    give(st, 1, ["beer"])
    shoot(st, bang_card, 1, fifty)
    err = refusal(st, 1, {"type": "use", "card": sombrero})
    assert (err.reason, err.message, err.details) == ("CARD_SILENCED", "This shot ignores your cards in play",
                                                      {"card": sombrero})


@pytest.mark.rule("BANG-069")
def test_the_refusals_of_a_barrel_not_there_or_already_drawn_for_say_why() -> None:
    st = table(4)
    barrel = equip(st, 1, ["barrel"])[0]
    bang_card = give(st, 0, ["bang"])[0]
    give(st, 1, ["beer"])
    stack_deck(st, ["missed:2s"])  # a spade: the Barrel's draw! fails
    play(st, 0, bang_card, target=1)
    err = refusal(st, 1, {"type": "barrel", "card": bang_card})
    assert (err.reason, err.message, err.details) == ("NO_BARREL", "You have no such Barrel", {"card": bang_card})
    act(st, 1, {"type": "barrel", "card": barrel})
    assert pending_kind(st) == "bang"
    err = refusal(st, 1, {"type": "barrel", "card": barrel})
    assert (err.reason, err.message, err.details) == ("BARREL_ALREADY_USED", "Each Barrel draws once per shot",
                                                      {"card": barrel})


@pytest.mark.rule("AD-047")
def test_a_big_fifty_shot_at_an_empty_hand_behind_a_barrel_is_taken_without_asking() -> None:
    """Nothing can answer it (his Barrel is ignored and he holds no card): the hit follows at once."""
    st = ad_table(4)
    fifty, bang_card = with_weapon(st, "big_fifty")
    equip(st, 1, ["barrel"])
    shoot(st, bang_card, 1, fifty)
    assert st["pending"] == [] and st["p"][1]["life"] == 3 and st["p"][1]["hand"] == []


def _shape(state: State, action: Mapping[str, object]) -> tuple[str, str, str]:
    err = refusal(state, 0, dict(action))  # type: ignore[arg-type]  # malformed on purpose
    assert isinstance(err, MalformedAction)
    return err.reason, err.message, err.field


def test_the_shape_check_refuses_a_seat_not_at_the_table_in_an_upgrade_or_a_choose() -> None:
    """``actions._check_shape`` (rewritten for speed): a ``target`` of an ``upgrade`` or a ``choose`` is a seat
    number of this table (not a bool, not the seat count), and a ``choose`` by target takes nothing else."""
    st = table(4)
    for kind in ("upgrade", "choose"):
        for target in (4, True):
            assert _shape(st, {"type": kind, "target": target}) == (
                "BAD_TARGET", f"No seat {target!r} at this table", "target")
    assert _shape(st, {"type": "choose", "target": 1, "pick": "hand"}) == (
        "UNEXPECTED_FIELD", "choose takes a target alone, without a card or pick", "target")
    assert _shape(st, {"type": "play", "card": st["deck"][0], "bogus": 1, "also": 2}) == (
        "UNEXPECTED_FIELD", "play takes no also, bogus", "also")


def test_the_shape_check_takes_a_choose_pick_of_hand_or_character_and_names_the_others() -> None:
    st = table(4)
    for pick in ("hand", "character"):
        assert refusal(st, 0, {"type": "choose", "pick": pick}).reason == "WRONG_ANSWER"  # well formed
    assert _shape(st, {"type": "choose", "pick": "nowhere"}) == (
        "BAD_TARGET", "pick must be 'hand', 'character', a card id in play or a character key", "pick")
