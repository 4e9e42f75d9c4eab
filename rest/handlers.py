"""What a unary contract route does on each side of its call, and the HTTP helpers around it.

One ``UnaryHandler`` per route: ``prepare`` reads the path variables, query and body (from
a WSGI-style environ), binds the headers (``Idempotency-Key``, ``If-Match``) and builds the
forwarded metadata; ``finish`` prints the reply with its ``ETag`` (or a 304 for a matching
``If-None-Match``). The call between them is awaited by ``rest.dispatch``, the one request
path of every unary route; nothing here needs Flask or a channel.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl

import grpc
from werkzeug.datastructures import MultiDict

from tabletop_server.rest.errors import ApiError, Reason, local_error
from tabletop_server.rest.routes import PUBLIC_MAX_AGE, Route, field_path_value, segment_pattern, split_path
from tabletop_server.rest.transcode import apply_headers, apply_language, decode_request, encode_response

log = logging.getLogger("tabletop.rest")

JSON = "application/json"
# (HTTP header as a WSGI environ key, gRPC metadata key)
FORWARDED = (
    ("HTTP_AUTHORIZATION", "authorization"),
    ("HTTP_X_API_KEY", "x-api-key"),
    ("HTTP_X_REQUEST_ID", "x-request-id"),
    ("HTTP_X_TABLETOP_GAME", "x-tabletop-game"),
)
# The game a call is about, for a gRPC balancer that routes on it (deploy/README.md, "Game-affinity routing"):
# a Connect or gRPC-Web client sends the header itself (the TypeScript client does); a REST route names the
# game in its path, so the facade names it from there.
GAME_HEADER = "x-tabletop-game"
GAME_PATH = re.compile(r"/v1/games/([^/:]+)")
MAX_HEADER = 1024  # a forwarded header (tokens are ~60 characters, API keys are the operator's)
_NO_QUERY: MultiDict[str, str] = MultiDict()


@dataclass
class Reply:
    """A finished HTTP response."""

    status: int
    body: bytes = b""
    headers: list[tuple[str, str]] = field(default_factory=list)
    content_type: str | None = JSON


class UnaryHandler:
    """One unary RPC served over HTTP (see the module docstring)."""

    def __init__(self, route: Route, deadline: float, max_body_bytes: int, proxy_secret: str = "") -> None:
        self.route = route
        self.deadline = deadline
        self.max_body_bytes = max_body_bytes
        self.proxy_secret = proxy_secret

    def prepare(self, environ: dict[str, Any], path_params: dict[str, str],
                body: bytes) -> tuple[Any, list[tuple[str, str]]]:
        """The request message and the call's metadata (``rest.dispatch`` awaits the call)."""
        route = self.route
        query = environ.get("QUERY_STRING")
        args = MultiDict(parse_qsl(query, keep_blank_values=True)) if query else _NO_QUERY
        message = decode_request(route, path_params, args, body, environ.get("CONTENT_TYPE"))
        idempotency_key, if_match = environ.get("HTTP_IDEMPOTENCY_KEY"), environ.get("HTTP_IF_MATCH")
        if idempotency_key is not None or if_match is not None:
            apply_headers(route, message, idempotency_key, if_match)
        accept_language = environ.get("HTTP_ACCEPT_LANGUAGE")
        if accept_language and route.language_field is not None:
            apply_language(route, message, accept_language)
        return message, metadata(environ, self.proxy_secret)

    def finish(self, environ: dict[str, Any], reply: Any) -> Reply:
        """The HTTP reply for the RPC's response."""
        route = self.route
        vary = "Authorization, Accept-Language" if route.language_field is not None else "Authorization"
        headers = [("Cache-Control", cache_control(route.verb, environ, route.public_etag)), ("Vary", vary)]
        if route.etag_path is None:
            return Reply(200, encode_response(reply), headers)
        value = field_path_value(reply, route.etag_path)
        etag = value if route.public_etag else f'"{value}"'  # a string etag is quoted already (AIP-154)
        headers.append(("ETag", etag))
        if route.verb == "GET" and etag_matches(environ.get("HTTP_IF_NONE_MATCH"), etag):
            return Reply(304, b"", headers, None)
        return Reply(200, encode_response(reply), headers)


def too_large(limit: int) -> ApiError:
    """The 413 for a body over the limit."""
    message = f"the body is larger than the limit of {limit} bytes"
    return local_error(413, grpc.StatusCode.INVALID_ARGUMENT, Reason.BODY_TOO_LARGE, message)


def metadata(environ: dict[str, Any], proxy_secret: str = "") -> list[tuple[str, str]]:
    """The forwarded headers as gRPC metadata (printable ASCII only, as gRPC requires),
    plus ``x-forwarded-for`` ending with the client's address, the facade's shared
    secret that makes the service believe that address (``x-tabletop-proxy``; no client
    header is ever forwarded under that name), and the game a REST path names
    (``x-tabletop-game``, unless the client sent it)."""
    forwarded = []
    for key, metadata_key in FORWARDED:
        value = environ.get(key)
        if value is not None:
            if not value.isascii() or not value.isprintable() or len(value) > MAX_HEADER:
                # gRPC refuses metadata past 8 KiB with its own RESOURCE_EXHAUSTED (a 429 here)
                message = f"the {metadata_key} header must be printable ASCII of at most {MAX_HEADER} characters"
                raise local_error(400, grpc.StatusCode.INVALID_ARGUMENT, Reason.INVALID_HEADER, message)
            if key == "HTTP_AUTHORIZATION" and "," in value:  # two headers, joined (a token has no comma)
                raise local_error(401, grpc.StatusCode.UNAUTHENTICATED, "DUPLICATE_AUTHORIZATION",
                                  "The request carries more than one Authorization header; send exactly one "
                                  "'Authorization: Bearer <token>'.")
            forwarded.append((metadata_key, value))
    client = environ.get("REMOTE_ADDR")
    if client:
        # The gRPC peer is this facade; the client's address goes last in x-forwarded-for
        # (earlier entries come from the client or proxies and are not to be trusted).
        previous = environ.get("HTTP_X_FORWARDED_FOR", "")
        chain = (
            f"{previous}, {client}" if previous.isascii() and previous.isprintable() and previous else client
        )
        forwarded.append(("x-forwarded-for", chain))
    if proxy_secret:
        forwarded.append(("x-tabletop-proxy", proxy_secret))
    game = GAME_PATH.match(environ.get("PATH_INFO", ""))
    if game and "HTTP_X_TABLETOP_GAME" not in environ and game.group(1).isascii() and game.group(1).isprintable():
        forwarded.append((GAME_HEADER, game.group(1)))
    return forwarded


def cache_control(verb: str, environ: dict[str, Any], public: bool = False) -> str:
    """``private, no-store`` for whatever a seat sees or a credential (a seat's view, its legal
    actions, CreateGame/JoinGame tokens, every answer to a request with a token): no cache
    may keep it. A spectator's GET is public but changes with every move: ``no-cache`` lets a
    cache store it and revalidate by ETag (a cheap 304), and ``Vary: Authorization`` keeps it
    apart from seat views of the same URL. A ``public`` route (``Route.public_etag``: the same
    answer for everyone, changed only by a release, GetRuleset) may be kept for
    ``PUBLIC_MAX_AGE`` seconds, with or without a token."""
    if public and verb == "GET":
        return f"public, max-age={PUBLIC_MAX_AGE}"
    if verb == "GET" and not environ.get("HTTP_AUTHORIZATION"):
        return "no-cache"
    return "private, no-store"


def etag_matches(if_none_match: str | None, etag: str) -> bool:
    """Whether an ``If-None-Match`` value matches ``etag`` (weak comparison, or ``*``)."""
    if not if_none_match:
        return False
    candidates = [candidate.strip().removeprefix("W/") for candidate in if_none_match.split(",")]
    return "*" in candidates or etag in candidates


def error_reply(error: ApiError) -> Reply:
    """The JSON error response, with the headers its status calls for."""
    headers = list(error.headers.items())
    if error.http_status == 401:
        headers.append(("WWW-Authenticate", "Bearer"))
    if error.http_status == 503 and "Retry-After" not in error.headers:
        headers.append(("Retry-After", "1"))
    return Reply(error.http_status, error.body(), headers)


def internal_error() -> ApiError:
    """The 500 for a bug in the facade (logged with its traceback by the caller)."""
    message = "An unexpected error occurred in the REST facade; it has been logged."
    return local_error(500, grpc.StatusCode.INTERNAL, Reason.INTERNAL, message)


# Helpers

def final_headers(environ: dict[str, Any], reply: Reply) -> list[tuple[str, str]]:
    """The reply's headers with Content-Type, Content-Length and the echoed X-Request-Id."""
    headers = reply.headers
    if reply.content_type is not None:
        headers.append(("Content-Type", reply.content_type))
    headers.append(("Content-Length", str(len(reply.body))))
    request_id = environ.get("HTTP_X_REQUEST_ID")
    if request_id:
        headers.append(("X-Request-Id", request_id))
    return headers


def route_regex(openapi_path: str) -> re.Pattern[str]:
    """``/v1/games/{game}:act`` -> a regex with one named group per path parameter."""
    parts = split_path(openapi_path)
    pattern = "".join(
        re.escape(part) if index % 2 == 0 else f"(?P<{part}>{segment_pattern(parts, index)})"
        for index, part in enumerate(parts)
    )
    return re.compile(pattern)
