"""The contract's field limits as JSON Schema keywords, for the OpenAPI document (issue 12).

The limits come from the same annotations the server enforces (``service/api/field_rules.py``
reads them; ``field_rules.proto`` defines them), so the document states exactly what the
server refuses:

- ``google.api.field_behavior`` REQUIRED: the field is in its schema's ``required`` list, and
  a value the proto3 JSON mapping would read as unset is excluded too (an empty string, an
  empty list, or 0 for an integer whose range allows it), since the server sees those as
  absent; OUTPUT_ONLY and IDENTIFIER: ``readOnly``; every behaviour is listed in
  ``x-field-behavior``.
- ``(tabletop.v1.rules)``: ``minLength``/``maxLength``/``pattern`` on strings, ``minimum``/
  ``maximum`` on integers, ``maxItems`` on lists (the other limits then go on ``items``), and
  the reason that refuses a value in ``x-reason``.
"""

from __future__ import annotations

from typing import Any

from google.protobuf.descriptor import Descriptor, FieldDescriptor

from tabletop_server.service.api import field_rules

Schema = dict[str, Any]
_READ_ONLY = {"OUTPUT_ONLY", "IDENTIFIER"}
_JSON_INTEGERS = {FieldDescriptor.TYPE_INT32, FieldDescriptor.TYPE_SINT32, FieldDescriptor.TYPE_SFIXED32,
                  FieldDescriptor.TYPE_UINT32, FieldDescriptor.TYPE_FIXED32}


def required(descriptor: Descriptor) -> list[str]:
    """The JSON names of a message's REQUIRED fields."""
    return [r.field.json_name for r in field_rules.rules(descriptor) if r.required]


def annotate(schema: Schema, field: FieldDescriptor) -> Schema:
    """``schema`` (a field's schema) with the field's behaviours and limits added."""
    names = field_rules.behaviors(field)
    if names:
        schema["x-field-behavior"] = names
    if _READ_ONLY & set(names):
        schema["readOnly"] = True
    rule = field_rules.rule(field)
    if rule is None:
        return schema
    if rule.reason:
        schema["x-reason"] = rule.reason
    if field.is_repeated:
        if rule.max_items:
            schema["maxItems"] = rule.max_items
        if rule.required:
            schema["minItems"] = 1
        schema["items"] = {**schema["items"], **value_keywords(field)}
        return schema
    schema.update(value_keywords(field))
    if rule.required and field.type == FieldDescriptor.TYPE_STRING:
        schema["minLength"] = max(1, rule.min_length)
    if rule.required and field.type in _JSON_INTEGERS and not _excludes_zero(rule):
        schema["not"] = {"const": 0}
    return schema


def value_keywords(field: FieldDescriptor) -> Schema:
    """The keywords that bound one value of ``field`` (one item, for a list)."""
    rule = field_rules.rule(field)
    if rule is None:
        return {}
    keywords: Schema = {}
    if field.type == FieldDescriptor.TYPE_STRING:
        if rule.min_length:
            keywords["minLength"] = rule.min_length
        if rule.max_length:
            keywords["maxLength"] = rule.max_length
        if rule.pattern is not None:
            keywords["pattern"] = rule.pattern.pattern
    elif rule.minimum is not None or rule.maximum is not None:
        if field.type not in _JSON_INTEGERS:
            raise ValueError(f"{field.full_name}: a range on a 64-bit integer (a JSON string) cannot be stated")
        if rule.minimum is not None:
            keywords["minimum"] = rule.minimum
        if rule.maximum is not None:
            keywords["maximum"] = rule.maximum
    return keywords


def path_pattern(route: Any, var: Any, default: str) -> str:
    """A path parameter's pattern: the bound field's own without the template's literal prefix
    (``^games/[a-z0-9]{1,64}$`` on ``games/{game}`` gives ``^[a-z0-9]{1,64}$``), else ``default``."""
    prefix, brace, rest = var.template.partition("{")
    if len(var.params) != 1 or not brace or not rest.endswith("}"):
        return default
    rule = field_rules.rule(route.method.input_type.fields_by_name[var.field])
    pattern = rule.pattern.pattern if rule is not None and rule.pattern is not None else ""
    if pattern.startswith("^" + prefix) and pattern.endswith("$"):
        return "^" + pattern.removeprefix("^" + prefix)
    return default


def header_schema(route: Any, field_name: str | None) -> Schema:
    """A header's schema, with the limits of the request field it sets (``Idempotency-Key``: ``request_id``)."""
    schema: Schema = {"type": "string"}
    if field_name:
        schema.update(value_keywords(route.method.input_type.fields_by_name[field_name]))
    return schema


# Helpers

def _excludes_zero(rule: field_rules.Rule) -> bool:
    return (rule.minimum is not None and rule.minimum > 0) or (rule.maximum is not None and rule.maximum < 0)
