"""The gRPC adapter: each method authenticates, decodes, calls the host, encodes.

Cross-cutting work (error mapping, request ids, limits, metrics) lives in
``interceptors.py``; rules live in the rulesets; the behaviour lives in ``host.py``.
"""

from __future__ import annotations

from collections.abc import Iterator

import grpc
from tabletop.v1 import game_pb2, game_service_pb2_grpc
from tabletop.v1 import game_service_pb2 as svc

from service.api import auth
from service.api.host import GameHost
from service.engine import registry


class GameServicer(game_service_pb2_grpc.GameServiceServicer):
    """tabletop.v1.GameService over a :class:`GameHost`."""

    def __init__(self, host: GameHost) -> None:
        self.host = host

    def ListRulesets(self, request: svc.ListRulesetsRequest, context: grpc.ServicerContext) -> svc.ListRulesetsResponse:
        return svc.ListRulesetsResponse(rulesets=[_ruleset(r.INFO) for r in registry.all_rulesets()])

    def CreateGame(self, request: svc.CreateGameRequest, context: grpc.ServicerContext) -> svc.CreateGameResponse:
        return self.host.create(request)

    def JoinGame(self, request: svc.JoinGameRequest, context: grpc.ServicerContext) -> svc.JoinGameResponse:
        return self.host.join(request)

    def GetGame(self, request: svc.GetGameRequest, context: grpc.ServicerContext) -> svc.GetGameResponse:
        return self.host.get(request.name, _token(context))

    def ListLegalActions(self, request: svc.ListLegalActionsRequest,
                         context: grpc.ServicerContext) -> svc.ListLegalActionsResponse:
        return self.host.legal_actions(request.name, _token(context))

    def SubmitAction(self, request: svc.SubmitActionRequest,  # type: ignore[override]
                     context: grpc.ServicerContext) -> bytes:
        return self.host.submit(request, _token(context))  # already serialized (see GameHost.submit)

    def WatchGame(self, request: svc.WatchGameRequest,
                  context: grpc.ServicerContext) -> Iterator[svc.WatchGameResponse]:
        updates = self.host.watch(request.name, _token(context), request.from_version, context.is_active)
        context.send_initial_metadata(())  # the game and token are checked: tell the client the stream is open
        yield from updates

    def GetGameLog(self, request: svc.GetGameLogRequest, context: grpc.ServicerContext) -> svc.GetGameLogResponse:
        return self.host.log(request.name, _token(context))


# Helpers

def _token(context: grpc.ServicerContext) -> str | None:
    return auth.bearer(context.invocation_metadata())


def _ruleset(info: object) -> game_pb2.Ruleset:
    return game_pb2.Ruleset(
        id=info.id, display_name=info.display_name, min_seats=info.min_seats,  # type: ignore[attr-defined]
        max_seats=info.max_seats, rules_version=info.rules_version,  # type: ignore[attr-defined]
        options=[game_pb2.RulesetOption(name=o.name, description=o.description, default_value=o.default,
                                        allowed_values=list(o.allowed_values))
                 for o in info.options])  # type: ignore[attr-defined]
