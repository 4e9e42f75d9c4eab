"""SubmitAction's read mask (AIP-157 partial responses, issue 29): a client that holds the state asks for
the version and the events only; the full answer stays the default, and a lean answer is still projected
for the caller's seat."""

from __future__ import annotations

import random

import grpc
import pytest
from google.protobuf import field_mask_pb2
from tabletop.v1 import game_service_pb2 as svc

from tests.helpers import bearer, create_game, deciding_seat, error_info
from tests.service.test_hidden_information import assert_no_leak, own_ticket_ids


def _submit(stub, name, tokens, **kw):  # type: ignore[no-untyped-def]
    seat, actions = deciding_seat(stub, name, tokens)
    return seat, stub.SubmitAction(svc.SubmitActionRequest(name=name, action=actions[0], **kw),
                                   metadata=bearer(tokens[seat]))


def test_without_a_mask_the_whole_answer_comes_with_its_version(stub) -> None:
    game, tokens = create_game(stub, seats=2)
    _, reply = _submit(stub, game.name, tokens)
    assert reply.HasField("game") and reply.HasField("view") and reply.events
    assert reply.version == reply.game.version == 2
    _, star = _submit(stub, game.name, tokens, read_mask=field_mask_pb2.FieldMask(paths=["*"]))
    assert star.HasField("game") and star.HasField("view") and star.version == 3


def test_events_only_is_the_version_and_the_events(stub) -> None:
    game, tokens = create_game(stub, seats=2)
    _, reply = _submit(stub, game.name, tokens, read_mask=field_mask_pb2.FieldMask(paths=["events"]))
    assert not reply.HasField("game") and not reply.HasField("view")
    assert reply.version == 2 and reply.events and {e.version for e in reply.events} == {2}
    assert stub.GetGame(svc.GetGameRequest(name=game.name)).game.version == 2


def test_a_sub_field_path_trims_below_it(stub) -> None:
    game, tokens = create_game(stub, seats=2)
    _, reply = _submit(stub, game.name, tokens, read_mask=field_mask_pb2.FieldMask(paths=["game.status", "events"]))
    assert reply.game.status and not reply.game.name and not reply.game.seats and not reply.HasField("view")
    assert reply.version == 2 and reply.events


def test_a_lean_answer_is_projected_for_the_callers_seat(stub) -> None:
    game, tokens = create_game(stub, seats=3, seed=41)
    rng = random.Random(3)
    masks = (["events"], ["view.ttr_europe", "events"], ["game.seats", "view"], ["events", "version"])
    for step in range(24):
        seat, actions = deciding_seat(stub, game.name, tokens)
        mask = field_mask_pb2.FieldMask(paths=masks[step % len(masks)])
        reply = stub.SubmitAction(svc.SubmitActionRequest(name=game.name, action=rng.choice(actions), read_mask=mask),
                                  metadata=bearer(tokens[seat]))
        assert_no_leak(reply, seat, own_ticket_ids(stub, game.name, tokens[seat]))


def test_a_retry_under_the_request_id_replays_the_lean_answer_and_another_mask_is_another_request(stub) -> None:
    game, tokens = create_game(stub, seats=2)
    seat, actions = deciding_seat(stub, game.name, tokens)
    lean = svc.SubmitActionRequest(name=game.name, action=actions[0], request_id="lean-1",
                                   read_mask=field_mask_pb2.FieldMask(paths=["events"]))
    first = stub.SubmitAction(lean, metadata=bearer(tokens[seat]))
    assert stub.SubmitAction(lean, metadata=bearer(tokens[seat])) == first
    full = svc.SubmitActionRequest(name=game.name, action=actions[0], request_id="lean-1")
    with pytest.raises(grpc.RpcError) as err:
        stub.SubmitAction(full, metadata=bearer(tokens[seat]))
    assert error_info(err.value).reason == "IDEMPOTENCY_KEY_REUSED"


@pytest.mark.parametrize("paths", [["nope"], ["game.nope"], ["events.version"], ["*", "events"],
                                   [f"events{i}" for i in range(17)]])
def test_a_bad_mask_is_invalid_read_mask_and_applies_nothing(stub, paths) -> None:  # type: ignore[no-untyped-def]
    game, tokens = create_game(stub, seats=2)
    with pytest.raises(grpc.RpcError) as err:
        _submit(stub, game.name, tokens, read_mask=field_mask_pb2.FieldMask(paths=paths))
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    info = error_info(err.value)
    assert info.reason == "INVALID_READ_MASK"
    assert stub.GetGame(svc.GetGameRequest(name=game.name)).game.version == 1


def test_the_answer_written_from_its_parts_bytes_is_what_serializing_the_message_gives() -> None:
    """``Selection.build`` writes the wire format from each part's own bytes (no copies): byte for byte
    what the response message serializes to, for every mask."""
    from tabletop.v1 import game_pb2

    from tabletop_server.service.api import convert, read_mask
    from tabletop_server.service.engine import registry
    from tabletop_server.service.engine.replay import new_game

    ruleset = registry.get("ttr-europe")
    assert ruleset is not None
    state, _ = new_game(ruleset, ruleset.decode_options(None), 3, 7)
    rng = random.Random(3)
    stored: list[list[object]] = []
    for _ in range(30):
        seat = rng.choice(ruleset.to_act(state))
        stored = [["g", e] for e in ruleset.apply(state, seat, rng.choice(ruleset.legal_actions(state, seat)))]
    game = game_pb2.Game(name="games/g1", ruleset="ttr-europe", version=300, action_count=30)
    view, events = convert.view(state, ruleset, 1), convert.events(stored, 300, ruleset, 1)
    parts = {"game": game.SerializeToString, "view": lambda: convert.view_bytes(state, ruleset, 1),
             "events": lambda: [e.SerializeToString() for e in events]}
    assert events and view.WhichOneof("game") == "ttr_europe"
    whole = svc.SubmitActionResponse(version=300, game=game, view=view, events=events)
    assert read_mask.FULL.build(300, parts) == whole.SerializeToString()
    lean = read_mask.selection(svc.SubmitActionRequest(read_mask=field_mask_pb2.FieldMask(paths=["events"])))
    assert lean.build(300, parts) == svc.SubmitActionResponse(version=300, events=events).SerializeToString()
    deep = read_mask.selection(svc.SubmitActionRequest(read_mask=field_mask_pb2.FieldMask(paths=["game.version"])))
    assert svc.SubmitActionResponse.FromString(deep.build(300, parts)) == svc.SubmitActionResponse(
        version=300, game=game_pb2.Game(version=300))
