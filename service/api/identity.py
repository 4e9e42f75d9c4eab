"""Players' identity: bearer JWTs of configured issuers, verified against each issuer's JWKS (issue 27).

A studio with its own identity provider signs a JWT per player (RS256, ES256 or EdDSA); the service
verifies it with joserfc against the issuer's JSON Web Key Set and takes ``sub`` as the player id and
``name`` as the display name. Tabletop's own sessions (``sessions.py``) are JWTs of the same kind,
verified by the same code, so there is one path for every player credential.

Issuers come from ``TABLETOP_JWT_ISSUERS``: a JSON array of objects ``{"issuer", "audience",
"jwks_file" | "jwks_url", "algorithms"?}``. A JWKS URL is fetched when first needed, cached for
``TABLETOP_JWKS_REFRESH_SECONDS`` and fetched again then; a token naming a ``kid`` the cached set lacks
refetches it at once, but at most once per ``TABLETOP_JWKS_MIN_REFRESH_SECONDS`` (a stream of forged
``kid`` values cannot make the service hammer the provider). A refresh that fails keeps the last good
set. URLs are https, or http only to a loopback address (a development provider).

What is refused, each UNAUTHENTICATED with its own reason (docs/errors.md): a token that is no compact
JWS (JWT_MALFORMED); ``alg`` outside the issuer's asymmetric allow list, so ``none`` and HS256 keyed
with a public key never reach a signature check (JWT_ALGORITHM_REFUSED); an unconfigured ``iss``
(JWT_ISSUER_UNKNOWN); a ``kid`` missing from the set (JWT_KEY_UNKNOWN); a bad signature
(JWT_SIGNATURE_INVALID); past ``exp`` or before ``nbf`` beyond the clock skew (JWT_EXPIRED,
JWT_NOT_YET_VALID); another audience (JWT_AUDIENCE_MISMATCH); a missing or unusable ``sub``/``exp``
(JWT_CLAIMS_INVALID).
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import re
import time
import urllib.parse
import urllib.request
import warnings
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from joserfc import jws, jwt
from joserfc.errors import (
    BadSignatureError,
    ExpiredTokenError,
    InvalidClaimError,
    JoseError,
    MissingClaimError,
    SecurityWarning,
)
from joserfc.jwk import KeySet

from tabletop_server.service.api.errors import ServiceReason, Unauthenticated, Unavailable

# RFC 9864 names Ed25519 apart from EdDSA; identity providers still sign with "EdDSA", so both are taken.
warnings.filterwarnings("ignore", message="EdDSA is deprecated", category=SecurityWarning)
ASYMMETRIC = ("RS256", "ES256", "EdDSA", "Ed25519")
MAX_JWT_CHARS = 8192
MAX_JWKS_BYTES = 256 * 1024
PLAYER_ID = re.compile(r"[A-Za-z0-9._:@|+-]{1,128}")  # what a `sub` may be: printable, no spaces or slashes
MAX_NAME_CHARS = 64
CACHE_SECONDS = 60.0  # a verified token is verified again after this long, even if it lives longer
CACHE_ENTRIES = 50_000  # verified tokens remembered per process (a few hundred bytes each)


@dataclass
class Player:
    """A verified player. ``seats`` is filled as the call finds the player's seat in a game."""

    id: str
    name: str
    issuer: str
    seats: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Issuer:
    """One trusted issuer: its ``iss``, the audience its tokens must name, and where its keys are."""

    issuer: str
    audience: str
    jwks_file: str = ""
    jwks_url: str = ""
    algorithms: tuple[str, ...] = ASYMMETRIC


def parse_issuers(text: str) -> tuple[Issuer, ...]:
    """The issuers of ``TABLETOP_JWT_ISSUERS`` (a JSON array); ValueError names what is wrong."""
    if not text.strip():
        return ()
    try:
        rows = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"TABLETOP_JWT_ISSUERS is not JSON: {exc}") from exc
    if not isinstance(rows, list):
        raise TypeError("TABLETOP_JWT_ISSUERS is a JSON array of issuer objects.")
    return tuple(_issuer(row, i) for i, row in enumerate(rows))


class KeySource:
    """An issuer's JWKS, from a file (read once) or a URL (cached, refreshed, refetched on an unknown kid)."""

    def __init__(self, issuer: Issuer, refresh_seconds: float, min_refresh_seconds: float,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.issuer = issuer
        self.refresh_seconds = refresh_seconds
        self.min_refresh_seconds = min_refresh_seconds
        self.clock = clock
        self.keys: KeySet | None = _load_jwks(Path(issuer.jwks_file).read_bytes()) if issuer.jwks_file else None
        self.fetched = -float("inf")
        self.lock = asyncio.Lock()

    async def key(self, kid: str) -> Any:
        """The key named ``kid``; JWT_KEY_UNKNOWN when the (refreshed) set has none."""
        if self.issuer.jwks_url:
            stale = self.clock() - self.fetched >= self.refresh_seconds
            if self.keys is None or stale or (_find(self.keys, kid) is None and self._may_refetch()):
                await self._refresh()
        found = _find(self.keys, kid) if self.keys is not None else None
        if found is None:
            raise Unauthenticated(ServiceReason.JWT_KEY_UNKNOWN, f"No key {kid!r} in the JWKS of issuer "
                                  f"{self.issuer.issuer!r}; sign with a key it publishes.", kid=kid)
        return found

    def _may_refetch(self) -> bool:
        return self.clock() - self.fetched >= self.min_refresh_seconds

    async def _refresh(self) -> None:
        async with self.lock:
            if self.keys is not None and self.clock() - self.fetched < self.min_refresh_seconds:
                return  # another call refreshed it meanwhile
            attempted = self.clock()
            try:
                self.keys = _load_jwks(await asyncio.to_thread(_fetch, self.issuer.jwks_url))
            except (OSError, ValueError) as exc:
                self.fetched = attempted  # wait min_refresh before trying again; keep the last good set
                if self.keys is None:
                    raise Unavailable(ServiceReason.JWKS_UNAVAILABLE, f"The JWKS of issuer {self.issuer.issuer!r} "
                                      f"cannot be fetched ({type(exc).__name__}); retry.") from exc
                return
            self.fetched = attempted


class Verifier:
    """Verifies bearer JWTs of the configured issuers.

    A token verified once is remembered (by its whole text, signature included, so no other token
    matches it) until it expires, for at most ``CACHE_SECONDS``, in a bounded LRU: an app sends the same
    token on every call, and its signature check is most of what a player's call costs over a seat
    token's. A key dropped from a JWKS stops being trusted within ``CACHE_SECONDS`` plus the refresh.
    """

    def __init__(self, issuers: tuple[Issuer, ...], skew_seconds: float, refresh_seconds: float = 300.0,
                 min_refresh_seconds: float = 30.0, clock: Callable[[], float] = time.time) -> None:
        self.sources = {i.issuer: KeySource(i, refresh_seconds, min_refresh_seconds) for i in issuers}
        self.skew = int(skew_seconds)
        self.clock = clock
        self.verified: OrderedDict[str, tuple[float, str, str, str]] = OrderedDict()  # token: (until, id, name, iss)

    def add(self, issuer: Issuer, keys: KeySet) -> None:
        """Trust ``issuer`` with the given keys (Tabletop's own sessions)."""
        source = KeySource(issuer, float("inf"), float("inf"))
        source.keys = keys
        self.sources[issuer.issuer] = source

    async def verify(self, token: str) -> Player:
        """The player a JWT names, once every check passed; UNAUTHENTICATED with its reason otherwise."""
        now = self.clock()
        known = self.verified.get(token)
        if known is not None and known[0] > now:
            self.verified.move_to_end(token)
            return Player(known[1], known[2], known[3])  # a fresh Player: its seats are this call's
        player, expires = await self._verify(token)
        self.verified[token] = (min(expires + self.skew, now + CACHE_SECONDS), player.id, player.name, player.issuer)
        if len(self.verified) > CACHE_ENTRIES:
            self.verified.popitem(last=False)
        return player

    async def _verify(self, token: str) -> tuple[Player, float]:
        header, claims = _unverified(token)
        source = self.sources.get(str(claims.get("iss", "")))
        if source is None:
            raise Unauthenticated(ServiceReason.JWT_ISSUER_UNKNOWN, "The token's issuer (iss) is not one this "
                                  "service trusts.", issuer=str(claims.get("iss", "")))
        alg = header.get("alg")
        if alg not in source.issuer.algorithms:
            raise Unauthenticated(ServiceReason.JWT_ALGORITHM_REFUSED, f"Tokens are signed with one of "
                                  f"{', '.join(source.issuer.algorithms)}; {alg!r} is refused.", alg=str(alg))
        key = await source.key(str(header.get("kid", "")))
        try:
            verified = jwt.decode(token, key, algorithms=[str(alg)])
        except (BadSignatureError, JoseError, ValueError) as exc:
            raise Unauthenticated(ServiceReason.JWT_SIGNATURE_INVALID,
                                  "The token's signature does not verify with the issuer's key.") from exc
        self._check_claims(verified.claims, source.issuer)
        return _player(verified.claims, source.issuer.issuer), float(verified.claims["exp"])

    def _check_claims(self, claims: dict[str, Any], issuer: Issuer) -> None:
        registry = jwt.JWTClaimsRegistry(now=int(self.clock()), leeway=self.skew, exp={"essential": True},
                                         sub={"essential": True}, aud={"essential": True, "value": issuer.audience})
        try:
            registry.validate(claims)
        except ExpiredTokenError as exc:
            raise Unauthenticated(ServiceReason.JWT_EXPIRED, "The token has expired; get a fresh one.") from exc
        except MissingClaimError as exc:
            raise Unauthenticated(ServiceReason.JWT_CLAIMS_INVALID, f"The token lacks a claim: {exc.description}.") from exc
        except InvalidClaimError as exc:
            if exc.claim == "aud":
                raise Unauthenticated(ServiceReason.JWT_AUDIENCE_MISMATCH, "The token is for another audience (aud).",
                                      audience=issuer.audience) from exc
            if exc.claim in ("nbf", "iat"):
                raise Unauthenticated(ServiceReason.JWT_NOT_YET_VALID, "The token is not valid yet (nbf/iat); "
                                      "check the issuer's clock.") from exc
            raise Unauthenticated(ServiceReason.JWT_CLAIMS_INVALID, f"The token's {exc.claim} claim is invalid.") from exc


def looks_like_jwt(token: str) -> bool:
    """Whether a bearer token is a compact JWS (a seat token never starts with a JSON header)."""
    return token.startswith("eyJ") and token.count(".") == 2


# Helpers

def _issuer(row: Any, index: int) -> Issuer:
    if not isinstance(row, dict) or not row.get("issuer") or not row.get("audience"):
        raise ValueError(f"TABLETOP_JWT_ISSUERS[{index}] needs \"issuer\" and \"audience\".")
    if bool(row.get("jwks_file")) == bool(row.get("jwks_url")):
        raise ValueError(f"TABLETOP_JWT_ISSUERS[{index}] needs exactly one of \"jwks_file\" and \"jwks_url\".")
    algorithms = tuple(row.get("algorithms") or ASYMMETRIC)
    if not set(algorithms) <= set(ASYMMETRIC):
        raise ValueError(f"TABLETOP_JWT_ISSUERS[{index}].algorithms: only {', '.join(ASYMMETRIC)} are accepted.")
    url = str(row.get("jwks_url") or "")
    if url:
        _check_url(url, index)
    return Issuer(str(row["issuer"]), str(row["audience"]), str(row.get("jwks_file") or ""), url, algorithms)


def _check_url(url: str, index: int) -> None:
    parts = urllib.parse.urlsplit(url)
    if parts.scheme == "https" and parts.hostname:
        return
    loopback = False
    try:
        loopback = parts.hostname is not None and (parts.hostname == "localhost"
                                                   or ipaddress.ip_address(parts.hostname).is_loopback)
    except ValueError:
        pass
    if parts.scheme != "http" or not loopback:
        raise ValueError(f"TABLETOP_JWT_ISSUERS[{index}].jwks_url must be https (http only to a loopback address).")


def _fetch(url: str) -> bytes:
    """The JWKS document at ``url`` (no redirects followed: the operator named the address)."""
    opener = urllib.request.build_opener(_NoRedirect)
    with opener.open(urllib.request.Request(url, headers={"accept": "application/json"}), timeout=5) as reply:
        body: bytes = reply.read(MAX_JWKS_BYTES + 1)
    if len(body) > MAX_JWKS_BYTES:
        raise ValueError(f"JWKS over {MAX_JWKS_BYTES} bytes")
    return body


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


def _load_jwks(raw: bytes) -> KeySet:
    document = json.loads(raw)
    keys = [k for k in document.get("keys", []) if isinstance(k, dict) and k.get("kty") in ("RSA", "EC", "OKP")]
    return KeySet.import_key_set({"keys": keys})  # symmetric (oct) keys are never taken from a JWKS


def _find(keys: KeySet | None, kid: str) -> Any:
    if keys is None:
        return None
    return next((k for k in keys.keys if k.kid == kid), None)


def _unverified(token: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """Header and claims before verification (only to pick the issuer and key; nothing is trusted yet)."""
    if len(token) > MAX_JWT_CHARS:
        raise Unauthenticated(ServiceReason.JWT_MALFORMED, f"The token is over {MAX_JWT_CHARS} characters.")
    try:
        compact = jws.extract_compact(token.encode())
        claims = json.loads(compact.payload)
        header = compact.headers()
    except (JoseError, ValueError, UnicodeDecodeError) as exc:
        raise Unauthenticated(ServiceReason.JWT_MALFORMED, "The bearer token is not a well-formed JWT.") from exc
    if not isinstance(claims, dict) or not isinstance(header, dict):
        raise Unauthenticated(ServiceReason.JWT_MALFORMED, "The JWT's header and payload are JSON objects.")
    return header, claims


def _player(claims: dict[str, Any], issuer: str) -> Player:
    sub = claims.get("sub")
    if not isinstance(sub, str) or PLAYER_ID.fullmatch(sub) is None:
        raise Unauthenticated(ServiceReason.JWT_CLAIMS_INVALID, "The token's sub (the player id) is 1 to 128 of "
                              "letters, digits and . _ : @ | + -.")
    name = claims.get("name")
    # A display name as JoinGame takes one: printable, trimmed, at most 64 characters (else the id).
    shown = "".join(c for c in name if c.isprintable()).strip()[:MAX_NAME_CHARS] if isinstance(name, str) else ""
    return Player(sub, shown or sub[:MAX_NAME_CHARS], issuer)
