"""Redis key names. Every key of one game shares the hash tag ``{g:<id>}``.

The tag puts all of a game's keys in one Redis Cluster slot, so the single Lua
compare-and-set script can touch them all on a cluster exactly as on one server.
"""

from __future__ import annotations


def game(game_id: str) -> str:
    """Hash with fields ``v`` (version) and ``doc`` (the JSON document)."""
    return f"{{g:{game_id}}}"


def stream(game_id: str) -> str:
    """Redis Stream of log entries; entry id ``<version>-0``."""
    return f"{{g:{game_id}}}:log"


def request(game_id: str, seat: int, request_id: str) -> str:
    """The stored response of one seat's request id (idempotent retries)."""
    return f"{{g:{game_id}}}:req:{seat}:{request_id}"


def remembered(game_id: str, seat: int) -> str:
    """List: the seat's remembered request ids as ``<ms>:<id>``, oldest first (kept to
    ``TABLETOP_MAX_REQUEST_IDS_PER_SEAT`` by ``cas.lua``, oldest out first). Until 2026-12-05 a sorted set
    under ``:reqs:<seat>``; those expire on their own (a new name, so no write meets the old type)."""
    return f"{{g:{game_id}}}:reqids:{seat}"


def deadlines_due() -> str:
    """Sorted set: game id by the epoch milliseconds its earliest timed decision is due (``deadlines.py``).

    One key for all games (hash tag ``{t}``: one Redis Cluster slot), written apart from the game's own keys."""
    return "{t}:due"


def deadlines_claimed() -> str:
    """Sorted set: game id by the end of the lease of the replica that claimed it."""
    return "{t}:claimed"


def deadlines_held() -> str:
    """Sorted set: the claims that are only held for a second look (``Deadlines.hold``), by the same score as
    in ``deadlines_claimed``; a new due entry may take such a claim over, never one being worked on."""
    return "{t}:held"


def created(digest: str) -> str:
    """The game id a CreateGame's request id named (``api/idempotency.py``); ``digest`` hashes the caller's
    scope and the request id. Its own hash tag: written before the game exists."""
    return f"{{cr:{digest}}}"


def fence(game_id: str) -> str:
    """Set of the player-index marks given up on (``player_index.py``): a write that carries one is refused."""
    return f"{{g:{game_id}}}:fence"


def index_stream(shard: int) -> str:
    """Redis Stream of player-index marks (a game id and the version to index), drained by a consumer group."""
    return f"{{pix:{shard}}}"


def player(player_id: str, part: str) -> str:
    """One of a player's keys, all under the hash tag ``{p:<id>}``: ``games`` (sorted set: the order of
    ListMyGames), ``meta`` (hash: game id -> indexed version and flags), ``entry`` (hash: game id ->
    PlayerGame bytes), ``inbox`` (stream of notifications), ``unread`` (sorted set of unread ids)."""
    return f"{{p:{player_id}}}:{part}"


def near_due() -> str:
    """Sorted set: ``<player>\n<game>\n<turn>`` by the epoch ms a DEADLINE_NEAR is due (hash tag ``{pn}``)."""
    return "{pn}:due"


def near_claimed() -> str:
    """Sorted set: the DEADLINE_NEAR entries a replica claimed, by the end of its lease."""
    return "{pn}:claimed"


def near_held() -> str:
    """Sorted set: the DEADLINE_NEAR claims only held for a second look (as ``deadlines_held``)."""
    return "{pn}:held"


def rated(game_id: str) -> str:
    """The rating update of a finished game (JSON, ``store/ratings.py``), under the game's hash tag."""
    return f"{{g:{game_id}}}:rated"


def leaderboard(ruleset: str, part: str) -> str:
    """A ruleset's leaderboard, under the hash tag ``{lb:<ruleset>}``: ``z`` (sorted set: player id by
    rating) and ``n`` (hash: player id -> the rated-game count its score was written at)."""
    return f"{{lb:{ruleset}}}:{part}"


def queue(queue_id: str, part: str) -> str:
    """One of a matchmaking queue's keys, all under the hash tag ``{mq:<queue>}`` (``store/tickets.py``)."""
    return f"{{mq:{queue_id}}}:{part}"


def queues_due() -> str:
    """Sorted set: queue id by the epoch ms the matcher should look at it (hash tag ``{mm}``, timers.Sweeper)."""
    return "{mm}:due"


def queues_claimed() -> str:
    """Sorted set: the queues a replica's matcher claimed, by the end of its lease."""
    return "{mm}:claimed"


def queues_held() -> str:
    """Sorted set: the queue claims only held for a second look (as ``deadlines_held``)."""
    return "{mm}:held"
