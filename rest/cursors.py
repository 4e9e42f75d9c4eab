"""Where each streaming route's stream is, and how it resumes there: the one thing ``rest.watch`` needs per stream.

``rest.watch`` serves every server-streaming route of the contract as Server-Sent Events with one
machinery (hubs, caps, heartbeats, resume). The streams differ only in their position:

- **WatchGame** (``GET /v1/{name=games/*}:watch``): a game version (an int). ``from_version`` and
  ``Last-Event-ID`` resume after it; 0 (the default) starts with a snapshot of the game.
- **WatchPlayer** (``GET /v1/players/me:watch``): a notification id of the player's inbox stream,
  ``<ms>-<seq>`` (a Redis stream id), compared as the pair of ints. ``after_id`` and
  ``Last-Event-ID`` resume after it; empty means *from now on*. The service names where "now" is
  in the stream's initial metadata (``tabletop-after-id``), so the facade sends it as the stream's
  first ``id:`` and an EventSource that reconnects before any notification still resumes exactly.

A streaming route the contract gains needs a cursor here: ``rest.app.create_app`` refuses to
build the app otherwise (a new stream is never silently unserved).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from google.protobuf.message import Message

from tabletop_server.rest.errors import Reason, bad_request
from tabletop_server.rest.transcode import parse_last_event_id

Position = Any  # int (a game version) or tuple[int, int] (a notification id); None: from now on
START_HEADER = "tabletop-after-id"  # WatchPlayer's initial metadata: the id its stream starts after
_STREAM_ID = re.compile(r"([0-9]{1,20})-([0-9]{1,20})")


@dataclass(frozen=True)
class Cursor:
    """One stream's positions: read from a message, from its request, from ``Last-Event-ID``, and written back."""

    field: str  # the request field the stream resumes after
    position: Callable[[Message], Position]  # of a streamed message
    requested: Callable[[Message], Position]  # the position a request asks to resume after (None: from now)
    parse: Callable[[str], Position]  # a Last-Event-ID (400 INVALID_HEADER when it is none of this stream's ids)
    value: Callable[[Position], Any]  # a position as the request field's value
    event_id: Callable[[Position], str]  # a position as an SSE ``id:``
    kind: Callable[[Message], str]  # the SSE ``event:`` of a message
    snapshot: Callable[[Message], bool]  # a message that replaces everything before it
    what: str = "version"  # what an ``id:`` is, for the OpenAPI document
    events: tuple[str, ...] = ("snapshot", "event")  # every ``event:`` name the stream sends
    start_header: str = ""  # initial metadata naming where a stream opened "from now on" starts


GAME = Cursor(
    field="from_version",
    position=lambda message: int(getattr(message, "version", 0)),
    requested=lambda request: int(getattr(request, "from_version", 0)),
    parse=parse_last_event_id,
    value=int,
    event_id=str,
    kind=lambda message: "snapshot" if _has_snapshot(message) else "event",
    snapshot=lambda message: _has_snapshot(message),
)


def stream_id(text: str) -> tuple[int, int]:
    """A notification id (``<ms>-<seq>``) as a comparable pair; 400 INVALID_HEADER when it is not one."""
    match = _STREAM_ID.fullmatch(text.strip())
    if match is None:
        raise bad_request(Reason.INVALID_HEADER, f"Last-Event-ID is the id of a notification this stream sent "
                          f"(such as 1733389200000-0), not {text.strip()[:48]!r}")
    return int(match.group(1)), int(match.group(2))


PLAYER = Cursor(
    field="after_id",
    position=lambda message: stream_id(message.notification.id),  # type: ignore[attr-defined]
    requested=lambda request: _after_id(request),
    parse=stream_id,
    value=lambda position: "" if position is None else f"{position[0]}-{position[1]}",
    event_id=lambda position: f"{position[0]}-{position[1]}",
    kind=lambda message: "notification",
    snapshot=lambda message: False,
    what="notification id",
    events=("notification",),
    start_header=START_HEADER,
)

CURSORS: dict[str, Cursor] = {"WatchGame": GAME, "WatchPlayer": PLAYER}


# Helpers

def _after_id(request: Message) -> Position:
    text = str(getattr(request, "after_id", ""))
    return stream_id(text) if text else None


def _has_snapshot(message: Message) -> bool:
    try:
        return message.HasField("snapshot")
    except ValueError:  # a streamed message without a snapshot field
        return False
