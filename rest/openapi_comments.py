"""The protos' leading comments, read for the OpenAPI document's descriptions.

The generated ``_pb2`` modules carry no source info, so ``scripts/gen_protos.sh`` also writes
``rest/descriptors.binpb`` (a FileDescriptorSet of the tabletop.v1 files with source info);
``load_comments`` turns its source locations into comments by element full name, and ``Comments``
is how the schema and operation builders (``rest/openapi_schemas.py``, ``rest/openapi_operations.py``)
ask for them. Kept apart from the builders because it reads a descriptor set's source-location paths,
which nothing else in the document needs to know about.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from importlib.abc import Traversable
from pathlib import Path

from google.protobuf import descriptor_pb2
from google.protobuf.descriptor import EnumDescriptor
from google.protobuf.message import DecodeError

log = logging.getLogger(__name__)


def load_comments(source: Traversable | Path) -> dict[str, str]:
    """Leading comments of a FileDescriptorSet file, trimmed, by element full name.

    Keys: messages, enums, services (``tabletop.v1.Game``), fields and rpcs
    (``tabletop.v1.Game.version``, ``tabletop.v1.GameService.SubmitAction``) and enum values
    (``tabletop.v1.GameStatus.GAME_STATUS_ACTIVE``, scoped by their enum). A missing or
    unreadable file gives no comments: the document is then built without them.
    """
    try:
        descriptor_set = descriptor_pb2.FileDescriptorSet.FromString(source.read_bytes())
    except (OSError, DecodeError) as error:
        log.warning("no proto comments in the OpenAPI document: cannot read %s: %s", source, error)
        return {}
    comments: dict[str, str] = {}
    for file in descriptor_set.file:
        names = _element_names(file)
        for location in file.source_code_info.location:
            name = names.get(tuple(location.path))
            text = _trim(location.leading_comments)
            if name is not None and text:
                comments[name] = text
    return comments


class Comments:
    """Proto comments by full name, as the schema builders read them."""

    def __init__(self, comments: Mapping[str, str]) -> None:
        self._comments = comments

    def get(self, full_name: str) -> str | None:
        return self._comments.get(full_name)

    def enum(self, enum: EnumDescriptor) -> str | None:
        """The enum's comment, then its values as a list when any value has a comment."""
        values = [(v.name, self._comments.get(f"{enum.full_name}.{v.name}")) for v in enum.values]
        listing = None
        if any(comment for _, comment in values):
            items = [f"- {name}: {comment}" if comment else f"- {name}" for name, comment in values]
            listing = "\n".join(item.replace("\n", "\n  ") for item in items)  # continuation lines
        return join(self._comments.get(enum.full_name), listing)


def join(*parts: str | None) -> str:
    """Description parts as paragraphs, empty ones left out (the proto comment goes first)."""
    return "\n\n".join(part for part in parts if part)


# Helpers

_SOURCE_PATH = {  # field numbers of the descriptor.proto fields in SourceCodeInfo.Location.path
    "message_type": descriptor_pb2.FileDescriptorProto.MESSAGE_TYPE_FIELD_NUMBER,  # 4
    "enum_type": descriptor_pb2.FileDescriptorProto.ENUM_TYPE_FIELD_NUMBER,  # 5
    "service": descriptor_pb2.FileDescriptorProto.SERVICE_FIELD_NUMBER,  # 6
    "field": descriptor_pb2.DescriptorProto.FIELD_FIELD_NUMBER,  # 2
    "nested_type": descriptor_pb2.DescriptorProto.NESTED_TYPE_FIELD_NUMBER,  # 3
    "nested_enum": descriptor_pb2.DescriptorProto.ENUM_TYPE_FIELD_NUMBER,  # 4
    "value": descriptor_pb2.EnumDescriptorProto.VALUE_FIELD_NUMBER,  # 2
    "method": descriptor_pb2.ServiceDescriptorProto.METHOD_FIELD_NUMBER,  # 2
}


def _element_names(file: descriptor_pb2.FileDescriptorProto) -> dict[tuple[int, ...], str]:
    """Source location path -> full name, for every commentable element ``load_comments`` keeps."""
    names: dict[tuple[int, ...], str] = {}
    p = _SOURCE_PATH

    def enum(path: tuple[int, ...], proto: descriptor_pb2.EnumDescriptorProto, scope: str) -> None:
        full_name = f"{scope}.{proto.name}" if scope else proto.name
        names[path] = full_name
        for v, value in enumerate(proto.value):
            names[(*path, p["value"], v)] = f"{full_name}.{value.name}"

    def message(path: tuple[int, ...], proto: descriptor_pb2.DescriptorProto, scope: str) -> None:
        full_name = f"{scope}.{proto.name}" if scope else proto.name
        names[path] = full_name
        for j, field in enumerate(proto.field):
            names[(*path, p["field"], j)] = f"{full_name}.{field.name}"
        for k, nested in enumerate(proto.nested_type):
            message((*path, p["nested_type"], k), nested, full_name)
        for k, nested_enum in enumerate(proto.enum_type):
            enum((*path, p["nested_enum"], k), nested_enum, full_name)

    for i, message_proto in enumerate(file.message_type):
        message((p["message_type"], i), message_proto, file.package)
    for i, enum_proto in enumerate(file.enum_type):
        enum((p["enum_type"], i), enum_proto, file.package)
    for s, service in enumerate(file.service):
        service_name = f"{file.package}.{service.name}" if file.package else service.name
        names[(p["service"], s)] = service_name
        for m, method in enumerate(service.method):
            names[(p["service"], s, p["method"], m)] = f"{service_name}.{method.name}"
    return names


def _trim(comment: str) -> str:
    """A comment's text: one leading space dropped per line, trailing spaces and blank edges gone."""
    lines = [line.removeprefix(" ").rstrip() for line in comment.splitlines()]
    return "\n".join(lines).strip("\n")
