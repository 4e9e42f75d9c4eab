"""Seat counts that need Dodge City, through the real gRPC server (real Redis): ListRulesets says which
counts need which option, CreateGame refuses them without it (INVALID_ARGUMENT, SEAT_COUNT_NEEDS_EXPANSION),
and with Dodge City a 3-player and
an 8-player game are created and played to the end with legal actions only."""

from __future__ import annotations

import random
from typing import Any

import grpc
import pytest
from tabletop.v1 import bang_pb2, game_pb2
from tabletop.v1 import game_service_pb2 as svc

from tests.helpers import bearer, create_game, error_info

MAX_ACTIONS = 3000


def bang_ruleset(stub: Any) -> game_pb2.Ruleset:
    rulesets = stub.ListRulesets(svc.ListRulesetsRequest()).rulesets
    return next(r for r in rulesets if r.id == "bang")


def test_list_rulesets_says_which_seat_counts_need_dodge_city(stub: Any) -> None:
    bang = bang_ruleset(stub)
    assert (bang.min_seats, bang.max_seats) == (3, 8)
    ranges = [(r.min_seats, r.max_seats, [(o.option, o.value) for o in r.required_options])
              for r in bang.seat_ranges]
    need = [("expansions", "BANG_EXPANSION_DODGE_CITY")]
    assert ranges == [(3, 3, need), (4, 7, []), (8, 8, need)]
    assert {o.name for o in bang.options} >= {"joseDelgadoInPlay", "pixiePeteDrawsFour", "seanMalloryUnlimited"}


def test_list_rulesets_gives_every_ruleset_its_seat_ranges(stub: Any) -> None:
    for r in stub.ListRulesets(svc.ListRulesetsRequest()).rulesets:
        covered = [n for s in r.seat_ranges for n in range(s.min_seats, s.max_seats + 1)]
        assert covered == list(range(r.min_seats, r.max_seats + 1)), r.id
    ttr = next(r for r in stub.ListRulesets(svc.ListRulesetsRequest()).rulesets if r.id == "ttr-europe")
    assert [(s.min_seats, s.max_seats, list(s.required_options)) for s in ttr.seat_ranges] == [(2, 5, [])]


@pytest.mark.rule("DC-041", "DC-044")
@pytest.mark.parametrize("seats", [3, 8])
def test_create_game_refuses_three_or_eight_seats_without_dodge_city(stub: Any, seats: int) -> None:
    with pytest.raises(grpc.RpcError) as err:
        create_game(stub, ruleset="bang", seats=seats)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    info = error_info(err.value)
    assert info.reason == "SEAT_COUNT_NEEDS_EXPANSION" and info.metadata["expansion"] == "BANG_EXPANSION_DODGE_CITY"
    assert "BANG_EXPANSION_DODGE_CITY" in (err.value.details() or "")


def test_create_game_refuses_a_house_rule_without_dodge_city(stub: Any) -> None:
    options = game_pb2.GameOptions(bang=bang_pb2.BangOptions(pixie_pete_draws_four=True))
    with pytest.raises(grpc.RpcError) as err:
        create_game(stub, ruleset="bang", seats=4, options=options)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert error_info(err.value).reason == "OPTION_NEEDS_EXPANSION"


@pytest.mark.rule("DC-041", "DC-044")
@pytest.mark.usefixtures("dodge_city")
@pytest.mark.parametrize(("seats", "seed"), [(3, 31), (8, 32)])
def test_dodge_city_games_of_three_and_eight_play_to_the_end(stub: Any, seats: int, seed: int) -> None:
    options = game_pb2.GameOptions(bang=bang_pb2.BangOptions(expansions=[bang_pb2.BANG_EXPANSION_DODGE_CITY],
                                                             sean_mallory_unlimited=True))
    game, tokens = create_game(stub, ruleset="bang", seats=seats, seed=seed, options=options)
    assert list(game.options.bang.expansions) == [bang_pb2.BANG_EXPANSION_DODGE_CITY]
    assert game.options.bang.sean_mallory_unlimited
    rng = random.Random(seed)
    for _ in range(MAX_ACTIONS):
        view = stub.GetGame(svc.GetGameRequest(name=game.name), metadata=bearer(tokens[0])).view.bang
        if seats == 3:  # roles face up: seat 0 sees every role
            assert all(p.role != bang_pb2.BANG_ROLE_UNSPECIFIED for p in view.players)
        if not view.to_act:
            break
        seat = view.to_act[0]
        actions = stub.ListLegalActions(svc.ListLegalActionsRequest(name=game.name), metadata=bearer(tokens[seat]))
        stub.SubmitAction(svc.SubmitActionRequest(name=game.name, action=rng.choice(actions.actions)),
                          metadata=bearer(tokens[seat]))
    final = stub.GetGame(svc.GetGameRequest(name=game.name))
    assert final.game.status == game_pb2.GAME_STATUS_FINISHED and final.view.bang.winners
