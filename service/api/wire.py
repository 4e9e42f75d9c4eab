"""Protobuf's wire format, the little of it the hot path writes by hand (``read_mask.Selection.build``).

A serialized message is the concatenation of its fields, each a key (field number and wire type) and a
value; a message-typed field's value is its length and the submessage's own bytes
(https://protobuf.dev/programming-guides/encoding/). Writing a response from its parts' serialized bytes
spares copying each part into the response before serializing it all again.
"""

from __future__ import annotations

VARINT, LENGTH_DELIMITED = 0, 2


def key(number: int, wire_type: int) -> bytes:
    """A field's key: its number and wire type."""
    return varint(number << 3 | wire_type)


def varint(value: int) -> bytes:
    """A non-negative integer as a base-128 varint."""
    if value < 0x80:
        return _SMALL[value]
    out = bytearray()
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def message_field(number: int, payload: bytes) -> bytes:
    """A message-typed field: ``number``'s key, the payload's length, the payload (a serialized message)."""
    return key(number, LENGTH_DELIMITED) + varint(len(payload)) + payload


# Helpers

_SMALL = tuple(bytes((i,)) for i in range(0x80))
