"""Matchmaking tickets in Redis (issue 28, docs/matchmaking.md): durable, seated exactly once.

A queue is a ruleset with its options; every key of a queue shares the hash tag ``{mq:<queue>}``, so
each script below runs on one Redis Cluster slot:

- ``meta``: the queue's ruleset and options (JSON), written once;
- ``t:<ticket>``: one ticket (JSON), kept ``ticket_ttl`` seconds after it is made;
- ``waiting``: sorted set, ticket id -> the ms it was made (oldest first);
- ``players``: hash, player id -> the player's waiting ticket (one per player per queue);
- ``games``: hash, game id -> the seating (JSON) of a game the matcher seated but may not have
  created yet: whoever looks at the queue next creates it (compare-and-set from version 0, so a
  game is created once however many replicas try), then drops the entry. A seating the rules refuse
  to deal (:data:`DROP`) cancels its tickets rather than stop the queue.

:data:`SEAT` moves a group of tickets from waiting to seated in one step, only if every one of them
is still waiting and the players all differ: two matchers racing over one queue (a lease that ran
out under a stalled replica) cannot seat a ticket twice or one player twice in a game.
"""

from __future__ import annotations

from typing import Any

import orjson

from tabletop_server.service.store import keys, resp

# KEYS: ticket key, waiting zset, players hash. ARGV: 1 ticket id, 2 JSON, 3 created ms, 4 player, 5 ttl s.
# Returns the player's waiting ticket id when he has one (nothing added), else "".
ADD = resp.Script("""
local old = redis.call('HGET', KEYS[3], ARGV[4])
if old and redis.call('ZSCORE', KEYS[2], old) then return old end
redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[5])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
redis.call('HSET', KEYS[3], ARGV[4], ARGV[1])
return ''
""")
# KEYS: waiting zset, players hash, games hash, then one ticket key per ticket. ARGV: 1 game id,
# 2 seating JSON, 3 now ms, then per ticket: id, player, seat. 1: seated; 0: one was not waiting
# any more (cancelled, seated by another matcher) or a player came twice: nothing written.
SEAT = resp.Script("""
local n = #KEYS - 3
local seen = {}
for i = 1, n do
  local id, player = ARGV[3 + 3 * i - 2], ARGV[3 + 3 * i - 1]
  if not redis.call('ZSCORE', KEYS[1], id) or seen[player] then return 0 end
  seen[player] = true
end
for i = 1, n do
  local id, player, seat = ARGV[3 + 3 * i - 2], ARGV[3 + 3 * i - 1], ARGV[3 + 3 * i]
  local t = cjson.decode(redis.call('GET', KEYS[3 + i]))
  t['state'], t['game'], t['seat'], t['updated'] = 'SEATED', ARGV[1], tonumber(seat), tonumber(ARGV[3])
  redis.call('SET', KEYS[3 + i], cjson.encode(t), 'KEEPTTL')
  redis.call('ZREM', KEYS[1], id)
  redis.call('HDEL', KEYS[2], player)
end
redis.call('HSET', KEYS[3], ARGV[1], ARGV[2])
return 1
""")
# KEYS: ticket key, waiting zset, players hash. ARGV: 1 ticket id, 2 player, 3 now ms. The ticket after.
CANCEL = resp.Script("""
local raw = redis.call('GET', KEYS[1])
if not raw then return false end
if redis.call('ZREM', KEYS[2], ARGV[1]) == 0 then return raw end
local t = cjson.decode(raw)
if t['state'] ~= 'WAITING' then return raw end
t['state'], t['updated'] = 'CANCELLED', tonumber(ARGV[3])
if redis.call('HGET', KEYS[3], ARGV[2]) == ARGV[1] then redis.call('HDEL', KEYS[3], ARGV[2]) end
raw = cjson.encode(t)
redis.call('SET', KEYS[1], raw, 'KEEPTTL')
return raw
""")

# KEYS: games hash, then one ticket key per ticket. ARGV: 1 game id, 2 now ms. A seating that can never be
# created: its tickets still seated in that game are CANCELLED (their players may ask again) and it is dropped.
DROP = resp.Script("""
for i = 2, #KEYS do
  local raw = redis.call('GET', KEYS[i])
  if raw then
    local t = cjson.decode(raw)
    if t['state'] == 'SEATED' and t['game'] == ARGV[1] then
      t['state'], t['game'], t['seat'], t['updated'] = 'CANCELLED', nil, nil, tonumber(ARGV[2])
      redis.call('SET', KEYS[i], cjson.encode(t), 'KEEPTTL')
    end
  end
end
redis.call('HDEL', KEYS[1], ARGV[1])
return 1
""")


class Tickets:
    """The queues' reads and writes over a store client (``redis_store.connect``)."""

    def __init__(self, client: Any, ttl: int) -> None:
        self.client, self.ttl = client, ttl

    async def describe(self, queue_id: str, meta: dict[str, Any]) -> None:
        """Name the queue's ruleset and options (once: the same queue id always means the same)."""
        await self.client.execute("SET", keys.queue(queue_id, "meta"), orjson.dumps(meta), "NX")

    async def meta(self, queue_id: str) -> dict[str, Any] | None:
        raw = await self.client.execute("GET", keys.queue(queue_id, "meta"))
        return orjson.loads(raw) if raw else None

    async def add(self, queue_id: str, ticket_id: str, ticket: dict[str, Any], now_ms: int) -> str:
        """Put a waiting ticket in the queue; the player's waiting ticket id instead if he has one."""
        old = await self.client.evalsha(ADD, [keys.queue(queue_id, f"t:{ticket_id}"), keys.queue(queue_id, "waiting"),
                                              keys.queue(queue_id, "players")],
                                        [ticket_id, orjson.dumps(ticket), now_ms, ticket["player"], self.ttl])
        return _text(old) if old else ""

    async def get(self, queue_id: str, ticket_id: str) -> dict[str, Any] | None:
        raw = await self.client.execute("GET", keys.queue(queue_id, f"t:{ticket_id}"))
        return orjson.loads(raw) if raw else None

    async def cancel(self, queue_id: str, ticket_id: str, player: str, now_ms: int) -> dict[str, Any] | None:
        raw = await self.client.evalsha(CANCEL, [keys.queue(queue_id, f"t:{ticket_id}"), keys.queue(queue_id, "waiting"),
                                                 keys.queue(queue_id, "players")], [ticket_id, player, now_ms])
        return orjson.loads(raw) if raw else None

    async def waiting(self, queue_id: str, count: int, start: int = 0) -> list[dict[str, Any]]:
        """``count`` waiting tickets, oldest first, from the ``start``-th oldest (an expired one is dropped)."""
        ids = [_text(i) for i in await self.client.execute("ZRANGE", keys.queue(queue_id, "waiting"), start,
                                                           start + count - 1)]
        if not ids:
            return []
        raws = await self.client.execute("MGET", *(keys.queue(queue_id, f"t:{i}") for i in ids))
        gone = [i for i, raw in zip(ids, raws, strict=True) if raw is None]
        if gone:
            await self.client.execute("ZREM", keys.queue(queue_id, "waiting"), *gone)
        return [orjson.loads(raw) for raw in raws if raw is not None]

    async def seat(self, queue_id: str, game_id: str, seating: dict[str, Any], now_ms: int) -> bool:
        """Seat a group (``seating["tickets"]``: id, player, seat) in ``game_id``, all or none."""
        tickets = seating["tickets"]
        script_keys = [keys.queue(queue_id, p) for p in ("waiting", "players", "games")]
        script_keys += [keys.queue(queue_id, f"t:{t['id']}") for t in tickets]
        args: list[Any] = [game_id, orjson.dumps(seating), now_ms]
        for t in tickets:
            args += [t["id"], t["player"], t["seat"]]
        return bool(await self.client.evalsha(SEAT, script_keys, args))

    async def unmade(self, queue_id: str) -> list[tuple[str, dict[str, Any]]]:
        """Seated games not yet known to be created: ``(game id, seating)``."""
        flat = await self.client.execute("HGETALL", keys.queue(queue_id, "games"))
        pairs = flat.items() if isinstance(flat, dict) else zip(flat[::2], flat[1::2], strict=True)
        return [(_text(g), orjson.loads(s)) for g, s in pairs]

    async def is_unmade(self, queue_id: str, game_id: str) -> bool:
        """Whether ``game_id`` was seated but is not yet known to be created."""
        return bool(await self.client.execute("HEXISTS", keys.queue(queue_id, "games"), game_id))

    async def made(self, queue_id: str, game_id: str) -> None:
        await self.client.execute("HDEL", keys.queue(queue_id, "games"), game_id)

    async def drop(self, queue_id: str, game_id: str, seating: dict[str, Any], now_ms: int) -> None:
        """Give up a seating the rules refuse to deal: its tickets are cancelled (``DROP``)."""
        script_keys = [keys.queue(queue_id, "games")] + [keys.queue(queue_id, f"t:{t['id']}") for t in seating["tickets"]]
        await self.client.evalsha(DROP, script_keys, [game_id, now_ms])

    async def count(self, queue_id: str) -> int:
        return int(await self.client.execute("ZCARD", keys.queue(queue_id, "waiting")))


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
