"""Hidden information of BANG! with Dodge City through the real service: what one seat (or a spectator)
receives from views, SubmitAction's events, WatchGame, legal actions, the log and errors names no card
that the ruleset would not show that caller.

The ruleset's own projections are checked against an independent oracle in
``tests/games/bang/test_bang_strength_flow_hidden.py``; this test checks the service's plumbing around
them. (A finished game's log is public, docs/architecture.md; the log is read while the game runs.) It mirrors the game in-process (same options, seat count, seed and actions; the mirror's view is
compared with the server's at every step) and collects, for each caller, every card the ruleset shows
him at some point: his view, the projections of every event for him, his legal actions. Every string
anywhere in a payload the service sends him (the walk reads every field of every nested message, so a
new field cannot escape it) that is a card id must be one of those.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from google.protobuf.message import Message
from tabletop.v1 import bang_pb2, game_pb2
from tabletop.v1 import game_service_pb2 as svc

from tabletop_server.service.engine.ruleset import State
from tabletop_server.service.games import bang
from tabletop_server.service.games.bang.tables import CARDS
from tests.helpers import bearer, create_game, error_info

DODGE_CITY = game_pb2.GameOptions(bang=bang_pb2.BangOptions(expansions=[bang_pb2.BANG_EXPANSION_DODGE_CITY]))
ARMED = game_pb2.GameOptions(bang=bang_pb2.BangOptions(expansions=[bang_pb2.BANG_EXPANSION_ARMED_AND_DANGEROUS]))
BOTH = game_pb2.GameOptions(bang=bang_pb2.BangOptions(
    expansions=[bang_pb2.BANG_EXPANSION_DODGE_CITY, bang_pb2.BANG_EXPANSION_ARMED_AND_DANGEROUS]))


def strings(message: Message) -> Iterator[str]:
    """Every string value in ``message`` and the messages nested in it."""
    for field, value in message.ListFields():
        items = value if field.is_repeated else [value]
        if field.message_type is not None:
            if field.message_type.GetOptions().map_entry:
                items = [v for v in value.values()] if field.message_type.fields_by_name["value"].message_type \
                    else [str(v) for v in value.values()]
            for item in items:
                if isinstance(item, Message):
                    yield from strings(item)
                else:
                    yield item
        elif field.type == field.TYPE_STRING:
            yield from items


def cards_in(message: Message) -> set[str]:
    return {s for s in strings(message) if s in CARDS}


def shown_to(state: State, viewer: int | None, events: list[Any]) -> set[str]:
    """The cards the ruleset shows ``viewer`` now: his view, his legal actions, and the events projected for him."""
    out = cards_in(bang.view(state, viewer))
    if viewer is not None:
        for action in bang.legal_actions(state, viewer):
            out |= cards_in(bang.encode_action(action))
    for event in events:
        seen = bang.project(event, viewer)
        if seen is not None:
            out |= cards_in(bang.encode_event(seen))
    return out


@pytest.mark.rule("BANG-005")
@pytest.mark.parametrize(("seats", "seed", "options"), [(3, 51, DODGE_CITY), (5, 52, DODGE_CITY), (8, 53, DODGE_CITY),
                                                     (4, 54, ARMED), (8, 57, BOTH)],
                         ids=["dc-3", "dc-5", "dc-8", "ad-4", "dc+ad-8"])
def test_no_service_payload_shows_a_card_the_ruleset_hides(stub: Any, seats: int, seed: int,
                                                           options: game_pb2.GameOptions) -> None:
    game, tokens = create_game(stub, ruleset="bang", seats=seats, seed=seed, options=options)
    name = game.name
    mirror = bang.setup(bang.decode_options(options.bang), seats, seed)
    watchers: list[int | None] = [0, None]
    allowed: dict[int | None, set[str]] = {v: shown_to(mirror, v, bang.opening_events(mirror)) for v in watchers}
    assert len(allowed[0]) < 20 and len(allowed[None]) < 5, allowed  # the oracle hides the deck and the hands
    received: dict[int | None, list[Message]] = {v: [] for v in watchers}
    calls = {v: stub.WatchGame(svc.WatchGameRequest(name=name), metadata=bearer(tokens[v]) if v is not None else None)
             for v in watchers}

    def consume(v: int | None) -> None:
        try:
            for message in calls[v]:
                received[v].append(message)
        except grpc.RpcError:
            pass
    threads = [threading.Thread(target=consume, args=(v,)) for v in watchers]
    for t in threads:
        t.start()
    rng = random.Random(seed)
    for step in range(400):
        reply0 = stub.GetGame(svc.GetGameRequest(name=name), metadata=bearer(tokens[0]))
        assert reply0.view.bang == bang.view(mirror, 0)  # the mirror is the server's game
        received[0].append(reply0)
        received[None].append(stub.GetGame(svc.GetGameRequest(name=name)))
        if bang.is_over(mirror):
            break
        if step % 20 == 5:  # the log while the game runs (once it is over, the whole log is public)
            received[0].append(stub.GetGameLog(svc.GetGameLogRequest(name=name), metadata=bearer(tokens[0])))
            received[None].append(stub.GetGameLog(svc.GetGameLogRequest(name=name)))
        seat = bang.to_act(mirror)[0]
        listed = stub.ListLegalActions(svc.ListLegalActionsRequest(name=name), metadata=bearer(tokens[seat]))
        if seat == 0:
            received[0].append(listed)
        elif mirror["p"][0]["hand"]:  # a refused action of seat 0 (not his decision): its error names nothing hidden
            with pytest.raises(grpc.RpcError) as err:
                card = mirror["p"][0]["hand"][0]
                stub.SubmitAction(svc.SubmitActionRequest(name=name, action=game_pb2.Action(
                    bang=bang_pb2.BangAction(play=bang_pb2.BangPlayCard(card=card)))), metadata=bearer(tokens[0]))
            text = f"{err.value.details()} {' '.join(error_info(err.value).metadata.values())}"
            words = {w.strip(".,:;()[]'\"") for w in text.split()}
            assert not words & (set(CARDS) - allowed[0]), text
        action = rng.choice(listed.actions)
        reply = stub.SubmitAction(svc.SubmitActionRequest(name=name, action=action), metadata=bearer(tokens[seat]))
        events = bang.apply(mirror, seat, bang.decode_action(action.bang))
        for v in watchers:
            allowed[v] |= shown_to(mirror, v, events)
        if seat == 0:
            received[0].append(reply)
    assert bang.is_over(mirror), "the game did not end in 400 actions"
    time.sleep(0.5)  # the last events reach the watchers
    for call in calls.values():
        call.cancel()
    for t in threads:
        t.join(10)
    for v in watchers:
        assert len(received[v]) > 3
        for message in received[v]:
            leaked = cards_in(message) - allowed[v]
            assert not leaked, (v, type(message).__name__, sorted(leaked))


CATALOG_MESSAGES = {"GetRulesetResponse", "Ruleset", "RulesetOption", "SeatRange", "RequiredOption", "BangCatalog",
                    "BangCatalogCard", "BangCatalogCopy", "BangCard", "BangCatalogCharacter", "BangCatalogRole"}


def test_the_catalog_names_every_card_and_no_game(stub: Any) -> None:
    """GetRuleset is a payload too: it names every card of the deck (each printed card is public), but it
    holds no game (no view, player, hand or event message at any depth) and a seat's token changes nothing."""
    _, tokens = create_game(stub, "bang", seats=4, seed=54)
    request = svc.GetRulesetRequest(name="rulesets/bang")
    spectator = stub.GetRuleset(request)
    assert stub.GetRuleset(request, metadata=bearer(tokens[0])) == spectator
    assert cards_in(spectator) == set(CARDS)
    assert _message_names(spectator) <= CATALOG_MESSAGES


LOBBY_MESSAGES = {"ListGamesResponse", "Game", "Seat", "GameOptions", "BangOptions", "TtrEuropeOptions", "Timestamp",
                  "TurnTimer", "Deadline"}


def test_the_lobby_names_no_card(stub: Any) -> None:
    """ListGames is a payload too: a BANG! game in play is listed with its seats and options, and no card,
    role, view or token reaches the lobby, for a spectator or for a seat."""
    game, tokens = create_game(stub, "bang", seats=4, seed=55, public=True)
    for _ in range(8):
        for token in tokens.values():
            legal = stub.ListLegalActions(svc.ListLegalActionsRequest(name=game.name), metadata=bearer(token))
            if legal.actions:
                stub.SubmitAction(svc.SubmitActionRequest(name=game.name, action=legal.actions[0]),
                                  metadata=bearer(token))
                break
    for metadata in ((), bearer(tokens[0])):
        listed = stub.ListGames(svc.ListGamesRequest(filter='ruleset = "bang"', page_size=100), metadata=metadata)
        assert game.name in [g.name for g in listed.games]
        assert not cards_in(listed)
        assert _message_names(listed) <= LOBBY_MESSAGES
        assert not any(token.encode() in listed.SerializeToString() for token in tokens.values())


def _message_names(message: Message) -> set[str]:
    names = {message.DESCRIPTOR.name}
    for field, value in message.ListFields():
        if field.message_type is not None:
            for item in (value if field.is_repeated else [value]):
                names |= _message_names(item)
    return names
