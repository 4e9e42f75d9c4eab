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


def deadlines_due() -> str:
    """Sorted set: game id by the epoch milliseconds its earliest timed decision is due (``deadlines.py``).

    One key for all games (hash tag ``{t}``: one Redis Cluster slot), written apart from the game's own keys."""
    return "{t}:due"


def deadlines_claimed() -> str:
    """Sorted set: game id by the end of the lease of the replica that claimed it."""
    return "{t}:claimed"
