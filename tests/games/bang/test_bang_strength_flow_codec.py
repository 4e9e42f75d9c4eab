"""The codec's refusals carry their stable reason and field, and unknown enum values are
refused, not looked up (issue 9: the codec half of the flow mutation run)."""

from __future__ import annotations

import pytest
from tabletop.v1 import bang_pb2

from service.engine.errors import MalformedAction
from service.games import bang


def refusal(fn: object, *args: object) -> tuple[str, str]:
    with pytest.raises(MalformedAction) as err:
        fn(*args)  # type: ignore[operator]
    return err.value.reason, err.value.field


def test_an_empty_action_or_draw_source_is_unknown_action_with_its_field() -> None:
    assert refusal(bang.decode_action, bang_pb2.BangAction()) == ("UNKNOWN_ACTION", "action.bang")
    assert refusal(bang.decode_action, bang_pb2.BangAction(draw=bang_pb2.BangDrawFrom())) == (
        "UNKNOWN_ACTION", "action.bang.draw.source")


@pytest.mark.rule("BANG-001")
@pytest.mark.parametrize("value", [99, bang_pb2.BANG_EXPANSION_DODGE_CITY, bang_pb2.BANG_EXPANSION_ARMED_AND_DANGEROUS])
def test_an_expansion_not_built_or_unknown_is_refused(value: int) -> None:
    pb = bang_pb2.BangOptions()
    pb.expansions.append(value)  # type: ignore[arg-type]
    assert refusal(bang.decode_options, pb) == ("EXPANSION_NOT_AVAILABLE", "options.bang.expansions")


def test_options_round_trip_with_every_rematch_key() -> None:
    opts = {"sheriff_extra_card": True, "kept_characters": [{"seat": 2, "character": "willy_the_kid"}],
            "retired_characters": ["el_gringo"], "sheriff_seat": 0}
    pb = bang.encode_options(opts)
    assert pb.HasField("sheriff_seat") and pb.sheriff_seat == 0
    assert bang.decode_options(bang_pb2.BangOptions.FromString(pb.SerializeToString())) == {
        "expansions": [], **opts}
    plain = bang.encode_options({})
    assert not plain.HasField("sheriff_seat") and not plain.retired_characters and not plain.kept_characters
