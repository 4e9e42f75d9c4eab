"""The producers' entry point: :func:`enqueue` one event for a player to every endpoint that wants it.

A producer (the player notifications) calls it with a payload already projected for the player's seat:
this module adds nothing from any game. The body sent is the Standard Webhooks shape
``{"type", "timestamp", "data": {"player_id", ...payload}}``, fixed at enqueue time so every retry sends
the same bytes. The ``webhook-id`` (``msg_`` and a digest of ``event_id``) is the same for every attempt
and every endpoint, so a receiver deduplicates on it; enqueueing an ``event_id`` again changes nothing
while its delivery is queued, dead, or sent within the last day (``queue.py``).
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

import orjson

from tabletop_server.service.config import Config
from tabletop_server.service.webhooks import endpoints
from tabletop_server.service.webhooks.queue import Message, Queue

MAX_PAYLOAD_BYTES = 65536
MAX_ID_LENGTH = 256
log = logging.getLogger("tabletop.webhooks")


class PayloadRefused(ValueError):
    """An event that cannot be sent (bad type, too large, not JSON): a producer's bug, never sent."""


async def enqueue(client: Any, config: Config, event_type: str, player_id: str, payload: Mapping[str, Any],
                  event_id: str, now: float | None = None) -> int:
    """Queue one event for ``player_id`` to every configured endpoint that wants ``event_type``.

    ``client`` is the store's Redis client (or a ``GameStore``); ``payload`` is what the player's seat
    may see, JSON-serialisable, at most 64 KiB. Returns how many endpoints it was queued for (0 when
    no endpoint wants it, or webhooks are off). Raises :class:`PayloadRefused` for a malformed event.
    An endpoint whose queue is full (``TABLETOP_WEBHOOK_MAX_PENDING``) drops it, logged and counted in
    ``tabletop_webhooks_dropped_total``.
    """
    wanted = [e for e in endpoints.configured(config) if e.wants(event_type)]
    if not wanted:
        _check(event_type, player_id, event_id)
        return 0
    message = build(event_type, player_id, payload, event_id, time.time() if now is None else now)
    redis = getattr(client, "client", client)  # a GameStore or its client
    queued = 0
    for endpoint in wanted:
        result = await Queue(redis, endpoint.name).enqueue(message, config.webhook_max_pending)
        if result < 0:
            DROPPED.setdefault(endpoint.name, 0)
            DROPPED[endpoint.name] += 1
            log.error("webhook endpoint %s has %d deliveries pending; event %s dropped", endpoint.name,
                      config.webhook_max_pending, message.id)
        queued += result > 0
    return queued


def build(event_type: str, player_id: str, payload: Mapping[str, Any], event_id: str, now: float) -> Message:
    """The message of one event: its id, and the body every attempt sends."""
    _check(event_type, player_id, event_id)
    stamp = datetime.fromtimestamp(now, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    try:
        body = orjson.dumps({"type": event_type, "timestamp": stamp,
                             "data": {**payload, "player_id": player_id}}).decode()
    except TypeError as exc:
        raise PayloadRefused(f"a {event_type} payload is not JSON: {exc}") from exc
    if len(body) > MAX_PAYLOAD_BYTES:
        raise PayloadRefused(f"a {event_type} payload is {len(body)} bytes; at most {MAX_PAYLOAD_BYTES}")
    return Message(message_id(event_id), event_type, player_id, body, now)


def message_id(event_id: str) -> str:
    """The ``webhook-id`` of an event: stable, and no hint of the producer's ids."""
    return "msg_" + hashlib.sha256(event_id.encode()).hexdigest()[:32]


# Dropped events per endpoint in this process (queue full), read by the metrics (``dispatcher.py``).
DROPPED: dict[str, int] = {}


# Helpers

def _check(event_type: str, player_id: str, event_id: str) -> None:
    if not endpoints.EVENT_TYPE.fullmatch(event_type):
        raise PayloadRefused(f"event type {event_type!r} is not lower-case dotted words (turn.started)")
    if not player_id or len(player_id) > MAX_ID_LENGTH:
        raise PayloadRefused("an event names its player (1 to 256 characters)")
    if not event_id or len(event_id) > MAX_ID_LENGTH:
        raise PayloadRefused("an event has an id (1 to 256 characters) that stays the same when it is retried")
