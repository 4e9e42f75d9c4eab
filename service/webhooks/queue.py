"""One endpoint's delivery queue in Redis: durable, claimed by one replica at a time, at least once.

Every key of an endpoint shares the hash tag ``{wh:<name>}``, so each script below touches one Redis
Cluster slot; nothing here ever meets a game's or a player's keys in a script. The keys:

- ``{wh:<name>}:msg``: hash, delivery id -> the message (JSON: type, player, the exact body sent,
  when it was queued, attempts so far, the last error). A delivery exists while its id is here.
- ``{wh:<name>}:due``: sorted set, id -> when its next attempt is due (epoch ms).
- ``{wh:<name>}:claimed``: sorted set, id -> the end of the lease of the replica delivering it. A replica
  that dies mid-delivery loses its lease, and the next claim takes the delivery over (``claim.lua``):
  the same id, so the receiver sees a duplicate with the same ``webhook-id`` at worst.
- ``{wh:<name>}:dead``: sorted set, id -> when it was given up (the dead-letter list; bodies stay in
  ``:msg`` until redelivered or trimmed).
- ``{wh:<name>}:sent``: sorted set, id -> when it was delivered; kept for a day so that a producer
  enqueueing the same event again (its own retry) changes nothing.
- ``{wh:<name>}:bucket``: the endpoint's rate bucket (tokens, last refill), shared by every replica.

A retry or a dead-letter move applies only while the caller still holds its claim (the lease it was
given), so a replica that stalled past its lease cannot undo the work of the one that took over.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from tabletop_server.service.store import resp

SENT_KEEP_MS = 24 * 3600 * 1000
SENT_MAX = 200_000

CLAIM = resp.Script((Path(__file__).with_name("claim.lua")).read_text())
# KEYS msg, due, sent, dead; ARGV id, message, now, max pending. 1 queued, 0 known already, -1 full.
ENQUEUE = resp.Script("""
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 or redis.call('ZSCORE', KEYS[3], ARGV[1]) then return 0 end
if redis.call('HLEN', KEYS[1]) - redis.call('ZCARD', KEYS[4]) >= tonumber(ARGV[4]) then return -1 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
return 1
""")
# KEYS msg, claimed, sent, due; ARGV id, now, keep since. 1 when this call settled it, 0 when done before.
ACK = resp.Script("""
local first = redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[4], ARGV[1])
redis.call('ZADD', KEYS[3], ARGV[2], ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', ARGV[3])
local extra = redis.call('ZCARD', KEYS[3]) - tonumber(ARGV[4])
if extra > 0 then redis.call('ZREMRANGEBYRANK', KEYS[3], 0, extra - 1) end
return first
""")
# KEYS claimed, due, msg; ARGV id, lease, next due, message. 1 applied, 0 the claim was lost.
RETRY = resp.Script("""
if tonumber(redis.call('ZSCORE', KEYS[1], ARGV[1])) ~= tonumber(ARGV[2]) then return 0 end
if redis.call('HEXISTS', KEYS[3], ARGV[1]) == 0 then redis.call('ZREM', KEYS[1], ARGV[1]) return 0 end
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
redis.call('HSET', KEYS[3], ARGV[1], ARGV[4])
return 1
""")
# KEYS claimed, dead, msg; ARGV id, lease, now, message, dead max. 1 applied, 0 the claim was lost.
BURY = resp.Script("""
if tonumber(redis.call('ZSCORE', KEYS[1], ARGV[1])) ~= tonumber(ARGV[2]) then return 0 end
if redis.call('HEXISTS', KEYS[3], ARGV[1]) == 0 then redis.call('ZREM', KEYS[1], ARGV[1]) return 0 end
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
redis.call('HSET', KEYS[3], ARGV[1], ARGV[4])
local extra = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[5])
if extra > 0 then
  for _, id in ipairs(redis.call('ZRANGE', KEYS[2], 0, extra - 1)) do redis.call('HDEL', KEYS[3], id) end
  redis.call('ZREMRANGEBYRANK', KEYS[2], 0, extra - 1)
end
return 1
""")
# KEYS dead, due, msg; ARGV id, now, message. 1 when it was dead and is queued again.
REVIVE = resp.Script("""
if redis.call('ZREM', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[3], ARGV[1], ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
return 1
""")


@dataclass(frozen=True)
class Message:
    """A queued delivery. ``body`` is sent byte for byte on every attempt (its signature covers it)."""

    id: str
    type: str
    player: str
    body: str
    queued: float  # epoch seconds: the retry horizon and the lag count from here
    attempts: int = 0
    error: str = ""

    def encode(self) -> bytes:
        return orjson.dumps({"id": self.id, "type": self.type, "player": self.player, "body": self.body,
                             "queued": self.queued, "attempts": self.attempts, "error": self.error})

    @staticmethod
    def decode(raw: bytes | str) -> Message:
        data = orjson.loads(raw)
        return Message(data["id"], data["type"], data["player"], data["body"], float(data["queued"]),
                       int(data.get("attempts", 0)), str(data.get("error", "")))


class Queue:
    """The queue of endpoint ``name`` over a store client (``redis_store.connect``)."""

    def __init__(self, client: Any, name: str) -> None:
        self.client, self.name = client, name
        tag = "{wh:" + name + "}"
        self.msg, self.due, self.claimed = f"{tag}:msg", f"{tag}:due", f"{tag}:claimed"
        self.dead, self.sent, self.bucket = f"{tag}:dead", f"{tag}:sent", f"{tag}:bucket"

    async def enqueue(self, message: Message, max_pending: int) -> int:
        """Queue ``message`` due now: 1 queued, 0 already queued or sent (a repeat), -1 the queue is full."""
        return int(await self.client.evalsha(ENQUEUE, [self.msg, self.due, self.sent, self.dead],
                                             [message.id, message.encode(), _ms(message.queued), max_pending]))

    async def claim(self, now: float, lease_end: int, batch: int, max_in_flight: int,
                    rate: float) -> list[Message]:
        """Deliveries for this replica (lease ``lease_end`` ms), within the endpoint's limits."""
        raw = await self.client.evalsha(CLAIM, [self.due, self.claimed, self.bucket, self.msg],
                                        [_ms(now), lease_end, batch, max_in_flight, rate])
        return [Message.decode(raw[i + 1]) for i in range(0, len(raw), 2)]

    async def ack(self, message_id: str, now: float) -> bool:
        """Delivered: True when this call settled it (False: another replica had, after a takeover)."""
        keep_since = _ms(now) - SENT_KEEP_MS
        return bool(await self.client.evalsha(ACK, [self.msg, self.claimed, self.sent, self.due],
                                              [message_id, _ms(now), keep_since, SENT_MAX]))

    async def retry(self, message: Message, lease: int, due: float) -> bool:
        """Try again at ``due`` (epoch s), keeping ``message``'s attempts and error; False: claim lost."""
        return bool(await self.client.evalsha(RETRY, [self.claimed, self.due, self.msg],
                                              [message.id, lease, _ms(due), message.encode()]))

    async def bury(self, message: Message, lease: int, now: float, dead_max: int) -> bool:
        """Give up: onto the dead-letter list (the oldest beyond ``dead_max`` go); False: claim lost."""
        return bool(await self.client.evalsha(BURY, [self.claimed, self.dead, self.msg],
                                              [message.id, lease, _ms(now), message.encode(), dead_max]))

    async def dead_letters(self, limit: int) -> list[Message]:
        """The newest ``limit`` dead deliveries, newest first."""
        ids = await self.client.execute("ZREVRANGE", self.dead, 0, limit - 1)
        if not ids:
            return []
        bodies = await self.client.execute("HMGET", self.msg, *ids)
        return [Message.decode(body) for body in bodies if body is not None]

    async def revive(self, message_id: str, now: float) -> bool:
        """A dead delivery queued again, due now, with a fresh retry horizon and the same id."""
        raw = await self.client.execute("HGET", self.msg, message_id)
        if raw is None:
            return False
        old = Message.decode(raw)
        fresh = Message(old.id, old.type, old.player, old.body, now, 0, "")
        return bool(await self.client.evalsha(REVIVE, [self.dead, self.due, self.msg],
                                              [message_id, _ms(now), fresh.encode()]))

    async def counts(self, now: float) -> tuple[int, int, float]:
        """(pending, dead, age in seconds of the oldest due delivery or 0): the gauges."""
        pending, dead, oldest = await self.client.pipeline(("HLEN", self.msg), ("ZCARD", self.dead),
                                                           ("ZRANGE", self.due, 0, 0, "WITHSCORES"))
        for reply in (pending, dead, oldest):
            if isinstance(reply, Exception):
                raise reply
        age = max(0.0, now - float(oldest[1]) / 1000) if oldest else 0.0
        return int(pending) - int(dead), int(dead), age


def _ms(seconds: float) -> int:
    return int(seconds * 1000)
