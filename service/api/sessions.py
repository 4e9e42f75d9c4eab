"""Player sessions issued by Tabletop, for studios without an identity provider (issue 27).

The studio's backend calls ``CreatePlayerSession`` with its operator-issued API key for one of its
player ids; the player's app then sends the access token as ``authorization: Bearer``. An access
token is a JWT signed with the operator's Ed25519 key (``TABLETOP_SESSION_KEY_FILE``, shared by every
replica), ``iss`` and ``aud`` ``TABLETOP_SESSION_ISSUER``, ``kid`` the key's RFC 7638 thumbprint,
living ``TABLETOP_SESSION_TTL_SECONDS``. It is verified by ``identity.Verifier`` like a studio's
own JWT, so no replica keeps any session state; only refresh tokens live in Redis
(``store/players.py``), each used once. Guest sessions (``TABLETOP_GUEST_SESSIONS``) give a new
player id ``guest:<random>`` to anyone who asks, for trying the service.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from google.protobuf import timestamp_pb2
from joserfc import jwt
from joserfc.jwk import KeySet, OKPKey
from tabletop.v1 import player_pb2

from tabletop_server.service.api.errors import (
    FailedPrecondition,
    InvalidArgument,
    ServiceReason,
    Unauthenticated,
)
from tabletop_server.service.api.identity import Issuer, Verifier
from tabletop_server.service.api.limits import check_api_key
from tabletop_server.service.config import Config
from tabletop_server.service.store import players as store

GUEST_PREFIX = "guest:"


class Sessions:
    """CreatePlayerSession, RefreshPlayerSession and CreateGuestSession."""

    def __init__(self, client: Any, config: Config, verifier: Verifier,
                 clock: Callable[[], float] = time.time) -> None:
        self.client = client
        self.config = config
        self.clock = clock
        self.key: OKPKey | None = None
        if config.session_key_file:
            self.key = _ed25519(config.session_key_file, "TABLETOP_SESSION_KEY_FILE")
            if not self.key.is_private:
                raise ValueError("TABLETOP_SESSION_KEY_FILE holds an Ed25519 private key (openssl genpkey -algorithm ed25519).")
            # Older keys still verify the tokens they signed (a rotation signs nobody out); they sign nothing.
            older = [_ed25519(f.strip(), "TABLETOP_SESSION_VERIFY_KEY_FILES")
                     for f in config.session_verify_key_files.split(",") if f.strip()]
            publics: list[Any] = [OKPKey.import_key(k.as_dict(private=False), {"kid": k.thumbprint()})
                                  for k in [self.key, *older]]
            verifier.add(Issuer(config.session_issuer, config.session_issuer, algorithms=("EdDSA",)), KeySet(publics))

    async def create(self, req: player_pb2.CreatePlayerSessionRequest,
                     metadata: Sequence[tuple[str, Any]]) -> player_pb2.CreatePlayerSessionResponse:
        """A session for one of the studio's players (the call carries the studio's API key)."""
        self._enabled()
        if not self.config.api_key_set:
            raise FailedPrecondition(ServiceReason.SESSIONS_DISABLED, "Player sessions are created with an "
                                     "operator-issued API key, and this server has none (TABLETOP_API_KEYS).")
        check_api_key(self.config.api_key_set, metadata)
        if req.player_id.startswith(GUEST_PREFIX):
            raise InvalidArgument(ServiceReason.INVALID_PLAYER_ID, "Player ids starting 'guest:' are the guests'.",
                                  field="player_id")
        name = req.display_name.strip() or req.player_id[:64]
        return player_pb2.CreatePlayerSessionResponse(session=await self._issue(req.player_id, name))

    async def refresh(self, req: player_pb2.RefreshPlayerSessionRequest) -> player_pb2.RefreshPlayerSessionResponse:
        """A new session for a refresh token, which is spent."""
        self._enabled()
        try:
            taken = await store.take(self.client, req.refresh_token, self.config.session_refresh_ttl_seconds)
        except store.Reused as exc:
            raise _reused() from exc
        if taken is None:
            raise Unauthenticated(ServiceReason.REFRESH_TOKEN_INVALID, "This refresh token is unknown or expired; "
                                  "sign the player in again.")
        family, record = taken
        session = await self._issue(record["player"], record["name"], family)
        return player_pb2.RefreshPlayerSessionResponse(session=session)

    async def guest(self, req: player_pb2.CreateGuestSessionRequest) -> player_pb2.CreateGuestSessionResponse:
        """A session for a new guest player."""
        if not self.config.guest_sessions:
            raise FailedPrecondition(ServiceReason.GUEST_SESSIONS_DISABLED, "Guest sessions are off on this "
                                     "server (TABLETOP_GUEST_SESSIONS).")
        player = GUEST_PREFIX + secrets.token_hex(12)
        return player_pb2.CreateGuestSessionResponse(
            session=await self._issue(player, req.display_name.strip() or "guest"))

    # Helpers

    def _enabled(self) -> None:
        if self.key is None:
            raise FailedPrecondition(ServiceReason.SESSIONS_DISABLED, "Player sessions are off on this server "
                                     "(TABLETOP_SESSION_KEY_FILE).")

    async def _issue(self, player_id: str, name: str, family: str = "") -> player_pb2.PlayerSession:
        assert self.key is not None
        now = int(self.clock())
        expires, refresh_expires = now + self.config.session_ttl_seconds, now + self.config.session_refresh_ttl_seconds
        claims = {"iss": self.config.session_issuer, "aud": self.config.session_issuer, "sub": player_id,
                  "name": name, "iat": now, "exp": expires, "jti": secrets.token_hex(8)}
        access = jwt.encode({"alg": "EdDSA", "typ": "JWT", "kid": self.key.thumbprint()}, claims, self.key,
                            algorithms=["EdDSA"])
        refresh = secrets.token_urlsafe(32)
        if not await store.save(self.client, refresh, family or secrets.token_hex(16),
                                {"player": player_id, "name": name}, self.config.session_refresh_ttl_seconds):
            raise _reused()  # another caller presented a spent token of this family meanwhile
        return player_pb2.PlayerSession(player_id=player_id, display_name=name, access_token=access,
                                        expire_time=timestamp_pb2.Timestamp(seconds=expires), refresh_token=refresh,
                                        refresh_expire_time=timestamp_pb2.Timestamp(seconds=refresh_expires))


def _reused() -> Unauthenticated:
    return Unauthenticated(ServiceReason.REFRESH_TOKEN_REUSED, "This refresh token was used before, so it was "
                           "copied: every session of this sign-in is revoked; sign the player in again.")


def _ed25519(path: str, setting: str) -> OKPKey:
    """An Ed25519 key (private or public) from a PEM file; ValueError names the setting otherwise."""
    key = OKPKey.import_key(Path(path).read_bytes())
    if key.curve_name != "Ed25519":
        raise ValueError(f"{setting}: {path} holds no Ed25519 key (openssl genpkey -algorithm ed25519).")
    return key
