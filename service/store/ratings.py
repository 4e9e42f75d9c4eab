"""Players' ratings in Redis: each player's rating per ruleset, its history, the leaderboards, and the
record that makes a game's update happen exactly once (docs/ratings.md).

Keys never meet across hash tags in one script (Redis Cluster): a game's update is three steps, each
idempotent, so a replica may die between any two and another one (or the same, retrying) finishes it:

1. **The record**, under the game's tag (``keys.rated``): the changes the game makes, computed from the
   players' ratings when it was first rated, written ``SET NX``. A second rater that lost the race, or
   a retried or replayed finish, reads the record instead of computing again: a game has one update.
2. **Each player**, under the player's tag (:data:`APPLY`): the change is added once: the game id goes
   into the player's ``rated`` set in the same script, and a second apply finds it there. History and
   the counts move with it. Whether applied now or before, the script returns the player's rating.
3. **The leaderboard**, under the ruleset's tag (:data:`RANK`): the player's score, written only if it
   comes from as many rated games as the one there or more, so a late writer never puts an older
   rating back.

Then the record is marked ``done``; a later pass over the game stops at step 1.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson

from tabletop_server.service.engine.rating import MU, SIGMA, SIGMA_FLOOR, Change, Rating
from tabletop_server.service.store import keys, resp

HISTORY_MAX = 100  # rating changes kept per player and ruleset (the profile's history)
RATED_KEPT = 1000  # game ids kept per player and ruleset to refuse a second apply (the record is done long before)

# KEYS: rating hash, rated zset, history list. ARGV: 1 game id, 2 mu change, 3 sigma change, 4 won 0/1,
# 5 time ms, 6 place, 7 display name, 8 history max, 9 rated kept, 10 default mu, 11 default sigma, 12 floor.
# Returns {mu, sigma, games, wins, applied now 0/1}.
APPLY = resp.Script("""
local r = redis.call('HMGET', KEYS[1], 'mu', 'sigma', 'n', 'w')
if redis.call('ZSCORE', KEYS[2], ARGV[1]) then
  return {r[1] or ARGV[10], r[2] or ARGV[11], tonumber(r[3] or '0'), tonumber(r[4] or '0'), 0}
end
local mu = tonumber(r[1] or ARGV[10]) + tonumber(ARGV[2])
local sigma = math.max(tonumber(ARGV[12]), tonumber(r[2] or ARGV[11]) + tonumber(ARGV[3]))
local smu, ssigma = string.format('%.17g', mu), string.format('%.17g', sigma)
local n = redis.call('HINCRBY', KEYS[1], 'n', 1)
local w = redis.call('HINCRBY', KEYS[1], 'w', tonumber(ARGV[4]))
redis.call('HSET', KEYS[1], 'mu', smu, 'sigma', ssigma, 'name', ARGV[7])
redis.call('ZADD', KEYS[2], ARGV[5], ARGV[1])
redis.call('ZREMRANGEBYRANK', KEYS[2], 0, -1 - tonumber(ARGV[9]))
redis.call('LPUSH', KEYS[3], table.concat({ARGV[1], ARGV[5], smu, ssigma, ARGV[2], ARGV[6], ARGV[4]}, '|'))
redis.call('LTRIM', KEYS[3], 0, tonumber(ARGV[8]) - 1)
return {smu, ssigma, n, w, 1}
""")
# KEYS: leaderboard zset, counts hash. ARGV: 1 player id, 2 score, 3 rated games it comes from.
RANK = resp.Script("""
local seen = tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '-1')
if seen > tonumber(ARGV[3]) then return 0 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
return 1
""")


@dataclass(frozen=True)
class Standing:
    """A player's rating in one ruleset as stored."""

    rating: Rating
    games: int
    wins: int
    display_name: str


@dataclass(frozen=True)
class HistoryItem:
    """One rated game in a player's history: the rating after it and the change it made."""

    game_id: str
    time_ms: int
    rating: Rating
    mu_change: float
    place: int
    won: bool


class RatingStore:
    """Reads and writes of ratings over a store client (``redis_store.connect``)."""

    def __init__(self, client: Any) -> None:
        self.client = client

    async def record(self, game_id: str) -> dict[str, Any] | None:
        """The game's stored update, or None before it was rated."""
        raw = await self.client.execute("GET", keys.rated(game_id))
        return orjson.loads(raw) if raw else None

    async def put_record(self, game_id: str, record: dict[str, Any], ttl: int) -> dict[str, Any]:
        """Store the game's update unless one is there; the one that is (this, or the winner of a race)."""
        if await self.client.execute("SET", keys.rated(game_id), orjson.dumps(record), "NX", "EX", ttl):
            return record
        return await self.record(game_id) or record

    async def finish_record(self, game_id: str, record: dict[str, Any], ttl: int) -> None:
        """Mark the update applied everywhere (kept ``ttl`` more seconds: a later pass stops at it)."""
        await self.client.execute("SET", keys.rated(game_id), orjson.dumps({**record, "done": True}), "EX", ttl)

    async def ratings(self, player_ids: list[str], ruleset: str) -> list[Rating]:
        """The players' current ratings (a new player's is the default)."""
        replies = await self.client.pipeline(*(("HMGET", _rating_key(p, ruleset), "mu", "sigma") for p in player_ids))
        out = []
        for reply in replies:
            if isinstance(reply, Exception):
                raise reply
            out.append(Rating(float(reply[0]), float(reply[1])) if reply[0] is not None else Rating())
        return out

    async def apply(self, player_id: str, ruleset: str, game_id: str, change: Change, name: str, now_ms: int) -> Standing:
        """Add one game's change to the player's rating once; the rating after it."""
        reply = await self.client.evalsha(APPLY, [_rating_key(player_id, ruleset), _rated_key(player_id, ruleset),
                                                  _history_key(player_id, ruleset)],
                                          [game_id, repr(change.mu), repr(change.sigma), int(change.won), now_ms,
                                           change.place, name, HISTORY_MAX, RATED_KEPT, repr(MU), repr(SIGMA),
                                           repr(SIGMA_FLOOR)])
        return Standing(Rating(float(reply[0]), float(reply[1])), int(reply[2]), int(reply[3]), name)

    async def rank(self, ruleset: str, player_id: str, score: float, games: int) -> None:
        """Put the player's score on the ruleset's leaderboard (unless a newer one is there)."""
        await self.client.evalsha(RANK, [keys.leaderboard(ruleset, "z"), keys.leaderboard(ruleset, "n")],
                                  [player_id, repr(score), games])

    # Reads (the profile and the leaderboard)

    async def standing(self, player_id: str, ruleset: str) -> Standing | None:
        """The player's stored rating in ``ruleset``; None when never rated there."""
        reply = await self.client.execute("HMGET", _rating_key(player_id, ruleset), "mu", "sigma", "n", "w", "name")
        if reply[0] is None:
            return None
        return Standing(Rating(float(reply[0]), float(reply[1])), int(reply[2] or 0), int(reply[3] or 0),
                        _text(reply[4] or b""))

    async def history(self, player_id: str, ruleset: str, count: int) -> list[HistoryItem]:
        """The player's newest ``count`` rating changes in ``ruleset``, newest first."""
        raw = await self.client.execute("LRANGE", _history_key(player_id, ruleset), 0, count - 1)
        out = []
        for item in raw:
            game_id, ms, mu, sigma, dmu, place, won = _text(item).split("|")
            out.append(HistoryItem(game_id, int(ms), Rating(float(mu), float(sigma)), float(dmu), int(place), won == "1"))
        return out

    async def position(self, ruleset: str, player_id: str) -> int | None:
        """The player's 0-based position on the leaderboard (best first); None when not on it."""
        found = await self.client.execute("ZREVRANK", keys.leaderboard(ruleset, "z"), player_id)
        return None if found is None else int(found)

    async def size(self, ruleset: str) -> int:
        """Players on the ruleset's leaderboard."""
        return int(await self.client.execute("ZCARD", keys.leaderboard(ruleset, "z")))

    async def board(self, ruleset: str, start: int, count: int) -> list[tuple[str, float]]:
        """``(player id, score)`` at positions ``start`` to ``start + count - 1``, best first."""
        raw = await self.client.execute("ZREVRANGE", keys.leaderboard(ruleset, "z"), start, start + count - 1,
                                        "WITHSCORES")
        flat = raw if not raw or not isinstance(raw[0], (list, tuple)) else [x for p in raw for x in p]
        return [(_text(m), float(s)) for m, s in zip(flat[::2], flat[1::2], strict=True)]

    async def standings(self, player_ids: list[str], ruleset: str) -> list[Standing | None]:
        """The stored ratings of several players in one ruleset (one round trip)."""
        return await self._standings([_rating_key(p, ruleset) for p in player_ids])

    async def standings_of(self, player_id: str, rulesets: list[str]) -> list[Standing | None]:
        """One player's stored ratings in several rulesets (one round trip)."""
        return await self._standings([_rating_key(player_id, r) for r in rulesets])

    async def _standings(self, hashes: list[str]) -> list[Standing | None]:
        replies = await self.client.pipeline(*(("HMGET", h, "mu", "sigma", "n", "w", "name") for h in hashes))
        out: list[Standing | None] = []
        for r in replies:
            if isinstance(r, Exception):
                raise r
            out.append(None if r[0] is None else
                       Standing(Rating(float(r[0]), float(r[1])), int(r[2] or 0), int(r[3] or 0), _text(r[4] or b"")))
        return out


# Helpers

def _rating_key(player_id: str, ruleset: str) -> str:
    """Hash: ``mu``, ``sigma``, ``n`` (rated games), ``w`` (won), ``name`` (the display name last rated)."""
    return keys.player(player_id, f"rating:{ruleset}")


def _rated_key(player_id: str, ruleset: str) -> str:
    """Sorted set: the ids of the games applied to the rating, by time (the newest RATED_KEPT)."""
    return keys.player(player_id, f"rated:{ruleset}")


def _history_key(player_id: str, ruleset: str) -> str:
    """List: ``game|ms|mu|sigma|mu change|place|won``, newest first (HISTORY_MAX)."""
    return keys.player(player_id, f"rhist:{ruleset}")


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
