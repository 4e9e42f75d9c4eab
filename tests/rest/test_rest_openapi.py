"""The REST surface is derived from the contract: routes, OpenAPI document, real responses."""

from __future__ import annotations

import json
from typing import Any

import pytest
from google.api import annotations_pb2
from jsonschema import Draft202012Validator
from openapi_spec_validator import validate
from tabletop.v1 import game_pb2, game_service_pb2
from werkzeug.datastructures import MultiDict

from rest.routes import ROUTES, build_routes
from rest.transcode import decode_request
from tests.rest.rest_api import Api, SseReader

SERVICE = game_service_pb2.DESCRIPTOR.services_by_name["GameService"]
EXPECTED_ROUTES = {
    ("GET", "/v1/rulesets"),
    ("POST", "/v1/games"),
    ("GET", "/v1/games/{game}"),
    ("POST", "/v1/games/{game}:join"),
    ("GET", "/v1/games/{game}:legalActions"),
    ("POST", "/v1/games/{game}:act"),
    ("GET", "/v1/games/{game}:watch"),
    ("GET", "/v1/games/{game}/log"),
}


@pytest.fixture(scope="module")
def spec(rest_server: Any) -> dict[str, Any]:
    return Api(rest_server.url).get("/openapi.json").json()  # type: ignore[no-any-return]


def test_routes_come_from_the_http_annotations() -> None:
    annotated = [m.name for m in SERVICE.methods if m.GetOptions().HasExtension(annotations_pb2.http)]
    assert [r.name for r in ROUTES] == annotated
    assert {(r.verb, r.openapi_path) for r in ROUTES} >= EXPECTED_ROUTES
    act = next(r for r in ROUTES if r.name == "SubmitAction")
    assert act.rule == "/v1/games/<segment:game>:act" and act.path_variables[0].template == "games/{game}"
    assert act.idempotency_field == "request_id" and act.if_match_field == "expected_version"


def test_openapi_is_valid_and_complete(spec: dict[str, Any]) -> None:
    validate(spec)
    assert spec["openapi"].startswith("3.1")
    paths = {(verb.upper(), path) for path, item in spec["paths"].items() for verb in item}
    assert paths >= EXPECTED_ROUTES
    schemas = spec["components"]["schemas"]
    for file in (game_pb2.DESCRIPTOR, game_service_pb2.DESCRIPTOR):
        for message in file.message_types_by_name.values():
            assert message.full_name in schemas, f"{message.full_name} has no schema"
    assert spec["components"]["securitySchemes"]["bearer"] == {
        **spec["components"]["securitySchemes"]["bearer"],
        "type": "http",
        "scheme": "bearer",
    }
    assert set(schemas["Error"]["properties"]["error"]["required"]) == {
        "code",
        "status",
        "message",
        "reason",
        "details",
    }
    for path, item in spec["paths"].items():
        for operation in item.values():
            assert "default" in operation["responses"], f"{path} documents no error response"


def test_schemas_follow_the_proto3_json_mapping(spec: dict[str, Any]) -> None:
    schemas = spec["components"]["schemas"]
    game = schemas["tabletop.v1.Game"]["properties"]
    assert game["version"]["type"] == "string" and game["version"]["format"] == "int64"  # int64 as string
    assert game["status"] == {"$ref": "#/components/schemas/tabletop.v1.GameStatus"}
    assert schemas["tabletop.v1.GameStatus"]["type"] == "string"
    assert "GAME_STATUS_ACTIVE" in schemas["tabletop.v1.GameStatus"]["enum"]
    assert game["createTime"] == {"$ref": "#/components/schemas/google.protobuf.Timestamp"}
    assert schemas["tabletop.v1.CreateGameRequest"]["properties"]["seed"]["type"] == "string"  # uint64
    assert "seatCount" in schemas["tabletop.v1.CreateGameRequest"]["properties"]  # lowerCamelCase
    action = schemas["tabletop.v1.Action"]
    assert action["x-oneofs"] == {"game": ["ttrEurope", "bang"]}
    assert {"not": {"required": ["ttrEurope", "bang"]}} in action["allOf"]
    body = schemas["tabletop.v1.SubmitActionRequest.Body"]["properties"]
    assert "name" not in body and "action" in body  # path-bound fields are not body fields
    for name, schema in schemas.items():
        for field, prop in schema.get("properties", {}).items():
            assert prop.get("type") != "integer" or prop.get("format") != "int64", f"{name}.{field}"


def test_oneof_exclusion_rejects_two_members(spec: dict[str, Any]) -> None:
    validator = _validator(spec, "tabletop.v1.Action")
    assert validator.is_valid({"ttrEurope": {"drawTickets": {}}})
    assert not validator.is_valid({"ttrEurope": {"drawTickets": {}}, "bang": {}})
    assert not _validator(spec, "tabletop.v1.TtrEuropeAction").is_valid(
        {"drawTickets": {}, "withdrawTunnel": {}}
    )


def test_real_responses_match_their_schemas(api: Api, spec: dict[str, Any]) -> None:
    """Every operation's real 200 body (and an error) validates against the generated schema."""

    def check(reply: Any, operation_id: str) -> None:
        assert reply.status_code == 200, reply.text
        _validator(spec, _response_schema(spec, operation_id)).validate(reply.json())

    check(api.get("/v1/rulesets"), "ListRulesets")
    created = api.post(
        "/v1/games", json={"ruleset": "ttr-europe", "seatCount": 2, "displayNames": ["a"], "seed": "5"}
    )
    check(created, "CreateGame")
    name, token = created.json()["game"]["name"], created.json()["credentials"][0]["playerToken"]
    joined = api.post(f"/v1/{name}:join", json={"displayName": "b"})
    check(joined, "JoinGame")
    tokens = {0: token, 1: joined.json()["credential"]["playerToken"]}
    check(api.get(f"/v1/{name}", tokens[1]), "GetGame")
    for token in tokens.values():
        legal = api.get(f"/v1/{name}:legalActions", token)
        check(legal, "ListLegalActions")
        if legal.json().get("actions"):
            check(
                api.post(f"/v1/{name}:act", token, json={"action": legal.json()["actions"][-1]}),
                "SubmitAction",
            )
    check(api.get(f"/v1/{name}/log", tokens[0]), "GetGameLog")
    error = api.post(f"/v1/{name}:act", json={})
    assert error.status_code >= 400
    _validator(spec, "Error").validate(error.json())
    reply = api.get(f"/v1/{name}:watch", tokens[0], stream=True, timeout=5)
    with reply:
        events = SseReader(reply).read(lambda item: item.comment is None)
    _validator(spec, "tabletop.v1.WatchGameResponse").validate(json.loads(events[-1].data))


# Helpers


def _response_schema(spec: dict[str, Any], operation_id: str) -> str:
    for item in spec["paths"].values():
        for operation in item.values():
            if operation["operationId"] == operation_id:
                ref: str = operation["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
                return ref.rsplit("/", 1)[-1]
    raise KeyError(operation_id)


def _validator(spec: dict[str, Any], schema_name: str) -> Draft202012Validator:
    root = {"$ref": f"#/components/schemas/{schema_name}", "components": spec["components"]}
    return Draft202012Validator(root, format_checker=Draft202012Validator.FORMAT_CHECKER)


def test_any_contract_derives_routes_not_just_this_one() -> None:
    """A synthetic service: two path variables, query fields of several types, an ETag field."""
    service = _synthetic_service()
    (route,) = build_routes(service)
    assert route.rule == "/v1/games/<segment:game>/players/<segment:player>"
    assert route.openapi_path == "/v1/games/{game}/players/{player}"
    assert route.path_variables[0].template == "games/{game}/players/{player}"
    assert set(route.query) == {"pageSize", "page_size", "tags", "verbose"}  # JSON and proto names
    assert route.query["tags"].repeated and route.query["verbose"].convert("true") is True
    assert route.etag_path == ("version",)
    message = decode_request(
        route, {"game": "g1", "player": "p2"}, MultiDict([("tags", "a"), ("tags", "b")]), b"", None
    )
    assert message.name == "games/g1/players/p2" and list(message.tags) == ["a", "b"]  # type: ignore[attr-defined]


def _synthetic_service() -> Any:
    from google.api import http_pb2
    from google.protobuf import descriptor_pb2, descriptor_pool

    pool = descriptor_pool.Default()
    try:
        return pool.FindServiceByName("synthtest.v1.Synth")
    except KeyError:
        pass
    field = descriptor_pb2.FieldDescriptorProto
    file = descriptor_pb2.FileDescriptorProto(
        name="synthtest/v1/synth.proto", package="synthtest.v1", syntax="proto3"
    )
    file.dependency.append("google/api/annotations.proto")
    request = file.message_type.add(name="GetPlayerRequest")
    for number, (name, kind, label) in enumerate(
        [
            ("name", field.TYPE_STRING, 1),
            ("page_size", field.TYPE_INT32, 1),
            ("tags", field.TYPE_STRING, 3),
            ("verbose", field.TYPE_BOOL, 1),
        ],
        start=1,
    ):
        json_name = name.split("_")[0] + "".join(part.title() for part in name.split("_")[1:])
        request.field.add(name=name, number=number, type=kind, label=label, json_name=json_name)
    player = file.message_type.add(name="Player")
    player.field.add(name="version", number=1, type=field.TYPE_INT64, label=1, json_name="version")
    method = file.service.add(name="Synth").method.add(
        name="GetPlayer", input_type=".synthtest.v1.GetPlayerRequest", output_type=".synthtest.v1.Player"
    )
    method.options.Extensions[annotations_pb2.http].CopyFrom(
        http_pb2.HttpRule(get="/v1/{name=games/*/players/*}")
    )
    pool.AddSerializedFile(file.SerializeToString())
    return pool.FindServiceByName("synthtest.v1.Synth")
