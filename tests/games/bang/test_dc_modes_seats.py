"""Which seat counts need Dodge City, the house-rule options, and the option descriptions (issue 10).

3 and 8 players exist only with Dodge City: without it ``setup`` refuses them with
SEAT_COUNT_NEEDS_EXPANSION (INVALID_ARGUMENT through the service), and ``INFO.seat_ranges``
says so to clients. The three Dodge City house rules are booleans stored in ``state["opts"]``
of every Dodge City game and refused when on without it.
"""

from __future__ import annotations

import dataclasses
import itertools
import re

import pytest
from tabletop.v1 import bang_pb2

from tabletop_server.service.engine.errors import EngineReason, MalformedAction
from tabletop_server.service.engine.ruleset import SeatRange
from tabletop_server.service.games import bang, ttr_europe
from tabletop_server.service.games.bang import catalog
from tabletop_server.service.games.bang.tables import MODES, REQUIRES, ROLE_POOLS, WIN_RULE_OF

DC = ["dodge_city"]
HOUSE_RULES = ("jose_delgado_in_play", "pixie_pete_draws_four", "sean_mallory_unlimited")


# Seat counts

@pytest.mark.rule("DC-041", "DC-044")
@pytest.mark.parametrize("seats", [3, 8])
def test_three_and_eight_players_need_dodge_city(seats: int) -> None:
    with pytest.raises(MalformedAction) as err:
        bang.setup({}, seats, 1)
    e = err.value
    assert (e.reason, e.field, e.details) == ("SEAT_COUNT_NEEDS_EXPANSION", "seat_count",
                                             {"expansion": "BANG_EXPANSION_DODGE_CITY"})
    assert e.message == (f"A {seats}-player game of BANG! needs Dodge City: add BANG_EXPANSION_DODGE_CITY to "
                         "options.bang.expansions, or seat 4 to 7 players")


@pytest.mark.rule("DC-041", "DC-044")
@pytest.mark.usefixtures("dodge_city")
@pytest.mark.parametrize("seats", range(3, 9))
def test_with_dodge_city_every_count_from_three_to_eight_deals(seats: int) -> None:
    st = bang.setup({"expansions": DC}, seats, 2)
    assert len(st["p"]) == seats and sorted(p["role"] for p in st["p"]) == sorted(ROLE_POOLS[seats])


@pytest.mark.parametrize("seats", range(4, 8))
def test_four_to_seven_players_need_nothing(seats: int) -> None:
    assert len(bang.setup({}, seats, 2)["p"]) == seats


@pytest.mark.parametrize("seats", [2, 9])
def test_outside_three_to_eight_is_an_invalid_seat_count(seats: int) -> None:
    with pytest.raises(MalformedAction) as err:
        bang.setup({"expansions": []}, seats, 1)
    assert (err.value.reason, err.value.message) == (EngineReason.INVALID_SEAT_COUNT, "BANG! takes 3 to 8 players")


@pytest.mark.usefixtures("not_offered")
def test_an_expansion_not_offered_is_refused_before_the_seat_count() -> None:
    with pytest.raises(MalformedAction) as err:
        bang.setup({"expansions": ["armed_and_dangerous"]}, 3, 1)
    assert err.value.reason == "EXPANSION_NOT_AVAILABLE"


@pytest.mark.rule("DC-044")
@pytest.mark.usefixtures("dodge_city")
def test_a_three_player_game_refuses_a_sheriff_seat_but_eight_players_take_one() -> None:
    with pytest.raises(MalformedAction) as err:
        bang.setup({"expansions": DC, "sheriff_seat": 1}, 3, 1)
    assert (err.value.reason, err.value.field) == (EngineReason.INVALID_OPTION, "options.bang.sheriff_seat")
    assert "no Sheriff" in err.value.message
    st = bang.setup({"expansions": DC, "sheriff_seat": 7}, 8, 1)
    assert st["p"][7]["role"] == "sheriff" and st["turn"] == 7


def test_info_lists_which_seat_counts_need_which_option() -> None:
    info = bang.INFO
    assert (info.min_seats, info.max_seats) == (3, 8)
    need = (("expansions", "BANG_EXPANSION_DODGE_CITY"),)
    assert info.seat_ranges == (SeatRange(3, 3, need), SeatRange(4, 7), SeatRange(8, 8, need))
    assert info.ranges() == info.seat_ranges and info.plain_seat_counts() == [4, 5, 6, 7]
    options = {o.name: o for o in info.options}
    for r in info.seat_ranges:
        for name, value in r.requires:
            assert value in options[name].allowed_values and bang_pb2.BangExpansion.Value(value)
    # Every count from min to max is in exactly one range.
    covered = [n for r in info.ranges() for n in range(r.min_seats, r.max_seats + 1)]
    assert covered == list(range(info.min_seats, info.max_seats + 1))


def test_a_ruleset_without_seat_ranges_has_one_plain_range() -> None:
    info = ttr_europe.INFO
    assert info.seat_ranges == () and info.ranges() == (SeatRange(2, 5),)
    assert info.plain_seat_counts() == [2, 3, 4, 5]


def test_seat_requirements_come_from_the_role_data() -> None:
    assert REQUIRES == {3: ("dodge_city",), 4: (), 5: (), 6: (), 7: (), 8: ("dodge_city",)}
    assert WIN_RULE_OF[3] == "three_player" and WIN_RULE_OF[8] == "standard"
    assert (MODES["standard"].first, MODES["standard"].face_up) == ("sheriff", False)
    assert (MODES["three_player"].first, MODES["three_player"].face_up) == ("deputy", True)


def test_validate_modes_names_the_bad_row() -> None:
    catalog.validate_modes(MODES, ROLE_POOLS, WIN_RULE_OF, REQUIRES)
    with pytest.raises(catalog.DataError, match="player count 3: bad role pool"):  # no Deputy to start
        catalog.validate_modes(MODES, {**ROLE_POOLS, 3: ("outlaw", "outlaw", "renegade")}, WIN_RULE_OF, REQUIRES)
    bad_target = dataclasses.replace(MODES["three_player"], targets={"deputy": "sheriff"})
    with pytest.raises(catalog.DataError, match="player count 3: bad role pool"):
        catalog.validate_modes({**MODES, "three_player": bad_target}, ROLE_POOLS, WIN_RULE_OF, REQUIRES)
    with pytest.raises(catalog.DataError, match="player count 8: unknown required expansion"):
        catalog.validate_modes(MODES, ROLE_POOLS, WIN_RULE_OF, {**REQUIRES, 8: ("fistful",)})
    with pytest.raises(catalog.DataError, match="player count 4: win rule 'chess' has no mode"):
        catalog.validate_modes(MODES, ROLE_POOLS, {**WIN_RULE_OF, 4: "chess"}, REQUIRES)


# House rules

@pytest.mark.usefixtures("dodge_city")
@pytest.mark.parametrize("values", list(itertools.product([False, True], repeat=3)))
def test_house_rules_round_trip_and_are_stored_under_their_keys(values: tuple[bool, ...]) -> None:
    chosen = dict(zip(HOUSE_RULES, values, strict=True))
    pb = bang.encode_options({"expansions": DC, **chosen})
    assert [getattr(pb, k) for k in HOUSE_RULES] == list(values)
    opts = bang.decode_options(pb)
    assert {k: opts[k] for k in HOUSE_RULES} == chosen
    assert bang.decode_options(bang.encode_options(opts)) == opts
    st = bang.setup(opts, 5, 1)
    assert {k: st["opts"][k] for k in HOUSE_RULES} == chosen


@pytest.mark.usefixtures("dodge_city")
def test_a_dodge_city_game_always_stores_the_three_house_rules() -> None:
    assert {k: bang.setup({"expansions": DC}, 4, 1)["opts"][k] for k in HOUSE_RULES} == dict.fromkeys(HOUSE_RULES,
                                                                                                    False)


@pytest.mark.parametrize("key", HOUSE_RULES)
def test_a_house_rule_on_without_dodge_city_is_refused(key: str) -> None:
    with pytest.raises(MalformedAction) as err:
        bang.decode_options(bang_pb2.BangOptions(**{key: True}))
    e = err.value
    assert (e.reason, e.field, e.details) == ("OPTION_NEEDS_EXPANSION", f"options.bang.{key}",
                                             {"expansion": "BANG_EXPANSION_DODGE_CITY"})
    assert e.message == (f"The house rule {key} changes a Dodge City character: add BANG_EXPANSION_DODGE_CITY "
                         "to options.bang.expansions, or leave the rule off")


def test_house_rules_off_leave_a_base_game_as_it_was() -> None:
    opts = bang.decode_options(bang_pb2.BangOptions())
    assert opts == {"expansions": [], "sheriff_extra_card": False}
    assert not set(HOUSE_RULES) & set(bang.setup(opts, 4, 1)["opts"])


def test_house_rules_are_listed_as_boolean_options() -> None:
    options = {o.name: o for o in bang.INFO.options}
    for key, name in zip(HOUSE_RULES, ("joseDelgadoInPlay", "pixiePeteDrawsFour", "seanMalloryUnlimited"),
                         strict=True):
        assert bang_pb2.BangOptions.DESCRIPTOR.fields_by_name[key].json_name == name
        o = options[name]
        assert (o.default, o.allowed_values) == ("false", ("false", "true"))
        assert o.description.startswith("House rule (Dodge City only): ")


# Descriptions for client developers

INTERNAL = re.compile(r"RULINGS|NOTES|\b(BANG|DC|AD|TTR)-\d|codec|\.py\b|seed text|\bsee [a-z_]+\.|issue \d")


@pytest.mark.parametrize("info", [bang.INFO, ttr_europe.INFO], ids=lambda i: i.id)
def test_option_descriptions_use_plain_words(info: object) -> None:
    for o in info.options:  # type: ignore[attr-defined]
        assert not INTERNAL.search(o.description), (o.name, o.description)
        assert o.description.endswith((".", ")")) and len(o.description) >= 40, o.name
