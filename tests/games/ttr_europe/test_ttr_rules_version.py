"""A game's stored rules version is read, and a version this code cannot play is refused with
FAILED_PRECONDITION and the stable reason RULES_VERSION_UNSUPPORTED (as BANG! does).

During a rolling upgrade old and new replicas serve the same games: a replica must never apply rules a
game was not created with (issue 33 made new games version 2, dealt by SHAKE-256; the next release's
version 3 must be refused by this one, not crash it). Checked through ``apply`` / ``legal_actions`` and
through the real gRPC server (a replica made to play only a newer version).
"""

from __future__ import annotations

import copy
import importlib
from typing import Any

import grpc
import pytest
from tabletop.v1 import game_service_pb2 as svc
from ttr_helpers import started

from tabletop_server.service.engine.errors import RuleError
from tabletop_server.service.games import ttr_europe
from tests.helpers import bearer, create_game, error_info

# The module, not the package's ``setup`` function of the same name.
setup = importlib.import_module("tabletop_server.service.games.ttr_europe.setup")


def test_a_game_of_another_rules_version_is_refused_and_unchanged() -> None:
    st = started(3)
    assert st["v"] == 2 and ttr_europe.rules_version(st) == ttr_europe.INFO.rules_version
    seat = ttr_europe.to_act(st)[0]
    action = ttr_europe.legal_actions(st, seat)[0]
    st["v"] = 9
    before = copy.deepcopy(st)
    for call in (lambda: ttr_europe.apply(st, seat, action), lambda: ttr_europe.legal_actions(st, seat)):
        with pytest.raises(RuleError) as err:
            call()
        assert err.value.reason == "RULES_VERSION_UNSUPPORTED" and st == before
        assert err.value.details == {"rules_version": "9"}
        assert "ttr-europe/2005-official.1, ttr-europe/2005-official.2" in err.value.message
    st["v"] = 1  # a game stored before issue 33 still plays
    assert ttr_europe.legal_actions(st, seat) and ttr_europe.apply(st, seat, action) is not None


def test_a_replica_that_cannot_play_the_games_version_answers_failed_precondition(
        stub: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    game, tokens = create_game(stub, "ttr-europe", 2, seed=11)
    seat = next(s for s, token in tokens.items() if stub.ListLegalActions(
        svc.ListLegalActionsRequest(name=game.name), metadata=bearer(token)).actions)
    legal = stub.ListLegalActions(svc.ListLegalActionsRequest(name=game.name), metadata=bearer(tokens[seat]))
    monkeypatch.setattr(setup, "RULES_VERSIONS", {3: "ttr-europe/2005-official.3"})  # a newer replica
    with pytest.raises(grpc.RpcError) as err:
        stub.SubmitAction(svc.SubmitActionRequest(name=game.name, action=legal.actions[0]),
                          metadata=bearer(tokens[seat]))
    assert err.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert error_info(err.value).reason == "RULES_VERSION_UNSUPPORTED"
    monkeypatch.undo()
    stub.SubmitAction(svc.SubmitActionRequest(name=game.name, action=legal.actions[0]), metadata=bearer(tokens[seat]))
