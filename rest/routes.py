"""REST routes derived from the contract's ``google.api.http`` rules.

The facade never lists its routes by hand: at import it walks the methods of
``tabletop.v1.GameService`` once, reads each method's ``google.api.http`` option and
turns the path template into a Flask rule (``/v1/{name=games/*}:act`` becomes
``/v1/games/<game:game>:act``, rebuilt into ``name="games/<game>"`` per request).
Everything a request needs later (classes, query converters, header bindings) is
precomputed here, so a request does no descriptor walking (DESIGN 11; the issue's
"precompute routes and converters").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from google.api import annotations_pb2
from google.protobuf.descriptor import Descriptor, FieldDescriptor, MethodDescriptor, ServiceDescriptor
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass
from tabletop.v1 import game_service_pb2

SERVICE: ServiceDescriptor = game_service_pb2.DESCRIPTOR.services_by_name["GameService"]

# One path segment of a resource id: no "/" (segment boundary) and no ":" (the
# custom-verb separator), so ``GET /v1/games/x:act`` is a 405 on ``:act`` and never
# a GetGame of a game called "x:act".
SEGMENT_PATTERN = r"[^/:]+"
# A segment followed by more of the path (``/v1/players/{player}/profile``) may hold ":": a custom verb
# only ever ends a path (google.api.http's ``Template = "/" Segments [ Verb ]``), so nothing is
# ambiguous there, and a guest's id (``guest:...``) reaches its profile.
INNER_SEGMENT_PATTERN = r"[^/]+"

# Headers bound to request fields where the request message has that field.
IDEMPOTENCY_FIELD = "request_id"
IF_MATCH_FIELD = "expected_version"
LANGUAGE_FIELD = "language_code"  # Accept-Language, where the query gives none (GetRuleset's catalog words)
# A top-level version first: SubmitActionResponse.version is sent whatever the read mask, its game.version not.
ETAG_FIELD_PATHS = ("version", "game.version", "etag")
# A response with a string ``etag`` field (AIP-154: already a quoted entity tag, GetRuleset's hash of
# its catalog) is the same for every caller and changes only with a release: shared caches may keep
# it this long (seconds) and then revalidate it with If-None-Match (a 304). An hour: a release
# reaches every client within the hour, and a client asks at most once an hour meanwhile.
PUBLIC_MAX_AGE = 3600

QueryConverter = Callable[[str], Any]


@dataclass(frozen=True)
class PathVariable:
    """A ``{field=template}`` of a path template: the field and how to rebuild it."""

    field: str  # request field set from the path, e.g. "name"
    json_name: str  # its proto3 JSON name, e.g. "name"
    template: str  # the field value with placeholders, e.g. "games/{game}"
    params: tuple[str, ...]  # Flask variable names, in order, e.g. ("game",)


@dataclass(frozen=True)
class QueryParam:
    """A request field a GET route fills from the query string."""

    field: FieldDescriptor
    convert: QueryConverter  # query string -> value json_format accepts
    repeated: bool


@dataclass(frozen=True)
class Route:
    """One RPC exposed over HTTP, with everything a request needs precomputed."""

    method: MethodDescriptor
    verb: str  # "GET", "POST", ...
    template: str  # the google.api.http path template
    rule: str  # the Flask rule
    openapi_path: str  # the OpenAPI path, e.g. "/v1/games/{game}:act"
    body: str  # "" (no body) or "*" (the whole request)
    request_class: type[Message]
    response_class: type[Message]
    path_variables: tuple[PathVariable, ...]
    query: dict[str, QueryParam] = field(default_factory=dict)  # by JSON and proto name
    idempotency_field: str | None = None
    if_match_field: str | None = None
    language_field: str | None = None
    etag_path: tuple[str, ...] | None = None  # response field path holding the version (or the etag)
    public_etag: bool = False  # the etag is a string field: a public, cacheable response (PUBLIC_MAX_AGE)

    @property
    def name(self) -> str:
        """The RPC name, e.g. ``SubmitAction``."""
        return self.method.name

    @property
    def streaming(self) -> bool:
        """True for server-streaming RPCs (served as Server-Sent Events)."""
        return bool(self.method.server_streaming)

    @property
    def path_fields(self) -> frozenset[str]:
        """Request fields bound to the path (never read from the body or query)."""
        return frozenset(var.field for var in self.path_variables)


def build_routes(service: ServiceDescriptor = SERVICE) -> tuple[Route, ...]:
    """Every method of ``service`` with an http rule, in contract order."""
    routes = []
    for method in service.methods:
        options = method.GetOptions()
        if not options.HasExtension(annotations_pb2.http):
            continue
        rule = options.Extensions[annotations_pb2.http]
        if rule.additional_bindings:
            raise ValueError(f"{method.full_name}: additional_bindings are not supported yet")
        pattern = rule.WhichOneof("pattern")
        if pattern is None or pattern == "custom":
            raise ValueError(f"{method.full_name}: unsupported http rule pattern {pattern!r}")
        routes.append(_route(method, pattern.upper(), getattr(rule, pattern), rule.body))
    return tuple(routes)


def field_path_value(message: Message, path: tuple[str, ...]) -> Any:
    """The value at a dotted field path of ``message`` (defaults when unset)."""
    value: Any = message
    for name in path:
        value = getattr(value, name)
    return value


def split_path(openapi_path: str) -> list[str]:
    """``/v1/players/{player}/profile`` -> ``["/v1/players/", "player", "/profile"]`` (parameters at odd places)."""
    return _PLACEHOLDER.split(openapi_path)


def segment_pattern(parts: list[str], index: int) -> str:
    """The pattern of path parameter ``parts[index]`` (``split_path``): ":" only where no verb can follow."""
    return INNER_SEGMENT_PATTERN if _inner(parts, index) else SEGMENT_PATTERN


# Helpers

_VARIABLE = re.compile(r"\{([a-z_][a-z0-9_.]*)(?:=([^}]*))?\}")
_PLACEHOLDER = re.compile(r"\{([a-z_0-9]+)\}")


def _inner(parts: list[str], index: int) -> bool:
    """Is parameter ``parts[index]`` followed by another path segment (not by a verb or the end)?"""
    return index + 1 < len(parts) and parts[index + 1].startswith("/")


def _route(method: MethodDescriptor, verb: str, template: str, body: str) -> Route:
    if body not in ("", "*"):
        raise ValueError(f"{method.full_name}: body {body!r} unsupported (use '' or '*')")
    rule, openapi_path, variables = _parse_template(method, template)
    request_class = GetMessageClass(method.input_type)
    response_class = GetMessageClass(method.output_type)
    bound = {var.field for var in variables}
    query = _query_params(method.input_type, bound) if verb == "GET" else {}
    fields = method.input_type.fields_by_name
    etag = _etag_field(method.output_type) if verb == "GET" or IF_MATCH_FIELD in fields else None
    return Route(
        method=method,
        verb=verb,
        template=template,
        rule=rule,
        openapi_path=openapi_path,
        body=body,
        request_class=request_class,
        response_class=response_class,
        path_variables=variables,
        query=query,
        idempotency_field=IDEMPOTENCY_FIELD if IDEMPOTENCY_FIELD in fields else None,
        if_match_field=IF_MATCH_FIELD if IF_MATCH_FIELD in fields else None,
        language_field=LANGUAGE_FIELD if LANGUAGE_FIELD in fields else None,
        etag_path=etag[0] if etag else None,
        public_etag=etag is not None and etag[1] == FieldDescriptor.TYPE_STRING,
    )


def _parse_template(method: MethodDescriptor, template: str) -> tuple[str, str, tuple[PathVariable, ...]]:
    """Split a template into a Flask rule, an OpenAPI path and its variables."""
    openapi: list[str] = []
    variables, last = [], 0
    for match in _VARIABLE.finditer(template):
        openapi.append(template[last : match.start()])
        field_name, sub = match.group(1), match.group(2) or "*"
        if field_name not in method.input_type.fields_by_name:
            raise ValueError(f"{method.full_name}: path field {field_name!r} not in the request")
        value_template, params = _sub_template(field_name, sub)
        openapi.append(value_template)
        json_name = method.input_type.fields_by_name[field_name].json_name
        variables.append(PathVariable(field_name, json_name, value_template, params))
        last = match.end()
    openapi.append(template[last:])
    path = "".join(openapi)
    parts = split_path(path)
    rule = "".join(part if i % 2 == 0 else f"<{'inner' if _inner(parts, i) else 'segment'}:{part}>"
                   for i, part in enumerate(parts))
    return rule, path, tuple(variables)


def _sub_template(field_name: str, sub: str) -> tuple[str, tuple[str, ...]]:
    """``games/*`` -> (``games/{game}``, ("game",)): one named parameter per ``*``."""
    parts, params = [], []
    for index, segment in enumerate(sub.split("/")):
        if segment == "**":
            raise ValueError(f"path field {field_name!r}: '**' is not supported")
        if segment != "*":
            parts.append(segment)
            continue
        previous = sub.split("/")[index - 1] if index else field_name
        param = _singular(previous) if previous != "*" else f"{field_name}_{index}"
        params.append(param)
        parts.append("{" + param + "}")
    return "/".join(parts), tuple(params)


def _singular(noun: str) -> str:
    # Resource collections are plural nouns (AIP-122): "games" -> "game".
    return noun[:-1] if noun.endswith("s") and len(noun) > 1 else noun


def _query_params(message: Descriptor, bound: set[str]) -> dict[str, QueryParam]:
    """Top-level scalar request fields not bound to the path, by JSON and proto name."""
    params: dict[str, QueryParam] = {}
    for fd in message.fields:
        if fd.name in bound or fd.type == FieldDescriptor.TYPE_MESSAGE:
            continue
        param = QueryParam(fd, _converter(fd), fd.is_repeated)
        params[fd.json_name] = param
        params[fd.name] = param
    return params


def _converter(fd: FieldDescriptor) -> QueryConverter:
    if fd.type == FieldDescriptor.TYPE_BOOL:
        return _to_bool
    if fd.type == FieldDescriptor.TYPE_BYTES or fd.type == FieldDescriptor.TYPE_STRING:
        return str
    if fd.type == FieldDescriptor.TYPE_ENUM:
        return _to_enum
    if fd.type in (FieldDescriptor.TYPE_FLOAT, FieldDescriptor.TYPE_DOUBLE):
        return float
    return str  # integers: json_format parses quoted integers and rejects junk by itself


def _to_bool(text: str) -> bool:
    if text in ("true", "1"):
        return True
    if text in ("false", "0"):
        return False
    raise ValueError(f"expected true or false, got {text!r}")


def _to_enum(text: str) -> str | int:
    return int(text) if text.lstrip("-").isdigit() else text


def _etag_field(message: Descriptor) -> tuple[tuple[str, ...], int] | None:
    """The first of ``ETAG_FIELD_PATHS`` that is an int64 (a version) or string (an etag) field path of
    ``message``, with its field type."""
    for dotted in ETAG_FIELD_PATHS:
        descriptor: Descriptor | None = message
        path = tuple(dotted.split("."))
        for index, name in enumerate(path):
            fd = descriptor.fields_by_name.get(name) if descriptor else None
            if fd is None:
                break
            descriptor = fd.message_type
            if index == len(path) - 1 and fd.type in (FieldDescriptor.TYPE_INT64, FieldDescriptor.TYPE_STRING):
                return path, fd.type
    return None


ROUTES: tuple[Route, ...] = build_routes()
