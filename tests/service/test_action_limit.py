"""Every game is bounded: at its action limit a game the rules have not ended ends as abandoned.

The case of issue 12: BANG! played with only end-turn and discards never ends by the
rules. Here it ends at the game's limit, with an ABANDONED event then FINISHED, a final
state every seat and spectator sees, and a log no longer than the limit allows.
"""

from __future__ import annotations

import grpc
import pytest
from tabletop.v1 import bang_pb2, game_pb2
from tabletop.v1 import game_service_pb2 as svc

from tests.helpers import bearer, create_game, deciding_seat, error_info

LIFECYCLE = game_pb2.LifecycleEvent


def _stalling(actions: list[game_pb2.Action]) -> game_pb2.Action:
    """End the turn or discard when possible; never play a card (nobody is ever hurt)."""
    for kind in ("end_turn", "discard", "draw", "choose", "pass"):
        for action in actions:
            if action.bang.WhichOneof("kind") == kind:
                return action
    return actions[0]


def _stall(stub, name: str, tokens: dict[int, str], limit: int) -> svc.SubmitActionResponse:  # type: ignore[no-untyped-def]
    last = None
    for _ in range(limit):
        seat, actions = deciding_seat(stub, name, tokens)
        assert seat is not None, "the game ended before its limit"
        last = stub.SubmitAction(svc.SubmitActionRequest(name=name, action=_stalling(actions)),
                                 metadata=bearer(tokens[seat]))
    assert last is not None
    return last


def test_rulesets_publish_their_action_limit(stub) -> None:
    limits = {r.id: r.max_actions for r in stub.ListRulesets(svc.ListRulesetsRequest()).rulesets}
    assert limits == {"bang": 2000, "ttr-europe": 1500}
    game, _ = create_game(stub, ruleset="bang", seats=4)
    assert (game.max_actions, game.action_count, game.end) == (2000, 0, game_pb2.GAME_END_UNSPECIFIED)


def test_a_stalled_bang_game_ends_as_abandoned_at_its_limit(stub) -> None:
    limit = 40
    game, tokens = create_game(stub, ruleset="bang", seats=4, max_actions=limit)
    last = _stall(stub, game.name, tokens, limit)
    kinds = [e.lifecycle.kind for e in last.events if e.WhichOneof("kind") == "lifecycle"]
    assert kinds == [LIFECYCLE.KIND_ABANDONED, LIFECYCLE.KIND_FINISHED]
    assert (last.game.status, last.game.end, last.game.action_count) == (
        game_pb2.GAME_STATUS_FINISHED, game_pb2.GAME_END_ABANDONED, limit)
    for token in [*tokens.values(), None]:  # every seat and a spectator see the same final state
        seen = stub.GetGame(svc.GetGameRequest(name=game.name), metadata=bearer(token) if token else None).game
        assert (seen.status, seen.end, seen.version) == (last.game.status, last.game.end, last.game.version)
    for token in tokens.values():
        assert not stub.ListLegalActions(svc.ListLegalActionsRequest(name=game.name), metadata=bearer(token)).actions
    log = stub.GetGameLog(svc.GetGameLogRequest(name=game.name, page_size=1000))
    assert log.complete and log.HasField("seed")
    assert len(log.entries) == 1 + limit  # the bound: creation (seats named) plus one entry per action


def test_no_action_is_accepted_after_the_limit(stub) -> None:
    game, tokens = create_game(stub, ruleset="bang", seats=4, max_actions=1)
    _stall(stub, game.name, tokens, 1)
    with pytest.raises(grpc.RpcError) as err:
        stub.SubmitAction(svc.SubmitActionRequest(name=game.name, action=game_pb2.Action(
            bang=bang_pb2.BangAction(end_turn=bang_pb2.BangEndTurn()))), metadata=bearer(tokens[0]))
    assert err.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert error_info(err.value).reason == "GAME_FINISHED"


def test_a_game_played_to_its_end_says_completed(stub) -> None:
    import random

    from tests.helpers import play

    game, tokens = create_game(stub, ruleset="bang", seats=4, seed=3)
    play(stub, game.name, tokens, 2000, random.Random(3))
    final = stub.GetGame(svc.GetGameRequest(name=game.name)).game
    assert (final.status, final.end) == (game_pb2.GAME_STATUS_FINISHED, game_pb2.GAME_END_COMPLETED)
    assert final.action_count < final.max_actions


@pytest.mark.parametrize("value", [0, -1, 2001])
def test_max_actions_outside_the_ruleset_limit_is_invalid(stub, value: int) -> None:
    with pytest.raises(grpc.RpcError) as err:
        create_game(stub, ruleset="bang", seats=4, max_actions=value)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    info = error_info(err.value)
    assert info.reason == "INVALID_MAX_ACTIONS" and info.metadata["max"] == "2000"
