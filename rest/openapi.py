"""The OpenAPI 3.1 document, generated from the contract's descriptors.

No schema here is written by hand for a message: every message reachable from the
routes (and every message of the tabletop.v1 files) becomes a schema named by its
full proto name, following the proto3 JSON mapping exactly as ``json_format`` prints
it: lowerCamelCase names, enums as their value names, 64-bit integers as decimal
strings, bytes as base64, Timestamps as RFC 3339 strings. Oneofs are listed in each
schema's ``x-oneofs`` and enforced with ``not: {required: [a, b]}`` pairs (at most
one member set). The only hand-written schema is the REST error envelope, which is
the facade's own (``rest/errors.py``).

Descriptions come from the protos' leading comments: the generated ``_pb2`` modules
carry no source info, so ``scripts/gen_protos.sh`` also writes ``rest/descriptors.binpb``
(a FileDescriptorSet of the tabletop.v1 files with source info), read once here. The
service comment opens ``info.description``, an rpc's comment its operation's, a
message's or enum's its schema's (enum values listed), a field's its property's (next
to a ``$ref`` where the field is a message or an enum, as OpenAPI 3.1 allows). Without
that file the document is the same minus those descriptions.
"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Mapping
from importlib import resources
from importlib.abc import Traversable
from itertools import combinations
from pathlib import Path
from typing import Any

import grpc
from google.protobuf import any_pb2, descriptor_pb2
from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor
from google.protobuf.message import DecodeError
from google.rpc import error_details_pb2

from tabletop_server.rest import openapi_rules
from tabletop_server.rest.cursors import CURSORS
from tabletop_server.rest.routes import SEGMENT_PATTERN, SERVICE, Route

Schema = dict[str, Any]
REF = "#/components/schemas/"
INT64_PATTERN = r"^-?[0-9]{1,19}$"
UINT64_PATTERN = r"^[0-9]{1,20}$"
ERROR_SCHEMA = "Error"
# The tabletop.v1 FileDescriptorSet with source info, written by scripts/gen_protos.sh.
DESCRIPTOR_SET: Traversable | Path = resources.files(__package__) / "descriptors.binpb"

log = logging.getLogger(__name__)


def build_openapi(
    routes: tuple[Route, ...],
    title: str = "Tabletop",
    version: str = "v1",
    comments: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """The OpenAPI document for ``routes``.

    ``comments`` maps full names to proto comments (see ``load_comments``); by default
    those of ``DESCRIPTOR_SET``.
    """
    notes = _Comments(proto_comments() if comments is None else comments)
    schemas: dict[str, Schema] = {}
    roots = [d for file in _package_files() for d in file.message_types_by_name.values()]
    roots += [r.method.input_type for r in routes] + [r.method.output_type for r in routes]
    roots += [cls.DESCRIPTOR for cls in _ERROR_DETAILS] + [any_pb2.Any.DESCRIPTOR]
    for descriptor in roots:
        _add_message(descriptor, schemas, notes)
    schemas[ERROR_SCHEMA] = _error_schema()
    paths: dict[str, dict[str, Any]] = {}
    for route in routes:
        if route.body == "*" and route.path_fields:
            _add_body_schema(route, schemas)
        paths.setdefault(route.openapi_path, {})[route.verb.lower()] = _operation(route, notes)
    rest_mapping = f"REST mapping of {SERVICE.full_name}, generated from its google.api.http rules."
    return {
        "openapi": "3.1.0",
        "info": {
            "title": title,
            "version": version,
            "description": _join(notes.get(SERVICE.full_name), rest_mapping),
        },
        "security": [{}, {"bearer": []}, {"apiKey": []}],
        "paths": paths,
        "components": {
            "schemas": dict(sorted(schemas.items())),
            "securitySchemes": {
                "bearer": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "A seat's player token (from CreateGame or JoinGame), or a signed-in "
                                   "player's JWT (the studio's, or a PlayerSession's access token); "
                                   "none = spectator.",
                },
                "apiKey": {"type": "apiKey", "in": "header", "name": "x-api-key"},
            },
        },
    }


def body_schema_name(route: Route) -> str:
    """The request body schema: the request message minus its path-bound fields."""
    full_name = route.method.input_type.full_name
    return f"{full_name}.Body" if route.path_fields else full_name


@functools.cache
def proto_comments() -> dict[str, str]:
    """The comments of ``DESCRIPTOR_SET``, read once (empty, with a warning, without it)."""
    return load_comments(DESCRIPTOR_SET)


def load_comments(source: Traversable | Path) -> dict[str, str]:
    """Leading comments of a FileDescriptorSet file, trimmed, by element full name.

    Keys: messages, enums, services (``tabletop.v1.Game``), fields and rpcs
    (``tabletop.v1.Game.version``, ``tabletop.v1.GameService.SubmitAction``) and enum values
    (``tabletop.v1.GameStatus.GAME_STATUS_ACTIVE``, scoped by their enum). A missing or
    unreadable file gives no comments: the document is then built without them.
    """
    try:
        descriptor_set = descriptor_pb2.FileDescriptorSet.FromString(source.read_bytes())
    except (OSError, DecodeError) as error:
        log.warning("no proto comments in the OpenAPI document: cannot read %s: %s", source, error)
        return {}
    comments: dict[str, str] = {}
    for file in descriptor_set.file:
        names = _element_names(file)
        for location in file.source_code_info.location:
            name = names.get(tuple(location.path))
            text = _trim(location.leading_comments)
            if name is not None and text:
                comments[name] = text
    return comments


# Helpers

_WELL_KNOWN: dict[str, Schema] = {
    "google.protobuf.Timestamp": {"type": "string", "format": "date-time"},
    "google.protobuf.Duration": {"type": "string", "pattern": r"^-?[0-9]+(\.[0-9]{1,9})?s$"},
    "google.protobuf.Any": {
        "type": "object",
        "properties": {"@type": {"type": "string"}},
        "required": ["@type"],
        "additionalProperties": True,
    },
    "google.protobuf.Struct": {"type": "object", "additionalProperties": True},
    "google.protobuf.Value": {},
    "google.protobuf.ListValue": {"type": "array"},
    "google.protobuf.Empty": {"type": "object", "additionalProperties": False},
    "google.protobuf.FieldMask": {"type": "string"},
}
_ERROR_DETAILS = (
    error_details_pb2.ErrorInfo,
    error_details_pb2.BadRequest,
    error_details_pb2.PreconditionFailure,
    error_details_pb2.RetryInfo,
)
_INT32 = {"type": "integer", "format": "int32", "minimum": -(2**31), "maximum": 2**31 - 1}
_UINT32 = {"type": "integer", "minimum": 0, "maximum": 2**32 - 1}
_FLOAT = {"oneOf": [{"type": "number"}, {"type": "string", "enum": ["NaN", "Infinity", "-Infinity"]}]}
_T = FieldDescriptor
_SCALARS: dict[int, Schema] = {
    _T.TYPE_INT32: _INT32,
    _T.TYPE_SINT32: _INT32,
    _T.TYPE_SFIXED32: _INT32,
    _T.TYPE_UINT32: _UINT32,
    _T.TYPE_FIXED32: _UINT32,
    _T.TYPE_INT64: {"type": "string", "format": "int64", "pattern": INT64_PATTERN},
    _T.TYPE_SINT64: {"type": "string", "format": "int64", "pattern": INT64_PATTERN},
    _T.TYPE_SFIXED64: {"type": "string", "format": "int64", "pattern": INT64_PATTERN},
    _T.TYPE_UINT64: {"type": "string", "format": "uint64", "pattern": UINT64_PATTERN},
    _T.TYPE_FIXED64: {"type": "string", "format": "uint64", "pattern": UINT64_PATTERN},
    _T.TYPE_BOOL: {"type": "boolean"},
    _T.TYPE_STRING: {"type": "string"},
    _T.TYPE_BYTES: {"type": "string", "contentEncoding": "base64"},
    _T.TYPE_FLOAT: _FLOAT,
    _T.TYPE_DOUBLE: _FLOAT,
}


def _package_files() -> list[Any]:
    package = SERVICE.file.package
    seen, stack, files = set(), [SERVICE.file], []
    while stack:
        file = stack.pop()
        if file.name in seen:
            continue
        seen.add(file.name)
        if file.package == package:
            files.append(file)
            stack.extend(file.dependencies)
    return files


class _Comments:
    """Proto comments by full name, as the schema builders read them."""

    def __init__(self, comments: Mapping[str, str]) -> None:
        self._comments = comments

    def get(self, full_name: str) -> str | None:
        return self._comments.get(full_name)

    def enum(self, enum: EnumDescriptor) -> str | None:
        """The enum's comment, then its values as a list when any value has a comment."""
        values = [(v.name, self._comments.get(f"{enum.full_name}.{v.name}")) for v in enum.values]
        listing = None
        if any(comment for _, comment in values):
            items = [f"- {name}: {comment}" if comment else f"- {name}" for name, comment in values]
            listing = "\n".join(item.replace("\n", "\n  ") for item in items)  # continuation lines
        return _join(self._comments.get(enum.full_name), listing)


_SOURCE_PATH = {  # field numbers of the descriptor.proto fields in SourceCodeInfo.Location.path
    "message_type": descriptor_pb2.FileDescriptorProto.MESSAGE_TYPE_FIELD_NUMBER,  # 4
    "enum_type": descriptor_pb2.FileDescriptorProto.ENUM_TYPE_FIELD_NUMBER,  # 5
    "service": descriptor_pb2.FileDescriptorProto.SERVICE_FIELD_NUMBER,  # 6
    "field": descriptor_pb2.DescriptorProto.FIELD_FIELD_NUMBER,  # 2
    "nested_type": descriptor_pb2.DescriptorProto.NESTED_TYPE_FIELD_NUMBER,  # 3
    "nested_enum": descriptor_pb2.DescriptorProto.ENUM_TYPE_FIELD_NUMBER,  # 4
    "value": descriptor_pb2.EnumDescriptorProto.VALUE_FIELD_NUMBER,  # 2
    "method": descriptor_pb2.ServiceDescriptorProto.METHOD_FIELD_NUMBER,  # 2
}


def _element_names(file: descriptor_pb2.FileDescriptorProto) -> dict[tuple[int, ...], str]:
    """Source location path -> full name, for every commentable element ``load_comments`` keeps."""
    names: dict[tuple[int, ...], str] = {}
    p = _SOURCE_PATH

    def enum(path: tuple[int, ...], proto: descriptor_pb2.EnumDescriptorProto, scope: str) -> None:
        full_name = f"{scope}.{proto.name}" if scope else proto.name
        names[path] = full_name
        for v, value in enumerate(proto.value):
            names[(*path, p["value"], v)] = f"{full_name}.{value.name}"

    def message(path: tuple[int, ...], proto: descriptor_pb2.DescriptorProto, scope: str) -> None:
        full_name = f"{scope}.{proto.name}" if scope else proto.name
        names[path] = full_name
        for j, field in enumerate(proto.field):
            names[(*path, p["field"], j)] = f"{full_name}.{field.name}"
        for k, nested in enumerate(proto.nested_type):
            message((*path, p["nested_type"], k), nested, full_name)
        for k, nested_enum in enumerate(proto.enum_type):
            enum((*path, p["nested_enum"], k), nested_enum, full_name)

    for i, message_proto in enumerate(file.message_type):
        message((p["message_type"], i), message_proto, file.package)
    for i, enum_proto in enumerate(file.enum_type):
        enum((p["enum_type"], i), enum_proto, file.package)
    for s, service in enumerate(file.service):
        service_name = f"{file.package}.{service.name}" if file.package else service.name
        names[(p["service"], s)] = service_name
        for m, method in enumerate(service.method):
            names[(p["service"], s, p["method"], m)] = f"{service_name}.{method.name}"
    return names


def _trim(comment: str) -> str:
    """A comment's text: one leading space dropped per line, trailing spaces and blank edges gone."""
    lines = [line.removeprefix(" ").rstrip() for line in comment.splitlines()]
    return "\n".join(lines).strip("\n")


def _join(*parts: str | None) -> str:
    """Description parts as paragraphs, empty ones left out (the proto comment goes first)."""
    return "\n\n".join(part for part in parts if part)


def _add_message(descriptor: Descriptor, schemas: dict[str, Schema], notes: _Comments) -> None:
    name = descriptor.full_name
    if name in schemas:
        return
    if name in _WELL_KNOWN:
        schemas[name] = dict(_WELL_KNOWN[name])
        return
    schemas[name] = {}  # placeholder: breaks recursion
    properties = {}
    for fd in descriptor.fields:
        properties[fd.json_name] = _field_schema(fd, schemas, notes)
    schema: Schema = {"type": "object", "properties": properties, "additionalProperties": False}
    required = openapi_rules.required(descriptor)
    if required:
        schema["required"] = required
    oneofs = [o for o in descriptor.oneofs if not _synthetic(o)]
    oneof_note = None
    if oneofs:
        groups = {o.name: [f.json_name for f in o.fields] for o in oneofs}
        schema["x-oneofs"] = groups
        oneof_note = "; ".join(f"at most one of {', '.join(m)} ({g})" for g, m in groups.items())
        exclusions = [
            {"not": {"required": list(pair)}} for m in groups.values() for pair in combinations(m, 2)
        ]
        if exclusions:
            schema["allOf"] = exclusions
    description = _join(notes.get(name), oneof_note)
    if description:
        schema["description"] = description
    schemas[name] = schema
    for nested in descriptor.nested_types:
        if not nested.GetOptions().map_entry:
            _add_message(nested, schemas, notes)
    for enum in descriptor.enum_types:
        _add_enum(enum, schemas, notes)


def _field_schema(fd: FieldDescriptor, schemas: dict[str, Schema], notes: _Comments) -> Schema:
    if fd.message_type is not None and fd.message_type.GetOptions().map_entry:
        value = fd.message_type.fields_by_name["value"]
        schema: Schema = {"type": "object", "additionalProperties": _single_schema(value, schemas, notes)}
    elif fd.is_repeated:
        schema = {"type": "array", "items": _single_schema(fd, schemas, notes)}
    else:
        schema = _single_schema(fd, schemas, notes)  # a fresh dict: a $ref may take a sibling description
    openapi_rules.annotate(schema, fd)  # the limits the server enforces, from the same annotations
    default = _proto3_default(fd)
    if default is not None and _admits(schema, default):
        schema["default"] = default
    description = notes.get(fd.full_name)
    if description:
        schema["description"] = description
    return schema


def _proto3_default(fd: FieldDescriptor) -> Any:
    """The value a field without presence has when proto3 JSON leaves it out (None: it has presence).

    proto3 JSON omits every field at its default (seat 0, false, "", the first enum value, an empty
    list), so a generated client must know the default to fill it in (issue 26: typescript-fetch gave
    ``undefined`` for seat 0, openapi-python-client ``Unset``)."""
    if fd.is_repeated:
        return {} if fd.message_type is not None and fd.message_type.GetOptions().map_entry else []
    if fd.has_presence:
        return None  # a message or a proto3 `optional`: absent means unset, not a value
    if fd.enum_type is not None:
        return fd.enum_type.values[0].name
    if fd.type in (_T.TYPE_INT64, _T.TYPE_SINT64, _T.TYPE_SFIXED64, _T.TYPE_UINT64, _T.TYPE_FIXED64):
        return "0"
    if fd.type == _T.TYPE_BOOL:
        return False
    if fd.type in (_T.TYPE_STRING, _T.TYPE_BYTES):
        return ""
    return 0


def _admits(schema: Schema, default: Any) -> bool:
    """Whether the field may be left at its default: not REQUIRED, and the default within its limits
    (a required field, or one whose default is refused, declares none)."""
    if "REQUIRED" in schema.get("x-field-behavior", ()):
        return False
    if isinstance(default, int) and not isinstance(default, bool) and (
            default < schema.get("minimum", default) or default > schema.get("maximum", default)):
        return False
    if isinstance(default, str) and (schema.get("minLength", 0) > len(default) or (
            "pattern" in schema and re.search(schema["pattern"], default) is None)):
        return False
    return not (isinstance(default, list) and schema.get("minItems", 0) > 0)


def _single_schema(fd: FieldDescriptor, schemas: dict[str, Schema], notes: _Comments) -> Schema:
    if fd.message_type is not None:
        _add_message(fd.message_type, schemas, notes)
        return {"$ref": REF + fd.message_type.full_name}
    if fd.enum_type is not None:
        _add_enum(fd.enum_type, schemas, notes)
        return {"$ref": REF + fd.enum_type.full_name}
    return dict(_SCALARS[fd.type])


def _add_enum(enum: EnumDescriptor, schemas: dict[str, Schema], notes: _Comments) -> None:
    if enum.full_name in schemas:
        return
    schema: Schema = {"type": "string", "enum": [v.name for v in enum.values]}
    description = notes.enum(enum)
    if description:
        schema["description"] = description
    schemas[enum.full_name] = schema


def _synthetic(oneof: Any) -> bool:
    # proto3 `optional` fields live in a one-member synthetic oneof named "_<field>".
    return len(oneof.fields) == 1 and oneof.name == "_" + oneof.fields[0].name


def _add_body_schema(route: Route, schemas: dict[str, Schema]) -> None:
    base = schemas[route.method.input_type.full_name]
    json_names = {route.method.input_type.fields_by_name[f].json_name for f in route.path_fields}
    body = {**base, "properties": {k: v for k, v in base["properties"].items() if k not in json_names}}
    if "required" in base:
        body["required"] = [k for k in base["required"] if k not in json_names]
    body["description"] = _join(
        base.get("description"), f"{route.method.input_type.full_name} without the path-bound fields."
    )
    schemas[body_schema_name(route)] = body


def _operation(route: Route, notes: _Comments) -> dict[str, Any]:
    mapping = (
        f"`{route.verb} {route.template}` (google.api.http"
        + (f', body "{route.body}"' if route.body else "")
        + f") on rpc {route.method.full_name}: {route.method.input_type.full_name} -> "
        + ("stream " if route.streaming else "")
        + f"{route.method.output_type.full_name}."
    )
    operation: dict[str, Any] = {
        "operationId": route.name,
        "tags": [SERVICE.name],
        "summary": f"{SERVICE.full_name}.{route.name}",
        "description": _join(notes.get(route.method.full_name), mapping),
        "parameters": _parameters(route, notes),
        "responses": _responses(route),
    }
    if route.body == "*":
        ref = {"$ref": REF + body_schema_name(route)}
        operation["requestBody"] = {"required": False, "content": {"application/json": {"schema": ref}}}
    return operation


def _parameters(route: Route, notes: _Comments) -> list[dict[str, Any]]:
    params: list[dict[str, Any]] = [
        {
            "name": p,
            "in": "path",
            "required": True,
            "schema": {"type": "string", "pattern": openapi_rules.path_pattern(route, var, f"^{SEGMENT_PATTERN}$")},
        }
        for var in route.path_variables
        for p in var.params
    ]
    seen = set()
    for param in route.query.values():
        if param.field.json_name not in seen:
            seen.add(param.field.json_name)
            query = {"name": param.field.json_name, "in": "query", "schema": _query_schema(param)}
            description = notes.get(param.field.full_name)
            if description:
                query["description"] = description
            params.append(query)
    headers = [("X-Request-Id", "Correlation id, forwarded to the service and echoed back.")]
    if route.idempotency_field:
        headers.append(
            ("Idempotency-Key", f"Sets `{route.idempotency_field}`: a repeat returns the first response.")
        )
    if route.if_match_field:
        headers.append(
            ("If-Match", f'Sets `{route.if_match_field}` from an ETag such as "12"; 412 when stale.')
        )
    if route.etag_path and route.verb == "GET" and not route.streaming:
        headers.append(("If-None-Match", "An ETag from an earlier read; 304 when unchanged."))
    if route.language_field:
        field = route.method.input_type.fields_by_name[route.language_field].json_name
        said = (f"Sets `{field}` when the query gives none: the most wanted language tag by quality (RFC 9110), "
                "such as `cs-CZ, en;q=0.8`; none valid is English.")
        headers.append(("Accept-Language", said))
    if route.streaming:
        cursor = CURSORS[route.name]
        field = route.method.input_type.fields_by_name[cursor.field].json_name
        headers.append(("Last-Event-ID", f"Resume after this {cursor.what} (overrides the {field} parameter)."))
    limits = {"Idempotency-Key": route.idempotency_field}
    params += [
        {"name": h, "in": "header", "description": d, "schema": openapi_rules.header_schema(route, limits.get(h))}
        for h, d in headers
    ]
    return params


def _query_schema(param: Any) -> Schema:
    single = (
        _single_schema(param.field, {}, _Comments({}))
        if param.field.enum_type is None
        else {"type": "string", "enum": [v.name for v in param.field.enum_type.values]}
    )
    single = {**single, **openapi_rules.value_keywords(param.field)}
    return {"type": "array", "items": single} if param.repeated else single


def _responses(route: Route) -> dict[str, Any]:
    response_ref = {"$ref": REF + route.method.output_type.full_name}
    if route.streaming:
        cursor = CURSORS[route.name]
        ok = {
            "description": (
                f"Server-Sent Events: `id: <{cursor.what}>`, `event: {' | '.join(cursor.events)}`, `data: <JSON of "
                f"the {route.method.output_type.full_name} schema>`; `: heartbeat` comments; `event: error` last "
                "on failure."
            ),
            "content": {"text/event-stream": {"schema": {"type": "string"}, "x-data-schema": response_ref}},
        }
    else:
        ok = {"description": "OK", "content": {"application/json": {"schema": response_ref}}}
    responses: dict[str, Any] = {"200": ok}
    headers: dict[str, Any] = {}
    if route.language_field and not route.streaming:
        headers["Vary"] = {"description": "`Authorization, Accept-Language`: the words follow the header, so a "
                                          "shared cache keeps the languages apart.", "schema": {"type": "string"}}
    if route.etag_path and not route.streaming:
        what = "A strong hash of the response, quoted (the `etag` field)." if route.public_etag else \
            "The game version, quoted."
        headers["ETag"] = {"description": what, "schema": {"type": "string"}}
        if route.verb == "GET":
            responses["304"] = {"description": "Not modified (If-None-Match matched the current ETag)."}
    if headers:
        ok["headers"] = headers
    responses["default"] = {
        "description": "An error (any gRPC status, mapped to HTTP generically).",
        "content": {"application/json": {"schema": {"$ref": REF + ERROR_SCHEMA}}},
    }
    return responses


def _error_schema() -> Schema:
    detail = {"$ref": REF + "google.protobuf.Any"}
    return {
        "type": "object",
        "required": ["error"],
        "additionalProperties": False,
        "properties": {
            "error": {
                "type": "object",
                "required": ["code", "status", "message", "reason", "details"],
                "additionalProperties": False,
                "properties": {
                    "code": {"type": "integer", "description": "The HTTP status."},
                    "status": {"type": "string", "enum": [c.name for c in grpc.StatusCode]},
                    "message": {"type": "string"},
                    "reason": {
                        "type": "string",
                        "description": "The ErrorInfo reason (UPPER_SNAKE), or empty.",
                    },
                    "details": {"type": "array", "items": detail},
                },
            }
        },
    }
