"""Game-wide rules: distance, the deck, elimination, rewards, penalties, winners, refusals."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest
from bang_helpers import act, equip, give, kinds, pass_all, pending_kind, play, table

from tabletop_server.service.engine.errors import EngineReason, MalformedAction, RuleError
from tabletop_server.service.games import bang
from tabletop_server.service.games.bang import actions, catalog
from tabletop_server.service.games.bang.distance import distance
from tabletop_server.service.games.bang.tables import (
    BASE_CHARACTERS,
    CARDS,
    CHARACTERS,
    DECK,
    ROLE_POOLS,
    ROLES,
    TYPES,
)

GAME_DIR = Path(bang.__file__).parent
FORBIDDEN = {"grpc", "redis", "flask", "time", "random", "os"}


def refused(state: dict, seat: int, action: dict) -> str:
    """Apply an illegal action: it must raise and leave the state unchanged; returns the reason."""
    import json
    before = json.dumps(state, sort_keys=True)
    with pytest.raises(RuleError) as err:
        bang.apply(state, seat, action)
    assert json.dumps(state, sort_keys=True) == before
    return err.value.reason


@pytest.mark.rule("BANG-034", "BANG-035")
def test_distance_both_ways_round_over_living_players() -> None:
    st = table(6)
    assert [distance(st, 0, s) for s in range(1, 6)] == [1, 2, 3, 2, 1]
    st = table(4)
    assert distance(st, 0, 2) == 2
    st["p"][1]["alive"] = False
    assert distance(st, 0, 2) == 1


@pytest.mark.rule("BANG-053")
def test_distance_one_cards_ignore_weapons_but_count_scope() -> None:
    st = table(5)
    equip(st, 0, ["winchester"])
    p = give(st, 0, ["panic"])[0]
    give(st, 2, ["bang"])
    assert refused(st, 0, {"type": "play", "card": p, "target": 2, "pick": "hand"}) == "OUT_OF_RANGE"
    equip(st, 0, ["scope"])
    play(st, 0, p, target=2, pick="hand")


@pytest.mark.rule("BANG-016")
def test_the_discard_pile_is_reshuffled_when_the_deck_runs_out() -> None:
    st = table(4, chars=["black_jack", "willy_the_kid", "black_jack", "black_jack"])
    last = st["deck"][0]
    st["discard"] = st["deck"][1:11]
    st["p"][3]["hand"] = st["deck"][11:]  # park the other cards
    st["deck"] = [last]
    events = act(st, 0, {"type": "end_turn"})
    assert "reshuffle" in kinds(events)
    assert st["p"][1]["hand"][0] == last and len(st["p"][1]["hand"]) == 2
    assert len(st["deck"]) == 9 and st["discard"] == []


@pytest.mark.rule("BANG-017", "BANG-021")
def test_any_number_of_cards_brown_discarded_blue_stays() -> None:
    st = table(4)
    s, p, m = give(st, 0, ["stagecoach", "panic", "mustang"])
    give(st, 1, ["beer"])
    play(st, 0, s)
    play(st, 0, p, target=1, pick="hand")
    play(st, 0, m)
    assert s in st["discard"] and p in st["discard"] and st["p"][0]["table"] == [m]


@pytest.mark.rule("BANG-020")
def test_cards_are_played_in_your_own_turn_only() -> None:
    st = table(4)
    s = give(st, 1, ["stagecoach"])[0]
    assert refused(st, 1, {"type": "play", "card": s}) == EngineReason.NOT_YOUR_TURN


@pytest.mark.rule("BANG-025", "BANG-005")
def test_elimination_reveals_the_role_and_discards_everything() -> None:
    st = table(5, roles=["sheriff", "renegade", "outlaw", "deputy", "outlaw"])
    st["p"][2]["life"] = 1
    give(st, 2, ["duel", "panic", "cat_balou"])
    equip(st, 2, ["mustang", "schofield"])
    assert bang.view(st, 1).players[2].role == 0
    st["turn"] = 1
    equip(st, 1, ["scope"])
    events = play(st, 1, give(st, 1, ["bang"])[0], target=2) + pass_all(st)
    assert not st["p"][2]["alive"] and "eliminated" in kinds(events)
    assert len(st["discard"]) == 1 + 5
    assert bang.view(st, 3).players[2].role == bang.codec.ROLE_PB["outlaw"]


@pytest.mark.rule("BANG-027")
def test_killing_an_outlaw_draws_three_even_for_an_outlaw() -> None:
    st = table(5, roles=["sheriff", "renegade", "outlaw", "deputy", "outlaw"])
    st["p"][3]["life"] = 1
    st["p"][4]["life"] = 1
    st["turn"] = 3
    play(st, 3, give(st, 3, ["bang"])[0], target=4)
    assert len(st["p"][3]["hand"]) == 3
    st["turn"], st["bangs"] = 2, 0
    st["p"][2]["hand"] = []
    st["p"][3]["role"], st["p"][3]["life"] = "outlaw", 1
    play(st, 2, give(st, 2, ["bang"])[0], target=3)
    pass_all(st)  # seat 3 holds his 3 reward cards: he is asked
    assert len(st["p"][2]["hand"]) == 3
    # The Renegade kills the Deputy: no reward.
    st = table(5, roles=["sheriff", "renegade", "outlaw", "deputy", "outlaw"])
    st["p"][2]["role"], st["p"][2]["life"] = "deputy", 1
    st["p"][3]["role"] = "outlaw"
    st["turn"] = 1
    equip(st, 1, ["schofield"])
    play(st, 1, give(st, 1, ["bang"])[0], target=2)
    assert not st["p"][2]["alive"] and st["p"][1]["hand"] == []


@pytest.mark.rule("BANG-026")
def test_sheriff_killing_a_deputy_discards_everything() -> None:
    st = table(5, roles=["sheriff", "deputy", "outlaw", "renegade", "outlaw"])
    st["p"][1]["life"] = 1
    b, *others = give(st, 0, ["bang", "beer", "duel", "panic", "missed"])
    equip(st, 0, ["barrel"])
    play(st, 0, b, target=1)
    assert not st["p"][0]["hand"] and not st["p"][0]["table"] and all(c in st["discard"] for c in others)


@pytest.mark.rule("BANG-028")
def test_renegade_alone_kills_the_sheriff_and_wins_alone() -> None:
    st = table(4, roles=["sheriff", "renegade", "outlaw", "outlaw"])
    st["p"][2]["alive"] = st["p"][3]["alive"] = False
    st["p"][0]["life"] = 1
    st["turn"] = 1
    play(st, 1, give(st, 1, ["bang"])[0], target=0)
    assert bang.is_over(st) and st["winners"] == [1] and bang.to_act(st) == []


@pytest.mark.rule("BANG-029")
def test_sheriff_killed_otherwise_the_outlaws_win_even_dead() -> None:
    st = table(5, roles=["sheriff", "renegade", "outlaw", "deputy", "outlaw"])
    st["p"][2]["alive"] = st["p"][4]["alive"] = False
    st["p"][0]["life"] = 1
    st["turn"] = 1
    play(st, 1, give(st, 1, ["bang"])[0], target=0)
    assert st["winners"] == [2, 4]


@pytest.mark.rule("BANG-030", "BANG-031")
def test_law_wins_when_outlaws_and_renegade_are_dead_not_before() -> None:
    st = table(5, roles=["sheriff", "renegade", "outlaw", "deputy", "outlaw"])
    st["p"][3]["alive"] = False
    st["p"][2]["life"] = st["p"][4]["life"] = 1
    play(st, 0, give(st, 0, ["gatling"])[0])
    assert not bang.is_over(st) and st["p"][1]["alive"]  # the Renegade lives on
    st["p"][1]["alive"] = False
    st = table(5, roles=["sheriff", "renegade", "outlaw", "deputy", "outlaw"])
    st["p"][1]["alive"] = st["p"][3]["alive"] = st["p"][2]["alive"] = False
    st["p"][4]["life"] = 1
    play(st, 0, give(st, 0, ["bang"])[0], target=4)
    assert bang.is_over(st) and st["winners"] == [0, 3]


def test_each_illegal_action_has_its_own_reason() -> None:
    st = table(4, roles=["sheriff", "outlaw", "outlaw", "renegade"])
    b1, b2, j, beer, bar, bar2 = give(st, 0, ["bang", "bang", "jail", "beer", "barrel", "barrel"])
    assert refused(st, 0, {"type": "play", "card": b1, "target": 2}) == "OUT_OF_RANGE"
    play(st, 0, b1, target=1)
    assert refused(st, 0, {"type": "play", "card": b2, "target": 3}) == "BANG_ALREADY_PLAYED"
    assert refused(st, 0, {"type": "play", "card": beer}) == "BEER_AT_FULL_LIFE"
    play(st, 0, bar)
    assert refused(st, 0, {"type": "play", "card": bar2}) == "DUPLICATE_EQUIPMENT"
    st["turn"] = 1
    j = give(st, 1, ["jail"])[0]
    assert refused(st, 1, {"type": "play", "card": j, "target": 0}) == "JAIL_ON_SHERIFF"
    st["turn"] = 0
    st["p"][0]["life"] = 2
    st["p"][2]["alive"] = st["p"][3]["alive"] = False
    # Seat 1 (Sid Ketchum, so his dying window waits) loses a Duel at his last life.
    st["p"][1].update(char="sid_ketchum", life=1, hand=[])
    give(st, 1, ["beer", "missed"])
    play(st, 0, give(st, 0, ["duel"])[0], target=1)
    act(st, 1, {"type": "pass"})
    assert pending_kind(st) == "dying"
    assert refused(st, 1, {"type": "respond", "card": st["p"][1]["hand"][0]}) == "BEER_WITH_TWO_PLAYERS"
    # Acting when not asked: a pending request belongs to another seat.
    st = table(4)
    m = give(st, 1, ["missed"])[0]
    give(st, 2, ["missed"])
    play(st, 0, give(st, 0, ["bang"])[0], target=1)
    assert refused(st, 2, {"type": "respond", "card": st["p"][2]["hand"][0]}) == "NOT_YOUR_DECISION"
    assert refused(st, 0, {"type": "end_turn"}) == "NOT_YOUR_DECISION"
    assert refused(st, 1, {"type": "respond", "card": give(st, 1, ["duel"])[0]}) == "WRONG_ANSWER"
    assert refused(st, 1, {"type": "respond", "card": give(st, 2, ["beer"])[0]}) == "CARD_NOT_IN_HAND"
    act(st, 1, {"type": "respond", "card": m})


def test_malformed_actions_name_their_field() -> None:
    st = table(4)
    b = give(st, 0, ["bang"])[0]
    cases = [({"type": "dance"}, "type"), ({"type": "play", "card": "nope"}, "card"),
             ({"type": "play", "card": b}, "target"), ({"type": "play", "card": b, "target": 9}, "target"),
             ({"type": "play", "card": b, "target": -1}, "target")]
    for action, field in cases:
        with pytest.raises(MalformedAction) as err:
            bang.apply(st, 0, action)
        assert err.value.field == field, action
    s = give(st, 0, ["stagecoach"])[0]
    with pytest.raises(MalformedAction) as err:
        bang.apply(st, 0, {"type": "play", "card": s, "target": 1})
    assert err.value.reason == "UNEXPECTED_TARGET"


def test_finished_game_refuses_everything() -> None:
    st = table(4, roles=["sheriff", "renegade", "outlaw", "outlaw"])
    st["phase"] = "over"
    assert refused(st, 0, {"type": "end_turn"}) == EngineReason.GAME_FINISHED
    assert bang.legal_actions(st, 0) == [] and bang.to_act(st) == []


def test_effect_chains_are_capped(monkeypatch: pytest.MonkeyPatch) -> None:
    st = table(7)
    g = give(st, 0, ["gatling"])[0]
    monkeypatch.setattr(actions, "MAX_CHAIN", 4)
    with pytest.raises(RuleError) as err:
        bang.apply(st, 0, {"type": "play", "card": g})
    assert err.value.reason == "CHAIN_LIMIT"
    monkeypatch.setattr(actions, "MAX_CHAIN", 500)
    st = table(7)
    g = give(st, 0, ["gatling"])[0]
    bang.apply(st, 0, {"type": "play", "card": g})  # 6 forced hits, well under the cap
    assert [p["life"] for p in st["p"]] == [5, 3, 3, 3, 3, 3, 3]


def test_the_engine_answers_only_when_everyone_can_see_the_answer_is_forced() -> None:
    """An empty hand (and no Barrel or ability left) is public: that player takes the hit at
    once. A player holding cards is always asked, answer or not, so that waiting for him
    never tells the table whether he holds a Missed!."""
    st = table(4)
    give(st, 1, ["beer", "duel"])
    play(st, 0, give(st, 0, ["bang"])[0], target=1)
    assert bang.to_act(st) == [1] and bang.legal_actions(st, 1) == [{"type": "pass"}]
    act(st, 1, {"type": "pass"})
    assert not st["pending"] and st["p"][1]["life"] == 3
    st["p"][1]["hand"] = []
    give(st, 2, ["missed"])
    play(st, 0, give(st, 0, ["gatling"])[0])  # seat 1's empty hand: hit without asking
    assert pending_kind(st) == "bang" and bang.to_act(st) == [2] and st["p"][1]["life"] == 2


# Data rows and registries

@pytest.mark.rule("BANG-002", "BANG-003", "BANG-083")
def test_data_totals_and_rows() -> None:
    assert len(DECK) == 80 and len(BASE_CHARACTERS) == 16 and set(ROLES) == {"sheriff", "deputy", "outlaw", "renegade"}
    assert {n: len(p) for n, p in ROLE_POOLS.items()} == {3: 3, 4: 4, 5: 5, 6: 6, 7: 7, 8: 8}
    assert sum(1 for c in DECK if TYPES[CARDS[c].key].color == "blue") == 17
    assert CHARACTERS["kit_carlson"].life == 4 and CHARACTERS["el_gringo"].life == 3


@pytest.mark.rule("BANG-002")
def test_data_rows_equal_the_reference_cards() -> None:
    import json
    ref = Path("/work/shared/reference/bang/cards.json")
    if not ref.exists():
        pytest.skip("the shared reference data is not mounted here")
    rows = json.loads(ref.read_text())["physical_cards"]
    assert len(rows) == 148
    assert {c["id"]: (c["key"], c["suit"], c["rank"]) for c in rows} == {
        i: (c.key, c.suit, c.rank) for i, c in CARDS.items()}


def test_validation_names_the_bad_row() -> None:
    from tabletop_server.service.games.bang.abilities import ABILITIES
    from tabletop_server.service.games.bang.effects import EFFECTS
    args = [TYPES, CARDS, CHARACTERS, ROLES, ROLE_POOLS, EFFECTS, ABILITIES]
    catalog.validate(*args)  # type: ignore[arg-type]
    bad_types = {**TYPES, "bang": dataclasses.replace(TYPES["bang"], effect="bang_bang")}
    with pytest.raises(catalog.DataError, match="card 'bang': unknown effect handler 'bang_bang'"):
        catalog.validate(bad_types, *args[1:])  # type: ignore[arg-type]
    bad_chars = {**CHARACTERS, "x": dataclasses.replace(CHARACTERS["bart_cassidy"], key="x", ability="nobody")}
    with pytest.raises(catalog.DataError, match="character 'x': unknown ability handler"):
        catalog.validate(TYPES, CARDS, bad_chars, *args[3:])  # type: ignore[arg-type]
    short = dict(list(CARDS.items())[1:])
    with pytest.raises(catalog.DataError, match="totals"):
        catalog.validate(TYPES, short, *args[2:])  # type: ignore[arg-type]
    with pytest.raises(catalog.DataError, match="player count 4: unknown win rule 'chess'"):
        catalog.validate(*args, {4: "chess"}, ["standard"])  # type: ignore[arg-type]
    with pytest.raises(catalog.DataError, match="duplicate key 'a'"):
        catalog._key({"key": "a"}, "cards.json", {"a": 1})


def test_registering_a_name_twice_raises() -> None:
    from tabletop_server.service.games.bang.abilities import Ability, ability
    from tabletop_server.service.games.bang.checks import check, is_heart
    from tabletop_server.service.games.bang.effects import Effect, effect
    from tabletop_server.service.games.bang.pending import RequestKind, Step, request, step
    with pytest.raises(ValueError):
        effect("bang")(type("Again", (Effect,), {}))
    with pytest.raises(ValueError):
        ability("bart_cassidy")(type("Again", (Ability,), {}))
    with pytest.raises(ValueError):
        request("bang")(type("Again", (RequestKind,), {}))
    with pytest.raises(ValueError):
        step("after_hit")(type("Again", (Step,), {}))
    with pytest.raises(ValueError):
        check("jail", is_heart)(lambda *a: None)
    from tabletop_server.service.games.bang.damage import win_rule
    with pytest.raises(ValueError):
        win_rule("standard")(lambda *a: None)


def test_game_code_never_imports_io_clock_or_global_random() -> None:
    for path in GAME_DIR.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            for name in names:
                assert name.split(".")[0] not in FORBIDDEN, f"{path.name} imports {name}"


def test_modules_stay_small() -> None:
    for path in GAME_DIR.rglob("*.py"):
        assert len(path.read_text(encoding="utf-8").splitlines()) <= 400, path.name


def test_info() -> None:
    info = bang.INFO
    assert (info.id, info.min_seats, info.max_seats, info.proto_field) == ("bang", 3, 8, "bang")
    assert info.plain_seat_counts() == [4, 5, 6, 7]
    assert {o.name for o in info.options} == {"expansions", "sheriffExtraCard", "keptCharacters",
                                              "retiredCharacters", "sheriffSeat", "joseDelgadoInPlay",
                                              "pixiePeteDrawsFour", "seanMalloryUnlimited"}
    assert bang.decode_options(bang.encode_options({"sheriff_extra_card": True}))["sheriff_extra_card"]


@pytest.mark.rule("BANG-001")
def test_base_game_takes_four_to_seven_players() -> None:
    for n in (2, 9):
        with pytest.raises(MalformedAction) as err:
            bang.setup({}, n, 1)
        assert err.value.reason == EngineReason.INVALID_SEAT_COUNT
    for n in (3, 8):  # only with Dodge City (tests/games/bang/test_dc_modes_seats.py)
        with pytest.raises(MalformedAction) as err:
            bang.setup({}, n, 1)
        assert err.value.reason == "SEAT_COUNT_NEEDS_EXPANSION"
    for n in range(4, 8):
        assert len(bang.setup({}, n, 1)["p"]) == n


@pytest.mark.rule("BANG-049")
def test_a_draw_check_card_ends_on_top_of_the_discard_pile() -> None:
    from bang_helpers import stack_deck
    st = table(4)
    equip(st, 1, ["dynamite"])
    flipped = stack_deck(st, ["any:10s"])[0]
    events = act(st, 0, {"type": "end_turn"})
    check = next(e for e in events if e["kind"] == "check")
    assert check["cards"] == [flipped] and st["discard"][-1] == flipped and st["p"][1]["life"] == 4


def test_marks_of_cards_in_play_leave_with_the_card() -> None:
    """The side table expansions use for cubes and green-card stamps follows the card."""
    st = table(5, roles=["sheriff", "renegade", "outlaw", "deputy", "outlaw"])
    barrel, mustang = equip(st, 2, ["barrel", "mustang"])
    st["marks"] = {barrel: {"cubes": 3}, mustang: {"since": 1}}
    play(st, 0, give(st, 0, ["cat_balou"])[0], target=2, pick=barrel)
    assert barrel not in st["marks"] and mustang in st["marks"]
    st["p"][2]["life"] = 1
    equip(st, 0, ["remington"])  # seat 2 is at 2 + 1 (Mustang)
    play(st, 0, give(st, 0, ["bang"])[0], target=2)
    assert not st["p"][2]["alive"] and st["marks"] == {}


def test_running_out_of_cards_everywhere_never_blocks_the_game() -> None:
    """Deck and discard pile both empty (every card held): draws give what there is."""
    st = table(4, chars=["black_jack", "kit_carlson", "black_jack", "black_jack"])
    two = st["deck"][-2:]
    st["p"][3]["hand"] = st["deck"][:-2]
    st["deck"] = list(two)
    act(st, 0, {"type": "end_turn"})  # Kit Carlson finds only 2 cards: he keeps both, nothing to choose
    assert sorted(st["p"][1]["hand"]) == sorted(two) and st["phase"] == "play" and not st["deck"]
    st["p"][3]["table"] = []
    g = next(c for c in st["p"][3]["hand"] if CARDS[c].key == "general_store")
    st["p"][3]["hand"].remove(g)
    st["p"][1]["hand"].append(g)
    events = play(st, 1, g)  # the General Store card itself is the only card left to reveal
    assert [e["cards"] for e in events if e["kind"] == "reveal"] == [[g]]
    assert g in st["p"][1]["hand"] and not st["pending"]
