"""The OpenAPI 3.1 document, generated from the contract's descriptors.

No schema here is written by hand for a message: every message reachable from the
routes (and every message of the tabletop.v1 files) becomes a schema named by its
full proto name, following the proto3 JSON mapping exactly as ``json_format`` prints
it: lowerCamelCase names, enums as their value names, 64-bit integers as decimal
strings, bytes as base64, Timestamps as RFC 3339 strings. Oneofs are listed in each
schema's ``x-oneofs`` and enforced with ``not: {required: [a, b]}`` pairs (at most
one member set). The only hand-written schema is the REST error envelope, which is
the facade's own (``rest/errors.py``).
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

import grpc
from google.protobuf import any_pb2
from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor
from google.rpc import error_details_pb2

from rest.routes import SEGMENT_PATTERN, SERVICE, Route

Schema = dict[str, Any]
REF = "#/components/schemas/"
INT64_PATTERN = r"^-?[0-9]{1,19}$"
UINT64_PATTERN = r"^[0-9]{1,20}$"
ERROR_SCHEMA = "Error"


def build_openapi(routes: tuple[Route, ...], title: str = "Tabletop", version: str = "v1") -> dict[str, Any]:
    """The OpenAPI document for ``routes``."""
    schemas: dict[str, Schema] = {}
    roots = [d for file in _package_files() for d in file.message_types_by_name.values()]
    roots += [r.method.input_type for r in routes] + [r.method.output_type for r in routes]
    roots += [cls.DESCRIPTOR for cls in _ERROR_DETAILS] + [any_pb2.Any.DESCRIPTOR]
    for descriptor in roots:
        _add_message(descriptor, schemas)
    schemas[ERROR_SCHEMA] = _error_schema()
    paths: dict[str, dict[str, Any]] = {}
    for route in routes:
        if route.body == "*" and route.path_fields:
            _add_body_schema(route, schemas)
        paths.setdefault(route.openapi_path, {})[route.verb.lower()] = _operation(route)
    return {
        "openapi": "3.1.0",
        "info": {
            "title": title,
            "version": version,
            "description": f"REST mapping of {SERVICE.full_name}, generated from its google.api.http rules.",
        },
        "security": [{}, {"bearer": []}, {"apiKey": []}],
        "paths": paths,
        "components": {
            "schemas": dict(sorted(schemas.items())),
            "securitySchemes": {
                "bearer": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "A seat's player token (from CreateGame or JoinGame); none = spectator.",
                },
                "apiKey": {"type": "apiKey", "in": "header", "name": "x-api-key"},
            },
        },
    }


def body_schema_name(route: Route) -> str:
    """The request body schema: the request message minus its path-bound fields."""
    full_name = route.method.input_type.full_name
    return f"{full_name}.Body" if route.path_fields else full_name


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


def _add_message(descriptor: Descriptor, schemas: dict[str, Schema]) -> None:
    name = descriptor.full_name
    if name in schemas:
        return
    if name in _WELL_KNOWN:
        schemas[name] = dict(_WELL_KNOWN[name])
        return
    schemas[name] = {}  # placeholder: breaks recursion
    properties = {}
    for fd in descriptor.fields:
        properties[fd.json_name] = _field_schema(fd, schemas)
    schema: Schema = {"type": "object", "properties": properties, "additionalProperties": False}
    oneofs = [o for o in descriptor.oneofs if not _synthetic(o)]
    if oneofs:
        groups = {o.name: [f.json_name for f in o.fields] for o in oneofs}
        schema["x-oneofs"] = groups
        schema["description"] = "; ".join(f"at most one of {', '.join(m)} ({g})" for g, m in groups.items())
        exclusions = [
            {"not": {"required": list(pair)}} for m in groups.values() for pair in combinations(m, 2)
        ]
        if exclusions:
            schema["allOf"] = exclusions
    schemas[name] = schema
    for nested in descriptor.nested_types:
        if not nested.GetOptions().map_entry:
            _add_message(nested, schemas)
    for enum in descriptor.enum_types:
        _add_enum(enum, schemas)


def _field_schema(fd: FieldDescriptor, schemas: dict[str, Schema]) -> Schema:
    if fd.message_type is not None and fd.message_type.GetOptions().map_entry:
        value = fd.message_type.fields_by_name["value"]
        return {"type": "object", "additionalProperties": _single_schema(value, schemas)}
    single = _single_schema(fd, schemas)
    if fd.is_repeated:
        return {"type": "array", "items": single}
    return single


def _single_schema(fd: FieldDescriptor, schemas: dict[str, Schema]) -> Schema:
    if fd.message_type is not None:
        _add_message(fd.message_type, schemas)
        return {"$ref": REF + fd.message_type.full_name}
    if fd.enum_type is not None:
        _add_enum(fd.enum_type, schemas)
        return {"$ref": REF + fd.enum_type.full_name}
    return dict(_SCALARS[fd.type])


def _add_enum(enum: EnumDescriptor, schemas: dict[str, Schema]) -> None:
    schemas.setdefault(enum.full_name, {"type": "string", "enum": [v.name for v in enum.values]})


def _synthetic(oneof: Any) -> bool:
    # proto3 `optional` fields live in a one-member synthetic oneof named "_<field>".
    return len(oneof.fields) == 1 and oneof.name == "_" + oneof.fields[0].name


def _add_body_schema(route: Route, schemas: dict[str, Schema]) -> None:
    base = schemas[route.method.input_type.full_name]
    json_names = {route.method.input_type.fields_by_name[f].json_name for f in route.path_fields}
    body = {**base, "properties": {k: v for k, v in base["properties"].items() if k not in json_names}}
    body["description"] = f"{route.method.input_type.full_name} without the path-bound fields."
    schemas[body_schema_name(route)] = body


def _operation(route: Route) -> dict[str, Any]:
    operation: dict[str, Any] = {
        "operationId": route.name,
        "tags": [SERVICE.name],
        "summary": f"{SERVICE.full_name}.{route.name}",
        "description": (
            f"`{route.verb} {route.template}` (google.api.http"
            + (f', body "{route.body}"' if route.body else "")
            + f") on rpc {route.method.full_name}: {route.method.input_type.full_name} -> "
            + ("stream " if route.streaming else "")
            + f"{route.method.output_type.full_name}."
        ),
        "parameters": _parameters(route),
        "responses": _responses(route),
    }
    if route.body == "*":
        ref = {"$ref": REF + body_schema_name(route)}
        operation["requestBody"] = {"required": False, "content": {"application/json": {"schema": ref}}}
    return operation


def _parameters(route: Route) -> list[dict[str, Any]]:
    params: list[dict[str, Any]] = [
        {
            "name": p,
            "in": "path",
            "required": True,
            "schema": {"type": "string", "pattern": f"^{SEGMENT_PATTERN}$"},
        }
        for var in route.path_variables
        for p in var.params
    ]
    seen = set()
    for param in route.query.values():
        if param.field.json_name not in seen:
            seen.add(param.field.json_name)
            params.append({"name": param.field.json_name, "in": "query", "schema": _query_schema(param)})
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
    if route.streaming:
        headers.append(("Last-Event-ID", "Resume after this version (overrides the fromVersion parameter)."))
    params += [
        {"name": h, "in": "header", "description": d, "schema": {"type": "string"}} for h, d in headers
    ]
    return params


def _query_schema(param: Any) -> Schema:
    single = (
        _single_schema(param.field, {})
        if param.field.enum_type is None
        else {"type": "string", "enum": [v.name for v in param.field.enum_type.values]}
    )
    return {"type": "array", "items": single} if param.repeated else single


def _responses(route: Route) -> dict[str, Any]:
    response_ref = {"$ref": REF + route.method.output_type.full_name}
    if route.streaming:
        ok = {
            "description": (
                "Server-Sent Events: `id: <version>`, `event: <oneof member>`, `data: <JSON of the "
                f"{route.method.output_type.full_name} schema>`; `: heartbeat` comments; `event: error` last on failure."
            ),
            "content": {"text/event-stream": {"schema": {"type": "string"}, "x-data-schema": response_ref}},
        }
    else:
        ok = {"description": "OK", "content": {"application/json": {"schema": response_ref}}}
    responses: dict[str, Any] = {"200": ok}
    if route.etag_path and not route.streaming:
        ok["headers"] = {"ETag": {"description": "The game version, quoted.", "schema": {"type": "string"}}}
        if route.verb == "GET":
            responses["304"] = {"description": "Not modified (If-None-Match matched the current version)."}
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
