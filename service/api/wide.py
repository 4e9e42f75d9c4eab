"""32-bit fields sent with wider values are refused, not cut (issue 26).

The protobuf wire format has one varint for int32 and int64 alike, and a parser reading a
varint into an int32 field keeps its low 32 bits: a ``seat_count`` of 2**32 + 4 arrives as 4
and creates a 4-seat game. The decoder parses a request that may hold such a value a second
time with its *wide twin*, the same message types with every 32-bit varint field (int32,
uint32, sint32, enums) widened to 64 bits, built once from the generated descriptors, and
compares: where the two disagree, a value was cut, and the request is refused with the
field's own reason (``INVALID_SEAT_COUNT``) or ``VALUE_OUT_OF_RANGE``, naming the field.

A varint of 2**32 or more needs five bytes with four continuation bits in a row, so requests
without four bytes of 0x80 or more in a row (nearly all) skip the second parse.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from google.protobuf.descriptor import Descriptor, FieldDescriptor, FileDescriptor
from google.protobuf.message import DecodeError, Message
from tabletop.v1 import field_rules_pb2

from tabletop_server.service.api.errors import InvalidArgument, ServiceReason

_F = descriptor_pb2.FieldDescriptorProto
_WIDER = {_F.TYPE_INT32: _F.TYPE_INT64, _F.TYPE_UINT32: _F.TYPE_UINT64, _F.TYPE_SINT32: _F.TYPE_SINT64,
          _F.TYPE_ENUM: _F.TYPE_INT64}
_RANGE = {FieldDescriptor.TYPE_INT32: (-2**31, 2**31 - 1), FieldDescriptor.TYPE_SINT32: (-2**31, 2**31 - 1),
          FieldDescriptor.TYPE_ENUM: (-2**31, 2**31 - 1), FieldDescriptor.TYPE_UINT32: (0, 2**32 - 1)}
_LONG_VARINT = re.compile(rb"[\x80-\xff]{4}")


def check(message: Message, raw: bytes) -> None:
    """Raise ``InvalidArgument`` when ``raw`` (parsed into ``message``) held a 32-bit field's value past 32 bits."""
    if _LONG_VARINT.search(raw) is None:
        return
    twin = _twin(message.DESCRIPTOR.full_name)
    try:
        wide = twin.FromString(raw)
    except DecodeError:
        return  # the ordinary parse accepted it; nothing wider to find
    if wide == twin.FromString(message.SerializeToString()):
        return
    found = _first_cut(wide, message.DESCRIPTOR, "")  # type: ignore[arg-type]  # upb's or the Python one
    if found is not None:
        path, value, field = found
        rules = field.GetOptions().Extensions[field_rules_pb2.rules]
        reason = rules.reason or ServiceReason.VALUE_OUT_OF_RANGE
        low, high = _RANGE[field.type]
        hint = f" {rules.hint}" if rules.hint else ""
        raise InvalidArgument(reason, f"`{path}` is {value}, outside the {low} to {high} of its type "
                              f"(it would have been cut to its low 32 bits).{hint}", field=path)


def _first_cut(wide: Message, original: Descriptor, prefix: str) -> tuple[str, int, FieldDescriptor] | None:
    """The first field of ``wide`` whose value does not fit the 32 bits of ``original``'s field."""
    for field, value in wide.ListFields():
        narrow = original.fields_by_name[field.name]
        path = prefix + field.name
        if narrow.message_type is not None and narrow.message_type.GetOptions().map_entry:
            continue  # no request of this API has a map with 32-bit keys or values
        items = list(value) if field.is_repeated else [value]
        if narrow.message_type is not None:
            for i, item in enumerate(items):
                found = _first_cut(item, narrow.message_type, f"{path}[{i}]." if field.is_repeated else f"{path}.")
                if found is not None:
                    return found
        elif narrow.type in _RANGE:
            low, high = _RANGE[narrow.type]
            for i, item in enumerate(items):
                if not low <= item <= high:
                    return (f"{path}[{i}]" if field.is_repeated else path), item, narrow
    return None


@functools.cache
def _twin(full_name: str) -> Any:
    """The wide twin's class of the message type ``full_name`` (of the default pool)."""
    original = descriptor_pool.Default().FindMessageTypeByName(full_name)
    pool = descriptor_pool.DescriptorPool()
    _add(pool, original.file, set())
    return message_factory.GetMessageClass(pool.FindMessageTypeByName(full_name))


def _add(pool: descriptor_pool.DescriptorPool, file: FileDescriptor, added: set[str]) -> None:
    if file.name in added:
        return
    added.add(file.name)
    for dependency in file.dependencies:
        _add(pool, dependency, added)
    proto = descriptor_pb2.FileDescriptorProto()
    file.CopyToProto(proto)
    for message in proto.message_type:
        _widen(message)
    pool.Add(proto)


def _widen(message: descriptor_pb2.DescriptorProto) -> None:
    for field in message.field:
        if field.type in _WIDER:
            field.type = _WIDER[field.type]
            field.ClearField("type_name")
            field.ClearField("default_value")
    for nested in message.nested_type:
        _widen(nested)
