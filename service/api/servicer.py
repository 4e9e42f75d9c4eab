"""The gRPC adapter (grpc.aio): each method authenticates, decodes, calls the host, encodes.

Cross-cutting work (error mapping, request ids, limits, metrics) lives in
``interceptors.py``; rules live in the rulesets; the behaviour lives in ``host.py``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from tabletop.v1 import game_service_pb2 as svc
from tabletop.v1 import game_service_pb2_grpc, player_pb2

from tabletop_server.service.api import convert, players, rulesets
from tabletop_server.service.api.host import GameHost
from tabletop_server.service.api.interceptors import Context
from tabletop_server.service.api.sessions import Sessions
from tabletop_server.service.engine import registry

# The methods that read the caller's player token (a malformed one is refused before their fields).
AUTHENTICATED = frozenset({"GetGame", "ListLegalActions", "SubmitAction", "WatchGame", "GetGameLog", "SetSeatBot", "LeaveGame",
                           "ConcedeGame", "RematchGame"})


class GameServicer(game_service_pb2_grpc.GameServiceServicer):
    """tabletop.v1.GameService over a :class:`GameHost`."""

    def __init__(self, host: GameHost, sessions: Sessions) -> None:
        self.host = host
        self.sessions = sessions

    async def ListRulesets(self, request: svc.ListRulesetsRequest, context: Context) -> svc.ListRulesetsResponse:
        return svc.ListRulesetsResponse(rulesets=[convert.ruleset(r.INFO) for r in registry.all_rulesets()])

    async def GetRuleset(self, request: svc.GetRulesetRequest, context: Context) -> svc.GetRulesetResponse:
        return rulesets.get(request.name)

    async def CreateGame(self, request: svc.CreateGameRequest,
                         context: Context) -> svc.CreateGameResponse:
        return await self.host.create(request, _api_key(context), players.caller(context))

    async def ListGames(self, request: svc.ListGamesRequest, context: Context) -> svc.ListGamesResponse:
        return await self.host.list_games(request)

    async def JoinGame(self, request: svc.JoinGameRequest, context: Context) -> svc.JoinGameResponse:
        return await self.host.join(request, players.caller(context))

    async def LeaveGame(self, request: svc.LeaveGameRequest, context: Context) -> svc.LeaveGameResponse:
        return await self.host.leave(request, _token(context))

    async def ConcedeGame(self, request: svc.ConcedeGameRequest,  # type: ignore[override]
                          context: Context) -> bytes:
        return await self.host.concede(request, _token(context))  # already serialized, as SubmitAction's

    async def RematchGame(self, request: svc.RematchGameRequest, context: Context) -> svc.RematchGameResponse:
        return await self.host.rematch(request, _token(context))

    async def GetGame(self, request: svc.GetGameRequest, context: Context) -> svc.GetGameResponse:
        return await self.host.get(request.name, _token(context))

    async def ListLegalActions(self, request: svc.ListLegalActionsRequest,
                               context: Context) -> svc.ListLegalActionsResponse:
        return await self.host.legal_actions(request.name, _token(context))

    async def SubmitAction(self, request: svc.SubmitActionRequest,  # type: ignore[override]
                           context: Context) -> bytes:
        return await self.host.submit(request, _token(context))  # already serialized (see GameHost.submit)

    async def SetSeatBot(self, request: svc.SetSeatBotRequest, context: Context) -> svc.SetSeatBotResponse:
        return await self.host.set_seat_bot(request, _token(context))

    async def WatchGame(self, request: svc.WatchGameRequest,
                        context: Context) -> AsyncIterator[svc.WatchGameResponse]:
        active = getattr(context, "is_active", None) or (lambda: True)  # a client that leaves cancels this task
        updates = await self.host.watch(request.name, _token(context), request.from_version, active)
        await context.send_initial_metadata(())  # the game and token are checked: tell the client the stream is open
        async for update in updates:
            yield update

    async def GetGameLog(self, request: svc.GetGameLogRequest,
                         context: Context) -> svc.GetGameLogResponse:
        return await self.host.log(request.name, _token(context), request.page_size, request.page_token)

    async def CreatePlayerSession(self, request: player_pb2.CreatePlayerSessionRequest,
                                  context: Context) -> player_pb2.CreatePlayerSessionResponse:
        return await self.sessions.create(request, context.invocation_metadata() or ())  # type: ignore[arg-type]

    async def RefreshPlayerSession(self, request: player_pb2.RefreshPlayerSessionRequest,
                                   context: Context) -> player_pb2.RefreshPlayerSessionResponse:
        return await self.sessions.refresh(request)

    async def CreateGuestSession(self, request: player_pb2.CreateGuestSessionRequest,
                                 context: Context) -> player_pb2.CreateGuestSessionResponse:
        return await self.sessions.guest(request)


# Helpers

def _token(context: Context) -> players.Caller:
    return players.caller(context)


def _api_key(context: Context) -> str:
    """The call's ``x-api-key`` ("" without one): it may hold the deterministic-games scope."""
    return next((str(v) for k, v in context.invocation_metadata() or () if k == "x-api-key"), "")
