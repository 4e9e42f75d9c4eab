"""Request limits read from the contract's annotations, and the one check that enforces them (issue 12).

The limits of request fields (lengths, patterns, ranges, item counts, and whether a field
is required) are written once, as options in the protos: ``google.api.field_behavior``
(AIP-203) says a field is REQUIRED, ``(tabletop.v1.rules)`` (``field_rules.proto``) gives
its bounds and the stable reason that refuses a value outside them. This module reads
those options from the generated descriptors, once per message type, and
``RulesInterceptor`` checks every request against them before any handler runs; the
OpenAPI document states the same options (``rest/openapi_rules.py``). Enforcement and
documentation read one source, so they cannot disagree.

Why our own option and not protovalidate (``buf.validate``): protovalidate 2 validates
messages of another protobuf runtime (protobuf-py), not the ``google.protobuf`` messages
every part of this project uses; protovalidate 1 brings a CEL interpreter (cel-python,
lark, pendulum, google-re2) onto the path of every SubmitAction; and its violations carry
rule ids (``string.max_len``), so a second table would have to map them to the stable
reasons clients already handle. The option here carries the reason beside the bound.

What stays in the host: bounds that depend on the game (a ruleset's seat range and action
limit, the table's seat count). The annotations give the widest bound over every ruleset,
and the host narrows it with the same reason.
"""

from __future__ import annotations

import functools
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from google.api import field_behavior_pb2
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message
from tabletop.v1 import field_rules_pb2

from tabletop_server.service.api import auth
from tabletop_server.service.api.errors import InvalidArgument
from tabletop_server.service.api.interceptors import Behaviour, Context, MethodInterceptor
from tabletop_server.service.api.players import CURRENT

REQUIRED = field_behavior_pb2.REQUIRED


@dataclass(frozen=True)
class Rule:
    """The limits of one field, as its annotations state them."""

    field: FieldDescriptor
    required: bool
    reason: str
    min_length: int = 0
    max_length: int = 0  # 0: no limit
    pattern: re.Pattern[str] | None = None  # matched with fullmatch (a Python "$" also matches before "\n")
    minimum: int | None = None
    maximum: int | None = None
    max_items: int = 0  # 0: no limit
    max_items_reason: str = ""
    hint: str = ""
    # Read from the descriptor once: descriptor attributes cost a lookup each (every request reads them).
    name: str = ""
    repeated: bool = False
    presence: bool = False  # proto3 `optional` or a message: unset is told apart from the default
    default: Any = None


def behaviors(field: FieldDescriptor) -> list[str]:
    """The field's ``google.api.field_behavior`` values by name, e.g. ``["OUTPUT_ONLY"]``."""
    values = field.GetOptions().Extensions[field_behavior_pb2.field_behavior]
    return [field_behavior_pb2.FieldBehavior.Name(v) for v in values]


def rules_option(field: FieldDescriptor) -> field_rules_pb2.FieldRules | None:
    """The field's ``(tabletop.v1.rules)`` option, or None."""
    options = field.GetOptions()
    return options.Extensions[field_rules_pb2.rules] if options.HasExtension(field_rules_pb2.rules) else None


def rule(field: FieldDescriptor) -> Rule | None:
    """The limits of ``field``, or None when it has none."""
    return _rule(field)


def rules(descriptor: Descriptor) -> tuple[Rule, ...]:
    """The limits of a message type's own fields, in field order."""
    return tuple(r for r in (_rule(f) for f in descriptor.fields) if r is not None)


def check(message: Message) -> None:
    """Raise ``InvalidArgument`` (with the field's reason) for the first field outside its limits."""
    _check(message, "")


class RulesInterceptor(MethodInterceptor):
    """Checks each request against its annotations before the method runs (unary and streaming).

    Credentials come first: on the methods that read a player token (``authenticated``), a
    malformed one is UNAUTHENTICATED before any field is looked at, so a caller without a
    usable token learns nothing about its request, as before the limits moved here.
    """

    def __init__(self, authenticated: frozenset[str] = frozenset()) -> None:
        super().__init__()
        self.authenticated = authenticated

    def unary(self, method: str, fn: Behaviour) -> Behaviour:
        token_first = method in self.authenticated

        def wrapper(request: Any, context: Context) -> Any:  # checks, then the method's own awaitable:
            _admit(request, context, token_first)  # one coroutine less per call, the same order
            return fn(request, context)
        return wrapper

    def stream(self, method: str, fn: Behaviour) -> Behaviour:
        token_first = method in self.authenticated

        async def wrapper(request: Any, context: Context) -> AsyncIterator[Any]:
            _admit(request, context, token_first)
            async for response in fn(request, context):
                yield response
        return wrapper


# Helpers

def _admit(request: Message, context: Context, token_first: bool) -> None:
    if token_first:
        token = auth.bearer(context.invocation_metadata())  # type: ignore[arg-type]
        if token and CURRENT.get() is None:  # a player's JWT was verified already (players.py)
            auth.parse(token)
    check(request)


@functools.cache
def _rule(field: FieldDescriptor) -> Rule | None:
    option = rules_option(field)
    required = REQUIRED in field.GetOptions().Extensions[field_behavior_pb2.field_behavior]
    if option is None and not required:
        return None
    option = option or field_rules_pb2.FieldRules()
    if required and not option.reason:
        raise ValueError(f"{field.full_name} is REQUIRED but has no (tabletop.v1.rules).reason to refuse it with")
    return Rule(field=field, required=required, reason=option.reason, min_length=option.min_length,
                max_length=option.max_length, pattern=re.compile(option.pattern) if option.pattern else None,
                minimum=option.minimum if option.HasField("minimum") else None,
                maximum=option.maximum if option.HasField("maximum") else None,
                max_items=option.max_items, max_items_reason=option.max_items_reason or option.reason,
                hint=option.hint, name=field.name, repeated=field.is_repeated,
                presence=field.has_presence and not field.is_repeated,
                default=None if field.is_repeated else field.default_value)


_PLANS: dict[type[Message], tuple[tuple[Rule, ...], tuple[tuple[str, bool], ...]]] = {}


def _plan(message_type: type[Message]) -> tuple[tuple[Rule, ...], tuple[tuple[str, bool], ...]]:
    """A message type's own rules, and (name, repeated) of its message fields whose types have rules below."""
    plan = _PLANS.get(message_type)
    if plan is None:
        descriptor: Descriptor = message_type.DESCRIPTOR  # type: ignore[assignment]  # upb's or the Python one
        nested = tuple((f.name, f.is_repeated) for f in descriptor.fields if f.message_type is not None
                       and not f.message_type.GetOptions().map_entry and _has_rules(f.message_type, frozenset()))
        plan = _PLANS[message_type] = (rules(descriptor), nested)
    return plan


def _has_rules(descriptor: Descriptor, seen: frozenset[str]) -> bool:
    if descriptor.full_name in seen:
        return False
    seen = seen | {descriptor.full_name}
    return bool(rules(descriptor)) or any(
        f.message_type is not None and _has_rules(f.message_type, seen) for f in descriptor.fields)


def _check(message: Message, prefix: str) -> None:
    own, nested = _plan(type(message))
    for r in own:
        _check_field(message, r, prefix)
    for name, repeated in nested:
        if repeated:
            for i, item in enumerate(getattr(message, name)):
                _check(item, f"{prefix}{name}[{i}].")
        elif message.HasField(name):  # first: reading an absent message field makes an empty one (a oneof's
            _check(getattr(message, name), f"{prefix}{name}.")  # every other alternative)


def _check_field(message: Message, r: Rule, prefix: str) -> None:
    value = getattr(message, r.name)
    path = prefix + r.name
    if r.repeated:
        if r.required and not value:
            _refuse(r, r.reason, path, "at least one item")
        if r.max_items and len(value) > r.max_items:
            _refuse(r, r.max_items_reason, path, f"at most {r.max_items} items", hint=False, max_items=r.max_items)
        for i, item in enumerate(value):
            _check_value(r, item, f"{path}[{i}]")
        return
    present = message.HasField(r.name) if r.presence else value != r.default
    if r.required and not present:
        _refuse(r, r.reason, path, "set")
    if r.presence and not present:
        return  # an optional field left out has no value to check
    _check_value(r, value, path)


def _check_value(r: Rule, value: Any, path: str) -> None:
    if isinstance(value, str):
        if len(value) < r.min_length or (r.max_length and len(value) > r.max_length):
            _refuse(r, r.reason, path, f"{r.min_length} to {r.max_length or 'any number of'} characters",
                    max_length=r.max_length or "")
        if r.pattern is not None and r.pattern.fullmatch(value) is None:
            _refuse(r, r.reason, path, f"matching {r.pattern.pattern}")
    elif isinstance(value, int) and not isinstance(value, bool) and (
            (r.minimum is not None and value < r.minimum) or (r.maximum is not None and value > r.maximum)):
        _refuse(r, r.reason, path, f"{r.minimum} to {r.maximum}", min=r.minimum, max=r.maximum)


def _refuse(r: Rule, reason: str, path: str, what: str, hint: bool = True, **details: object) -> None:
    """Refuse with the field's reason; the message is its hint (for the items' limits) or says the limit."""
    message = (r.hint if hint else "") or f"`{path}` must be {what}."
    raise InvalidArgument(reason, message, field=path, **{k: v for k, v in details.items() if v not in (None, "")})

