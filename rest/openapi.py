"""The OpenAPI 3.1 document, generated from the contract's descriptors.

No schema here is written by hand for a message: every message reachable from the
routes (and every message of the tabletop.v1 files) becomes a schema named by its
full proto name, following the proto3 JSON mapping exactly as ``json_format`` prints
it (``rest/openapi_schemas.py``). Each route becomes an operation
(``rest/openapi_operations.py``). The only hand-written schema is the REST error
envelope, which is the facade's own (``rest/errors.py``).

Descriptions come from the protos' leading comments: the generated ``_pb2`` modules
carry no source info, so ``scripts/gen_protos.sh`` also writes ``rest/descriptors.binpb``
(a FileDescriptorSet of the tabletop.v1 files with source info), read once here
(``rest/openapi_comments.py`` reads it). The service comment opens ``info.description``,
an rpc's comment its operation's, a message's or enum's its schema's (enum values
listed), a field's its property's (next to a ``$ref`` where the field is a message or
an enum, as OpenAPI 3.1 allows). Without that file the document is the same minus
those descriptions.

This module assembles the document: which messages are roots, the paths, the security
schemes. It keeps ``DESCRIPTOR_SET`` and the cached ``proto_comments`` so that a test can
point the one at another file and clear the other.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from importlib import resources
from importlib.abc import Traversable
from pathlib import Path
from typing import Any

from google.protobuf import any_pb2
from google.rpc import error_details_pb2

from tabletop_server.rest.openapi_comments import Comments, join, load_comments
from tabletop_server.rest.openapi_operations import ERROR_SCHEMA, error_schema, operation
from tabletop_server.rest.openapi_schemas import Schema, add_body_schema, add_message
from tabletop_server.rest.routes import SERVICE, Route

# The tabletop.v1 FileDescriptorSet with source info, written by scripts/gen_protos.sh.
DESCRIPTOR_SET: Traversable | Path = resources.files(__package__) / "descriptors.binpb"


def build_openapi(
    routes: tuple[Route, ...],
    title: str = "Tabletop",
    version: str = "v1",
    comments: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """The OpenAPI document for ``routes``.

    ``comments`` maps full names to proto comments (see ``load_comments``); by default
    those of ``DESCRIPTOR_SET``.
    """
    notes = Comments(proto_comments() if comments is None else comments)
    schemas: dict[str, Schema] = {}
    roots = [d for file in _package_files() for d in file.message_types_by_name.values()]
    roots += [r.method.input_type for r in routes] + [r.method.output_type for r in routes]
    roots += [cls.DESCRIPTOR for cls in _ERROR_DETAILS] + [any_pb2.Any.DESCRIPTOR]
    for descriptor in roots:
        add_message(descriptor, schemas, notes)
    schemas[ERROR_SCHEMA] = error_schema()
    paths: dict[str, dict[str, Any]] = {}
    for route in routes:
        if route.body == "*" and route.path_fields:
            add_body_schema(route, schemas)
        paths.setdefault(route.openapi_path, {})[route.verb.lower()] = operation(route, notes)
    rest_mapping = f"REST mapping of {SERVICE.full_name}, generated from its google.api.http rules."
    return {
        "openapi": "3.1.0",
        "info": {
            "title": title,
            "version": version,
            "description": join(notes.get(SERVICE.full_name), rest_mapping),
        },
        "security": [{}, {"bearer": []}, {"apiKey": []}],
        "paths": paths,
        "components": {
            "schemas": dict(sorted(schemas.items())),
            "securitySchemes": {
                "bearer": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "A seat's player token (from CreateGame or JoinGame), or a signed-in "
                                   "player's JWT (the studio's, or a PlayerSession's access token); "
                                   "none = spectator.",
                },
                "apiKey": {"type": "apiKey", "in": "header", "name": "x-api-key"},
            },
        },
    }


@functools.cache
def proto_comments() -> dict[str, str]:
    """The comments of ``DESCRIPTOR_SET``, read once (empty, with a warning, without it)."""
    return load_comments(DESCRIPTOR_SET)


# Helpers

_ERROR_DETAILS = (
    error_details_pb2.ErrorInfo,
    error_details_pb2.BadRequest,
    error_details_pb2.PreconditionFailure,
    error_details_pb2.RetryInfo,
)


def _package_files() -> list[Any]:
    package = SERVICE.file.package
    seen, stack, files = set(), [SERVICE.file], []
    while stack:
        file = stack.pop()
        if file.name in seen:
            continue
        seen.add(file.name)
        if file.package == package:
            files.append(file)
            stack.extend(file.dependencies)
    return files
