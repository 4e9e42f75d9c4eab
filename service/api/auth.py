"""Player tokens: who the caller is, from ``authorization: Bearer <token>``.

A token is ``<game id>.<seat>.<secret>``. The game id and seat let the service find
the seat (and its remembered request ids) before reading anything; only a hash of
the secret is stored, and it is compared in constant time. A token of another game
is PERMISSION_DENIED; a missing, malformed or forged token is UNAUTHENTICATED.

A call reads its token two or three times (the field rules refuse a malformed one first, the host
parses it again) and every action hashes its secret: both are kept for the ``CACHED`` most recent
tokens (issue 29's hot path), so a player's next action costs a dict look-up. Only well-formed tokens
are kept, and a hash is still compared with the game's stored one on every action (a seat given up
or taken over refuses the token at once).
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import re
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tabletop_server.service.api.errors import PermissionDenied, ServiceReason, Unauthenticated

# A game id, a seat of at most three digits (tables seat 2 to 7), a urlsafe secret: anything
# else (a seat of thousands of digits once reached int() and a 500) is refused before parsing.
_TOKEN = re.compile(r"([a-z0-9]{1,64})\.([0-9]{1,3})\.([A-Za-z0-9_-]{1,128})")
CACHED = 4096  # tokens parsed and secrets hashed kept: each a few hundred bytes


@dataclass(frozen=True)
class Token:
    """A parsed player token (not yet verified against the game)."""

    game_id: str
    seat: int
    secret: str


def new_token(game_id: str, seat: int) -> tuple[str, str]:
    """A fresh token and the hash to store for it."""
    secret = secrets.token_urlsafe(24)
    return f"{game_id}.{seat}.{secret}", _sha256(secret)


def hash_secret(secret: str) -> str:
    """The stored form of a secret."""
    return _hashed(secret)


def bearer(metadata: Sequence[tuple[str, Any]] | None) -> str | None:
    """The bearer token from gRPC metadata, or None when absent; two entries are refused, never one picked."""
    values = [value for key, value in metadata or () if key == "authorization"]
    if len(values) > 1:
        raise Unauthenticated(ServiceReason.DUPLICATE_AUTHORIZATION, f"The call carries {len(values)} "
                              "authorization entries; send exactly one 'authorization: Bearer <token>'.")
    if values:
        scheme, _, token = str(values[0]).partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise Unauthenticated(ServiceReason.INVALID_TOKEN, "Send the player token as 'authorization: Bearer <token>'.")
        return token.strip()
    return None


def parse(token: str) -> Token:
    """Split a token; malformed tokens are UNAUTHENTICATED."""
    return _parsed(token)


def verify(token: Token, game_id: str, seats: list[Any]) -> int:
    """The caller's seat, once the token is checked against the game's stored hashes."""
    if token.game_id != game_id:
        raise PermissionDenied(ServiceReason.TOKEN_FOR_OTHER_GAME, "This player token belongs to another game.")
    seat = seats[token.seat] if 0 <= token.seat < len(seats) else None
    if seat is None or not hmac.compare_digest(seat["token"], hash_secret(token.secret)):
        raise Unauthenticated(ServiceReason.INVALID_TOKEN, "The player token is not valid for this game.")
    return token.seat


# Helpers

@functools.lru_cache(maxsize=CACHED)
def _parsed(token: str) -> Token:
    match = _TOKEN.fullmatch(token)
    if match is None:  # raised, so never kept
        raise Unauthenticated(ServiceReason.INVALID_TOKEN, "The player token is malformed; use the token JoinGame returned.")
    return Token(match.group(1), int(match.group(2)), match.group(3))


@functools.lru_cache(maxsize=CACHED)
def _hashed(secret: str) -> str:
    return _sha256(secret)


def _sha256(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()
