"""Hidden information through the real service: what one seat (or a spectator) receives never
holds another seat's hand or tickets, and the deck order is never sent.

Every payload a caller receives (views, events from SubmitAction and WatchGame, legal actions,
log, errors) is walked field by field: every ``TtrTicket`` in it must be one of the caller's own
tickets, and every ``TtrPrivate`` must be the caller's own.
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


def walk(message: Message) -> Iterator[Message]:
    """Every message nested in ``message``, itself included."""
    yield message
    for field, value in message.ListFields():
        if field.message_type is None:
            continue
        for item in (value if field.is_repeated else [value]):
            yield from walk(item)


def own_ticket_ids(stub, name: str, token: str) -> set[int]:  # type: ignore[no-untyped-def]
    private = stub.GetGame(svc.GetGameRequest(name=name), metadata=bearer(token)).view.ttr_europe.private
    return {t.id for t in private.tickets} | {t.id for t in private.offered_tickets}


def assert_no_leak(payload: Message, seat: int | None, allowed_tickets: set[int]) -> None:
    for m in walk(payload):
        if isinstance(m, ttr_europe_pb2.TtrPrivate):
            assert seat is not None and m.seat == seat, f"seat {seat} received private part of seat {m.seat}"
        if isinstance(m, ttr_europe_pb2.TtrTicket):
            assert m.id in allowed_tickets, f"seat {seat} received ticket {m.id} it does not hold"
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
