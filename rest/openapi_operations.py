"""The OpenAPI document's operations: one per route, with its parameters, headers and responses.

Each ``google.api.http`` rule (``rest/routes.py``) becomes an operation whose description names the
rule and the rpc behind it; path variables, query fields and the headers the facade reads
(``X-Request-Id``, ``Idempotency-Key``, ``If-Match``, ``If-None-Match``, ``Accept-Language``,
``Last-Event-ID``) become parameters; responses are the rpc's output (or its Server-Sent Events
stream) and, for every status, the REST error envelope. That envelope is the one hand-written
schema of the document, since it is the facade's own (``rest/errors.py``), not a proto message.
"""

from __future__ import annotations

from typing import Any

import grpc

from tabletop_server.rest import openapi_rules
from tabletop_server.rest.cursors import CURSORS
from tabletop_server.rest.openapi_comments import Comments, join
from tabletop_server.rest.openapi_schemas import REF, Schema, body_schema_name, single_schema
from tabletop_server.rest.routes import SEGMENT_PATTERN, SERVICE, Route

ERROR_SCHEMA = "Error"


def operation(route: Route, notes: Comments) -> dict[str, Any]:
    """The OpenAPI operation of ``route`` (its request and response schemas are added apart)."""
    mapping = (
        f"`{route.verb} {route.template}` (google.api.http"
        + (f', body "{route.body}"' if route.body else "")
        + f") on rpc {route.method.full_name}: {route.method.input_type.full_name} -> "
        + ("stream " if route.streaming else "")
        + f"{route.method.output_type.full_name}."
    )
    result: dict[str, Any] = {
        "operationId": route.name,
        "tags": [SERVICE.name],
        "summary": f"{SERVICE.full_name}.{route.name}",
        "description": join(notes.get(route.method.full_name), mapping),
        "parameters": _parameters(route, notes),
        "responses": _responses(route),
    }
    if route.body == "*":
        ref = {"$ref": REF + body_schema_name(route)}
        result["requestBody"] = {"required": False, "content": {"application/json": {"schema": ref}}}
    return result


def error_schema() -> Schema:
    """The REST error envelope (``rest/errors.py``), every operation's ``default`` response."""
    detail = {"$ref": REF + "google.protobuf.Any"}
    return {
        "type": "object",
        "required": ["error"],
        "additionalProperties": False,
        "properties": {
            "error": {
                "type": "object",
                "required": ["code", "status", "message", "reason", "details"],
                "additionalProperties": False,
                "properties": {
                    "code": {"type": "integer", "description": "The HTTP status."},
                    "status": {"type": "string", "enum": [c.name for c in grpc.StatusCode]},
                    "message": {"type": "string"},
                    "reason": {
                        "type": "string",
                        "description": "The ErrorInfo reason (UPPER_SNAKE), or empty.",
                    },
                    "details": {"type": "array", "items": detail},
                },
            }
        },
    }


# Helpers


def _parameters(route: Route, notes: Comments) -> list[dict[str, Any]]:
    params: list[dict[str, Any]] = [
        {
            "name": p,
            "in": "path",
            "required": True,
            "schema": {"type": "string", "pattern": openapi_rules.path_pattern(route, var, f"^{SEGMENT_PATTERN}$")},
        }
        for var in route.path_variables
        for p in var.params
    ]
    seen = set()
    for param in route.query.values():
        if param.field.json_name not in seen:
            seen.add(param.field.json_name)
            query = {"name": param.field.json_name, "in": "query", "schema": _query_schema(param)}
            description = notes.get(param.field.full_name)
            if description:
                query["description"] = description
            params.append(query)
    headers = [("X-Request-Id", "Correlation id, forwarded to the service and echoed back.")]
    if route.idempotency_field:
        headers.append(
            ("Idempotency-Key", f"Sets `{route.idempotency_field}`: a repeat returns the first response.")
        )
    if route.if_match_field:
        headers.append(
            ("If-Match", f'Sets `{route.if_match_field}` from an ETag such as "12"; 412 when stale.')
        )
    if route.etag_path and route.verb == "GET" and not route.streaming:
        headers.append(("If-None-Match", "An ETag from an earlier read; 304 when unchanged."))
    if route.language_field:
        field = route.method.input_type.fields_by_name[route.language_field].json_name
        said = (f"Sets `{field}` when the query gives none: the most wanted language tag by quality (RFC 9110), "
                "such as `cs-CZ, en;q=0.8`; none valid is English.")
        headers.append(("Accept-Language", said))
    if route.streaming:
        cursor = CURSORS[route.name]
        field = route.method.input_type.fields_by_name[cursor.field].json_name
        headers.append(("Last-Event-ID", f"Resume after this {cursor.what} (overrides the {field} parameter)."))
    limits = {"Idempotency-Key": route.idempotency_field}
    params += [
        {"name": h, "in": "header", "description": d, "schema": openapi_rules.header_schema(route, limits.get(h))}
        for h, d in headers
    ]
    return params


def _query_schema(param: Any) -> Schema:
    single = (
        single_schema(param.field, {}, Comments({}))
        if param.field.enum_type is None
        else {"type": "string", "enum": [v.name for v in param.field.enum_type.values]}
    )
    single = {**single, **openapi_rules.value_keywords(param.field)}
    return {"type": "array", "items": single} if param.repeated else single


def _responses(route: Route) -> dict[str, Any]:
    response_ref = {"$ref": REF + route.method.output_type.full_name}
    if route.streaming:
        cursor = CURSORS[route.name]
        ok = {
            "description": (
                f"Server-Sent Events: `id: <{cursor.what}>`, `event: {' | '.join(cursor.events)}`, `data: <JSON of "
                f"the {route.method.output_type.full_name} schema>`; `: heartbeat` comments; `event: error` last "
                "on failure."
            ),
            "content": {"text/event-stream": {"schema": {"type": "string"}, "x-data-schema": response_ref}},
        }
    else:
        ok = {"description": "OK", "content": {"application/json": {"schema": response_ref}}}
    responses: dict[str, Any] = {"200": ok}
    headers: dict[str, Any] = {}
    if route.language_field and not route.streaming:
        headers["Vary"] = {"description": "`Authorization, Accept-Language`: the words follow the header, so a "
                                          "shared cache keeps the languages apart.", "schema": {"type": "string"}}
    if route.etag_path and not route.streaming:
        what = "A strong hash of the response, quoted (the `etag` field)." if route.public_etag else \
            "The game version, quoted."
        headers["ETag"] = {"description": what, "schema": {"type": "string"}}
        if route.verb == "GET":
            responses["304"] = {"description": "Not modified (If-None-Match matched the current ETag)."}
    if headers:
        ok["headers"] = headers
    responses["default"] = {
        "description": "An error (any gRPC status, mapped to HTTP generically).",
        "content": {"application/json": {"schema": {"$ref": REF + ERROR_SCHEMA}}},
    }
    return responses
