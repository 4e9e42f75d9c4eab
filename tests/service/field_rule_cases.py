"""Values at and just past every limit the contract annotates, each in a request valid otherwise.

The bounds are read from the annotations (``service.api.field_rules``), never written
here: a changed limit moves its test values with it. What is written here is, per
annotated field, where a value goes (``PLACES``) and, for patterns, values that match
and values that do not. ``cases()`` fails on an annotated field without a place, so a new
annotation cannot go untested.
"""

from __future__ import annotations

import base64
import importlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from google.protobuf.message import Message
from tabletop.v1 import bang_pb2, game_pb2, matchmaking_pb2, player_pb2, rating_pb2
from tabletop.v1 import game_service_pb2 as svc
from tabletop.v1 import ttr_europe_pb2 as ttr

from tabletop_server.service.api import field_rules, lobby, log_pages
from tabletop_server.service.games.bang.tables import CHARACTERS
from tests.helpers import bearer, create_game

UNSET = object()  # the field left out
LEGAL_ACTION = "<a legal action>"  # SubmitAction.action set to one of the game's legal actions
THIS_GAME = "<this game>"  # a name: the real game the request is made for
LONG_ID = "a" * 64  # the longest game id a name may hold (no such game exists)
# The longest page token the server can issue: a 64-character game id and an 18-digit version.
LONGEST_TOKEN = log_pages.encode_token(LONG_ID, 10**17)


@dataclass(frozen=True)
class Case:
    """One value for one annotated field: ``accepted`` at the bound, refused just past it."""

    field: str  # full name, e.g. "tabletop.v1.JoinGameRequest.display_name"
    limit: str  # which limit the value tests: "max_length", "minimum", "pattern", "required", ...
    value: Any
    accepted: bool
    reason: str  # the reason that refuses it (the field's, or its max_items reason)

    @property
    def id(self) -> str:
        shown = "unset" if self.value is UNSET else repr(self.value)
        shown = shown if len(shown) <= 24 else f"{shown[:16]}..({len(str(self.value))})"
        return f"{self.field.rsplit('.', 2)[-2]}.{self.field.rsplit('.', 1)[-1]}-{self.limit}-{shown}"


Place = Callable[[Any, Any], tuple[str, Message, str | None]]  # (stub, value) -> (method, request, token)


def _set(request: Message, field: str, value: Any) -> Message:
    if value is UNSET:
        return request
    if isinstance(value, list):
        getattr(request, field).extend(value)
    elif isinstance(value, Message):
        getattr(request, field).CopyFrom(value)
    else:
        setattr(request, field, value)
    return request


def _create(field: str) -> Place:
    def place(stub: Any, value: Any) -> tuple[str, Message, str | None]:
        # The widest ruleset for a value: Ticket to Ride seats 2 to 5, BANG! 3 to 8 (3 and 8 refused
        # later, without Dodge City, for another reason: SEAT_COUNT_NEEDS_EXPANSION) and 2,000 actions.
        seats = value if field == "seat_count" and isinstance(value, int) else 8
        ruleset = "ttr-europe" if seats <= 5 else "bang"
        request = svc.CreateGameRequest(ruleset=ruleset, seat_count=seats) if field != "seat_count" \
            else svc.CreateGameRequest(ruleset=ruleset)
        if field == "ruleset":
            request.ClearField("ruleset")
        return "CreateGame", _set(request, field, value), None
    return place


def _join(field: str) -> Place:
    def place(stub: Any, value: Any) -> tuple[str, Message, str | None]:
        waiting = _widest_waiting_game(stub)
        request = svc.JoinGameRequest(name=waiting, display_name="late")
        if value == THIS_GAME:
            return "JoinGame", request, None
        request.ClearField(field)
        return "JoinGame", _set(request, field, value), None
    return place


def _session(method: str, request: Message, field: str) -> Place:
    """A player-session call (off on the test server: a value its limits accept fails as SESSIONS_DISABLED)."""
    def place(stub: Any, value: Any) -> tuple[str, Message, str | None]:
        fresh = type(request)()
        fresh.CopyFrom(request)
        fresh.ClearField(field)  # type: ignore[arg-type]
        return method, _set(fresh, field, value), None
    return place


def _widest_waiting_game(stub: Any) -> str:
    """An open 8-seat BANG! game (the most seats): 8 players need Dodge City, accepted here by the
    in-process server while the expansion is built and not yet offered to clients."""
    setup = importlib.import_module("tabletop_server.service.games.bang.setup")  # the module, not the package's function
    built = setup.BUILT_EXPANSIONS
    setup.BUILT_EXPANSIONS = built | {"dodge_city"}
    try:
        options = game_pb2.GameOptions(bang=bang_pb2.BangOptions(expansions=[bang_pb2.BANG_EXPANSION_DODGE_CITY]))
        return str(stub.CreateGame(svc.CreateGameRequest(ruleset="bang", seat_count=8, options=options)).game.name)
    finally:
        setup.BUILT_EXPANSIONS = built


def _read(method: str, request_class: type[Message], field: str = "name") -> Place:
    def place(stub: Any, value: Any) -> tuple[str, Message, str | None]:
        game, tokens = create_game(stub, seats=2)
        request = request_class(name=game.name)  # type: ignore[call-arg]
        if value == THIS_GAME:
            return method, request, tokens[0]
        if field == "page_token" and value is not UNSET and value == LONGEST_TOKEN:
            request.name = f"games/{LONG_ID}"  # the token is this game's: only the game is missing
        request.ClearField(field)
        return method, _set(request, field, value), tokens[0]
    return place


def _leaderboard(field: str) -> Place:
    def place(stub: Any, value: Any) -> tuple[str, Message, str | None]:
        request = rating_pb2.ListLeaderboardRequest(parent="rulesets/ttr-europe")
        if value == THIS_GAME:
            return "ListLeaderboard", request, None
        request.ClearField(field)  # type: ignore[arg-type]
        return "ListLeaderboard", _set(request, field, value), None
    return place


def _leaderboard_token(n: int) -> str:
    """A token ListLeaderboard issues, as long as ``n`` allows (its place with leading zeros), else ``n`` letters."""
    if n % 4 == 0 and n >= 8:
        return base64.urlsafe_b64encode(f"at:{'0' * (n * 3 // 4 - 4)}1".encode()).decode()
    return "A" * n


def _ruleset(field: str) -> Place:
    def place(stub: Any, value: Any) -> tuple[str, Message, str | None]:
        request = svc.GetRulesetRequest(name="rulesets/ttr-europe")
        if value == THIS_GAME:
            return "GetRuleset", request, None
        request.ClearField(field)
        return "GetRuleset", _set(request, field, value), None
    return place


def _submit(field: str) -> Place:
    def place(stub: Any, value: Any) -> tuple[str, Message, str | None]:
        game, tokens = create_game(stub, seats=2)
        action = stub.ListLegalActions(svc.ListLegalActionsRequest(name=game.name), metadata=bearer(tokens[0])).actions[0]
        request = svc.SubmitActionRequest(name=game.name, action=action)
        if value in (LEGAL_ACTION, THIS_GAME):
            return "SubmitAction", request, tokens[0]
        request.ClearField(field)
        return "SubmitAction", _set(request, field, value), tokens[0]
    return place


def _act(build: Callable[[Any], ttr.TtrEuropeAction]) -> Place:
    """A Ticket to Ride action carrying the value, sent by seat 0 of a new game."""
    def place(stub: Any, value: Any) -> tuple[str, Message, str | None]:
        game, tokens = create_game(stub, seats=2)
        action = game_pb2.Action(ttr_europe=build(value))
        return "SubmitAction", svc.SubmitActionRequest(name=game.name, action=action), tokens[0]
    return place


def _claim(route: Any = 1, **payment: Any) -> ttr.TtrEuropeAction:
    claim = ttr.TtrClaimRoute(payment=ttr.TtrPayment(color=ttr.TTR_COLOR_RED, color_cards=1, **payment))
    if route is not UNSET:
        claim.route_id = route
    return ttr.TtrEuropeAction(claim_route=claim)


def _draw(slot: Any) -> ttr.TtrEuropeAction:
    draw = ttr.TtrDrawTrainCard() if slot is UNSET else ttr.TtrDrawTrainCard(face_up_slot=slot)
    return ttr.TtrEuropeAction(draw_train_card=draw)


def _cards(count: Any) -> ttr.TtrEuropeAction:
    color = ttr.TTR_COLOR_RED if count else ttr.TTR_COLOR_UNSPECIFIED  # no colour with no coloured cards
    return ttr.TtrEuropeAction(claim_route=ttr.TtrClaimRoute(route_id=1, payment=ttr.TtrPayment(
        color=color, color_cards=count, locomotives=1)))


def _locos(count: Any) -> ttr.TtrEuropeAction:
    return _claim(locomotives=count)


def _bang(build: Callable[[Any], bang_pb2.BangAction]) -> Place:
    """A BANG! action carrying the value, sent by seat 0 of a new 8-player game (seats 0 to 7 exist;
    Dodge City switched on in-process, as for ``_widest_waiting_game``)."""
    def place(stub: Any, value: Any) -> tuple[str, Message, str | None]:
        setup = importlib.import_module("tabletop_server.service.games.bang.setup")
        built = setup.BUILT_EXPANSIONS
        setup.BUILT_EXPANSIONS = built | {"dodge_city"}
        try:
            options = game_pb2.GameOptions(bang=bang_pb2.BangOptions(expansions=[bang_pb2.BANG_EXPANSION_DODGE_CITY]))
            game, tokens = create_game(stub, ruleset="bang", seats=8, options=options)
        finally:
            setup.BUILT_EXPANSIONS = built
        action = game_pb2.Action(bang=build(value))
        return "SubmitAction", svc.SubmitActionRequest(name=game.name, action=action), tokens[0]
    return place


def _bang_field(kind: str, field: str) -> Callable[[Any], bang_pb2.BangAction]:
    """``BangAction(kind=<its message>(field=value))``; a card-less play or use, so that the game
    refuses it for the card (UNKNOWN_CARD), never for the value under test."""
    def build(value: Any) -> bang_pb2.BangAction:
        message = getattr(bang_pb2, bang_pb2.BangAction.DESCRIPTOR.fields_by_name[kind].message_type.name)()
        if value is not UNSET:
            _set(message, field, value)
        return bang_pb2.BangAction(**{kind: message})
    return build


def _bang_options(build: Callable[[Any], bang_pb2.BangOptions]) -> Place:
    """A new 8-player Dodge City game of BANG! whose options carry the value (seats 0 to 7 exist and
    31 characters are in the pool, so every value at a bound is one the game can take)."""
    def place(stub: Any, value: Any) -> tuple[str, Message, str | None]:
        options = build(value)
        options.expansions.append(bang_pb2.BANG_EXPANSION_DODGE_CITY)
        request = svc.CreateGameRequest(ruleset="bang", seat_count=8, options=game_pb2.GameOptions(bang=options))
        return "CreateGame", request, None
    return place


def _options_field(field: str) -> Callable[[Any], bang_pb2.BangOptions]:
    def build(value: Any) -> bang_pb2.BangOptions:
        return _set(bang_pb2.BangOptions(), field, value)  # type: ignore[return-value]
    return build


def _kept(field: str) -> Callable[[Any], bang_pb2.BangOptions]:
    """One kept character (Bart Cassidy at seat 0) with the value in ``field``."""
    def build(value: Any) -> bang_pb2.BangOptions:
        kept = bang_pb2.BangKeptCharacter(seat=0, character="bart_cassidy")
        kept.ClearField(field)
        return bang_pb2.BangOptions(kept_characters=[_set(kept, field, value)])  # type: ignore[list-item]
    return build


def _characters(k: int) -> list[str]:
    """``k`` distinct real character keys (a game refuses a key named twice, for the same reason)."""
    return sorted(CHARACTERS)[:k]


def _kept_items(k: int) -> list[bang_pb2.BangKeptCharacter]:
    return [bang_pb2.BangKeptCharacter(seat=i, character=c) for i, c in enumerate(_characters(k))]


def _any_card(n: int) -> str:
    """A real card id (card fields have no length limit of their own: the pattern bounds them)."""
    return "base.bang.2c"


CHARACTERS_OK = ["bart_cassidy", "vera_custer", "jose_delgado"]
CHARACTERS_BAD = ["Bart_cassidy", "bart-cassidy", "bart cassidy", "1bart", "_bart", "bart\n", "b" * 33, "josé"]
TICKETS_OK = [f"tickets/{'0' * 16}.{'f' * 16}", "tickets/0123456789abcdef.fedcba9876543210"]
TICKETS_BAD = ["tickets/", f"tickets/{'0' * 16}", f"tickets/{'0' * 16}.{'f' * 15}", f"tickets/{'A' * 16}.{'f' * 16}",
               f"games/{'0' * 16}.{'f' * 16}", f"tickets/{'0' * 16}.{'f' * 16}\n"]
NAMES_OK = [THIS_GAME, f"games/{LONG_ID}"]
NAMES_BAD = [f"games/{'a' * 65}", "games/ABC", "games/a-b", "games/", "games/a\n", "nope", "games/a/b"]
RULESET_NAMES_OK = [THIS_GAME, "rulesets/bang", f"rulesets/{'a' * 64}", "rulesets/0-0"]
RULESET_NAMES_BAD = [f"rulesets/{'a' * 65}", "rulesets/TTR", "rulesets/", "rulesets/a\n", "ttr-europe", "rulesets/a/b",
                     "rulesets/a_b", "games/abc"]
DISPLAY_OK = ["ann", "  ann  ", "Zoë", "a b", "\u00a0x", "李"]
DISPLAY_BAD = ["   ", "a\u200bb", "a\tb", "a\n", "\u202eevil", "x\u0000", "\u3000"]
# Card ids: <expansion>.<card key>.<rank><suit letter>; the empty default (no card) passes.
# Real cards (the game refuses an unknown one, or none, with the same reason); the empty default passes
# the pattern (a Barrel draw for Jourdonnais' own Barrel names no card).
CARDS_OK = ["base.bang.2c", "base.bang.10d", "base.rev_carabine.Ac", "base.stagecoach.9s.b"]
CARDS_BAD = [f"base.{'b' * 25}.2c", f"{'b' * 25}.bang.2c", "base.bang.1c", "base.bang.2x", "base.bang.2C", "BASE.bang.2c", "base.bang", "bang", "base..2c",
             "base.bang.2c\n", " base.bang.2c", "base.bang.2c.", "base.bang.2c.abcde", "base.bang.11h", "7"]
# Per annotated field: where its value goes, a string filler (length n -> value), and pattern samples.
def _list(field: str) -> Place:
    def place(stub: Any, value: Any) -> tuple[str, Message, str | None]:
        return "ListGames", _set(svc.ListGamesRequest(), field, value), None
    return place


def _filter(n: int) -> str:
    """A filter ListGames takes, padded with spaces to ``n`` characters."""
    return 'ruleset = "bang"'.ljust(n)


def _seat_bot(field: str) -> Place:
    """An 8-seat BANG! game (refused later without Dodge City, for another reason) with one bot seat."""
    def place(stub: Any, value: Any) -> tuple[str, Message, str | None]:
        bot = game_pb2.SeatBot(seat=0, bot="random")
        bot.ClearField(field)
        return "CreateGame", svc.CreateGameRequest(ruleset="bang", seat_count=8, bots=[_set(bot, field, value)]), None
    return place


def _turn_timer(field: str) -> Place:
    """A two-seat Ticket to Ride game with a turn timer."""
    def place(stub: Any, value: Any) -> tuple[str, Message, str | None]:
        timer = game_pb2.TurnTimer(decision_seconds=60)
        timer.ClearField(field)
        return "CreateGame", svc.CreateGameRequest(ruleset="ttr-europe", seat_count=2,
                                                   turn_timer=_set(timer, field, value)), None
    return place


def _seat_bots(k: int) -> list[game_pb2.SeatBot]:
    """``k`` bot seats (seats repeat past 8: only the count is past its limit)."""
    return [game_pb2.SeatBot(seat=i % 8, bot="random") for i in range(k)]


PLAYER_IDS_OK = ["a", "guest:x", "A.b_c:d@e|f+g-h", "p" * 128]
PLAYER_IDS_BAD = ["", "a b", "a/b", "é", "a\n", "p" * 129]
BOTS_OK = ["random", "basic", "b", "b" * 32, "a1_2"]
BOTS_BAD = ["", "Random", "1bot", "_bot", "bot-x", "b" * 33, "bot\n", "bot "]
NOTIFICATION_IDS_OK = ["", "1-0", "1" * 20 + "-" + "1" * 20]
NOTIFICATION_IDS_BAD = ["1", "1-", "-1", "a-1", "1-0\n", " 1-0", "1" * 21 + "-0"]


def _notification_id(n: int) -> str:
    """A notification id of ``n`` characters (41 at most match the pattern; longer ones fail it too)."""
    if n < 3:
        return "1-0"[:n]
    left = min(20, n - 2)
    return "1" * left + "-" + "1" * (n - 1 - left)


PLACES: dict[str, tuple[Place, Callable[[int], str], list[Any], list[Any]]] = {
    "tabletop.v1.CreateGameRequest.ruleset": (_create("ruleset"), lambda n: "b" * n, ["bang"], []),
    "tabletop.v1.CreateGameRequest.seat_count": (_create("seat_count"), str, [], []),
    "tabletop.v1.CreateGameRequest.display_names": (_create("display_names"), lambda n: "p" * n,
                                                    [[n] for n in DISPLAY_OK], [[n] for n in DISPLAY_BAD]),
    "tabletop.v1.CreateGameRequest.max_actions": (_create("max_actions"), str, [], []),
    "tabletop.v1.CreateGameRequest.bots": (_create("bots"), str, [], []),
    "tabletop.v1.CreateGameRequest.request_id": (_create("request_id"), lambda n: "r" * n, [], []),
    "tabletop.v1.CreateGameRequest.seed_hex": (_create("seed_hex"), lambda n: "0" * n,
                                               ["", "0" * 64, "ab" * 32, "f" * 64],
                                               ["0" * 63, "0" * 65, "A" * 64, "g" * 64, "0" * 64 + "\n", " " + "0" * 63]),
    "tabletop.v1.CreateGameRequest.invited_player_ids": (_create("invited_player_ids"), lambda n: "p" * n,
                                                         [[p] for p in PLAYER_IDS_OK], [[p] for p in PLAYER_IDS_BAD]),
    "tabletop.v1.CreatePlayerSessionRequest.player_id": (
        _session("CreatePlayerSession", player_pb2.CreatePlayerSessionRequest(player_id="ann"), "player_id"),
        lambda n: "p" * n, PLAYER_IDS_OK, PLAYER_IDS_BAD),
    "tabletop.v1.CreatePlayerSessionRequest.display_name": (
        _session("CreatePlayerSession", player_pb2.CreatePlayerSessionRequest(player_id="ann"), "display_name"),
        lambda n: "é" * n, ["", *DISPLAY_OK], DISPLAY_BAD),
    "tabletop.v1.RefreshPlayerSessionRequest.refresh_token": (
        _session("RefreshPlayerSession", player_pb2.RefreshPlayerSessionRequest(), "refresh_token"),
        lambda n: "r" * n, ["r" * 16, "r" * 128, "A-_9" * 4], ["", "r" * 15, "r" * 129, "a b" * 6, "r=" * 8]),
    "tabletop.v1.CreateGuestSessionRequest.display_name": (
        _session("CreateGuestSession", player_pb2.CreateGuestSessionRequest(), "display_name"),
        lambda n: "é" * n, ["", *DISPLAY_OK], DISPLAY_BAD),
    # A player's own calls (issue 27): without a player, a value their limits accept fails as PLAYER_REQUIRED.
    "tabletop.v1.ListMyGamesRequest.page_size": (
        _session("ListMyGames", player_pb2.ListMyGamesRequest(), "page_size"), str, [], []),
    "tabletop.v1.ListMyGamesRequest.page_token": (
        _session("ListMyGames", player_pb2.ListMyGamesRequest(), "page_token"), lambda n: "A" * n, [""],
        ["ab!c", "a=", "a b"]),
    "tabletop.v1.ListMyGamesRequest.filter": (
        _session("ListMyGames", player_pb2.ListMyGamesRequest(), "filter"), lambda n: "my_turn = true".ljust(n),
        [], []),
    "tabletop.v1.ListNotificationsRequest.page_size": (
        _session("ListNotifications", player_pb2.ListNotificationsRequest(), "page_size"), str, [], []),
    "tabletop.v1.ListNotificationsRequest.page_token": (
        _session("ListNotifications", player_pb2.ListNotificationsRequest(), "page_token"), _notification_id,
        NOTIFICATION_IDS_OK, NOTIFICATION_IDS_BAD),
    "tabletop.v1.ListNotificationsRequest.filter": (
        _session("ListNotifications", player_pb2.ListNotificationsRequest(), "filter"), lambda n: "read = false".ljust(n),
        [], []),
    "tabletop.v1.WatchPlayerRequest.after_id": (
        _session("WatchPlayer", player_pb2.WatchPlayerRequest(), "after_id"), _notification_id,
        NOTIFICATION_IDS_OK, NOTIFICATION_IDS_BAD),
    "tabletop.v1.MarkNotificationsReadRequest.ids": (
        _session("MarkNotificationsRead", player_pb2.MarkNotificationsReadRequest(), "ids"), _notification_id,
        [[i] for i in NOTIFICATION_IDS_OK if i], [[i] for i in ["", *NOTIFICATION_IDS_BAD]]),
    # Ratings (issue 28): public reads, but "players/me" and around_me need a player (PLAYER_REQUIRED).
    "tabletop.v1.ListLeaderboardRequest.parent": (_leaderboard("parent"), str, RULESET_NAMES_OK, RULESET_NAMES_BAD),
    "tabletop.v1.ListLeaderboardRequest.page_size": (_leaderboard("page_size"), str, [], []),
    "tabletop.v1.ListLeaderboardRequest.page_token": (
        _leaderboard("page_token"), _leaderboard_token, [""], ["ab!c", "a=", "a b"]),
    "tabletop.v1.GetPlayerProfileRequest.name": (
        _session("GetPlayerProfile", rating_pb2.GetPlayerProfileRequest(), "name"), lambda n: "players/" + "p" * (n - 8),
        ["players/me", "players/guest:ab12", f"players/{'a' * 128}", "players/a.b_c:d@e|f+g-h"],
        ["players/", "players/a b", f"players/{'a' * 129}", "me", "players/a/b", "players/é", "Players/me"]),
    "tabletop.v1.GetPlayerProfileRequest.history_size": (
        _session("GetPlayerProfile", rating_pb2.GetPlayerProfileRequest(name="players/me"), "history_size"), str, [], []),
    # Quick play (issue 28): the ticket calls of a player (PLAYER_REQUIRED without one, past their limits).
    "tabletop.v1.FindGameRequest.ruleset": (
        _session("FindGame", matchmaking_pb2.FindGameRequest(ruleset="bang"), "ruleset"), lambda n: "b" * n, ["bang"], []),
    "tabletop.v1.FindGameRequest.bots_after_seconds": (
        _session("FindGame", matchmaking_pb2.FindGameRequest(ruleset="bang"), "bots_after_seconds"), str, [], []),
    "tabletop.v1.GetTicketRequest.name": (
        _session("GetTicket", matchmaking_pb2.GetTicketRequest(), "name"), str, TICKETS_OK, TICKETS_BAD),
    "tabletop.v1.CancelTicketRequest.name": (
        _session("CancelTicket", matchmaking_pb2.CancelTicketRequest(), "name"), str, TICKETS_OK, TICKETS_BAD),
    "tabletop.v1.SeatBot.seat": (_seat_bot("seat"), str, [], []),
    "tabletop.v1.SeatBot.bot": (_seat_bot("bot"), str, BOTS_OK, BOTS_BAD),
    "tabletop.v1.TurnTimer.decision_seconds": (_turn_timer("decision_seconds"), str, [], []),
    "tabletop.v1.TurnTimer.bot": (_turn_timer("bot"), str, ["", *BOTS_OK], BOTS_BAD[1:]),
    "tabletop.v1.TurnTimer.takeover_after": (_turn_timer("takeover_after"), str, [], []),
    "tabletop.v1.TurnTimer.concede_after": (_turn_timer("concede_after"), str, [], []),
    "tabletop.v1.JoinGameRequest.name": (_join("name"), str, NAMES_OK, NAMES_BAD),
    "tabletop.v1.JoinGameRequest.display_name": (_join("display_name"), lambda n: "é" * n, DISPLAY_OK, DISPLAY_BAD),
    "tabletop.v1.JoinGameRequest.seat": (_join("seat"), str, [], []),
    "tabletop.v1.JoinGameRequest.bot": (_join("bot"), str, ["", *BOTS_OK], BOTS_BAD[1:]),
    "tabletop.v1.JoinGameRequest.request_id": (_join("request_id"), lambda n: "r" * n, [], []),
    "tabletop.v1.ListGamesRequest.page_size": (_list("page_size"), str, [], []),
    "tabletop.v1.ListGamesRequest.page_token": (
        _list("page_token"), lambda n: lobby.encode_token(10**19) if n == 27 else "A" * n, [""], ["ab!c", "a=", "a b"]),
    "tabletop.v1.ListGamesRequest.filter": (_list("filter"), _filter, [], []),
    "tabletop.v1.LeaveGameRequest.name": (_read("LeaveGame", svc.LeaveGameRequest), str, NAMES_OK, NAMES_BAD),
    "tabletop.v1.ConcedeGameRequest.name": (_read("ConcedeGame", svc.ConcedeGameRequest), str, NAMES_OK, NAMES_BAD),
    "tabletop.v1.ConcedeGameRequest.request_id": (_read("ConcedeGame", svc.ConcedeGameRequest, "request_id"),
                                                  lambda n: "r" * n, [], []),
    "tabletop.v1.RematchGameRequest.name": (_read("RematchGame", svc.RematchGameRequest), str, NAMES_OK, NAMES_BAD),
    "tabletop.v1.SetSeatBotRequest.name": (_read("SetSeatBot", svc.SetSeatBotRequest), str, NAMES_OK, NAMES_BAD),
    "tabletop.v1.SetSeatBotRequest.bot": (_read("SetSeatBot", svc.SetSeatBotRequest, "bot"), str, ["", *BOTS_OK],
                                          BOTS_BAD[1:]),
    "tabletop.v1.GetRulesetRequest.name": (_ruleset("name"), str, RULESET_NAMES_OK, RULESET_NAMES_BAD),
    "tabletop.v1.GetRulesetRequest.language_code": (_ruleset("language_code"), str,
                                                    ["", "en", "cs", "cs-CZ", "de", "zh-Hant-TW"],
                                                    ["c", "cs_CZ", "česky", "cs-", "en;q=0.9", "a" * 65]),
    "tabletop.v1.GetGameRequest.name": (_read("GetGame", svc.GetGameRequest), str, NAMES_OK, NAMES_BAD),
    "tabletop.v1.ListLegalActionsRequest.name": (_read("ListLegalActions", svc.ListLegalActionsRequest), str,
                                                 NAMES_OK, NAMES_BAD),
    "tabletop.v1.SubmitActionRequest.name": (_submit("name"), str, NAMES_OK, NAMES_BAD),
    "tabletop.v1.SubmitActionRequest.action": (_submit("action"), str, [], []),
    "tabletop.v1.SubmitActionRequest.request_id": (_submit("request_id"), lambda n: "r" * n, [], []),
    "tabletop.v1.WatchGameRequest.name": (_read("WatchGame", svc.WatchGameRequest), str, NAMES_OK, NAMES_BAD),
    "tabletop.v1.GetGameLogRequest.name": (_read("GetGameLog", svc.GetGameLogRequest), str, NAMES_OK, NAMES_BAD),
    "tabletop.v1.GetGameLogRequest.page_size": (_read("GetGameLog", svc.GetGameLogRequest, "page_size"), str, [], []),
    "tabletop.v1.GetGameLogRequest.page_token": (
        _read("GetGameLog", svc.GetGameLogRequest, "page_token"),
        lambda n: LONGEST_TOKEN if n == len(LONGEST_TOKEN) else "A" * n, [""], ["ab!c", "a=", "a b"]),
    "tabletop.v1.TtrDrawTrainCard.face_up_slot": (_act(_draw), str, [], []),
    "tabletop.v1.TtrClaimRoute.route_id": (_act(_claim), str, [], []),
    "tabletop.v1.TtrPayment.color_cards": (_act(_cards), str, [], []),
    "tabletop.v1.TtrPayment.locomotives": (_act(_locos), str, [], []),
    **{f"tabletop.v1.{message}.card": (_bang(_bang_field(kind, "card")), _any_card, CARDS_OK, CARDS_BAD)
       for message, kind in (("BangPlayCard", "play"), ("BangUseCard", "use"), ("BangRespond", "respond"),
                             ("BangChoose", "choose"), ("BangDiscard", "discard"))},
    "tabletop.v1.BangUseBarrel.card": (_bang(_bang_field("barrel", "card")), _any_card, ["", *CARDS_OK], CARDS_BAD),
    **{f"tabletop.v1.{message}.pick": (_bang(_bang_field(kind, "pick")), _any_card, ["hand", "", *CARDS_OK],
                                       ["Hand", "hand ", *CARDS_BAD])
       for message, kind in (("BangPlayCard", "play"), ("BangUseCard", "use"))},
    # A choice's pick may also be a character key (Vera Custer's copy) or "character" (a cube holder).
    "tabletop.v1.BangChoose.pick": (_bang(_bang_field("choose", "pick")), _any_card,
                                    ["hand", "", "willy_the_kid", "character", *CARDS_OK],
                                    ["Hand", "hand ", "Willy", "x" * 33, *[c for c in CARDS_BAD if c != "bang"]]),
    **{f"tabletop.v1.{message}.target_seat": (_bang(_bang_field(kind, "target_seat")), str, [], [])
       for message, kind in (("BangPlayCard", "play"), ("BangUseCard", "use"), ("BangDrawFrom", "draw"),
                             ("BangUseAbility", "ability"), ("BangChoose", "choose"), ("BangUpgrade", "upgrade"))},
    "tabletop.v1.BangUseAbility.cards": (_bang(_bang_field("ability", "cards")), _any_card,
                                         [[c] for c in CARDS_OK], [[c] for c in ["", *CARDS_BAD]]),
    # Options (a rematch's): real keys where a value must be accepted, since the game refuses an
    # unknown character with the same reason.
    "tabletop.v1.BangOptions.kept_characters": (_bang_options(_options_field("kept_characters")), str, [], []),
    "tabletop.v1.BangOptions.retired_characters": (_bang_options(_options_field("retired_characters")), str,
                                                   [[c] for c in CHARACTERS_OK], [[c] for c in CHARACTERS_BAD]),
    "tabletop.v1.BangOptions.sheriff_seat": (_bang_options(_options_field("sheriff_seat")), str, [], []),
    "tabletop.v1.BangKeptCharacter.seat": (_bang_options(_kept("seat")), str, [], []),
    "tabletop.v1.BangKeptCharacter.character": (_bang_options(_kept("character")), str, CHARACTERS_OK,
                                                CHARACTERS_BAD),
}
# Repeated fields whose items must differ to be accepted at ``max_items`` (default: the filler's value, repeated).
ITEMS: dict[str, Callable[[int], list[Any]]] = {
    "tabletop.v1.CreateGameRequest.bots": _seat_bots,
    "tabletop.v1.CreateGameRequest.invited_player_ids": lambda k: [f"p{i}" for i in range(k)],
    "tabletop.v1.MarkNotificationsReadRequest.ids": lambda k: [f"{i}-0" for i in range(k)],
    "tabletop.v1.BangOptions.kept_characters": _kept_items,
    "tabletop.v1.BangOptions.retired_characters": _characters,
}


def annotated_fields() -> list[field_rules.Rule]:
    """Every field with a limit in every request of the service, down through nested messages."""
    service = svc.DESCRIPTOR.services_by_name["GameService"]
    found: dict[str, field_rules.Rule] = {}
    seen: set[str] = set()
    stack = [m.input_type for m in service.methods]
    while stack:
        message = stack.pop(0)
        if message.full_name in seen:
            continue
        seen.add(message.full_name)
        found.update((r.field.full_name, r) for r in field_rules.rules(message))
        stack.extend(f.message_type for f in message.fields if f.message_type is not None)
    return list(found.values())


def cases() -> list[Case]:
    """Every case of every annotated field (an annotated field without a place fails here)."""
    rules = annotated_fields()
    missing = {r.field.full_name for r in rules} - set(PLACES)
    assert not missing, f"annotated fields without test cases in PLACES: {sorted(missing)}"
    return [case for r in rules for case in _cases(r)]


def place(stub: Any, case: Case) -> tuple[str, Message, str | None]:
    """The request (and token) that carries the case's value."""
    return PLACES[case.field][0](stub, case.value)


def _cases(r: field_rules.Rule) -> Iterator[Case]:
    name = r.field.full_name
    _, fill, good, bad = PLACES[name]
    item = (lambda v: [v]) if r.repeated else (lambda v: v)
    for value in good:
        yield Case(name, "pattern", value, True, r.reason)
    for value in bad:
        yield Case(name, "pattern", value, False, r.reason)
    if r.required:
        yield Case(name, "required", UNSET, False, r.reason)
        if r.field.message_type is not None:
            yield Case(name, "required", LEGAL_ACTION, True, r.reason)
    if r.max_length:
        yield Case(name, "max_length", item(fill(r.max_length)), True, r.reason)
        yield Case(name, "max_length", item(fill(r.max_length + 1)), False, r.reason)
    if r.min_length:
        yield Case(name, "min_length", item(fill(r.min_length)), True, r.reason)
        yield Case(name, "min_length", item(fill(r.min_length - 1)), False, r.reason)
    if r.minimum is not None:
        yield Case(name, "minimum", r.minimum, True, r.reason)
        yield Case(name, "minimum", r.minimum - 1, False, r.reason)
    if r.maximum is not None:
        yield Case(name, "maximum", r.maximum, True, r.reason)
        yield Case(name, "maximum", r.maximum + 1, False, r.reason)
    if r.max_items:
        items = ITEMS.get(name, lambda k: [fill(1)] * k)
        yield Case(name, "max_items", items(r.max_items), True, r.max_items_reason)
        yield Case(name, "max_items", items(r.max_items + 1), False, r.max_items_reason)
