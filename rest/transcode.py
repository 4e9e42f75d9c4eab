"""HTTP request -> gRPC request message, and gRPC response message -> JSON.

Follows the google.api.http transcoding rules (AIP-127, as grpc-gateway does): path
variables set the fields they are bound to, a ``body: "*"`` route reads every other
field from the JSON body, a GET route reads top-level scalar fields from the query
string (JSON or proto field names). JSON is the proto3 JSON mapping
(``google.protobuf.json_format``) with unknown fields rejected, so a typo is a 400
naming the field rather than an ignored input. Each request is parsed once and each
response printed once (by the compiled printers of ``rest.jsonpb``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import grpc
import orjson
from google.protobuf import json_format
from google.protobuf.message import Message
from werkzeug.datastructures import MultiDict

from tabletop_server.rest import jsonpb
from tabletop_server.rest.errors import Reason, bad_request, local_error
from tabletop_server.rest.routes import Route

JSON_TYPES = ("application/json",)


def decode_request(
    route: Route,
    path_params: Mapping[str, str],
    query: MultiDict[str, str],
    body: bytes,
    content_type: str | None,
) -> Message:
    """The request message for one HTTP request (raises ``ApiError`` on bad input)."""
    document: dict[str, Any] = {}
    if route.body == "*":
        document = _body_document(body, content_type)
        _refuse_dual_names(document, route.request_class.DESCRIPTOR, "")
    elif body.strip():
        raise bad_request(Reason.UNEXPECTED_BODY, f"{route.verb} {route.openapi_path} takes no request body")
    if query:
        _merge_query(route, query, document)
    path_values = {var.field: var.template.format(**path_params) for var in route.path_variables}
    for var in route.path_variables:
        name, value = var.field, path_values[var.field]
        sent = document.pop(name, None)
        sent = document.pop(var.json_name, sent)
        if sent is not None and sent != value:
            raise bad_request(
                Reason.CONFLICTING_FIELD, f"{name!r} is {value!r} from the path, not {sent!r}", name
            )
    message = _parse_document(route.request_class, document)
    for name, value in path_values.items():
        setattr(message, name, value)
    return message


def decode_json(message_class: type[Message], body: bytes) -> Message:
    """A whole request message from a JSON body, with the facade's checks and errors (malformed JSON,
    unknown and duplicate fields): for ``rest.connect``, whose requests have no path or query."""
    document = _body_document(body, JSON_TYPES[0])
    _refuse_dual_names(document, message_class.DESCRIPTOR, "")
    return _parse_document(message_class, document)


def apply_headers(route: Route, message: Message, idempotency_key: str | None, if_match: str | None) -> None:
    """Bind ``Idempotency-Key`` to ``request_id`` and ``If-Match`` to ``expected_version``."""
    if idempotency_key is not None:
        _bind(message, route.idempotency_field, idempotency_key, "Idempotency-Key")
    if if_match is not None and if_match.strip() != "*":
        _bind(message, route.if_match_field, parse_etag(if_match), "If-Match")


def apply_language(route: Route, message: Message, accept_language: str) -> None:
    """Bind ``Accept-Language`` to the route's language field when the query set none: its most wanted
    language tag (RFC 9110 12.5.4 quality values; ``*`` and malformed entries are skipped), so a browser's
    own header picks the catalog's words. Nothing valid in it leaves the field empty (English)."""
    if route.language_field is None or getattr(message, route.language_field):
        return
    ranked: list[tuple[float, int, str]] = []
    for index, entry in enumerate(accept_language[:512].split(",")[:32]):
        tag, _, params = entry.strip().partition(";")
        quality = 1.0
        match = _QUALITY.fullmatch(params.strip()) if params else None
        if params and match is None:
            continue
        if match is not None:
            quality = float(match.group(1))
        if quality > 0 and _LANGUAGE_TAG.fullmatch(tag.strip()):
            ranked.append((-quality, index, tag.strip()))
    if ranked:
        setattr(message, route.language_field, min(ranked)[2])


def parse_etag(header: str) -> int:
    """The version in an ETag header value: ``"12"``, ``W/"12"`` or ``12``."""
    match = _ETAG.fullmatch(header.strip())
    version = int(match.group(1)) if match is not None else None
    if version is None or not -(2**63) <= version < 2**63:  # expected_version and from_version are int64
        raise bad_request(Reason.INVALID_HEADER, f'expected one version ETag such as "12", got {header!r}')
    return version


def parse_last_event_id(header: str) -> int:
    """The version in a ``Last-Event-ID``: the id of an event the stream sent, so 0 or more."""
    version = parse_etag(header)
    if version < 0:
        raise bad_request(Reason.INVALID_HEADER, f"Last-Event-ID is the id of an event this stream sent (a version, "
                          f"0 or more), not {header.strip()[:32]!r}")
    return version


def encode_response(message: Message) -> bytes:
    """The proto3 JSON of ``message`` (defaults omitted, lowerCamelCase names), compact."""
    return jsonpb.to_json(message)


# Helpers

_ETAG = re.compile(r'(?:W/)?"?(-?[0-9]{1,19})"?')
_QUALITY = re.compile(r"q=(0(?:\.[0-9]{0,3})?|1(?:\.0{0,3})?)", re.IGNORECASE)
_LANGUAGE_TAG = re.compile(r"[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8}){0,4}")  # GetRulesetRequest.language_code's rule
_AT_PATH = re.compile(r'at "?([A-Za-z0-9_.\[\]]+?)"?\.?$', re.MULTILINE)
_NO_FIELD = re.compile(r'has no field named "([^"]+)" at "([^"]+)"')
_AVAILABLE = re.compile(r'Available Fields\(except extensions\): "(\[.*?\])"')


def _body_document(body: bytes, content_type: str | None) -> dict[str, Any]:
    if not body.strip():
        return {}
    mime = (content_type or "").split(";", 1)[0].strip().lower()
    if mime not in JSON_TYPES and not mime.endswith("+json"):
        raise _unsupported(mime)
    try:
        document = orjson.loads(body)
    except orjson.JSONDecodeError as error:
        raise bad_request(Reason.MALFORMED_JSON, f"the body is not valid JSON: {error}") from None
    if not isinstance(document, dict):
        raise bad_request(
            Reason.MALFORMED_JSON, f"the body must be a JSON object, not {type(document).__name__}"
        )
    return document


def _unsupported(mime: str) -> Exception:
    return local_error(
        415,
        grpc.StatusCode.INVALID_ARGUMENT,
        Reason.UNSUPPORTED_MEDIA_TYPE,
        f"send the body as application/json, not {mime or 'no content type'}",
    )


def _refuse_dual_names(document: Any, descriptor: Any, path: str) -> None:
    """A 400 when one field comes under both its JSON name and its proto name.

    ``json_format`` accepts either name and silently keeps one of two different values;
    the client meant one of them, and the facade cannot know which.
    """
    if not isinstance(document, dict):
        return
    for field in descriptor.fields:
        where = f"{path}.{field.json_name}".lstrip(".")
        if field.json_name != field.name and field.json_name in document and field.name in document:
            raise bad_request(Reason.DUPLICATE_FIELD, f"{where!r} is given twice, also as {field.name!r}; "
                              "send it once (the JSON name is preferred)", where)
        value = document.get(field.json_name, document.get(field.name))
        if field.message_type is None or field.message_type.GetOptions().map_entry or value is None:
            continue
        for item in value if isinstance(value, list) else [value]:
            _refuse_dual_names(item, field.message_type, where)


def _merge_query(route: Route, query: MultiDict[str, str], document: dict[str, Any]) -> None:
    seen: dict[str, str] = {}
    for key in query:
        param = route.query.get(key)
        if param is not None and seen.setdefault(param.field.json_name, key) != key:
            raise bad_request(Reason.DUPLICATE_FIELD, f"query parameter {key!r} is also given as "
                              f"{seen[param.field.json_name]!r}; send it once", key)
        if param is None:
            known = sorted({p.field.json_name for p in route.query.values()})
            raise bad_request(
                Reason.UNKNOWN_QUERY_PARAMETER,
                f"unknown query parameter {key!r}; known: {known or 'none'}",
                key,
            )
        values = query.getlist(key)
        try:
            converted = [param.convert(value) for value in values]
        except ValueError as error:
            raise bad_request(Reason.INVALID_FIELD, f"query parameter {key!r}: {error}", key) from None
        if not param.repeated and len(converted) > 1:
            raise bad_request(Reason.INVALID_FIELD, f"query parameter {key!r} given more than once", key)
        document[param.field.json_name] = converted if param.repeated else converted[0]


def _parse_document(message_class: type[Message], document: dict[str, Any]) -> Message:
    message = message_class()
    try:
        json_format.ParseDict(document, message)
    except json_format.ParseError as error:
        raise _parse_error(message_class, error) from None
    return message


def _parse_error(message_class: type[Message], error: json_format.ParseError) -> Exception:
    """A 400 naming the offending field path (e.g. ``options.ttrEurope.bar``)."""
    text = str(error)
    root = message_class.DESCRIPTOR.name
    unknown = _NO_FIELD.search(text)
    if unknown is not None:
        name, at = unknown.groups()
        path = ".".join([*at.split(".")[1:], name]) if at.startswith(root) else name
        available = _AVAILABLE.search(text)
        known = f"; the fields there are {available.group(1)}" if available else ""
        return bad_request(Reason.UNKNOWN_FIELD, f"unknown field {path!r}{known}", path)
    located = _AT_PATH.search(text)
    if located is not None and located.group(1).startswith(root + "."):
        path = located.group(1)[len(root) + 1 :]
    else:
        head = re.match(r"Failed to parse (\S+) field", text)
        path = head.group(1) if head else ""
    return bad_request(Reason.INVALID_FIELD, f"invalid value for {path or 'the body'}: {text}", path or None)


def _bind(message: Message, field: str | None, value: Any, header: str) -> None:
    if field is None:
        raise bad_request(Reason.UNSUPPORTED_HEADER, f"{header} is not supported on this route", header)
    try:
        already_set = message.HasField(field)
    except ValueError:  # no presence (a plain proto3 scalar): set means non-default
        already_set = bool(getattr(message, field))
    if already_set and getattr(message, field) != value:
        raise bad_request(
            Reason.CONFLICTING_FIELD,
            f"{header} says {value!r} but the body's {field} is {getattr(message, field)!r}",
            field,
        )
    setattr(message, field, value)
