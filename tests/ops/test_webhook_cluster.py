"""Webhooks on a real three-master Redis Cluster: each script touches one hash tag (an endpoint's
``{wh:<name>}``, a player's ``{p:<id>}``), so the queue, the claim, the dead letters and the forwarding of
notifications run there as on one server. A game of two signed-in players is played; every notification
of theirs arrives at a loopback receiver that verifies each signature."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from tabletop.v1 import game_service_pb2 as svc
from tabletop.v1 import game_service_pb2_grpc, player_pb2

from tabletop_server.service.store.redis_store import connect
from tabletop_server.service.webhooks import outbox
from tabletop_server.service.webhooks.queue import Queue
from tests.conftest import start_grpc
from tests.helpers import bearer
from tests.jwks import session_key_pem
from tests.ops.cluster import RedisCluster3
from tests.service.test_my_games import eventually, legal, two_player_game
from tests.service.webhook_kit import LOOPBACK, endpoint_name, write_endpoints
from tests.webhook_receiver import Receiver


@pytest.fixture(scope="module")
def cluster() -> Iterator[RedisCluster3]:
    nodes = RedisCluster3()
    nodes.start()
    yield nodes
    nodes.stop()


def test_notifications_reach_the_receiver_through_a_cluster(cluster: RedisCluster3, tmp_path: Path) -> None:
    key = tmp_path / "session.pem"
    key.write_bytes(session_key_pem())
    receiver = Receiver().start()
    name = endpoint_name()
    path = write_endpoints(tmp_path, [{"name": name, "url": receiver.url, "secret": receiver.secret, "events": ["*"]}])
    server = start_grpc(cluster.url, session_key_file=str(key), guest_sessions=True, webhooks_file=path, **LOOPBACK)
    try:
        with grpc.insecure_channel(server.target) as channel:
            stub = game_service_pb2_grpc.GameServiceStub(channel)
            game, ann, bob = two_player_game(stub)
            rng = random.Random(3)
            for _ in range(8):
                mover = next((p for p in (ann, bob) if legal(stub, game, p)), None)
                if mover is None:
                    break
                stub.SubmitAction(svc.SubmitActionRequest(name=game, action=rng.choice(legal(stub, game, mover))),
                                  metadata=bearer(mover.access_token), timeout=10)

            def delivered() -> None:
                told = {p.player_id: stub.ListNotifications(player_pb2.ListNotificationsRequest(),
                                                            metadata=bearer(p.access_token)).notifications
                        for p in (ann, bob)}
                wanted = {outbox.message_id(f"{p}|{n.id}") for p, ns in told.items() for n in ns}
                assert wanted and wanted <= {d.id for d in receiver.accepted()}

            eventually(delivered, 20)
        assert all(d.verified for d in receiver.all())

        async def dead_letter_round_trip() -> bool:
            client = connect(cluster.url)
            try:
                queue = Queue(client, name)
                later = time.time() + 3600  # due in an hour: the server's dispatcher leaves it to this test
                message = outbox.build("game.finished", "p", {}, "cluster-dead", later)
                assert await queue.enqueue(message, 10) == 1
                lease = int((later + 60) * 1000)
                # Claiming as of an hour ahead also takes the retries the receiver's refusals scheduled meanwhile.
                claimed = [m for m in await queue.claim(later, lease, 100, 100, 0) if m.id == message.id]
                assert len(claimed) == 1
                assert await queue.bury(claimed[0], lease, later, 10)
                assert [m.id for m in await queue.dead_letters(5)] == [message.id]
                return await queue.revive(message.id, time.time())  # due now: the server delivers it
            finally:
                await client.close()

        assert asyncio.run(dead_letter_round_trip())
        eventually(lambda: _accepted(receiver, outbox.message_id("cluster-dead")), 20)
    finally:
        server.running.stop(0)
        receiver.stop()


def _accepted(receiver: Receiver, message_id: str) -> None:
    assert message_id in {d.id for d in receiver.accepted()}
