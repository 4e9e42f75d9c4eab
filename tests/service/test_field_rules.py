"""Every annotated request limit, over gRPC: refused just past the bound with the field's reason,
accepted at the bound; and the annotations themselves agree with the rulesets and the reasons.

The cases come from the annotations (``field_rule_cases``), so a new or moved limit is tested
as it is written in the protos.
"""

from __future__ import annotations

from typing import Any

import grpc
import pytest
from google.protobuf.message import Message
from tabletop.v1 import game_service_pb2 as svc
from tabletop.v1 import ttr_europe_pb2 as ttr

from tabletop_server.service.api import field_rules
from tabletop_server.service.api.errors import InvalidArgument, ServiceReason
from tabletop_server.service.engine import registry
from tabletop_server.service.engine.errors import EngineReason
from tabletop_server.service.games.bang.reasons import Reason as BangReason
from tabletop_server.service.games.ttr_europe.board import ROUTE_IDS, RULES
from tabletop_server.service.games.ttr_europe.reasons import TtrReason
from tests.helpers import bearer, error_info
from tests.service.field_rule_cases import Case, annotated_fields, cases, place

SERVICE = svc.DESCRIPTOR.services_by_name["GameService"]
CASES = cases()


def call(channel: grpc.Channel, method_name: str, request: Message, token: str | None) -> grpc.RpcError | None:
    """Call a method with ``request``; the error, or None when it was accepted (a stream: its first message)."""
    method = SERVICE.methods_by_name[method_name]
    path = f"/{SERVICE.full_name}/{method.name}"
    metadata = bearer(token) if token else []
    if method.server_streaming:
        stream = channel.unary_stream(path, request_serializer=type(request).SerializeToString)(
            request, metadata=metadata, timeout=5)
        try:
            next(stream)
        except grpc.RpcError as err:
            return err
        finally:
            stream.cancel()
        return None
    try:
        channel.unary_unary(path, request_serializer=type(request).SerializeToString)(
            request, metadata=metadata, timeout=5)
    except grpc.RpcError as err:
        return err
    return None


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_each_limit_refuses_past_the_bound_and_accepts_at_it(stub: Any, channel: grpc.Channel, case: Case) -> None:
    method, request, token = place(stub, case)
    err = call(channel, method, request, token)
    if case.accepted:
        # Accepted by this limit: the call succeeds, or fails for another reason (an unknown game).
        assert err is None or error_info(err).reason != case.reason, f"{case.id}: {err and err.details()}"
    else:
        assert err is not None, f"{case.id}: accepted"
        assert (err.code(), error_info(err).reason) == (grpc.StatusCode.INVALID_ARGUMENT, case.reason), err.details()


def test_every_limit_kind_of_every_annotated_field_has_cases() -> None:
    kinds = {(c.field, c.limit, c.accepted) for c in CASES}
    for r in annotated_fields():
        name = r.field.full_name
        limits = [k for k, on in (("max_length", r.max_length), ("min_length", r.min_length),
                                  ("minimum", r.minimum is not None), ("maximum", r.maximum is not None),
                                  ("max_items", r.max_items), ("pattern", r.pattern is not None)) if on]
        for limit in limits:
            assert {(name, limit, True), (name, limit, False)} <= kinds, (name, limit)
        if r.required:
            assert (name, "required", False) in kinds, name
    assert len(annotated_fields()) >= 15 and len(CASES) >= 60


def test_the_static_bounds_are_the_widest_over_every_ruleset() -> None:
    """The contract states one bound; each ruleset narrows it (ListRulesets), never widens it."""
    infos = [r.INFO for r in registry.all_rulesets()]
    create = svc.CreateGameRequest.DESCRIPTOR.fields_by_name
    seats = field_rules.rule(create["seat_count"])
    assert seats is not None and (seats.minimum, seats.maximum) == (min(i.min_seats for i in infos),
                                                                    max(i.max_seats for i in infos))
    names = field_rules.rule(create["display_names"])
    assert names is not None and names.max_items == max(i.max_seats for i in infos)
    actions = field_rules.rule(create["max_actions"])
    assert actions is not None and (actions.minimum, actions.maximum) == (1, max(i.max_actions for i in infos))
    seat = field_rules.rule(svc.JoinGameRequest.DESCRIPTOR.fields_by_name["seat"])
    assert seat is not None and (seat.minimum, seat.maximum) == (0, max(i.max_seats for i in infos) - 1)


def test_the_action_bounds_are_the_boards() -> None:
    """Ticket to Ride's route ids and face-up slots in the contract are those of its data file."""
    route = field_rules.rule(ttr.TtrClaimRoute.DESCRIPTOR.fields_by_name["route_id"])
    assert route is not None and list(range(route.minimum or 0, (route.maximum or 0) + 1)) == list(ROUTE_IDS)
    slot = field_rules.rule(ttr.TtrDrawTrainCard.DESCRIPTOR.fields_by_name["face_up_slot"])
    assert slot is not None and (slot.minimum, slot.maximum) == (0, RULES.face_up - 1)


def test_the_bang_action_bounds_are_the_cards_and_the_table() -> None:
    """Every card id of every BANG! expansion fits the card-id limits (a limit that refused a real
    card would make it unplayable), pick also takes "hand", and target seats reach the last seat of
    the largest table."""
    from tabletop.v1 import bang_pb2

    from tabletop_server.service.games import bang
    from tabletop_server.service.games.bang.tables import CARDS

    ids = sorted(CARDS)
    assert len(ids) >= 80
    for message in ("BangPlayCard", "BangUseCard", "BangRespond", "BangUseBarrel", "BangChoose", "BangDiscard",
                    "BangUseAbility"):
        fields = getattr(bang_pb2, message).DESCRIPTOR.fields_by_name
        card = field_rules.rule(fields["card" if "card" in fields else "cards"])
        assert card is not None and card.pattern is not None, message
        for cid in ids:
            assert card.pattern.fullmatch(cid), (message, cid)
        if "pick" in fields:
            pick = field_rules.rule(fields["pick"])
            assert pick is not None and pick.pattern is not None and pick.pattern.fullmatch("hand"), message
            assert all(pick.pattern.fullmatch(cid) for cid in ids), message
    for message in ("BangPlayCard", "BangUseCard", "BangDrawFrom", "BangUseAbility"):
        seat = field_rules.rule(getattr(bang_pb2, message).DESCRIPTOR.fields_by_name["target_seat"])
        assert seat is not None and (seat.minimum, seat.maximum) == (0, bang.INFO.max_seats - 1), message


def test_the_bang_option_bounds_are_the_table_and_the_characters() -> None:
    """A rematch's options: seats reach the last seat of the largest table, every character key of
    every expansion fits the key pattern, one kept character per seat at most, and the retired
    list leaves a character for every seat of the largest table in a Dodge City game."""
    from tabletop.v1 import bang_pb2

    from tabletop_server.service.games import bang
    from tabletop_server.service.games.bang.tables import CHARACTERS

    options = bang_pb2.BangOptions.DESCRIPTOR.fields_by_name
    kept = bang_pb2.BangKeptCharacter.DESCRIPTOR.fields_by_name
    seats = bang.INFO.max_seats
    for field in (options["sheriff_seat"], kept["seat"]):
        seat = field_rules.rule(field)
        assert seat is not None and (seat.minimum, seat.maximum) == (0, seats - 1), field.full_name
    kept_rule = field_rules.rule(options["kept_characters"])
    assert kept_rule is not None and kept_rule.max_items == seats
    retired = field_rules.rule(options["retired_characters"])
    assert retired is not None and retired.max_items + seats <= len(CHARACTERS)
    for field in (options["retired_characters"], kept["character"]):
        rule = field_rules.rule(field)
        assert rule is not None and rule.pattern is not None
        assert all(rule.pattern.fullmatch(key) for key in CHARACTERS), field.full_name


def test_every_reason_is_a_documented_reason_and_every_default_passes() -> None:
    """Reasons are the stable ones clients know; a field left at its default (proto3 cannot tell
    it from unset, JSON leaves it out) passes unless it is REQUIRED, so both encodings agree."""
    known = set(ServiceReason) | set(EngineReason) | set(TtrReason) | set(BangReason)
    for r in annotated_fields():
        assert r.reason in known and r.max_items_reason in known, r.field.full_name
        if not r.required and not r.repeated and not r.field.has_presence:
            field_rules._check_value(r, r.field.default_value, r.field.name)  # passes: raises nothing
    with pytest.raises(InvalidArgument) as refused:
        field_rules.check(svc.CreateGameRequest(seat_count=4))
    assert (refused.value.reason, refused.value.field) == (EngineReason.UNKNOWN_RULESET, "ruleset")


def test_a_trailing_newline_does_not_pass_a_pattern() -> None:
    """Python's "$" also matches before a final newline; the check matches the whole value."""
    with pytest.raises(InvalidArgument) as refused:
        field_rules.check(svc.GetGameRequest(name="games/abc\n"))
    assert refused.value.reason == ServiceReason.INVALID_NAME and refused.value.field == "name"


def test_limits_inside_nested_and_repeated_messages_are_checked() -> None:
    """A limit on a field of a message inside the request is found and reported by its path."""
    with pytest.raises(InvalidArgument) as refused:
        field_rules.check(svc.CreateGameRequest(ruleset="bang", seat_count=4, display_names=["ok", "\t"]))
    assert refused.value.reason == ServiceReason.INVALID_DISPLAY_NAME and refused.value.field == "display_names[1]"
