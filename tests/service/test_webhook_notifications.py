"""Players' notifications become webhooks (issue 27): a real server with sessions and one webhook endpoint
(a real loopback receiver verifying every signature with ``standardwebhooks``), two players, a game played
to its end. Every notification in a player's inbox arrives as a webhook of the mapped type, under an id
derived from the notification, carrying exactly what ``ListNotifications`` shows that player; the payload
walk over every webhook body finds nothing hidden (it fails closed: a body that is not a
``PlayerNotification`` plus ``player_id`` fails to parse)."""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import Iterator

import grpc
import pytest
from google.protobuf import json_format
from tabletop.v1 import game_service_pb2 as svc
from tabletop.v1 import game_service_pb2_grpc, player_pb2

from tabletop_server.service.api import webhook_forward
from tabletop_server.service.store.player_index import PlayerIndex
from tabletop_server.service.store.redis_store import connect
from tabletop_server.service.webhooks import outbox
from tests.conftest import start_grpc
from tests.helpers import bearer
from tests.jwks import session_key_pem
from tests.service import test_hidden_information as walk_module
from tests.service.test_my_games import PLAYER_FIELDS, eventually, legal, two_player_game
from tests.service.webhook_kit import LOOPBACK, endpoint_name, private_redis, write_endpoints
from tests.webhook_receiver import Receiver

Stub = game_service_pb2_grpc.GameServiceStub
BOUND = 15.0


@pytest.fixture(scope="module")
def own_redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with private_redis(tmp_path_factory.mktemp("redis")) as url:  # see private_redis: no other test's server
        yield url


@pytest.fixture(scope="module")
def setup(own_redis: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Stub, Receiver, object]]:
    folder = tmp_path_factory.mktemp("webhook-notifications")
    key = folder / "session.pem"
    key.write_bytes(session_key_pem())
    receiver = Receiver().start()
    name = endpoint_name()
    path = write_endpoints(folder, [{"name": name, "url": receiver.url, "secret": receiver.secret, "events": ["*"]}])
    server = start_grpc(own_redis, session_key_file=str(key), guest_sessions=True, webhooks_file=path, **LOOPBACK)
    channel = grpc.insecure_channel(server.target)
    yield game_service_pb2_grpc.GameServiceStub(channel), receiver, server
    channel.close()
    server.running.stop(0)
    receiver.stop()


def notifications(stub: Stub, session: player_pb2.PlayerSession) -> list[player_pb2.PlayerNotification]:
    return list(stub.ListNotifications(player_pb2.ListNotificationsRequest(page_size=100),
                                       metadata=bearer(session.access_token), timeout=10).notifications)


def test_every_notification_arrives_as_a_webhook_with_what_the_player_may_see(
        setup: tuple[Stub, Receiver, object], monkeypatch: pytest.MonkeyPatch) -> None:
    stub, receiver, _ = setup
    monkeypatch.setattr(walk_module, "PUBLIC_FIELDS", {**walk_module.PUBLIC_FIELDS, **PLAYER_FIELDS})
    name, ann, bob = two_player_game(stub)
    rng = random.Random(27)
    for _ in range(16):
        mover = next((p for p in (ann, bob) if legal(stub, name, p)), None)
        if mover is None:
            break
        stub.SubmitAction(svc.SubmitActionRequest(name=name, action=rng.choice(legal(stub, name, mover))),
                          metadata=bearer(mover.access_token), timeout=10)
    stub.ConcedeGame(svc.ConcedeGameRequest(name=name), metadata=bearer(ann.access_token), timeout=10)

    def all_arrived() -> dict[str, list[player_pb2.PlayerNotification]]:
        told = {p.player_id: [n for n in notifications(stub, p) if n.game == name] for p in (ann, bob)}
        kinds = {n.kind for ns in told.values() for n in ns}
        assert player_pb2.NOTIFICATION_KIND_GAME_FINISHED in kinds
        received = {d.id for d in receiver.accepted()}
        wanted = {outbox.message_id(f"{p}|{n.id}") for p, ns in told.items() for n in ns}
        assert wanted <= received, f"{len(wanted - received)} notifications not delivered"
        return told

    told = eventually(all_arrived, BOUND)
    assert all(d.verified for d in receiver.all())
    bodies = {d.id: json.loads(d.body) for d in receiver.accepted()}
    kinds_seen = set()
    for player_id, ns in told.items():
        for n in ns:
            body = bodies[outbox.message_id(f"{player_id}|{n.id}")]
            expected = json_format.MessageToDict(n)
            expected.pop("read", None)
            assert body["data"] == {**expected, "player_id": player_id}
            assert body["type"] == webhook_forward.EVENT_TYPES[player_pb2.NotificationKind.Name(n.kind).removeprefix(
                "NOTIFICATION_KIND_")]
            kinds_seen.add(body["type"])
    assert {"turn.started", "game.finished"} <= kinds_seen
    for body in bodies.values():  # the payload walk over every webhook body this server sent
        assert set(body) == {"type", "timestamp", "data"}
        data = dict(body["data"])
        assert isinstance(data.pop("player_id"), str)
        parsed = json_format.ParseDict(data, player_pb2.PlayerNotification())  # fails on any other field
        walk_module.assert_no_leak(parsed, None, set())
        raw = json.dumps(body).encode()
        assert ann.access_token.encode() not in raw and bob.access_token.encode() not in raw


def test_forwarding_again_after_a_crash_sends_nothing_new(setup: tuple[Stub, Receiver, object],
                                                          own_redis: str) -> None:
    stub, receiver, server = setup
    name, _, bob = two_player_game(stub)

    def arrived() -> list[player_pb2.PlayerNotification]:
        ns = [n for n in notifications(stub, bob) if n.game == name]
        assert ns and {outbox.message_id(f"{bob.player_id}|{n.id}") for n in ns} <= {d.id for d in receiver.accepted()}
        return ns

    told = eventually(arrived, BOUND)
    ids = {outbox.message_id(f"{bob.player_id}|{n.id}") for n in told}
    before = sum(d.id in ids for d in receiver.all())
    config = server.config  # type: ignore[attr-defined]

    async def replay() -> int:
        client = connect(own_redis)
        try:
            index = PlayerIndex(client, 4, 100, 3600, 3600)
            again = await webhook_forward.forward(index, config, [bob.player_id])  # the cursor is past them
            await client.execute("DEL", webhook_forward.cursor_key(bob.player_id))  # as if it never moved
            return again + await webhook_forward.forward(index, config, [bob.player_id])
        finally:
            await client.close()

    requeued = asyncio.run(replay())
    assert requeued >= len(told)  # every notification handed to the queues again after the cursor was lost ...
    time.sleep(1.0)  # time enough for the server's dispatcher to send anything queued anew
    assert sum(d.id in ids for d in receiver.all()) == before  # ... and not one sent twice (same event ids)
