"""Hidden information through the real service: what one seat (or a spectator) receives never
holds another seat's hand or tickets, and the deck order is never sent.

Every payload a caller receives (views, events from SubmitAction and WatchGame, legal actions,
log, errors) is walked field by field, and the walk fails closed: every field must be classified in
``PUBLIC_FIELDS``, every ``TtrTicket`` and every ticket id must be one of the caller's own tickets
(until the final scores reveal them), every ``TtrPrivate`` must be the caller's own, and another
seat's blind draw has no colour.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Iterator

import grpc
import pytest
from google.protobuf.message import Message
from tabletop.v1 import game_pb2, ttr_europe_pb2
from tabletop.v1 import game_service_pb2 as svc

from tests.helpers import bearer, create_game, error_info

# Every field a caller can receive in a Ticket to Ride game, classified. The walk fails closed: a field
# that is not listed here fails the test until someone decides whether it may carry hidden facts.
# "public": anyone may see it. The hidden facts are checked per message in ``_check`` below.
PUBLIC_FIELDS: dict[str, set[str]] = {
    "GetGameResponse": {"game", "viewer_seat", "view"},
    "Snapshot": {"game", "viewer_seat", "view"},
    "Game": {"name", "ruleset", "status", "seats", "version", "options", "create_time", "update_time",
             "seed_chosen", "seed_source", "seed_commitment", "rules_version", "end", "action_count", "max_actions",
             "public", "rematch", "rematch_of", "deadlines", "turn_timer"},
    "TurnTimer": {"decision_seconds", "bot"},  # what every seat agreed to at creation: public
    "Deadline": {"seat", "due_time"},
    # invited and player_bound say only that a seat is kept for, or held by, a signed-in player, never which
    # one (game.proto); a lobby page shows them for games other tests' players made on the shared Redis.
    "Seat": {"index", "display_name", "occupied", "conceded", "reserved", "bot", "invited", "player_bound"},
    "GameOptions": {"ttr_europe"},
    "TtrEuropeOptions": {"tunnel_failure_discards"},
    "google.protobuf.Timestamp": {"seconds", "nanos"},
    "View": {"ttr_europe"},
    "TtrEuropeView": {"phase", "current_seat", "awaiting_seats", "face_up", "deck_count", "discard_count",
                      "ticket_pile_count", "players", "route_owners", "stations", "cards_drawn_this_turn",
                      "tunnel", "private", "final_scores", "last_round_trigger_seat", "winners"},
    "TtrPlayer": {"seat", "trains", "stations", "score", "train_card_count", "ticket_count",
                  "offered_ticket_count", "conceded"},
    "TtrStation": {"city", "seat"},
    "TtrTunnel": {"seat", "route_id", "payment", "revealed", "extra_cost"},
    "TtrPayment": {"color", "color_cards", "locomotives"},
    "TtrPrivate": {"seat", "hand", "tickets", "offered_tickets"},  # checked: the caller's own only
    "TtrCardCount": {"color", "count"},
    "TtrTicket": {"id", "city_a", "city_b", "points", "long"},  # checked: held by the caller, or scored
    "TtrScore": {"seat", "route_points", "ticket_points", "station_points", "express_bonus", "total",
                 "longest_path", "tickets", "completed_tickets", "stations_used", "borrowed_route_ids"},
    "TtrTicketResult": {"ticket", "completed"},
    "GetGameLogResponse": {"entries", "seed", "complete", "next_page_token"},
    "LogEntry": {"version", "seat", "action", "events", "time"},
    "Action": {"ttr_europe"},
    "TtrEuropeAction": {"draw_train_card", "claim_route", "build_station", "draw_tickets", "keep_tickets",
                        "pay_tunnel", "withdraw_tunnel", "pass_turn"},
    "TtrDrawTrainCard": {"face_up_slot"},
    "TtrClaimRoute": {"route_id", "payment"},
    "TtrBuildStation": {"city", "payment"},
    "TtrKeepTickets": {"ticket_ids"},  # checked: the caller's own tickets only
    "TtrPayTunnel": {"payment"},
    "Event": {"version", "lifecycle", "ttr_europe"},
    "LifecycleEvent": {"kind", "seat", "display_name"},
    "TtrEuropeEvent": {"train_card_drawn", "face_up_changed", "deck_reshuffled", "route_claimed",
                       "station_built", "tickets_drawn", "tickets_kept", "tunnel_revealed", "tunnel_withdrawn",
                       "turn_started", "last_round_started", "game_scored", "turn_passed"},
    "TtrTrainCardDrawn": {"seat", "face_up_slot", "color"},  # checked: a blind draw's colour is the drawer's
    "TtrFaceUpChanged": {"face_up", "reset"},
    "TtrDeckReshuffled": {"deck_count"},
    "TtrRouteClaimed": {"seat", "route_id", "payment", "points"},
    "TtrStationBuilt": {"seat", "city", "payment"},
    "TtrTicketsDrawn": {"seat", "count", "tickets"},
    "TtrTicketsKept": {"seat", "kept_count", "returned_count", "tickets"},
    "TtrTunnelRevealed": {"seat", "route_id", "revealed", "extra_cost"},
    "TtrTunnelWithdrawn": {"seat", "route_id", "cards_discarded"},
    "TtrTurnStarted": {"seat"},
    "TtrLastRoundStarted": {"seat", "trains"},
    "TtrGameScored": {"scores", "winners"},
    "TtrTurnPassed": {"seat"},
    "SubmitActionResponse": {"game", "view", "events", "version"},
    "ConcedeGameResponse": {"game", "view", "events"},
    "ListLegalActionsResponse": {"version", "actions"},
    "WatchGameResponse": {"version", "events", "snapshot"},
    # ListGames: the lobby lists games, their seats and options; never a view.
    "ListGamesResponse": {"games", "next_page_token"},
    # GetRuleset: the same for every caller, no game in it; its tickets are the whole pile, held by nobody.
    "GetRulesetResponse": {"ruleset", "etag", "ttr_europe", "language_code"},
    "Ruleset": {"id", "display_name", "min_seats", "max_seats", "rules_version", "options", "max_actions",
                "seat_ranges"},
    "RulesetOption": {"name", "description", "default_value", "allowed_values"},
    "SeatRange": {"min_seats", "max_seats", "required_options"},
    "RequiredOption": {"option", "value"},
    "TtrEuropeCatalog": {"view_box", "cities", "routes", "tickets", "route_points", "unused_station_points",
                         "european_express_bonus", "trains_per_player", "stations_per_player", "station_costs"},
    "TtrViewBox": {"min_x", "min_y", "width", "height"},
    "TtrCity": {"name", "label", "x", "y"},
    "TtrRoute": {"id", "city_a", "city_b", "color", "length", "tunnel", "ferry_locomotives", "double_route_id",
                 "points"},
    "TtrRoutePoints": {"length", "points"},
}
# Messages whose tickets are public: the final scores (every player shows his tickets at the end) and the
# catalog (the whole ticket pile, with no holder).
PUBLIC_TICKETS = ("TtrScore", "TtrEuropeCatalog")


def walk(message: Message) -> Iterator[tuple[Message, bool]]:
    """Every message nested in ``message``, itself included, with whether it lies where tickets are public
    (``PUBLIC_TICKETS``).

    Fails on any set field that ``PUBLIC_FIELDS`` does not classify."""
    yield from _walk(message, False)


def _walk(message: Message, scored: bool) -> Iterator[tuple[Message, bool]]:
    name = message.DESCRIPTOR.full_name.removeprefix("tabletop.v1.")
    yield message, scored
    for field, value in message.ListFields():
        assert field.name in PUBLIC_FIELDS.get(name, set()), f"unclassified field {name}.{field.name}"
        if field.message_type is None:
            continue
        for item in (value if field.is_repeated else [value]):
            yield from _walk(item, scored or name in PUBLIC_TICKETS)


def own_ticket_ids(stub, name: str, token: str) -> set[int]:  # type: ignore[no-untyped-def]
    private = stub.GetGame(svc.GetGameRequest(name=name), metadata=bearer(token)).view.ttr_europe.private
    return {t.id for t in private.tickets} | {t.id for t in private.offered_tickets}


def assert_no_leak(payload: Message, seat: int | None, allowed_tickets: set[int]) -> None:
    """No hidden fact of another seat in ``payload``: private parts, tickets (by message or by id), blind draws.

    Tickets become public in the final scores (every player reveals them at the end of the game)."""
    for m, scored in walk(payload):
        if isinstance(m, ttr_europe_pb2.TtrPrivate):
            assert seat is not None and m.seat == seat, f"seat {seat} received private part of seat {m.seat}"
        if isinstance(m, ttr_europe_pb2.TtrTicket) and not scored:
            assert m.id in allowed_tickets, f"seat {seat} received ticket {m.id} it does not hold"
        if isinstance(m, ttr_europe_pb2.TtrKeepTickets):
            assert set(m.ticket_ids) <= allowed_tickets, f"seat {seat} received ticket ids {list(m.ticket_ids)}"
        if isinstance(m, ttr_europe_pb2.TtrTrainCardDrawn) and m.seat != seat and not m.HasField("face_up_slot"):
            assert m.color == ttr_europe_pb2.TTR_COLOR_UNSPECIFIED, "a blind draw's colour leaked"


def test_no_seat_or_spectator_sees_another_seats_hand_or_tickets(stub) -> None:
    game, tokens = create_game(stub, seats=3, seed=77)
    name = game.name
    seen: dict[object, list[Message]] = {0: [], None: []}
    calls = {0: stub.WatchGame(svc.WatchGameRequest(name=name), metadata=bearer(tokens[0])),
             None: stub.WatchGame(svc.WatchGameRequest(name=name))}

    def consume(key: object) -> None:
        try:
            for message in calls[key]:
                seen[key].append(message)
        except grpc.RpcError:
            pass
    threads = [threading.Thread(target=consume, args=(k,)) for k in calls]
    for t in threads:
        t.start()
    rng = random.Random(8)
    errors: list[dict[str, str]] = []
    mine: set[int] = own_ticket_ids(stub, name, tokens[0])
    for _ in range(80):
        for seat, token in tokens.items():
            actions = stub.ListLegalActions(svc.ListLegalActionsRequest(name=name), metadata=bearer(token)).actions
            if not actions:
                continue
            if seat == 0:
                for a in actions:
                    assert_no_leak(a, 0, mine)
            reply = stub.SubmitAction(svc.SubmitActionRequest(name=name, action=rng.choice(actions)),
                                      metadata=bearer(token))
            if seat == 0:
                mine |= own_ticket_ids(stub, name, tokens[0])
                assert_no_leak(reply, 0, mine)
            break
        mine |= own_ticket_ids(stub, name, tokens[0])
        with pytest.raises(grpc.RpcError) as err:  # errors carry nothing of others either
            stub.SubmitAction(svc.SubmitActionRequest(name=name, action=game_pb2.Action(
                ttr_europe={"keep_tickets": {"ticket_ids": [1, 2, 3]}})), metadata=bearer(tokens[0]))
        errors.append(dict(error_info(err.value).metadata))
    # Seat 1 concedes (its offered tickets go back under the pile): its answer holds only its own.
    theirs = own_ticket_ids(stub, name, tokens[1])
    conceded = stub.ConcedeGame(svc.ConcedeGameRequest(name=name), metadata=bearer(tokens[1]))
    assert conceded.game.seats[1].conceded and conceded.game.status == game_pb2.GAME_STATUS_ACTIVE
    assert_no_leak(conceded, 1, theirs)
    assert_no_leak(stub.GetGame(svc.GetGameRequest(name=name), metadata=bearer(tokens[0])), 0, mine)
    assert_no_leak(stub.GetGameLog(svc.GetGameLogRequest(name=name), metadata=bearer(tokens[0])), 0, mine)
    spectator = stub.GetGame(svc.GetGameRequest(name=name))
    assert not spectator.view.ttr_europe.HasField("private")
    assert_no_leak(spectator, None, set())
    assert_no_leak(stub.GetGameLog(svc.GetGameLogRequest(name=name)), None, set())
    others = set().union(*(own_ticket_ids(stub, name, tokens[s]) for s in (1, 2))) - mine - {1, 2, 3}
    assert others
    for metadata in errors:
        assert not {str(t) for t in others} & set(" ".join(metadata.values()).replace(",", " ").split())
    for call in calls.values():
        call.cancel()
    for t in threads:
        t.join(10)
    assert seen[0] and seen[None]
    for message in seen[0]:
        assert_no_leak(message, 0, mine)
    for message in seen[None]:
        assert_no_leak(message, None, set())


def test_views_have_no_field_that_could_carry_the_deck_order() -> None:
    fields = {f.name for f in ttr_europe_pb2.TtrEuropeView.DESCRIPTOR.fields}
    assert "deck_count" in fields
    assert not {f for f in fields if "deck" in f} - {"deck_count"}


def test_the_catalog_shows_no_game_and_is_the_same_for_every_caller(stub) -> None:  # type: ignore[no-untyped-def]
    """GetRuleset is in the walk too: every field classified, no private part, and a player token changes
    nothing (it is not read), so no seat's hidden facts can reach it."""
    _, tokens = create_game(stub, seats=2, seed=78)
    request = svc.GetRulesetRequest(name="rulesets/ttr-europe")
    spectator = stub.GetRuleset(request)
    assert_no_leak(spectator, None, set())
    assert stub.GetRuleset(request, metadata=bearer(tokens[0])) == spectator


def test_the_lobby_lists_games_and_nothing_of_their_seats_hands(stub) -> None:  # type: ignore[no-untyped-def]
    """ListGames is in the walk too: a public game being played is listed with its seats and options only
    (no view, ticket, hand or token at any depth), the same for a spectator and for a seat."""
    game, tokens = create_game(stub, seats=2, seed=79, public=True)
    for _ in range(6):
        for token in tokens.values():
            actions = stub.ListLegalActions(svc.ListLegalActionsRequest(name=game.name), metadata=bearer(token)).actions
            if actions:
                stub.SubmitAction(svc.SubmitActionRequest(name=game.name, action=actions[0]), metadata=bearer(token))
    request = svc.ListGamesRequest(page_size=100, filter='ruleset = "ttr-europe"')  # BANG!'s walk is its own
    spectator = stub.ListGames(request)
    assert game.name in [g.name for g in spectator.games]
    assert_no_leak(spectator, None, set())
    seat = stub.ListGames(request, metadata=bearer(tokens[0]))
    assert_no_leak(seat, None, set())  # a seat's token does not make its own tickets appear either
    raw = spectator.SerializeToString() + seat.SerializeToString()
    assert not any(token.encode() in raw for token in tokens.values())
