"""The REST surface is derived from the contract: routes, OpenAPI document, real responses."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from google.api import annotations_pb2
from google.protobuf import descriptor_pb2
from jsonschema import Draft202012Validator
from openapi_spec_validator import validate
from tabletop.v1 import (
    bang_pb2,
    field_rules_pb2,
    game_pb2,
    game_service_pb2,
    matchmaking_pb2,
    player_pb2,
    rating_pb2,
    ttr_europe_pb2,
)
from werkzeug.datastructures import MultiDict

from tabletop_server.rest import openapi
from tabletop_server.rest.routes import ROUTES, build_routes
from tabletop_server.rest.transcode import decode_request
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
PROTO_DIR = Path(__file__).resolve().parents[2] / "protos" / "tabletop" / "v1"
PB2_FILES = (bang_pb2.DESCRIPTOR, field_rules_pb2.DESCRIPTOR, game_pb2.DESCRIPTOR, game_service_pb2.DESCRIPTOR,
             matchmaking_pb2.DESCRIPTOR, player_pb2.DESCRIPTOR, rating_pb2.DESCRIPTOR, ttr_europe_pb2.DESCRIPTOR)


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
    assert _bare(game["status"]) == {"$ref": "#/components/schemas/tabletop.v1.GameStatus"}
    assert schemas["tabletop.v1.GameStatus"]["type"] == "string"
    assert "GAME_STATUS_ACTIVE" in schemas["tabletop.v1.GameStatus"]["enum"]
    assert _bare(game["createTime"]) == {"$ref": "#/components/schemas/google.protobuf.Timestamp"}
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
    check(api.get("/v1/rulesets/ttr-europe"), "GetRuleset")
    check(api.get("/v1/rulesets/bang"), "GetRuleset")
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


def test_operations_carry_the_rpc_comments(spec: dict[str, Any]) -> None:
    act = spec["paths"]["/v1/games/{game}:act"]["post"]
    comment, _, mapping = act["description"].partition("\n\n")
    assert comment == "Applies one action for the caller's seat."  # game_service.proto, above rpc SubmitAction
    assert mapping.startswith("`POST /v1/{name=games/*}:act` (google.api.http")  # the existing text stays
    assert act["summary"] == "tabletop.v1.GameService.SubmitAction"
    rpcs = _proto_comments()["rpc"]
    operations = {op["operationId"]: op for item in spec["paths"].values() for op in item.values()}
    assert set(operations) == {r.name for r in ROUTES}
    for name, operation in operations.items():
        assert operation["description"].startswith(rpcs[name] + "\n\n"), name


def test_info_description_carries_the_service_comment(spec: dict[str, Any]) -> None:
    description = spec["info"]["description"]
    assert description.startswith("GameService hosts turn-based games whose rules are evaluated on the server.")
    assert description.endswith("REST mapping of tabletop.v1.GameService, generated from its google.api.http rules.")


def test_schemas_and_properties_carry_the_proto_comments(spec: dict[str, Any]) -> None:
    schemas = spec["components"]["schemas"]
    game = schemas["tabletop.v1.Game"]
    assert game["description"] == "A hosted game."
    assert game["properties"]["version"]["description"] == "Rises by one with every accepted change; use it as an etag."
    assert game["properties"]["status"]["description"] == "Waiting, active or finished."  # next to a $ref
    assert game["properties"]["seats"]["description"] == "Every seat, in turn order."  # a repeated field
    options = schemas["tabletop.v1.TtrEuropeOptions"]
    assert options["description"] == "Options of a Ticket to Ride: Europe game."
    assert options["properties"]["tunnelFailureDiscards"]["description"] == (  # two comment lines, trimmed
        "House rule: cards played for a tunnel that is not paid are discarded\n"
        "(the seed text) instead of going back to the hand (the official rule)."
    )
    assert schemas["tabletop.v1.TtrPayment"]["properties"]["color"]["description"] == (
        "The colour of the coloured cards; unspecified when only locomotives are given."
    )
    status = schemas["tabletop.v1.GameStatus"]["description"]
    assert status.startswith("Where a game is in its life.\n\n")
    assert "\n- GAME_STATUS_ACTIVE: Every seat is filled and play is under way." in status
    action = schemas["tabletop.v1.Action"]["description"]  # the oneof note follows the comment
    assert action == "An action, typed per ruleset.\n\nat most one of ttrEurope, bang (game)"
    body = schemas["tabletop.v1.SubmitActionRequest.Body"]["description"]
    assert body == "Request for SubmitAction.\n\ntabletop.v1.SubmitActionRequest without the path-bound fields."
    watch = spec["paths"]["/v1/games/{game}:watch"]["get"]["parameters"]
    from_version = next(p for p in watch if p["name"] == "fromVersion")
    assert from_version["description"].startswith("Stream the events of every version after this one")


def test_every_commented_proto_element_has_its_description(spec: dict[str, Any]) -> None:
    """Read independently of rest/openapi.py: `//` lines directly above an element in the .proto text."""
    schemas = spec["components"]["schemas"]
    expected = _proto_comments()
    assert len(expected["message"]) > 50 and len(expected["field"]) > 150 and len(expected["enum"]) > 5
    for name, comment in expected["message"].items():
        description = schemas[f"tabletop.v1.{name}"].get("description", "")
        assert description == comment or description.startswith(comment + "\n\n"), name
    for (message, field), comment in expected["field"].items():
        assert schemas[f"tabletop.v1.{message}"]["properties"][field].get("description") == comment, (
            f"{message}.{field}"
        )
    for name, comment in expected["enum"].items():
        assert schemas[f"tabletop.v1.{name}"].get("description", "").startswith(comment), name


def test_descriptor_set_is_there_and_matches_the_stubs() -> None:
    """rest/descriptors.binpb (scripts/gen_protos.sh) is the stubs' contract plus source info."""
    path = openapi.DESCRIPTOR_SET
    assert path.is_file(), f"{path} is missing: run scripts/gen_protos.sh and commit it"
    shipped = descriptor_pb2.FileDescriptorSet.FromString(path.read_bytes())
    files = {f.name: f for f in shipped.file}
    assert set(files) == {f.name for f in PB2_FILES}
    for file in PB2_FILES:
        proto = files[file.name]
        assert len(proto.source_code_info.location) > 10, f"{file.name} has no source info"
        proto.ClearField("source_code_info")
        stub = descriptor_pb2.FileDescriptorProto.FromString(file.serialized_pb)
        assert _without_json_names(proto) == _without_json_names(stub), f"{file.name} is stale"


@pytest.mark.parametrize("content", [None, b"\xff not a descriptor set"])
def test_without_a_readable_descriptor_set_the_document_has_no_proto_comments(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, content: bytes | None
) -> None:
    broken = tmp_path / "descriptors.binpb"
    if content is not None:
        broken.write_bytes(content)
    monkeypatch.setattr(openapi, "DESCRIPTOR_SET", broken)
    openapi.proto_comments.cache_clear()
    try:
        document = openapi.build_openapi(ROUTES)
    finally:
        openapi.proto_comments.cache_clear()  # the next reader loads the real file again
    validate(document)
    assert document["info"]["description"].startswith("REST mapping of")
    assert document["paths"]["/v1/games/{game}:act"]["post"]["description"].startswith("`POST ")
    schemas = document["components"]["schemas"]
    assert "description" not in schemas["tabletop.v1.Game"]
    assert "description" not in schemas["tabletop.v1.Game"]["properties"]["version"]
    assert schemas["tabletop.v1.Action"]["description"] == "at most one of ttrEurope, bang (game)"


# Helpers


def _bare(schema: dict[str, Any]) -> dict[str, Any]:
    """A property's schema without its description and field behaviours (``test_rest_field_rules.py``)."""
    return {k: v for k, v in schema.items() if k not in ("description", "readOnly", "x-field-behavior", "default")}


def _without_json_names(file: descriptor_pb2.FileDescriptorProto) -> descriptor_pb2.FileDescriptorProto:
    copy = descriptor_pb2.FileDescriptorProto()
    copy.CopyFrom(file)
    for extension in copy.extension:
        extension.ClearField("json_name")
    stack = list(copy.message_type)
    while stack:
        message = stack.pop()
        for field in message.field:
            field.ClearField("json_name")
        stack.extend(message.nested_type)
    return copy


_FIELD_LINE = re.compile(r"^\s+(?:optional |repeated )?(?:map<[\w., ]+>|[\w.]+) (\w+) = \d+")


def _proto_comments() -> dict[str, dict[Any, str]]:
    """Comments directly above top-level messages, enums, rpcs, and the fields of top-level messages."""
    found: dict[str, dict[Any, str]] = {"message": {}, "enum": {}, "rpc": {}, "field": {}}
    for path in sorted(PROTO_DIR.glob("*.proto")):
        comment: list[str] = []
        blocks: list[str] = []  # the kinds of the open { } blocks
        message = ""
        for line in path.read_text().splitlines():
            stripped = line.strip()
            text = "\n".join(comment)
            # directly in a top-level message or its oneofs, not in a nested enum or message
            in_message = blocks[:1] == ["message"] and set(blocks[1:]) <= {"oneof"}
            if stripped.startswith("//"):
                comment.append(stripped[2:].removeprefix(" ").rstrip())
                continue
            if top := re.match(r"(message|enum) (\w+) \{", line):
                message = top[2] if top[1] == "message" else ""
                if text:
                    found[top[1]][top[2]] = text
            elif rpc := re.match(r"\s+rpc (\w+)\(", line):
                if text:
                    found["rpc"][rpc[1]] = text
            elif (field := _FIELD_LINE.match(line)) and text and in_message:
                json_name = re.sub(r"_(.)", lambda m: m[1].upper(), field[1])
                found["field"][(message, json_name)] = text
            if stripped.endswith("{"):
                blocks.append(stripped.split()[0])
            if stripped.startswith("}"):
                blocks.pop()
            comment = []
    return found


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
    assert route.rule == "/v1/games/<inner:game>/players/<segment:player>"  # ":" only where no verb can follow
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
