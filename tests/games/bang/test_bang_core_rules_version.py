"""The core: a game's stored rules version is read, and a version this code cannot play
is refused with FAILED_PRECONDITION and the stable reason RULES_VERSION_UNSUPPORTED.

During a rolling upgrade old and new replicas serve the same games: a replica must never
apply rules a game was not created with. Checked through ``apply`` / ``legal_actions``
and through the real gRPC server (a replica made to play only a newer version).
"""

from __future__ import annotations

import copy
from typing import Any

import grpc
import pytest
from bang_helpers import give, table
from tabletop.v1 import game_service_pb2 as svc

from tabletop_server.service.engine.errors import RuleError
from tabletop_server.service.games import bang
from tabletop_server.service.games.bang import versions
from tests.helpers import bearer, create_game, error_info


def test_a_game_of_another_rules_version_is_refused_and_unchanged() -> None:
    st = table(4)
    assert st["v"] == bang.INFO.rules_version == "bang-base-2"
    beer = give(st, 0, ["beer"])[0]
    st["v"] = "bang-base-9"
    before = copy.deepcopy(st)
    for call in (lambda: bang.apply(st, 0, {"type": "end_turn"}), lambda: bang.legal_actions(st, 0)):
        with pytest.raises(RuleError) as err:
            call()
        assert err.value.reason == "RULES_VERSION_UNSUPPORTED" and st == before
    assert err.value.details["rules_version"] == "bang-base-9"  # type: ignore[attr-defined]
    st["v"] = "bang-base-2"
    assert {"type": "play", "card": beer} not in bang.legal_actions(st, 0)  # full life: plays again
    assert {"type": "end_turn"} in bang.legal_actions(st, 0)


def test_an_armed_and_dangerous_game_is_refused_by_a_replica_from_before_the_expansion(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Its own version: a replica of the release before Armed & Dangerous plays only bang-base-*, so it
    refuses the game cleanly instead of failing on its cards; base and Dodge City games are unchanged."""
    armed = bang.setup({"expansions": ["armed_and_dangerous"]}, 4, 3)
    both = bang.setup({"expansions": ["dodge_city", "armed_and_dangerous"]}, 4, 3)
    assert armed["v"] == both["v"] == versions.ARMED_RULES_VERSION == "bang-ad-3"
    assert versions.ARMED_RULES_VERSION_1 in versions.SUPPORTED_RULES_VERSIONS  # stored games still play
    assert "bang-ad-2" in versions.SUPPORTED_RULES_VERSIONS
    assert bang.setup({"expansions": ["dodge_city"]}, 4, 3)["v"] == bang.setup({}, 4, 3)["v"] == "bang-base-2"
    monkeypatch.setattr(versions, "SUPPORTED_RULES_VERSIONS", frozenset({"bang-base-1", "bang-base-2"}))
    with pytest.raises(RuleError) as err:
        bang.legal_actions(armed, bang.to_act(armed)[0])
    assert err.value.reason == "RULES_VERSION_UNSUPPORTED"
    base = bang.setup({}, 4, 3)
    assert bang.legal_actions(base, bang.to_act(base)[0])


def test_a_replica_that_cannot_play_the_games_version_answers_failed_precondition(
        stub: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    game, tokens = create_game(stub, "bang", 4, seed=11)
    seat = bang.to_act(bang.setup({}, 4, 11))[0]
    legal = stub.ListLegalActions(svc.ListLegalActionsRequest(name=game.name), metadata=bearer(tokens[seat]))
    monkeypatch.setattr(versions, "SUPPORTED_RULES_VERSIONS", frozenset({"bang-base-3"}))  # a newer replica
    with pytest.raises(grpc.RpcError) as err:
        stub.SubmitAction(svc.SubmitActionRequest(name=game.name, action=legal.actions[0]),
                          metadata=bearer(tokens[seat]))
    assert err.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert error_info(err.value).reason == "RULES_VERSION_UNSUPPORTED"
    monkeypatch.undo()
    stub.SubmitAction(svc.SubmitActionRequest(name=game.name, action=legal.actions[0]), metadata=bearer(tokens[seat]))
