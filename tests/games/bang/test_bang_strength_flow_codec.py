"""The codec's refusals carry their stable reason and field, and unknown enum values are
refused, not looked up (issue 9: the codec half of the flow mutation run)."""

from __future__ import annotations

import pytest
from tabletop.v1 import bang_pb2

from tabletop_server.service.engine.errors import MalformedAction
from tabletop_server.service.games import bang


def refusal(fn: object, *args: object) -> tuple[str, str]:
    with pytest.raises(MalformedAction) as err:
        fn(*args)  # type: ignore[operator]
    return err.value.reason, err.value.field


def test_an_empty_action_or_draw_source_is_unknown_action_with_its_field() -> None:
    assert refusal(bang.decode_action, bang_pb2.BangAction()) == ("UNKNOWN_ACTION", "action.bang")
    assert refusal(bang.decode_action, bang_pb2.BangAction(draw=bang_pb2.BangDrawFrom())) == (
        "UNKNOWN_ACTION", "action.bang.draw.source")


@pytest.mark.rule("BANG-001")
@pytest.mark.usefixtures("not_offered")
@pytest.mark.parametrize("value", [99, bang_pb2.BANG_EXPANSION_ARMED_AND_DANGEROUS])
def test_an_expansion_not_built_or_unknown_is_refused(value: int) -> None:
    pb = bang_pb2.BangOptions()
    pb.expansions.append(value)  # type: ignore[arg-type]
    assert refusal(bang.decode_options, pb) == ("EXPANSION_NOT_AVAILABLE", "options.bang.expansions")


@pytest.mark.rule("BANG-001")
def test_dodge_city_is_offered() -> None:
    pb = bang_pb2.BangOptions(expansions=[bang_pb2.BANG_EXPANSION_DODGE_CITY])
    assert bang.decode_options(pb)["expansions"] == ["dodge_city"]
    assert bang.encode_options(bang.decode_options(pb)) == bang_pb2.BangOptions(
        expansions=[bang_pb2.BANG_EXPANSION_DODGE_CITY])


def test_options_round_trip_with_every_rematch_key() -> None:
    opts = {"sheriff_extra_card": True, "kept_characters": [{"seat": 2, "character": "willy_the_kid"}],
            "retired_characters": ["el_gringo"], "sheriff_seat": 0}
    pb = bang.encode_options(opts)
    assert pb.HasField("sheriff_seat") and pb.sheriff_seat == 0
    assert bang.decode_options(bang_pb2.BangOptions.FromString(pb.SerializeToString())) == {
        "expansions": [], **opts}
    plain = bang.encode_options({})
    assert not plain.HasField("sheriff_seat") and not plain.retired_characters and not plain.kept_characters


def test_encode_event_copies_every_field() -> None:
    full = {"kind": "damage", "seat": 2, "cards": ["base.bang.2c"], "count": 1, "amount": 3, "life": 1,
            "reason": "dynamite", "seats": [0, 4], "success": True, "roles": ["sheriff", "outlaw"], "other": 3,
            "role": "deputy"}
    pb = bang.encode_event(full)
    assert (pb.kind, pb.seat, [c.id for c in pb.cards], pb.count, pb.amount, pb.life, pb.reason) == (
        bang_pb2.BANG_EVENT_KIND_DAMAGE, 2, ["base.bang.2c"], 1, 3, 1, "dynamite")
    assert (list(pb.seats), pb.success, list(pb.roles), pb.other_seat, pb.role) == (
        [0, 4], True, [bang_pb2.BANG_ROLE_SHERIFF, bang_pb2.BANG_ROLE_OUTLAW], 3, bang_pb2.BANG_ROLE_DEPUTY)
    assert pb.cards[0] == bang_pb2.BangCard(id="base.bang.2c", name="bang", suit=bang_pb2.BANG_SUIT_CLUBS, rank="2")
    bare = bang.encode_event({"kind": "end_turn", "seat": None, "other": None})
    assert bare.kind == bang_pb2.BANG_EVENT_KIND_END_TURN and bare.seat == 0 and not bare.HasField("other_seat")
    assert (bare.count, bare.amount, bare.life, bare.reason, bare.success) == (0, 0, 0, "", False)
    assert bare.role == bang_pb2.BANG_ROLE_UNSPECIFIED and not bare.roles and not bare.seats
    hidden = bang.encode_event({"kind": "draw", "seat": 1, "cards": [], "count": 2})
    assert hidden.count == 2 and not hidden.cards
    counted = bang.encode_event({"kind": "discard", "seat": 0, "cards": ["base.bang.2c", "base.bang.3c"]})
    assert counted.count == 2 and counted.other_seat == 0 and not counted.HasField("other_seat")
    with pytest.raises(ValueError, match="mystery"):  # fail closed (issue 10): never UNSPECIFIED
        bang.encode_event({"kind": "mystery"})
    assert bang.encode_event({"kind": "take", "seat": 1, "other": 0}).HasField("other_seat")
    for kind, value in {"turn": bang_pb2.BANG_EVENT_KIND_TURN_STARTED, "look": bang_pb2.BANG_EVENT_KIND_LOOK,
                        "game_over": bang_pb2.BANG_EVENT_KIND_GAME_OVER}.items():
        assert bang.encode_event({"kind": kind}).kind == value
