"""One client, one bucket, whichever door it uses (issue 26, item 3).

REST calls were counted as ``forwarded:<ip>`` and direct gRPC calls as ``ipv4:<ip>``, so one address
had twice the creation limits and rate buckets. Both now count as the bare address.
"""

from __future__ import annotations

from collections.abc import Iterator

import grpc
import pytest
import requests
from tabletop.v1 import game_service_pb2 as svc
from tabletop.v1 import game_service_pb2_grpc

from tabletop_server.rest.app import create_app, serve
from tabletop_server.service.api.limits import _client_address
from tests.conftest import start_grpc

SECRET = b"facade-secret"


@pytest.mark.parametrize(("peer", "forwarded"), [
    ("ipv4:203.0.113.7:51234", "203.0.113.7"),
    ("ipv6:[2001:db8::7]:51234", "2001:db8::7"),
    ("ipv6:[::ffff:203.0.113.7]:51234", "203.0.113.7"),
    ("ipv4:203.0.113.7:51234", "::ffff:203.0.113.7"),
])
def test_a_peer_and_the_same_address_forwarded_by_the_facade_are_one_key(peer: str, forwarded: str) -> None:
    direct = _client_address(peer, [], (), SECRET)
    via_facade = _client_address("ipv4:10.0.0.2:4000", [("x-forwarded-for", forwarded),
                                                        ("x-tabletop-proxy", SECRET.decode())], (), SECRET)
    assert direct == via_facade


@pytest.fixture()
def limited(redis_url: str) -> Iterator[tuple[str, str]]:
    server = start_grpc(redis_url, proxy_secret=SECRET.decode(), rate_limit_per_address=2.0)
    http = serve(create_app(server.target, proxy_secret=SECRET.decode()), "127.0.0.1", 0)
    yield server.target, http.url
    http.close(1)
    server.running.stop(0)


def test_rest_and_grpc_calls_of_one_address_share_its_rate_bucket(limited: tuple[str, str]) -> None:
    target, url = limited
    with grpc.insecure_channel(target) as channel:
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        for _ in range(2):  # the burst of 2, spent over gRPC
            stub.ListRulesets(svc.ListRulesetsRequest(), timeout=5)
    answer = requests.get(f"{url}/v1/rulesets", timeout=5)  # the same client at the REST door
    assert answer.status_code == 429 and answer.json()["error"]["reason"] == "RATE_LIMITED"
