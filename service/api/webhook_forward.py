"""Players' notifications to the webhook queues (issue 27): the bridge from the inbox to push.

A notification is made by the player index's scripts on the player's slot (``{p:<id>}``); the webhook
queues live under ``{wh:<endpoint>}``: different Redis Cluster slots, so no script can do both. The
bridge is a per-player cursor ``{p:<id>}:webhooks``, the last inbox id handed to the webhooks:

1. after the indexer applies a batch of entries (and after a DEADLINE_NEAR), :func:`forward` reads each
   player's notifications after the cursor (one script on the player's slot), queues each as a webhook
   (``outbox.enqueue``, ``event_id`` = ``<player>|<notification id>``: the same notification queued again
   changes nothing), then moves the cursor forward (never back);
2. the indexer acknowledges its marks only after that, so a replica that dies anywhere in between leaves
   a mark that another replica drains again: its apply changes nothing, but its forward finds the
   notifications still after the cursor and queues them. Nothing is lost and a repeat is a no-op.

The body is the notification as the contract shows it to the player (``PlayerNotification``: its id,
kind, game, and the player's ``PlayerGame``: the game's public message and the player's own seat), so a
webhook tells the studio exactly what ``ListNotifications`` tells the player, and nothing more. A player
without a cursor (webhooks just turned on) is forwarded at most an hour back.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable
from typing import Any

from google.protobuf import json_format

from tabletop_server.service.api import inbox
from tabletop_server.service.config import Config
from tabletop_server.service.store import keys, resp
from tabletop_server.service.store.player_index import PlayerIndex
from tabletop_server.service.webhooks import endpoints, outbox

EVENT_TYPES = {"TURN_STARTED": "turn.started", "DEADLINE_NEAR": "turn.deadline_near", "INVITED": "game.invited",
               "GAME_FINISHED": "game.finished", "REMATCH_ASKED": "game.rematch_asked",
               "TICKET_SEATED": "ticket.seated"}
BATCH = 100
FIRST_LOOK_BACK_SECONDS = 3600

# KEYS inbox stream, cursor. ARGV floor id (no cursor yet), count. Returns {cursor, entries after it}.
READ = resp.Script("""
local cursor = redis.call('GET', KEYS[2]) or ARGV[1]
return {cursor, redis.call('XRANGE', KEYS[1], '(' .. cursor, '+', 'COUNT', ARGV[2])}
""")
# KEYS cursor. ARGV id, ttl s. Moves the cursor to id unless it is already there or later.
ADVANCE = resp.Script("""
local function parts(id)
  local ms, seq = string.match(id, '^(%d+)-(%d+)$')
  return tonumber(ms), tonumber(seq)
end
local current = redis.call('GET', KEYS[1])
if current then
  local a, b = parts(current)
  local c, d = parts(ARGV[1])
  if a > c or (a == c and b >= d) then return 0 end
end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
return 1
""")


def cursor_key(player_id: str) -> str:
    """The player's webhook cursor (the last inbox id queued as a webhook)."""
    return keys.player(player_id, "webhooks")


async def forward(index: PlayerIndex, config: Config, player_ids: Iterable[str], now: float | None = None) -> int:
    """Queue every notification of ``player_ids`` not yet handed to the webhooks; how many were queued.
    Nothing is read when no webhook endpoint is configured."""
    if not endpoints.configured(config):
        return 0
    floor = f"{int(((time.time() if now is None else now) - FIRST_LOOK_BACK_SECONDS) * 1000)}-0"
    counts = await asyncio.gather(*(_forward_one(index, config, p, floor) for p in set(player_ids)))
    return sum(counts)


# Helpers

async def _forward_one(index: PlayerIndex, config: Config, player_id: str, floor: str) -> int:
    queued = 0
    while True:
        _, items = await index.client.evalsha(READ, [keys.player(player_id, "inbox"), cursor_key(player_id)],
                                              [floor, BATCH])
        if not items:
            return queued
        last = ""
        for entry_id, fields in (_item(item) for item in items):
            await _queue(index.client, config, player_id, entry_id, fields)
            queued, last = queued + 1, entry_id
        await index.client.evalsha(ADVANCE, [cursor_key(player_id)], [last, index.key_ttl])
        if len(items) < BATCH:
            return queued


async def _queue(client: Any, config: Config, player_id: str, entry_id: str, fields: dict[str, bytes]) -> None:
    kind = fields.get("k", b"").decode()
    event_type = EVENT_TYPES.get(kind)
    if event_type is None:  # a kind this release does not know: not sent, rather than sent unprojected
        return
    message = inbox.notification(entry_id, fields)
    payload = json_format.MessageToDict(message)
    payload.pop("read", None)
    await outbox.enqueue(client, config, event_type, player_id, payload, f"{player_id}|{entry_id}")


def _item(item: Any) -> tuple[str, dict[str, bytes]]:
    """``(id, fields)`` of a raw stream entry (``[id, [k, v, ...]]``) or redis-py's ``(id, {k: v})``."""
    entry_id, raw = item
    text = entry_id.decode() if isinstance(entry_id, bytes) else str(entry_id)
    if isinstance(raw, dict):
        return text, {_text(k): bytes(v) for k, v in raw.items()}
    return text, {_text(raw[i]): bytes(raw[i + 1]) for i in range(0, len(raw), 2)}


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, (bytes, bytearray)) else str(value)
