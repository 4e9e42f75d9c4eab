"""Partial responses (AIP-157): the fields of a SubmitActionResponse a request's ``read_mask`` asks for.

A client that keeps the game state itself (it watches the game, or applies its own events) needs
only the new version and the action's events. Building the game header and the caller's whole view
is most of the cost of answering (issue 29: about 0.09 ms of the action's CPU), so the host builds
only the top-level fields the mask names and trims below them only when a path goes deeper
(``game.status``). Every part still comes from the per-seat projections in ``convert``: a mask can
only leave fields out, never let another seat's facts in.

``version`` is always sent (it is what the client needs to send its next action, and REST's ETag).
Parsed masks are cached by their paths, so a client sending the same mask costs one dict look-up.

The response is written as protobuf's wire format from its parts' own serialized bytes (a message is
the concatenation of its fields): a part given to the response's constructor is copied before it is
serialized, which cost about a third of answering (issue 29). The bytes equal ``SerializeToString``'s
(fields in number order), which a test holds.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

from google.protobuf import field_mask_pb2
from tabletop.v1 import game_service_pb2 as svc

from tabletop_server.service.api import wire
from tabletop_server.service.api.errors import InvalidArgument, ServiceReason

MAX_PATHS = 16  # SubmitActionResponse has four fields; a mask longer than this is a mistake
ALWAYS = "version"


@dataclass(frozen=True)
class Selection:
    """The top-level fields to build, and the mask to trim them with when a path names a sub-field."""

    fields: frozenset[str]
    trim: field_mask_pb2.FieldMask | None = None

    def build(self, version: int, parts: dict[str, Callable[[], bytes | list[bytes]]]) -> bytes:
        """The serialized response: ``version`` and the wanted ``parts`` (each built only when wanted).

        A part gives its message serialized (``game``, ``view``), or a list of them (``events``)."""
        out: list[bytes] = []
        for name, key in _MESSAGE_FIELDS:
            if name in self.fields:
                made = parts[name]()
                for payload in made if isinstance(made, list) else (made,):
                    out += (key, wire.varint(len(payload)), payload)
        if version:  # proto3: a zero is not sent
            out += (_VERSION_KEY, wire.varint(version))
        raw = b"".join(out)
        if self.trim is None:
            return raw
        trimmed = svc.SubmitActionResponse(version=version)
        self.trim.MergeMessage(svc.SubmitActionResponse.FromString(raw), trimmed)
        return trimmed.SerializeToString()


_FIELDS = svc.SubmitActionResponse.DESCRIPTOR.fields_by_name
# The message fields in number order (as SerializeToString writes them), each with its length-delimited key.
_MESSAGE_FIELDS = tuple((f.name, wire.key(f.number, wire.LENGTH_DELIMITED))
                        for f in sorted(_FIELDS.values(), key=lambda f: f.number) if f.message_type is not None)
_VERSION_KEY = wire.key(_FIELDS[ALWAYS].number, wire.VARINT)
FULL = Selection(frozenset(f.name for f in svc.SubmitActionResponse.DESCRIPTOR.fields))


def selection(request: svc.SubmitActionRequest) -> Selection:
    """The request's selection (every field when it has no mask, or ``*``); INVALID_READ_MASK when a path
    names no field of the response (or goes through a repeated one) or there are over ``MAX_PATHS``."""
    if not request.HasField("read_mask"):
        return FULL
    return _parsed(tuple(request.read_mask.paths))


# Helpers

@functools.lru_cache(maxsize=256)
def _parsed(paths: tuple[str, ...]) -> Selection:
    if not paths or paths == ("*",):
        return FULL
    if len(paths) > MAX_PATHS:
        raise _invalid(f"A read_mask has at most {MAX_PATHS} paths, not {len(paths)}.")
    mask = field_mask_pb2.FieldMask(paths=paths)
    if "*" in paths or not mask.IsValidForDescriptor(svc.SubmitActionResponse.DESCRIPTOR):
        known = ", ".join(sorted(FULL.fields))
        raise _invalid(f"read_mask {','.join(paths)[:200]!r} names no field of SubmitActionResponse (its fields: "
                       f"{known}; a sub-field as game.status; '*' alone for all).")
    wanted = frozenset(p.split(".", 1)[0] for p in paths) | {ALWAYS}
    deep = any("." in p for p in paths)
    return Selection(wanted, mask if deep else None)


def _invalid(message: str) -> InvalidArgument:
    return InvalidArgument(ServiceReason.INVALID_READ_MASK, message, field="read_mask")
