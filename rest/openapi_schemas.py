"""The OpenAPI document's schemas: one per proto message and enum, by the proto3 JSON mapping.

Every message becomes a schema named by its full proto name, exactly as ``json_format`` prints
it: lowerCamelCase names, enums as their value names, 64-bit integers as decimal strings, bytes
as base64, Timestamps as RFC 3339 strings (the well-known types have fixed schemas here). Oneofs
are listed in each schema's ``x-oneofs`` and enforced with ``not: {required: [a, b]}`` pairs (at
most one member set). Field limits come from ``rest/openapi_rules.py``, descriptions from
``rest/openapi_comments.py``; ``rest/openapi.py`` decides which messages are roots.
"""

from __future__ import annotations

import re
from itertools import combinations
from typing import Any

from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor

from tabletop_server.rest import openapi_rules
from tabletop_server.rest.openapi_comments import Comments, join
from tabletop_server.rest.routes import Route

Schema = dict[str, Any]
REF = "#/components/schemas/"
INT64_PATTERN = r"^-?[0-9]{1,19}$"
UINT64_PATTERN = r"^[0-9]{1,20}$"


def add_message(descriptor: Descriptor, schemas: dict[str, Schema], notes: Comments) -> None:
    """Add the schema of ``descriptor`` and of every message and enum it reaches, once each."""
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
    description = join(notes.get(name), oneof_note)
    if description:
        schema["description"] = description
    schemas[name] = schema
    for nested in descriptor.nested_types:
        if not nested.GetOptions().map_entry:
            add_message(nested, schemas, notes)
    for enum in descriptor.enum_types:
        _add_enum(enum, schemas, notes)


def single_schema(fd: FieldDescriptor, schemas: dict[str, Schema], notes: Comments) -> Schema:
    """One value of ``fd`` (an item of a list): a ``$ref`` for a message or an enum, else a scalar."""
    if fd.message_type is not None:
        add_message(fd.message_type, schemas, notes)
        return {"$ref": REF + fd.message_type.full_name}
    if fd.enum_type is not None:
        _add_enum(fd.enum_type, schemas, notes)
        return {"$ref": REF + fd.enum_type.full_name}
    return dict(_SCALARS[fd.type])


def body_schema_name(route: Route) -> str:
    """The request body schema: the request message minus its path-bound fields."""
    full_name = route.method.input_type.full_name
    return f"{full_name}.Body" if route.path_fields else full_name


def add_body_schema(route: Route, schemas: dict[str, Schema]) -> None:
    """Add the body schema of a ``body: "*"`` route with path fields (its request message already added)."""
    base = schemas[route.method.input_type.full_name]
    json_names = {route.method.input_type.fields_by_name[f].json_name for f in route.path_fields}
    body = {**base, "properties": {k: v for k, v in base["properties"].items() if k not in json_names}}
    if "required" in base:
        body["required"] = [k for k in base["required"] if k not in json_names]
    body["description"] = join(
        base.get("description"), f"{route.method.input_type.full_name} without the path-bound fields."
    )
    schemas[body_schema_name(route)] = body


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


def _field_schema(fd: FieldDescriptor, schemas: dict[str, Schema], notes: Comments) -> Schema:
    if fd.message_type is not None and fd.message_type.GetOptions().map_entry:
        value = fd.message_type.fields_by_name["value"]
        schema: Schema = {"type": "object", "additionalProperties": single_schema(value, schemas, notes)}
    elif fd.is_repeated:
        schema = {"type": "array", "items": single_schema(fd, schemas, notes)}
    else:
        schema = single_schema(fd, schemas, notes)  # a fresh dict: a $ref may take a sibling description
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


def _add_enum(enum: EnumDescriptor, schemas: dict[str, Schema], notes: Comments) -> None:
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
