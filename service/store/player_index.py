"""The players' index of their games and their inboxes, kept from an outbox of marks (issue 27, DESIGN 19).

A game's keys live under ``{g:<id>}`` and a player's under ``{p:<id>}``: different Redis Cluster
slots, so no script updates both. The index is kept by background work:

1. **Mark, then write.** A write of a game that has players (a bound or invited seat) sends first a
   *mark* (game id, the version the write makes, a nonce) to one of ``shards`` streams
   ``{pix:<k>}``, then the compare-and-set, which carries the nonce. On one Redis server both go
   in one pipelined round trip (executed in order); on a cluster the mark is sent first, alone.
   A write that succeeded therefore always has a mark before it.
2. **Drain.** Every replica reads the streams in the consumer group ``indexers`` (``XREADGROUP``)
   and takes over marks a dead replica held (``XAUTOCLAIM`` after a lease). For a mark it reads
   the game (the source of truth, not the mark) and applies each player's entry with one script
   on that player's slot (:data:`APPLY`), which writes only if the entry's game version is newer
   than the stored one: a repeated, late or out-of-order update changes nothing. Then ``XACK``.
3. **A mark whose write has not happened** (the writer is slow, or died between the mark and its
   write) is waited for, then *fenced*: its nonce goes into the game's ``fence`` set, under the
   game's hash tag, if the game is still below the mark's version (:data:`FENCE`); ``cas.lua``
   refuses a write whose nonce is fenced, so a writer that wakes up later loses its race and
   retries (with a new mark). Either way the drain indexes what the game holds.

The same script that applies an entry writes the player's notifications (``my turn started``, an
invitation, a game finished, a rematch asked) into the player's inbox stream when a flag turns
on, so a notification is made exactly once per change, however often the entry is applied.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from typing import Any

import redis.exceptions

from tabletop_server.service.store import keys, resp

GROUP = "indexers"

# KEYS: games zset, meta hash, entry hash, inbox stream, unread zset.
# ARGV: 1 game id, 2 version, 3 score, 4 flags "turn,status,invited,rematch" (status X: removed; invited: the
# player was ever invited to the game, so it stays 1 after the join and an invitation is told once, late or not),
# 5 entry bytes, 6 inbox max, 7 key ttl s, 8 expires ms, 9 oldest kept notification ms, 10 "1": the game was
# seated by the matchmaker (its first entry for the player tells TICKET_SEATED, once: the meta exists after).
# meta value: version,expires,turn,status,invited,rematch,near (near: the turn a DEADLINE_NEAR was sent for).
APPLY = resp.Script("""
local old = redis.call('HGET', KEYS[2], ARGV[1])
local o = {}
if old then for f in string.gmatch(old, '[^,]+') do table.insert(o, f) end end
local version = tonumber(ARGV[2])
if old and tonumber(o[1]) >= version then return 0 end
local n = {}
for f in string.gmatch(ARGV[4], '[^,]+') do table.insert(n, f) end
local near = o[7] or '-'
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2] .. ',' .. ARGV[8] .. ',' .. ARGV[4] .. ',' .. near)
if n[2] == 'X' then
  redis.call('HDEL', KEYS[3], ARGV[1])
  redis.call('ZREM', KEYS[1], ARGV[1])
else
  redis.call('HSET', KEYS[3], ARGV[1], ARGV[5])
  redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
end
local kinds = {}
if not old and ARGV[10] == '1' then table.insert(kinds, 'TICKET_SEATED') end
if n[1] ~= '-' and n[1] ~= o[3] then table.insert(kinds, 'TURN_STARTED') end
if n[3] == '1' and o[5] ~= '1' then table.insert(kinds, 'INVITED') end
if n[2] == 'F' and o[4] ~= 'F' then table.insert(kinds, 'GAME_FINISHED') end
if n[4] == '1' and o[6] ~= '1' then table.insert(kinds, 'REMATCH_ASKED') end
for _, k in ipairs(kinds) do
  local id = redis.call('XADD', KEYS[4], 'MAXLEN', ARGV[6], '*', 'k', k, 'g', ARGV[1], 'e', ARGV[5])
  redis.call('ZADD', KEYS[5], tonumber(string.match(id, '^(%d+)')), id)
end
if #kinds > 0 then
  redis.call('XTRIM', KEYS[4], 'MINID', ARGV[9])
  local first = redis.call('XRANGE', KEYS[4], '-', '+', 'COUNT', 1)[1]
  if first then
    redis.call('ZREMRANGEBYSCORE', KEYS[5], '-inf', '(' .. string.match(first[1], '^(%d+)'))
  end
end
for i = 1, 5 do redis.call('EXPIRE', KEYS[i], ARGV[7]) end
return 1 + #kinds
""")
# KEYS: meta hash, entry hash, inbox stream, unread zset. ARGV: 1 game id, 2 turn stamp, 3 inbox max,
# 4 key ttl s. A DEADLINE_NEAR once per turn, only while that turn is still the indexed one.
NEAR = resp.Script("""
local old = redis.call('HGET', KEYS[1], ARGV[1])
if not old then return 0 end
local o = {}
for f in string.gmatch(old, '[^,]+') do table.insert(o, f) end
if o[3] ~= ARGV[2] or o[4] ~= 'A' or o[7] == ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], table.concat({o[1], o[2], o[3], o[4], o[5], o[6], ARGV[2]}, ','))
local id = redis.call('XADD', KEYS[3], 'MAXLEN', ARGV[3], '*', 'k', 'DEADLINE_NEAR', 'g', ARGV[1],
                      'e', redis.call('HGET', KEYS[2], ARGV[1]) or '')
redis.call('ZADD', KEYS[4], tonumber(string.match(id, '^(%d+)')), id)
for i = 1, 4 do redis.call('EXPIRE', KEYS[i], ARGV[4]) end
return 1
""")
# KEYS: game hash, fence set. ARGV: 1 the mark's version, 2 its nonce, 3 ttl s. 1: fenced (the write
# that mark announced can no longer happen); 0: the game reached that version (no fence needed).
FENCE = resp.Script("""
local v = tonumber(redis.call('HGET', KEYS[1], 'v') or '0')
if v >= tonumber(ARGV[1]) then return 0 end
redis.call('SADD', KEYS[2], ARGV[2])
redis.call('EXPIRE', KEYS[2], ARGV[3])
return 1
""")
PARTS = ("games", "meta", "entry", "inbox", "unread")


@dataclass(frozen=True)
class Mark:
    """One mark read from a stream: which game to index, and the write it announced."""

    shard: int
    id: str
    game_id: str
    version: int
    nonce: str


@dataclass(frozen=True)
class Update:
    """One player's entry of one game at one version (``flags`` as :data:`APPLY` reads them)."""

    player_id: str
    game_id: str
    version: int
    score: float
    flags: str
    entry: bytes
    expires_ms: int
    near_at: float = 0.0  # epoch seconds a DEADLINE_NEAR is due for this entry's turn (0: none)
    matched: bool = False  # a game the matchmaker seated (a first entry tells TICKET_SEATED)


def shard_of(game_id: str, shards: int) -> int:
    """The stream a game's marks go to (stable across replicas and restarts)."""
    return zlib.crc32(game_id.encode()) % shards


def mark_command(game_id: str, version: int, nonce: str, shards: int) -> tuple[Any, ...]:
    """The ``XADD`` of a mark (sent before the write that carries ``nonce``)."""
    return ("XADD", keys.index_stream(shard_of(game_id, shards)), "*", "g", game_id, "v", version, "n", nonce)


class PlayerIndex:
    """The index's reads and writes over a store client (``redis_store.connect``)."""

    def __init__(self, client: Any, shards: int, inbox_max: int, inbox_ttl_seconds: int, key_ttl_seconds: int) -> None:
        self.client, self.shards = client, shards
        self.inbox_max, self.inbox_ttl, self.key_ttl = inbox_max, inbox_ttl_seconds, key_ttl_seconds

    async def ensure_groups(self) -> None:
        """Create the consumer group on every stream (once; an existing group is kept)."""
        for shard in range(self.shards):
            try:
                await self.client.execute("XGROUP", "CREATE", keys.index_stream(shard), GROUP, "0", "MKSTREAM")
            except redis.exceptions.ResponseError as exc:
                if "BUSYGROUP" not in str(exc):
                    raise

    async def read(self, shard: int, consumer: str, count: int, block_ms: int) -> list[Mark]:
        """New marks of one stream for this consumer (blocks up to ``block_ms``)."""
        raw = await self.client.blocking(block_ms, "XREADGROUP", "GROUP", GROUP, consumer, "COUNT", count,
                                         "BLOCK", block_ms, "STREAMS", keys.index_stream(shard), ">")
        return _marks(shard, raw[0][1] if raw else [])

    async def reclaim(self, shard: int, consumer: str, idle_ms: int, count: int) -> list[Mark]:
        """Marks another consumer held longer than ``idle_ms`` without acknowledging them (it died)."""
        raw = await self.client.execute("XAUTOCLAIM", keys.index_stream(shard), GROUP, consumer, idle_ms,
                                        "0-0", "COUNT", count)
        return _marks(shard, raw[1] if raw else [])

    async def done(self, shard: int, ids: list[str]) -> None:
        """Acknowledge and drop handled marks."""
        stream = keys.index_stream(shard)
        await self.client.pipeline(("XACK", stream, GROUP, *ids), ("XDEL", stream, *ids))

    async def backlog(self) -> int:
        """Marks not yet acknowledged, over every stream (the lag gauge)."""
        replies = await self.client.pipeline(*(("XLEN", keys.index_stream(s)) for s in range(self.shards)))
        return sum(int(r) for r in replies if not isinstance(r, Exception))

    async def fence(self, game_id: str, version: int, nonce: str) -> bool:
        """Refuse the write ``nonce`` announced if it has not happened yet; True when fenced."""
        return bool(await self.client.evalsha(FENCE, [keys.game(game_id), keys.fence(game_id)],
                                              [version, nonce, 86400]))

    async def apply(self, updates: list[Update], now_ms: int) -> None:
        """Write every player's entry (each only if newer) in one pipelined round trip."""
        if not updates:
            return
        oldest = now_ms - self.inbox_ttl * 1000
        commands = [_call(APPLY, [keys.player(u.player_id, p) for p in PARTS],
                          [u.game_id, u.version, u.score, u.flags, u.entry, self.inbox_max, self.key_ttl,
                           u.expires_ms, oldest, int(u.matched)]) for u in updates]
        await _pipeline_scripts(self.client, commands)

    async def schedule_near(self, updates: list[Update]) -> None:
        """Index the DEADLINE_NEAR of every timed pending decision (a repeat sets the same time again)."""
        near = [(int(u.near_at * 1000), f"{u.player_id}\n{u.game_id}\n{u.flags.split(',')[0]}")
                for u in updates if u.near_at]
        if near:
            await self.client.execute("ZADD", keys.near_due(), *(x for pair in near for x in pair))

    async def near(self, player_id: str, game_id: str, turn: str) -> bool:
        """Tell ``player_id`` their decision in ``game_id`` (the one started at ``turn``) is due soon."""
        return bool(await self.client.evalsha(NEAR, [keys.player(player_id, p) for p in ("meta", "entry", "inbox",
                                                                                          "unread")],
                                              [game_id, turn, self.inbox_max, self.key_ttl]))

    # Reads (ListMyGames, the inbox, WatchPlayer)

    async def games(self, player_id: str, below: tuple[float, str] | None, count: int) -> list[tuple[str, float, bytes, str]]:
        """Up to ``count`` of the player's games after the cursor ``(score, game id)``, highest score first:
        ``(game id, score, entry, meta)``. Ties at the cursor's score are ordered by game id, descending."""
        top = str(below[0]) if below is not None else "+inf"
        found = await self.client.execute("ZREVRANGEBYSCORE", keys.player(player_id, "games"), top, "-inf",
                                          "WITHSCORES", "LIMIT", 0, count + 16)
        flat = found if not found or not isinstance(found[0], (list, tuple)) else [x for p in found for x in p]
        pairs = [(_text(m), float(s)) for m, s in zip(flat[::2], flat[1::2], strict=True)]  # cluster client: pairs
        if below is not None:
            pairs = [(m, s) for m, s in pairs if s < below[0] or m < below[1]]
        pairs = pairs[:count]
        if not pairs:
            return []
        ids = [m for m, _ in pairs]
        entries, metas = await self.client.pipeline(("HMGET", keys.player(player_id, "entry"), *ids),
                                                    ("HMGET", keys.player(player_id, "meta"), *ids))
        return [(m, s, bytes(e or b""), _text(meta or b""))
                for (m, s), e, meta in zip(pairs, entries, metas, strict=True)]

    async def forget(self, player_id: str, game_ids: list[str]) -> None:
        """Drop entries of games that expired (their meta stays as a tombstone until the keys expire)."""
        await self.client.pipeline(("ZREM", keys.player(player_id, "games"), *game_ids),
                                   ("HDEL", keys.player(player_id, "entry"), *game_ids))

    async def inbox(self, player_id: str, before: str | None, count: int) -> tuple[list[tuple[str, dict[str, bytes]]], set[str], int]:
        """Up to ``count`` notifications before ``before`` (newest first), the unread ids among them, the unread count."""
        top = f"({before}" if before else "+"
        raw, unread = await self.client.pipeline(
            ("XREVRANGE", keys.player(player_id, "inbox"), top, "-", "COUNT", count),
            ("ZRANGE", keys.player(player_id, "unread"), 0, -1))
        for reply in (raw, unread):
            if isinstance(reply, Exception):
                raise reply
        unread_ids = {_text(u) for u in unread}
        return [_notification(item) for item in raw], unread_ids, len(unread_ids)

    async def mark_read(self, player_id: str, ids: list[str], every: bool) -> int:
        """Mark notifications read; the unread count left."""
        key = keys.player(player_id, "unread")
        first = ("DEL", key) if every else ("ZREM", key, *ids) if ids else ("EXISTS", key)
        _, left = await self.client.pipeline(first, ("ZCARD", key))
        return int(left)

    async def latest(self, player_id: str) -> str:
        """The id of the player's newest notification ("0-0" when none)."""
        raw = await self.client.execute("XREVRANGE", keys.player(player_id, "inbox"), "+", "-", "COUNT", 1)
        return _text(raw[0][0]) if raw else "0-0"

    async def follow(self, player_id: str, after: str, block_ms: int) -> list[tuple[str, dict[str, bytes]]]:
        """Notifications after ``after``, waiting up to ``block_ms`` for the first."""
        raw = await self.client.blocking(block_ms, "XREAD", "COUNT", 100, "BLOCK", block_ms, "STREAMS",
                                         keys.player(player_id, "inbox"), after)
        return [_notification(item) for item in raw[0][1]] if raw else []


# Helpers

def _call(script: resp.Script, script_keys: list[str], args: list[Any]) -> tuple[Any, ...]:
    return ("EVALSHA", script.sha, len(script_keys), *script_keys, *args)


async def _pipeline_scripts(client: Any, commands: list[tuple[Any, ...]]) -> list[Any]:
    """Scripts by SHA1 in one round trip; those Redis did not know yet are sent again with their source."""
    try:
        replies = list(await client.pipeline(*commands))
    except redis.exceptions.NoScriptError as error:
        if len(commands) != 1:
            raise
        replies = [error]  # a pipeline of one raises its error reply instead of returning it in place
    sources = {APPLY.sha: APPLY.source, NEAR.sha: NEAR.source, FENCE.sha: FENCE.source}
    retry = [i for i, r in enumerate(replies) if isinstance(r, redis.exceptions.NoScriptError)]
    if retry:
        again = await client.pipeline(*(("EVAL", sources[commands[i][1]], *commands[i][2:]) for i in retry))
        for i, reply in zip(retry, again, strict=True):
            replies[i] = reply
    for reply in replies:
        if isinstance(reply, Exception):
            raise reply
    return list(replies)


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _marks(shard: int, items: list[Any]) -> list[Mark]:
    out = []
    for entry_id, fields in items:
        if fields is None:  # deleted while pending
            continue
        pairs = fields.items() if isinstance(fields, dict) else zip(fields[::2], fields[1::2], strict=True)
        data = {_text(k): _text(v) for k, v in pairs}
        out.append(Mark(shard, _text(entry_id), data["g"], int(data["v"]), data["n"]))
    return out


def _notification(item: Any) -> tuple[str, dict[str, bytes]]:
    entry_id, fields = item
    pairs = fields.items() if isinstance(fields, dict) else zip(fields[::2], fields[1::2], strict=True)
    return _text(entry_id), {_text(k): bytes(v) for k, v in pairs}
