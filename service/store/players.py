"""Refresh tokens of Tabletop's player sessions, in Redis (issue 27), rotated with reuse detection.

Only a SHA-256 of each refresh token is stored, as the key ``{rt:<hash>}`` (its own hash tag: one
key, one slot on Redis Cluster), holding the session's *family* (every token one sign-in led to)
and the player id and display name, expiring with the token. A refresh takes the record in one
script that leaves a tombstone (``!<family>``) for the rest of the token's life, so a token is used
once: two refreshes with the same token cannot both succeed.

A spent token presented again means it was copied (OAuth 2.0 Security BCP, refresh token
rotation): the whole family is revoked. ``{rf:<family>}`` names the family's live token; revoking
marks it ``revoked`` and deletes that token, and a rotation that finds its family revoked is
refused, so a thief and the player racing each other both end signed out. Each script touches one
key, so nothing here crosses Cluster slots.
"""

from __future__ import annotations

import hashlib
from typing import Any

import orjson

from tabletop_server.service.store import resp

# KEYS[1] = {rt:<hash>}. A live record (``<family>\n<json>``) is returned and replaced by its tombstone.
TAKE = resp.Script("""
local raw = redis.call('GET', KEYS[1])
if not raw then return false end
if string.sub(raw, 1, 1) == '!' then return raw end
local family = string.match(raw, '^([^\\n]*)\\n')
local ttl = redis.call('PTTL', KEYS[1])
if ttl > 0 then redis.call('SET', KEYS[1], '!' .. family, 'PX', ttl) end
return raw
""")
# KEYS[1] = {rf:<family>}: point the family at its new token unless the family was revoked.
POINT = resp.Script("""
if redis.call('GET', KEYS[1]) == 'revoked' then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
return 1
""")
REVOKED = b"revoked"


class Reused(Exception):
    """A spent refresh token came back: its family is revoked now."""


def key(refresh_token: str) -> str:
    """The key of a refresh token's record."""
    return "{rt:" + _digest(refresh_token) + "}"


def family_key(family: str) -> str:
    """The key naming a family's live token (or ``revoked``)."""
    return "{rf:" + family + "}"


async def save(client: Any, refresh_token: str, family: str, record: dict[str, Any], ttl_seconds: int) -> bool:
    """Keep a refresh token of ``family`` for ``ttl_seconds``; False when the family was revoked meanwhile."""
    if not int(await client.evalsha(POINT, [family_key(family)], [_digest(refresh_token), ttl_seconds])):
        return False
    await client.execute("SET", key(refresh_token), family.encode() + b"\n" + orjson.dumps(record), "EX", ttl_seconds)
    return True


async def take(client: Any, refresh_token: str, ttl_seconds: int) -> tuple[str, dict[str, Any]] | None:
    """The family and record of a live refresh token, spent by this call; None when unknown or expired.

    Raises ``Reused`` (after revoking the family) for a token that was spent before.
    """
    raw = await client.evalsha(TAKE, [key(refresh_token)], [])
    if raw is None or raw is False:
        return None
    value = bytes(raw)
    if value.startswith(b"!"):
        await revoke(client, value[1:].decode(), ttl_seconds)
        raise Reused()
    family, _, body = value.partition(b"\n")
    record: dict[str, Any] = orjson.loads(body)
    return family.decode(), record


async def revoke(client: Any, family: str, ttl_seconds: int) -> None:
    """Sign a family out: its live token is deleted and no rotation of it succeeds for ``ttl_seconds``
    (a refresh token's life: no token of the family outlives it)."""
    live = await client.execute("GET", family_key(family))
    await client.execute("SET", family_key(family), REVOKED, "EX", ttl_seconds)
    if live is not None and bytes(live) != REVOKED:
        await client.execute("DEL", "{rt:" + bytes(live).decode() + "}")


def _digest(refresh_token: str) -> str:
    return hashlib.sha256(refresh_token.encode()).hexdigest()
