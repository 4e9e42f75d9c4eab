"""GetGameLog pages (AIP-132): page sizes, opaque page tokens, and projecting one page.

A page is one ``XRANGE`` of the game's stream from the token's version with ``COUNT``,
so no call reads, projects or sends more than ``MAX_PAGE_SIZE`` entries however long
the log is. The token is opaque to clients (base64url of the game id and the last
version sent); one of another game, or one that does not decode, is INVALID_ARGUMENT
``INVALID_PAGE_TOKEN``. Tokens need no signature: a forged one only moves the start of
a page of entries the caller may read anyway, projected for the caller.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any

import orjson
from tabletop.v1 import game_pb2

from tabletop_server.service.api import convert
from tabletop_server.service.api.errors import InvalidArgument, ServiceReason
from tabletop_server.service.engine.ruleset import Ruleset

DEFAULT_PAGE_SIZE = 100
MAX_PAGE_SIZE = 1000
_TOKEN = re.compile(r"([a-z0-9]{1,64}):([0-9]{1,18})")


def page_size(requested: int) -> int:
    """The page size to use: 0 is the default, above the maximum is the maximum (AIP-132).

    A negative one never gets here: ``page_size`` has a minimum of 0 in the contract (``field_rules``).
    """
    return max(1, min(requested or DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE))


def encode_token(game_id: str, last_version: int) -> str:
    """The ``next_page_token`` after an entry of ``last_version``."""
    return base64.urlsafe_b64encode(f"{game_id}:{last_version}".encode()).decode().rstrip("=")


def decode_token(token: str, game_id: str) -> int:
    """The version after which the page starts (0 for no token)."""
    if not token:
        return 0
    try:  # its length and alphabet are checked by the contract's limits (``field_rules``) already
        match = _TOKEN.fullmatch(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)).decode("ascii"))
    except (binascii.Error, ValueError):
        match = None
    if match is None or match.group(1) != game_id:
        raise InvalidArgument(ServiceReason.INVALID_PAGE_TOKEN,
                              "Pass back the next_page_token of a GetGameLog call for this same game.",
                              field="page_token")
    return int(match.group(2))


def project(raw: list[tuple[int, bytes]], ruleset: Ruleset, seat: int | None, done: bool) -> list[game_pb2.LogEntry]:
    """Stored entries as ``seat`` (``None``: a spectator) may see them; everything once ``done``."""
    return [_entry(version, orjson.loads(value), ruleset, seat, done) for version, value in raw]


# Helpers

def _entry(version: int, entry: dict[str, Any], ruleset: Ruleset, seat: int | None, done: bool) -> game_pb2.LogEntry:
    actor = entry["seat"]
    shown = entry["action"] is not None and (done or (actor is not None and actor == seat))
    action = (game_pb2.Action(**{ruleset.INFO.proto_field: ruleset.encode_action(entry["action"])})  # type: ignore[arg-type]
              if shown else None)
    return game_pb2.LogEntry(
        version=version, action=action, time=convert.timestamp(entry["time"]),
        events=convert.events(entry["events"], version, ruleset, seat, reveal_all=done),
        **({"seat": actor} if actor is not None else {}))
