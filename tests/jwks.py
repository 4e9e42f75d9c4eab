"""A studio's identity provider for tests: its keys, a JWKS served over real HTTP on loopback, and its JWTs.

The tokens are signed with joserfc (the library the service verifies with). The attacks' tokens
(``alg: none``, HS256 keyed with the public key) are assembled by hand here, as an attacker would.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from joserfc import jwt
from joserfc.jwk import ECKey, KeySet, OKPKey, RSAKey

ISSUER = "https://id.studio.test"
AUDIENCE = "tabletop-test"
ALG_OF = {"RSA": "RS256", "EC": "ES256", "OKP": "EdDSA"}


class Studio:
    """Three signing keys (RS256, ES256, EdDSA) and a JWKS endpoint that publishes their public halves."""

    def __init__(self) -> None:
        self.keys: dict[str, Any] = {
            "rsa-1": RSAKey.generate_key(2048, parameters={"kid": "rsa-1"}),
            "ec-1": ECKey.generate_key("P-256", parameters={"kid": "ec-1"}),
            "ed-1": OKPKey.generate_key("Ed25519", parameters={"kid": "ed-1"}),
        }
        self.published = list(self.keys)  # the kids the JWKS endpoint serves
        self.fetches = 0
        self.down = False
        self.server: ThreadingHTTPServer | None = None

    def jwks(self) -> dict[str, Any]:
        return KeySet([self.keys[k] for k in self.published]).as_dict(private=False)

    def token(self, sub: str = "player-1", kid: str = "ed-1", header_kid: str = "", **claims: Any) -> str:
        """A JWT signed with key ``kid`` (naming ``header_kid`` instead, when given); a claim None is left out."""
        key = self.keys[kid]
        alg = ALG_OF[key.key_type]
        now = int(time.time())
        body = {"iss": ISSUER, "aud": AUDIENCE, "sub": sub, "iat": now, "exp": now + 600, **claims}
        body = {k: v for k, v in body.items() if v is not None}
        return jwt.encode({"alg": alg, "kid": header_kid or kid, "typ": "JWT"}, body, key, algorithms=[alg])

    def unsigned(self, sub: str = "player-1") -> str:
        """An ``alg: none`` token (no signature)."""
        return _b64({"alg": "none", "typ": "JWT"}) + "." + _b64(self._claims(sub)) + "."

    def hs256_with_public_key(self, sub: str = "player-1", kid: str = "rsa-1") -> str:
        """Algorithm confusion: HS256 whose HMAC key is the RSA public key's PEM, as a naive verifier would use."""
        pem = self.keys[kid].as_pem(private=False)
        signing_input = _b64({"alg": "HS256", "kid": kid, "typ": "JWT"}) + "." + _b64(self._claims(sub))
        mac = hmac.new(pem, signing_input.encode(), hashlib.sha256).digest()
        return signing_input + "." + base64.urlsafe_b64encode(mac).decode().rstrip("=")

    @contextmanager
    def serving(self) -> Iterator[str]:
        """Serve the JWKS at http://127.0.0.1:<port>/.well-known/jwks.json for the block; yields the URL."""
        studio = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                studio.fetches += 1
                if studio.down:
                    self.send_error(503)
                    return
                body = json.dumps(studio.jwks()).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        thread.start()
        try:
            yield f"http://127.0.0.1:{self.server.server_address[1]}/.well-known/jwks.json"
        finally:
            self.server.shutdown()
            self.server.server_close()

    def issuer_setting(self, url: str) -> str:
        """TABLETOP_JWT_ISSUERS for this studio."""
        return json.dumps([{"issuer": ISSUER, "audience": AUDIENCE, "jwks_url": url}])

    def _claims(self, sub: str) -> dict[str, Any]:
        now = int(time.time())
        return {"iss": ISSUER, "aud": AUDIENCE, "sub": sub, "iat": now, "exp": now + 600}


def session_key_pem() -> bytes:
    """A fresh Ed25519 private key in PEM, as ``openssl genpkey -algorithm ed25519`` writes it (TABLETOP_SESSION_KEY_FILE)."""
    pem: bytes = OKPKey.generate_key("Ed25519").as_pem(private=True)
    return pem


def _b64(value: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(value).encode()).decode().rstrip("=")
