"""CORS for browser frontends: which other origins may call the REST facade.

Web frontends are served from the studios' own origins, so the browser asks before
every cross-origin call. This WSGI middleware wraps the Flask app, where it answers
preflight requests itself; the routes the ASGI front answers (``rest.dispatch``,
``rest.watch``) add ``headers_for`` itself. Every answer for an allowed ``Origin`` gets the
CORS headers. Origins come from
``TABLETOP_CORS_ORIGINS`` (comma-separated, or ``*``); empty means no CORS at all.
Credentials travel in ``Authorization``, never in cookies, so no
``Access-Control-Allow-Credentials`` is sent. The Connect and gRPC-Web routes
(``rest.connect``) share these settings: their request headers (``Connect-Protocol-Version``,
``Connect-Timeout-Ms``, ``Grpc-Timeout``, ``X-Grpc-Web``, ``X-User-Agent``) are allowed and the
gRPC-Web status headers exposed, as connect-web's CORS guide lists them; so is ``X-Tabletop-Game``, which
the TypeScript client sends on every call naming a game (deploy/README.md, "Game-affinity routing").

A preflight from an origin that is not allowed (or from any origin when the setting is empty)
is refused with ``403 CORS_ORIGIN_NOT_ALLOWED`` naming the origin and the setting, and the
server logs one line saying the same, at most once a minute per origin: the browser itself
only tells the page ``Failed to fetch``, so the developer's way to the cause is the network
tab or the server's log (issue 26). When origins are configured every answer carries
``Vary: Origin`` (``rest.asgi`` adds it), so no cache hands one origin's answer to another.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from typing import Any

import grpc

from tabletop_server.rest.errors import Reason, local_error

ALLOW_HEADERS = ("authorization, content-type, idempotency-key, if-match, if-none-match, last-event-id, "
                 "x-api-key, x-request-id, x-tabletop-game, traceparent, "
                 "connect-protocol-version, connect-timeout-ms, grpc-timeout, x-grpc-web, x-user-agent")
EXPOSE_HEADERS = "etag, retry-after, x-request-id, grpc-status, grpc-message, grpc-status-details-bin"
StartResponse = Callable[..., Any]
SETTING = "TABLETOP_CORS_ORIGINS"
LOG_EVERY_SECONDS = 60.0  # one log line per refused origin at most this often
log = logging.getLogger("tabletop.rest")


class Cors:
    """Wraps a WSGI app with CORS for ``origins`` (``{"*"}`` allows any origin)."""

    def __init__(self, app: Callable[[dict[str, Any], StartResponse], Iterable[bytes]], origins: Iterable[str],
                 max_age: int = 600) -> None:
        self.app = app
        self.origins = frozenset(o.strip().rstrip("/") for o in origins if o.strip())
        self.max_age = str(max_age)
        self._logged: dict[str, float] = {}  # refused origin -> when it was last logged

    @property
    def configured(self) -> bool:
        """Whether any origin may call (the setting is not empty)."""
        return bool(self.origins)

    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        origin = environ.get("HTTP_ORIGIN", "")
        preflight = environ.get("REQUEST_METHOD") == "OPTIONS" and environ.get("HTTP_ACCESS_CONTROL_REQUEST_METHOD")
        if origin and preflight and not self._allowed(origin):
            return self._refuse(origin, start_response)
        if not origin or not self._allowed(origin):
            return self.app(environ, start_response)
        allow = [("Access-Control-Allow-Origin", "*" if "*" in self.origins else origin), ("Vary", "Origin")]
        if preflight:
            start_response("204 No Content", [*allow, ("Access-Control-Allow-Methods", "GET, POST, OPTIONS"),
                                              ("Access-Control-Allow-Headers", ALLOW_HEADERS),
                                              ("Access-Control-Max-Age", self.max_age), ("Content-Length", "0")])
            return [b""]

        def with_cors(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            headers = [h for h in headers if h[0].lower() != "vary" or h[1].lower() != "origin"]
            return start_response(status, [*headers, *allow, ("Access-Control-Expose-Headers", EXPOSE_HEADERS)],
                                  exc_info)
        return self.app(environ, with_cors)

    def headers_for(self, origin: str) -> list[tuple[str, str]]:
        """The CORS headers of an ordinary (not preflight) answer to ``origin``; none when not allowed
        (for the routes ``rest.asgi`` answers on the event loop, outside this middleware)."""
        if not origin or not self._allowed(origin):
            return []
        return [("Access-Control-Allow-Origin", "*" if "*" in self.origins else origin), ("Vary", "Origin"),
                ("Access-Control-Expose-Headers", EXPOSE_HEADERS)]

    def _allowed(self, origin: str) -> bool:
        return "*" in self.origins or origin.rstrip("/") in self.origins

    def _refuse(self, origin: str, start_response: StartResponse) -> Iterable[bytes]:
        """The refused preflight: 403 in the error shape, and one log line per origin a minute."""
        shown = origin[:200]
        why = (f"it is not in {SETTING}" if self.origins else f"{SETTING} is empty, so no other origin may")
        message = (f"The origin {shown} may not call this API from a browser: {why}. The server's operator "
                   f"adds it to {SETTING} (comma-separated origins, such as https://play.example).")
        now = time.monotonic()
        if now - self._logged.get(shown, -LOG_EVERY_SECONDS) >= LOG_EVERY_SECONDS:
            if len(self._logged) >= 1024:
                self._logged.clear()
            self._logged[shown] = now
            log.warning("refused a CORS preflight from origin %s: %s; add it to %s to let its pages call "
                        "this server (logged once a minute per origin)", shown, why, SETTING)
        error = local_error(403, grpc.StatusCode.PERMISSION_DENIED, Reason.CORS_ORIGIN_NOT_ALLOWED, message,
                            origin=shown, setting=SETTING)
        body = error.body()
        start_response("403 Forbidden", [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
        return [body]
