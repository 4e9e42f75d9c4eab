"""The gRPC adapter (grpc.aio): each method authenticates, decodes, calls the host, encodes.

Cross-cutting work (error mapping, request ids, limits, metrics) lives in
``interceptors.py``; rules live in the rulesets; the behaviour lives in ``host.py``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from tabletop.v1 import game_service_pb2 as svc
from tabletop.v1 import game_service_pb2_grpc, matchmaking_pb2, player_pb2, rating_pb2

from tabletop_server.service.api import convert, inbox, leaderboards, my_games, players, quickplay, rulesets
from tabletop_server.service.api.host import GameHost
from tabletop_server.service.api.interceptors import Context
from tabletop_server.service.api.sessions import Sessions
from tabletop_server.service.engine import registry
from tabletop_server.service.store.ratings import RatingStore

# The methods that read the caller's player token (a malformed one is refused before their fields).
AUTHENTICATED = frozenset({"GetGame", "ListLegalActions", "SubmitAction", "WatchGame", "GetGameLog", "SetSeatBot", "LeaveGame",
                           "ConcedeGame", "RematchGame", "ListMyGames", "WatchPlayer", "ListNotifications",
                           "MarkNotificationsRead", "ListLeaderboard", "GetPlayerProfile",
                           "FindGame", "GetTicket", "CancelTicket"})


class GameServicer(game_service_pb2_grpc.GameServiceServicer):
    """tabletop.v1.GameService over a :class:`GameHost`."""

    def __init__(self, host: GameHost, sessions: Sessions) -> None:
        self.host = host
        self.sessions = sessions
        self.ratings = RatingStore(host.index.client)
        self.quickplay = quickplay.Quickplay(host.store.client, host.clock, host.config.ticket_ttl_seconds)

    async def ListRulesets(self, request: svc.ListRulesetsRequest, context: Context) -> svc.ListRulesetsResponse:
        return svc.ListRulesetsResponse(rulesets=[convert.ruleset(r.INFO) for r in registry.all_rulesets()])

    async def GetRuleset(self, request: svc.GetRulesetRequest, context: Context) -> svc.GetRulesetResponse:
        return rulesets.get(request.name, request.language_code)

    async def CreateGame(self, request: svc.CreateGameRequest,
                         context: Context) -> svc.CreateGameResponse:
        return await self.host.create(request, _api_key(context), players.caller(context))

    async def ListGames(self, request: svc.ListGamesRequest, context: Context) -> svc.ListGamesResponse:
        return await self.host.list_games(request)

    async def JoinGame(self, request: svc.JoinGameRequest,  # type: ignore[override]
                       context: Context) -> bytes:
        return await self.host.join(request, players.caller(context))  # already serialized, as SubmitAction's

    async def LeaveGame(self, request: svc.LeaveGameRequest, context: Context) -> svc.LeaveGameResponse:
        return await self.host.leave(request, _token(context))

    async def ConcedeGame(self, request: svc.ConcedeGameRequest,  # type: ignore[override]
                          context: Context) -> bytes:
        return await self.host.concede(request, _token(context))  # already serialized, as SubmitAction's

    async def RematchGame(self, request: svc.RematchGameRequest, context: Context) -> svc.RematchGameResponse:
        return await self.host.rematch(request, _token(context))

    async def GetGame(self, request: svc.GetGameRequest, context: Context) -> svc.GetGameResponse:
        return await self.host.get(request.name, _token(context),
                                   request.at_version if request.HasField("at_version") else None)

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

    async def ListMyGames(self, request: player_pb2.ListMyGamesRequest,
                          context: Context) -> player_pb2.ListMyGamesResponse:
        return await my_games.page(self.host.index, my_games.player_of(_token(context)), request, self.host.clock)

    async def WatchPlayer(self, request: player_pb2.WatchPlayerRequest,
                          context: Context) -> AsyncIterator[player_pb2.WatchPlayerResponse]:
        active = getattr(context, "is_active", None) or (lambda: True)
        start, updates = await inbox.watch(self.host.index, my_games.player_of(_token(context)), request.after_id,
                                           active)
        await context.send_initial_metadata(((inbox.START_HEADER, start),))  # the player is checked: the stream is open
        async for update in updates:
            yield update

    async def ListNotifications(self, request: player_pb2.ListNotificationsRequest,
                                context: Context) -> player_pb2.ListNotificationsResponse:
        return await inbox.page(self.host.index, my_games.player_of(_token(context)), request)

    async def MarkNotificationsRead(self, request: player_pb2.MarkNotificationsReadRequest,
                                    context: Context) -> player_pb2.MarkNotificationsReadResponse:
        return await inbox.mark_read(self.host.index, my_games.player_of(_token(context)), request)

    async def ListLeaderboard(self, request: rating_pb2.ListLeaderboardRequest,
                              context: Context) -> rating_pb2.ListLeaderboardResponse:
        return await leaderboards.page(self.ratings, _token(context), request)

    async def GetPlayerProfile(self, request: rating_pb2.GetPlayerProfileRequest,
                               context: Context) -> rating_pb2.GetPlayerProfileResponse:
        return await leaderboards.profile(self.ratings, _token(context), request)

    async def FindGame(self, request: matchmaking_pb2.FindGameRequest,
                       context: Context) -> matchmaking_pb2.FindGameResponse:
        return await self.quickplay.find(_token(context), request)

    async def GetTicket(self, request: matchmaking_pb2.GetTicketRequest,
                        context: Context) -> matchmaking_pb2.GetTicketResponse:
        return await self.quickplay.get(_token(context), request.name)

    async def CancelTicket(self, request: matchmaking_pb2.CancelTicketRequest,
                           context: Context) -> matchmaking_pb2.CancelTicketResponse:
        return await self.quickplay.cancel(_token(context), request.name)


# Helpers

def _token(context: Context) -> players.Caller:
    return players.caller(context)


def _api_key(context: Context) -> str:
    """The call's ``x-api-key`` ("" without one): it may hold the deterministic-games scope."""
    return next((str(v) for k, v in context.invocation_metadata() or () if k == "x-api-key"), "")
