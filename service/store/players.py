"""Refresh tokens of Tabletop's player sessions, in Redis (issue 27).

Only a SHA-256 of each refresh token is stored, as the key ``{rt:<hash>}`` (its own hash tag: one
key, one slot on Redis Cluster), holding the session's player id and display name, expiring with
the token. A refresh takes the record with ``GETDEL``, so a token is used once: two refreshes with
the same token cannot both succeed, and a stolen token that was already used is worthless.
"""

from __future__ import annotations

import hashlib
from typing import Any

import orjson


def key(refresh_token: str) -> str:
    """The key of a refresh token's record."""
    return "{rt:" + hashlib.sha256(refresh_token.encode()).hexdigest() + "}"


async def save(client: Any, refresh_token: str, record: dict[str, Any], ttl_seconds: int) -> None:
    """Keep a refresh token's record for ``ttl_seconds``."""
    await client.execute("SET", key(refresh_token), orjson.dumps(record), "EX", ttl_seconds)


async def take(client: Any, refresh_token: str) -> dict[str, Any] | None:
    """The record of a refresh token, removed in the same command; None when unknown, used or expired."""
    raw = await client.execute("GETDEL", key(refresh_token))
    if raw is None:
        return None
    record: dict[str, Any] = orjson.loads(raw)
    return record
