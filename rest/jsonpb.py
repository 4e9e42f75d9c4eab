"""Proto3 JSON printing compiled per message type: the output of ``MessageToDict``, faster.

``json_format.MessageToDict`` re-inspects every field's descriptor on every call; on the
``:act`` hot path that walk cost more than the HTTP handling around it. Here each
message type gets, once, a table from field number to (JSON name, value converter);
printing is then one ``ListFields()`` (which already omits unset proto3 fields, exactly
as MessageToDict's defaults do) and a dict comprehension of precompiled converters.
Types with special JSON forms that are rare here (Struct, Value, Any, wrappers, floats)
fall back to ``json_format`` itself, so the output is always the mapping's; a test checks
equality with MessageToDict on real responses.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any

import orjson
from google.protobuf import json_format
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message

Converter = Callable[[Any], Any]
Printer = Callable[[Message], dict[str, Any]]


def to_dict(message: Message) -> Any:
    """The proto3 JSON object of ``message`` (as ``MessageToDict`` with default options)."""
    return printer(message.DESCRIPTOR)(message)  # type: ignore[arg-type]


def to_json(message: Message) -> bytes:
    """The compact proto3 JSON bytes of ``message``."""
    return orjson.dumps(to_dict(message))


def printer(descriptor: Descriptor) -> Converter:
    """The compiled printer of one message type (built once, then cached)."""
    found = _PRINTERS.get(descriptor.full_name)
    return found if found is not None else _compile(descriptor)


# Helpers

_PRINTERS: dict[str, Converter] = {}
_T = FieldDescriptor
_INT64 = {_T.TYPE_INT64, _T.TYPE_UINT64, _T.TYPE_SINT64, _T.TYPE_FIXED64, _T.TYPE_SFIXED64}
_PLAIN = {
    _T.TYPE_INT32,
    _T.TYPE_UINT32,
    _T.TYPE_SINT32,
    _T.TYPE_FIXED32,
    _T.TYPE_SFIXED32,
    _T.TYPE_BOOL,
    _T.TYPE_STRING,
}
# Well-known types whose JSON form is their ToJsonString().
_STRING_WKT = {"google.protobuf.Timestamp", "google.protobuf.Duration", "google.protobuf.FieldMask"}


def _compile(descriptor: Descriptor) -> Converter:
    name = descriptor.full_name
    if name in _STRING_WKT:
        _PRINTERS[name] = _wkt_string
        return _wkt_string
    if name.startswith("google.protobuf.") or descriptor.GetOptions().map_entry:
        _PRINTERS[name] = json_format.MessageToDict
        return json_format.MessageToDict
    table: dict[int, tuple[str, Converter | None]] = {}

    def print_message(message: Message) -> dict[str, Any]:
        out = {}
        for field, value in message.ListFields():
            key, convert = table[field.number]
            out[key] = value if convert is None else convert(value)
        return out

    _PRINTERS[name] = print_message  # registered before the fields: recursive types terminate
    for field in descriptor.fields:
        table[field.number] = (field.json_name, _field_converter(field))
    return print_message


def _field_converter(field: FieldDescriptor) -> Converter | None:
    """None when the value prints as itself (strings, bools, 32-bit integers)."""
    if field.message_type is not None and field.message_type.GetOptions().map_entry:
        return _map_converter(field)
    single = _single_converter(field)
    if not field.is_repeated:
        return None if single is _identity else single
    if single is _identity:
        return list
    return lambda values: [single(value) for value in values]


def _single_converter(field: FieldDescriptor) -> Converter:
    if field.message_type is not None:
        return printer(field.message_type)  # compiled now (or registered already: recursion)
    if field.type in _PLAIN:
        return _identity
    if field.type in _INT64:
        return str
    if field.enum_type is not None:
        names = {value.number: value.name for value in field.enum_type.values}
        return lambda number: names.get(number, number)
    if field.type == _T.TYPE_BYTES:
        return lambda value: base64.b64encode(value).decode("ascii")
    return _float_converter(field)


def _float_converter(field: FieldDescriptor) -> Converter:
    # NaN/Infinity strings and float32 shortest-repr rules: let json_format do it.
    json_printer = json_format._Printer()  # type: ignore[attr-defined]

    def convert(value: float) -> Any:
        return json_printer._FieldToJsonObject(field, value)

    return convert


def _map_converter(field: FieldDescriptor) -> Converter:
    entry = field.message_type
    assert entry is not None  # map fields are repeated map-entry messages
    key_field = entry.fields_by_name["key"]
    value_convert = _single_converter(entry.fields_by_name["value"])
    bool_keys = key_field.type == _T.TYPE_BOOL

    def convert(mapping: Any) -> dict[str, Any]:
        return {
            (("true" if key else "false") if bool_keys else str(key)): value_convert(mapping[key])
            for key in mapping
        }

    return convert


def _identity(value: Any) -> Any:
    return value


def _wkt_string(message: Any) -> str:
    return str(message.ToJsonString())
