"""The lobby: ListGames over an index of public games, kept in Redis without scanning keys (issue 15).

A public game (``CreateGameRequest.public``) is added, when it is created and before its first
write (as the deadline index is: a failed create leaves an entry that reads as missing), to
four sorted sets under one hash tag, scored by its creation time in microseconds:

- ``{lobby}:all:*`` and ``{lobby}:all:<ruleset>``: every public game;
- ``{lobby}:open:*`` and ``{lobby}:open:<ruleset>``: the same, for the filter ``open_seat = true``.

A page reads one set newest first from the token's cursor and loads those games in one
pipelined round trip. What the index no longer describes (a game that started, for the open
sets; one that is over or expired, for all) is left out of the page and removed from that set
then, so the sets shrink as they are read; entries older than the game TTL are trimmed at
every create. A page may therefore hold fewer than ``page_size`` games, as AIP-132 allows.

Scale: every ``ZADD``/``ZREVRANGEBYSCORE`` is O(log n); on Redis Cluster the four sets live in
the one slot of ``{lobby}`` (a busy lobby would split them by a hash of the game id).
"""

from __future__ import annotations

import base64
import re
from typing import Any

import orjson
from tabletop.v1 import game_service_pb2 as svc

from tabletop_server.service.api import convert, page_tokens
from tabletop_server.service.api.errors import InvalidArgument, ServiceReason
from tabletop_server.service.engine import registry
from tabletop_server.service.store import keys

DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 100
_TERM = re.compile(r'\s*(?:(ruleset)\s*=\s*"([a-z0-9-]{1,64})"|(open_seat)\s*=\s*(true|false))\s*')
_TOKEN = re.compile(r"([0-9]{1,20})")


def key(kind: str, ruleset: str) -> str:
    """One index set: ``kind`` is "all" or "open"; ``ruleset`` an id, or "*" for every ruleset."""
    return f"{{lobby}}:{kind}:{ruleset}"


def keys_of(ruleset: str) -> list[str]:
    """The sets a new public game of ``ruleset`` goes into."""
    return [key(kind, r) for kind in ("all", "open") for r in ("*", ruleset)]


def parse_filter(text: str) -> tuple[str, bool]:
    """``(ruleset or "*", open seats only)`` from an AIP-160 filter of the supported terms."""
    ruleset, open_only = "*", False
    if not text.strip():
        return ruleset, open_only
    seen: set[str] = set()
    for term in re.split(r"\s+AND\s+", text.strip()):
        match = _TERM.fullmatch(term)
        if match is None:
            raise InvalidArgument(ServiceReason.INVALID_FILTER, f"Cannot filter on {term.strip()!r}: use "
                                  'ruleset = "<id>" and open_seat = true, joined by AND.', field="filter")
        name = match.group(1) or match.group(3)
        if name in seen:
            raise InvalidArgument(ServiceReason.INVALID_FILTER, f"{name} is given twice.", field="filter")
        seen.add(name)
        if match.group(1):
            ruleset = match.group(2)
        else:
            open_only = match.group(4) == "true"
    return ruleset, open_only


def page_size(requested: int) -> int:
    """0 is the default, above the maximum is the maximum (AIP-132)."""
    return max(1, min(requested or DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE))


def encode_token(score: int) -> str:
    return base64.urlsafe_b64encode(str(score).encode()).decode().rstrip("=")


def decode_token(token: str) -> int | None:
    """The cursor (the last listed game's score), None for the first page."""
    if not token:
        return None
    return int(page_tokens.read(token, _TOKEN, "ListGames").group(1))


def listed(raw_doc: bytes | None, open_only: bool) -> dict[str, Any] | None:
    """The stored document when the game still belongs in the page, else None."""
    if raw_doc is None:
        return None
    doc: dict[str, Any] = orjson.loads(raw_doc)
    if doc["status"] == "FINISHED" or (open_only and doc["status"] != "WAITING"):
        return None
    return doc


async def add(client: Any, game_id: str, ruleset: str, now: float, game_ttl: int) -> None:
    """Index a public game (before its first write), and trim entries past the game TTL."""
    score, oldest = int(now * 1e6), int((now - game_ttl) * 1e6)
    await client.pipeline(*(cmd for index in keys_of(ruleset) for cmd in (
        ("ZADD", index, score, game_id), ("ZREMRANGEBYSCORE", index, "-inf", f"({oldest}"))))


async def page(client: Any, req: svc.ListGamesRequest) -> svc.ListGamesResponse:
    """One page: one read of the index set, one pipelined read of its games, stale entries removed."""
    ruleset, open_only = parse_filter(req.filter)
    cursor = decode_token(req.page_token)
    size = page_size(req.page_size)
    index = key("open" if open_only else "all", ruleset)
    top = f"({cursor}" if cursor is not None else "+inf"
    found = await client.execute("ZREVRANGEBYSCORE", index, top, "-inf", "WITHSCORES", "LIMIT", 0, size)
    ids = [m.decode() if isinstance(m, bytes) else str(m) for m in found[::2]]
    scores = [int(float(s)) for s in found[1::2]]
    replies = await client.pipeline(*(("HMGET", keys.game(i), "v", "doc") for i in ids)) if ids else []
    games, gone = [], []
    for game_id, reply in zip(ids, replies, strict=True):
        version, raw = reply if not isinstance(reply, Exception) else (0, None)
        doc = listed(raw, open_only)
        ruleset_of = registry.get(doc["ruleset"]) if doc is not None else None
        if doc is None or ruleset_of is None:
            gone.append(game_id)
            continue
        if open_only and None not in doc["seats"]:
            continue  # every open seat is reserved for a rematch's players; one who leaves opens it again
        games.append(convert.game(doc, int(version), ruleset_of))
    if gone:
        await client.execute("ZREM", index, *gone)
    token = encode_token(scores[-1]) if len(ids) == size else ""
    return svc.ListGamesResponse(games=games, next_page_token=token)
