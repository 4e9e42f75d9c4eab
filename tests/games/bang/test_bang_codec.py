"""The codec: every action shape round-trips, bad messages are INVALID_ARGUMENT with a field."""

from __future__ import annotations

import pytest
from tabletop.v1 import bang_pb2

from tabletop_server.service.engine.errors import MalformedAction
from tabletop_server.service.games import bang

ACTIONS = [
    {"type": "play", "card": "base.bang.2c", "target": 0},
    {"type": "play", "card": "base.panic.Jh", "target": 3, "pick": "hand"},
    {"type": "play", "card": "base.stagecoach.9s.a"},
    {"type": "respond", "card": "base.missed.2s"},
    {"type": "barrel", "card": "base.barrel.Qs"},
    {"type": "barrel"},
    {"type": "pass"},
    {"type": "choose", "card": "base.beer.6h"},
    {"type": "draw", "source": "deck"},
    {"type": "draw", "source": "player", "target": 2},
    {"type": "draw", "source": "discard"},
    {"type": "discard", "card": "base.duel.Qd"},
    {"type": "ability", "cards": ["base.bang.3c", "base.bang.4c"]},
    {"type": "end_turn"},
]


@pytest.mark.parametrize("action", ACTIONS, ids=lambda a: a["type"])
def test_actions_round_trip(action: dict) -> None:
    pb = bang.encode_action(action)
    assert bang.decode_action(bang_pb2.BangAction.FromString(pb.SerializeToString())) == action


@pytest.mark.usefixtures("not_offered")
def test_bad_messages_name_their_field() -> None:
    with pytest.raises(MalformedAction) as err:
        bang.decode_action(bang_pb2.BangAction())
    assert err.value.field == "action.bang"
    with pytest.raises(MalformedAction) as err:
        bang.decode_action(bang_pb2.BangAction(draw=bang_pb2.BangDrawFrom()))
    assert err.value.field == "action.bang.draw.source"
    with pytest.raises(MalformedAction) as err:
        bang.decode_options(bang_pb2.BangOptions(expansions=[bang_pb2.BANG_EXPANSION_ARMED_AND_DANGEROUS]))
    assert (err.value.reason, err.value.field) == ("EXPANSION_NOT_AVAILABLE", "options.bang.expansions")


def test_options_defaults_and_house_rule() -> None:
    assert bang.decode_options(None) == {"expansions": [], "sheriff_extra_card": False}
    pb = bang.encode_options({"sheriff_extra_card": True})
    assert pb.sheriff_extra_card and bang.decode_options(pb)["sheriff_extra_card"] is True


def test_events_encode_with_hidden_cards_as_counts() -> None:
    event = {"kind": "draw", "seat": 1, "cards": ["base.bang.2c", "base.beer.6h"], "count": 2, "reason": "draw"}
    mine = bang.encode_event(bang.project(event, 1))
    theirs = bang.encode_event(bang.project(event, 2))
    assert [c.id for c in mine.cards] == ["base.bang.2c", "base.beer.6h"] and mine.kind == bang_pb2.BANG_EVENT_KIND_DRAW
    assert not theirs.cards and theirs.count == 2
    over = bang.encode_event({"kind": "game_over", "seats": [0, 3], "roles": ["sheriff", "outlaw", "renegade",
                                                                             "deputy"]})
    assert list(over.seats) == [0, 3] and over.roles[2] == bang_pb2.BANG_ROLE_RENEGADE
