"""The contract over Connect (JSON and binary) and gRPC-Web on the HTTP port, against the real server.

One game per protocol through every kind of call (create, join, legal actions, act, a
server stream, the log) and the errors: the service's own (same code and reason as over
gRPC, the details in Connect's error) and the facade's (malformed or oversized bodies,
unknown fields, bad tokens), none of which changes the game.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import grpc
import pytest
import requests
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from tabletop.v1 import game_service_pb2 as pb
from tabletop.v1 import game_service_pb2_grpc

from tabletop_server.rest.app import create_app
from tabletop_server.rest.connect import CODES
from tabletop_server.rest.server import HttpServer
from tabletop_server.service.api.metrics import Metrics
from tests.rest.conftest import SHAPES, serve_shape
from tests.rest.connect_wire import PROTOCOLS, ConnectWire, frame

MAX_BODY = 4096
ORIGIN = "http://frontend.test"


@pytest.fixture(scope="module")
def metrics() -> Metrics:
    return Metrics()


@pytest.fixture(scope="module", params=SHAPES)
def connect_server(grpc_server: Any, metrics: Metrics, request: pytest.FixtureRequest) -> Iterator[HttpServer]:
    """The HTTP server in each deployment shape: calling the service over a grpc.aio channel, or (as
    ``tabletop serve`` does) its handlers in process on the gRPC server's loop (``rest.local``; streams
    stay on gRPC)."""
    app = create_app(grpc_server.target, max_body_bytes=MAX_BODY, cors_origins=[ORIGIN])
    server = serve_shape(grpc_server, request.param, app, metrics=metrics)
    yield server
    server.close()


@pytest.fixture(params=PROTOCOLS)
def wire(request: pytest.FixtureRequest, connect_server: HttpServer) -> Iterator[ConnectWire]:
    client = ConnectWire(connect_server.url, request.param)
    yield client
    client.session.close()


def test_a_game_over_every_call(wire: ConnectWire, stub: game_service_pb2_grpc.GameServiceStub,
                                metrics: Metrics) -> None:
    rulesets = wire.call("ListRulesets", pb.ListRulesetsRequest(), pb.ListRulesetsResponse).one()
    assert "ttr-europe" in [ruleset.id for ruleset in rulesets.rulesets]  # type: ignore[attr-defined]
    name, tokens = _started_game(wire)
    seat, legal = _first_decider(wire, name, tokens)
    act = pb.SubmitActionRequest(name=name, action=legal.actions[0], expected_version=legal.version)
    acted = wire.call("SubmitAction", act, pb.SubmitActionResponse, tokens[seat]).one()
    assert acted.game.version == legal.version + 1 and acted.events  # type: ignore[attr-defined]

    watched = wire.stream("WatchGame", pb.WatchGameRequest(name=name, from_version=legal.version),
                          pb.WatchGameResponse, tokens[seat])
    assert watched.code == "ok" and len(watched.messages) == 1, (watched.code, watched.message)
    event = watched.messages[0]
    assert event.version == legal.version + 1 and event.events  # type: ignore[attr-defined]

    log = wire.call("GetGameLog", pb.GetGameLogRequest(name=name), pb.GetGameLogResponse, tokens[seat]).one()
    assert log.entries[-1].version == legal.version + 1 and log.entries[-1].seat == seat  # type: ignore[attr-defined]

    again = wire.call("SubmitAction", act, pb.SubmitActionResponse, tokens[seat])  # the same version again
    assert (again.code, again.reason) == ("failed_precondition", "STALE_VERSION")
    over_grpc = _grpc_error(lambda: stub.SubmitAction(act, metadata=[("authorization", f"Bearer {tokens[seat]}")]))
    assert again.code == CODES[over_grpc.code()].value
    assert again.message == over_grpc.details()
    assert [d.type_url for d in again.details] == [d.type_url for d in rpc_status.from_call(over_grpc).details]
    protocol = "grpc-web" if wire.protocol == "grpc-web" else "connect"
    counted = metrics.registry.get_sample_value("tabletop_connect_requests_total", {
        "method": "SubmitAction", "protocol": protocol, "code": "failed_precondition"})
    assert counted is not None and counted >= 1


def test_the_request_id_is_forwarded_and_echoed(wire: ConnectWire) -> None:
    reply = wire.call("ListRulesets", pb.ListRulesetsRequest(), pb.ListRulesetsResponse,
                      headers={"X-Request-Id": "connect-req-1"})
    assert reply.code == "ok" and reply.headers.get("x-request-id") == "connect-req-1"


@pytest.mark.parametrize("token", [None, "not-a-token"])
def test_a_wrong_or_missing_token_is_refused_as_over_grpc(wire: ConnectWire, token: str | None,
                                                          stub: game_service_pb2_grpc.GameServiceStub) -> None:
    name, tokens = _started_game(wire)
    _, legal = _first_decider(wire, name, tokens)
    act = pb.SubmitActionRequest(name=name, action=legal.actions[0], expected_version=legal.version)
    refused = wire.call("SubmitAction", act, pb.SubmitActionResponse, token)
    grpc_metadata = [("authorization", f"Bearer {token}")] if token else []
    over_grpc = _grpc_error(lambda: stub.SubmitAction(act, metadata=grpc_metadata))
    assert refused.code == CODES[over_grpc.code()].value and refused.code in ("unauthenticated", "permission_denied")
    assert refused.reason == _reason(over_grpc) and refused.reason
    assert _version(wire, name) == legal.version


BAD_BODIES = [
    ("connect-json", "application/json", b'{"name": ', "MALFORMED_JSON"),
    ("connect-json", "application/json", b'{"name": "games/x", "colour": 1}', "UNKNOWN_FIELD"),
    ("connect-json", "application/json", b'["not", "an", "object"]', "MALFORMED_JSON"),
    ("connect-proto", "application/proto", b"\xff\xff\xff", "MALFORMED_PROTOBUF"),
    ("grpc-web", "application/grpc-web+proto", frame(b"\x0a\xff"), "MALFORMED_PROTOBUF"),
    ("connect-json", "application/json", b'{"name": "' + b"x" * MAX_BODY + b'"}', "BODY_TOO_LARGE"),
    ("connect-proto", "application/proto", b"\x0a" + b"x" * MAX_BODY, "BODY_TOO_LARGE"),
    ("grpc-web", "application/grpc-web+proto", frame(b"x" * MAX_BODY), "BODY_TOO_LARGE"),
]


@pytest.mark.parametrize(("protocol", "content_type", "body", "reason"), BAD_BODIES,
                         ids=[f"{p}-{r}" for p, _, _, r in BAD_BODIES])
def test_bad_bodies_are_invalid_argument_and_change_nothing(connect_server: HttpServer, protocol: str,
                                                            content_type: str, body: bytes, reason: str) -> None:
    wire = ConnectWire(connect_server.url, protocol)
    name, tokens = _started_game(wire)
    seat, legal = _first_decider(wire, name, tokens)
    refused = wire.post("SubmitAction", body, pb.SubmitActionResponse, content_type, tokens[seat])
    assert (refused.code, refused.reason) == ("invalid_argument", reason), refused.message
    if protocol != "grpc-web":
        assert refused.http_status == 400
    assert _version(wire, name) == legal.version


def test_native_grpc_on_the_http_port_is_sent_to_the_grpc_port(connect_server: HttpServer) -> None:
    reply = requests.post(f"{connect_server.url}/tabletop.v1.GameService/ListRulesets", data=frame(b""), timeout=10,
                          headers={"Content-Type": "application/grpc"})
    assert reply.status_code == 415 and reply.json()["code"] == "unimplemented"
    assert "gRPC port" in reply.json()["message"]


def test_an_unknown_method_is_not_found(connect_server: HttpServer) -> None:
    reply = requests.post(f"{connect_server.url}/tabletop.v1.GameService/DeleteEverything", json={}, timeout=10)
    assert reply.status_code == 404


def test_cors_exposes_the_grpc_web_status_headers(connect_server: HttpServer) -> None:
    reply = requests.post(f"{connect_server.url}/tabletop.v1.GameService/ListRulesets", json={}, timeout=10,
                          headers={"Origin": ORIGIN, "Connect-Protocol-Version": "1"})
    assert reply.status_code == 200 and reply.headers["Access-Control-Allow-Origin"] == ORIGIN
    exposed = reply.headers["Access-Control-Expose-Headers"]
    assert all(header in exposed for header in ("grpc-status", "grpc-message", "grpc-status-details-bin"))


# Helpers

def _started_game(wire: ConnectWire) -> tuple[str, dict[int, str]]:
    """A two-seat TTR Europe game: created with one name, the other seat joined."""
    created = wire.call("CreateGame", pb.CreateGameRequest(ruleset="ttr-europe", seat_count=2, display_names=["ann"]),
                        pb.CreateGameResponse).one()
    name = created.game.name  # type: ignore[attr-defined]
    tokens = {0: created.credentials[0].player_token}  # type: ignore[attr-defined]
    joined = wire.call("JoinGame", pb.JoinGameRequest(name=name, display_name="bob"), pb.JoinGameResponse).one()
    tokens[joined.credential.seat] = joined.credential.player_token  # type: ignore[attr-defined]
    assert sorted(tokens) == [0, 1]
    return name, tokens


def _first_decider(wire: ConnectWire, name: str, tokens: dict[int, str]) -> tuple[int, Any]:
    for seat, token in tokens.items():
        legal = wire.call("ListLegalActions", pb.ListLegalActionsRequest(name=name), pb.ListLegalActionsResponse,
                          token).one()
        if legal.actions:  # type: ignore[attr-defined]
            return seat, legal
    raise AssertionError("no seat has a legal action")


def _version(wire: ConnectWire, name: str) -> int:
    game = wire.call("GetGame", pb.GetGameRequest(name=name), pb.GetGameResponse).one()
    return int(game.game.version)  # type: ignore[attr-defined]


def _grpc_error(call: Any) -> Any:
    with pytest.raises(grpc.RpcError) as raised:
        call()
    return raised.value


def _reason(error: Any) -> str:
    for detail in rpc_status.from_call(error).details:
        info = error_details_pb2.ErrorInfo()
        if detail.Unpack(info):
            return str(info.reason)
    return ""
