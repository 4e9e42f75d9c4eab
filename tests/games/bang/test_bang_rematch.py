"""BANG! rematch options: survivors keep their characters (BANG-032), the Sheriff passes to the left (BANG-033).

Game 1 is dealt by ``setup`` and "finished" by hand (some players eliminated, phase over):
the rematch only reads the finished game's public view, so how it ended does not matter.
"""

from __future__ import annotations

from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from tabletop.v1 import bang_pb2, game_pb2
from tabletop.v1 import game_service_pb2 as svc

from tabletop_server.service.engine.errors import EngineReason, MalformedAction
from tabletop_server.service.engine.ruleset import State
from tabletop_server.service.games import bang
from tabletop_server.service.games.bang.setup import setup as deal
from tabletop_server.service.games.bang.tables import BASE_CHARACTERS, CHARACTERS, DECK, ROLE_POOLS
from tests.helpers import create_game, error_info


def finish(state: State, eliminated: tuple[int, ...]) -> bang_pb2.BangView:
    """End game 1 with ``eliminated`` dead and cards in play; the spectator's final view."""
    for seat in eliminated:
        state["p"][seat].update(alive=False, life=0, hand=[])
    for p in state["p"]:
        if p["alive"] and p["hand"]:
            p["table"].append(p["hand"].pop())
    state["phase"] = "over"
    return bang.view(state, None)


def rematch(final: bang_pb2.BangView, seed: int, **kw: bool) -> State:
    """Game 2 at the same table, dealt (not started), its options built from game 1's final view."""
    options = bang.decode_options(bang_pb2.BangOptions.FromString(
        bang.rematch_options(final, **kw).SerializeToString()))
    return deal(options, len(final.players), seed)


def sheriff_of(state: State) -> int:
    return next(i for i, p in enumerate(state["p"]) if p["role"] == "sheriff")


@pytest.mark.rule("BANG-032")
@pytest.mark.parametrize(("seats", "eliminated"), [(4, (1,)), (5, (0, 3)), (6, (2, 4, 5)), (7, (1, 2, 3, 6))])
def test_survivors_keep_their_characters_with_fresh_hands(seats: int, eliminated: tuple[int, ...]) -> None:
    for seed in range(4):
        game1 = bang.setup(None, seats, seed)
        final = finish(game1, eliminated)
        old = [p.character for p in final.players]
        game2 = rematch(final, seed + 100, rotate_sheriff=False)
        new = [p["char"] for p in game2["p"]]
        for seat in range(seats):
            if seat in eliminated:
                # A new character: not the old one, and none in use at the table.
                assert new[seat] not in old
            else:
                assert new[seat] == old[seat]
        assert len(set(new)) == seats and set(new) <= set(CHARACTERS)
        # Not the cards: nothing in play, a fresh hand of the printed bullets from game 2's full deck.
        for p in game2["p"]:
            bullets = CHARACTERS[p["char"]].life
            assert p["alive"] and p["life"] == p["max"] == bullets + (p["role"] == "sheriff")
            assert p["table"] == [] and len(p["hand"]) == bullets
        assert sorted(sum((p["hand"] for p in game2["p"]), game2["deck"])) == sorted(DECK)


@pytest.mark.rule("BANG-032")
def test_eliminated_draw_at_random_among_characters_not_in_use() -> None:
    final = finish(bang.setup(None, 4, 1), (2,))
    kept = {p.character for p in final.players if p.alive}
    drawn = {rematch(final, seed)["p"][2]["char"] for seed in range(40)}
    assert not drawn & (kept | {final.players[2].character})
    assert len(drawn) > 5  # random from the 12 left, not a fixed pick


@pytest.mark.rule("BANG-032")
def test_kept_characters_without_retired_ones_may_redraw_any_free_character() -> None:
    options = bang.decode_options(bang_pb2.BangOptions(kept_characters=[
        bang_pb2.BangKeptCharacter(seat=3, character="suzy_lafayette"),
        bang_pb2.BangKeptCharacter(seat=0, character="willy_the_kid")]))
    assert [k["seat"] for k in options["kept_characters"]] == [0, 3]
    for seed in range(10):
        chars = [p["char"] for p in deal(options, 5, seed)["p"]]
        assert chars[0] == "willy_the_kid" and chars[3] == "suzy_lafayette" and len(set(chars)) == 5


@pytest.mark.rule("BANG-033")
@pytest.mark.parametrize("seats", [4, 5, 6, 7])
def test_the_sheriff_passes_to_the_left_each_game(seats: int) -> None:
    game = bang.setup(None, seats, seats)
    first = sheriff_of(game)
    for n in range(1, seats + 1):
        game = rematch(finish(game, ()), seats * 10 + n, keep_characters=False)
        # "To the left" is the next seat, the way turns go; the Sheriff starts the game.
        assert sheriff_of(game) == (first + n) % seats == game["turn"]
        assert sorted(p["role"] for p in game["p"]) == sorted(ROLE_POOLS[seats])


@pytest.mark.rule("BANG-033")
def test_the_other_roles_are_dealt_at_random() -> None:
    options = bang.decode_options(bang_pb2.BangOptions(sheriff_seat=2))
    deals = {tuple(p["role"] for p in deal(options, 5, seed)["p"]) for seed in range(30)}
    assert all(d[2] == "sheriff" for d in deals)
    assert len(deals) > 3  # 2 outlaws, a deputy and a renegade over 4 seats: 12 deals possible


def test_both_options_together_and_the_final_view_gives_what_a_rematch_needs() -> None:
    game1 = bang.setup(None, 6, 9)
    final = finish(game1, (1, 4))
    # Every character, role and alive flag is public at the end (a spectator's view).
    assert [(p.character, p.role, p.alive) for p in final.players] == [
        (p["char"], bang.codec.role_pb(p["role"]), p["alive"]) for p in game1["p"]]
    game2 = rematch(final, 10)
    assert sheriff_of(game2) == (sheriff_of(game1) + 1) % 6
    assert [p["char"] for i, p in enumerate(game2["p"]) if i not in (1, 4)] == [
        p["char"] for i, p in enumerate(game1["p"]) if i not in (1, 4)]


def test_without_rematch_options_the_deal_is_unchanged() -> None:
    """Stored games replay: no rematch key means the very same random draws as before."""
    plain = deal(None, 6, 77)
    assert deal({"kept_characters": [], "retired_characters": [], "sheriff_seat": None}, 6, 77) == plain
    assert "kept_characters" not in plain["opts"] and bang.decode_options(bang_pb2.BangOptions()) == plain["opts"]


def test_options_round_trip_through_the_codec() -> None:
    pb = bang_pb2.BangOptions(kept_characters=[bang_pb2.BangKeptCharacter(seat=1, character="jourdonnais")],
                              retired_characters=["el_gringo"], sheriff_seat=0)
    assert bang.encode_options(bang.decode_options(pb)) == pb
    assert not bang.encode_options(bang.decode_options(None)).HasField("sheriff_seat")


def kept(*pairs: tuple[int, str]) -> list[dict[str, Any]]:
    return [{"seat": s, "character": c} for s, c in pairs]


@pytest.mark.parametrize(("options", "field"), [
    ({"kept_characters": kept((0, "john_wayne"))}, "options.bang.kept_characters[0].character"),
    ({"kept_characters": kept((0, "el_gringo"), (0, "jourdonnais"))}, "options.bang.kept_characters[1].seat"),
    ({"kept_characters": kept((0, "el_gringo"), (1, "el_gringo"))}, "options.bang.kept_characters[1].character"),
    ({"kept_characters": kept((-1, "el_gringo"))}, "options.bang.kept_characters[0].seat"),
    ({"kept_characters": kept((0, "el_gringo")), "retired_characters": ["el_gringo"]},
     "options.bang.retired_characters[0]"),
    ({"retired_characters": ["nobody"]}, "options.bang.retired_characters[0]"),
    ({"sheriff_seat": -1}, "options.bang.sheriff_seat"),
])
def test_malformed_rematch_options_are_refused_when_decoded(options: dict[str, Any], field: str) -> None:
    with pytest.raises(MalformedAction) as err:
        bang.decode_options(_pb(options))
    assert (err.value.reason, err.value.field) == (EngineReason.INVALID_OPTION, field)


@pytest.mark.parametrize(("options", "field"), [
    ({"kept_characters": kept((4, "el_gringo"))}, "options.bang.kept_characters[0].seat"),
    ({"sheriff_seat": 4}, "options.bang.sheriff_seat"),
    ({"retired_characters": sorted(BASE_CHARACTERS)[:13]}, "options.bang.retired_characters"),
])
def test_seats_out_of_range_are_refused_at_setup(options: dict[str, Any], field: str) -> None:
    decoded = bang.decode_options(_pb(options))
    with pytest.raises(MalformedAction) as err:
        bang.setup(decoded, 4, 1)
    assert (err.value.reason, err.value.field) == (EngineReason.INVALID_OPTION, field)


def test_limits_that_just_fit_are_accepted() -> None:
    assert deal(bang.decode_options(_pb({"kept_characters": kept((4, "el_gringo")), "sheriff_seat": 4})),
                5, 1)["p"][4]["role"] == "sheriff"
    chars = {p["char"] for p in deal(bang.decode_options(_pb({"retired_characters": sorted(BASE_CHARACTERS)[:12]})),
                                     4, 1)["p"]}
    assert chars == set(sorted(BASE_CHARACTERS)[12:])


def test_rematch_created_over_grpc(stub: Any) -> None:
    options = bang_pb2.BangOptions(kept_characters=[bang_pb2.BangKeptCharacter(seat=0, character="rose_doolan"),
                                                    bang_pb2.BangKeptCharacter(seat=3, character="paul_regret")],
                                   retired_characters=["calamity_janet"], sheriff_seat=3)
    game, _ = create_game(stub, ruleset="bang", seats=5, seed=3, options=game_pb2.GameOptions(bang=options))
    got = stub.GetGame(svc.GetGameRequest(name=game.name))
    view = got.view.bang
    assert [view.players[0].character, view.players[3].character] == ["rose_doolan", "paul_regret"]
    assert "calamity_janet" not in {p.character for p in view.players}
    assert view.players[3].role == bang_pb2.BANG_ROLE_SHERIFF and view.turn_seat == 3
    assert got.game.options.bang == options
    bad = bang_pb2.BangOptions(sheriff_seat=5)
    with pytest.raises(grpc.RpcError) as err:
        create_game(stub, ruleset="bang", seats=5, options=game_pb2.GameOptions(bang=bad))
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert error_info(err.value).reason == "INVALID_OPTION"
    status = rpc_status.from_call(err.value)  # type: ignore[arg-type]
    assert status is not None
    fields = []
    for detail in status.details:
        if detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
            request = error_details_pb2.BadRequest()
            detail.Unpack(request)
            fields += [v.field for v in request.field_violations]
    assert fields == ["options.bang.sheriff_seat"]


# Helpers

def _pb(options: dict[str, Any]) -> bang_pb2.BangOptions:
    """A message holding even values the codec refuses (encode_options validates, so it cannot build them)."""
    pb = bang_pb2.BangOptions(retired_characters=options.get("retired_characters", []))
    for k in options.get("kept_characters", []):
        pb.kept_characters.add(seat=k["seat"], character=k["character"])
    if "sheriff_seat" in options:
        pb.sheriff_seat = options["sheriff_seat"]
    return pb
