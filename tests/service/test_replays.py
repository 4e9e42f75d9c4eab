"""Replays over gRPC (GetGameRequest.at_version, issue 31): the view at version N is exactly the
spectator's view the live game showed at N, for a running game and once it is finished, whoever asks;
a version after the game's or below 1 is refused with its reason."""

from __future__ import annotations

import random

import grpc
import pytest
from tabletop.v1 import game_service_pb2 as svc

from tests.helpers import bearer, create_game, deciding_seat, error_info


def _spectator(stub, name: str, at: int | None = None) -> bytes:  # type: ignore[no-untyped-def]
    request = svc.GetGameRequest(name=name, **({"at_version": at} if at is not None else {}))
    return stub.GetGame(request).view.SerializeToString(deterministic=True)


def _played(stub, ruleset: str, seats: int, limit: int):  # type: ignore[no-untyped-def]
    """A game played to its action limit (so it finishes), with the spectator's view at every version."""
    game, tokens = create_game(stub, ruleset=ruleset, seats=seats, max_actions=limit)
    seen = {1: _spectator(stub, game.name)}
    rng = random.Random(3)
    while True:
        seat, actions = deciding_seat(stub, game.name, tokens)
        if seat is None:
            break
        reply = stub.SubmitAction(svc.SubmitActionRequest(name=game.name, action=rng.choice(actions)),
                                  metadata=bearer(tokens[seat]))
        seen[reply.version] = _spectator(stub, game.name)
        mid = len(seen) // 2
        assert _spectator(stub, game.name, mid) == seen[mid]  # a running game's past, as it was shown
    return game.name, tokens, seen


@pytest.mark.parametrize(("ruleset", "seats"), [("ttr-europe", 2), ("bang", 4)])
def test_every_version_replays_to_the_spectator_view_shown_then(stub, ruleset: str, seats: int) -> None:
    name, tokens, seen = _played(stub, ruleset, seats, 12)
    assert stub.GetGame(svc.GetGameRequest(name=name)).game.status == 3  # GAME_STATUS_FINISHED
    assert len(seen) == 13
    for version, view in seen.items():
        assert _spectator(stub, name, version) == view, version
    seated = stub.GetGame(svc.GetGameRequest(name=name, at_version=5), metadata=bearer(tokens[0]))
    assert not seated.HasField("viewer_seat")  # a seat asking gets the spectator's replay, not its own hand
    assert seated.view.SerializeToString(deterministic=True) == seen[5]


def test_a_version_after_the_game_or_below_one_is_refused(stub) -> None:
    game, _ = create_game(stub, seats=2)
    with pytest.raises(grpc.RpcError) as err:
        stub.GetGame(svc.GetGameRequest(name=game.name, at_version=2))
    assert err.value.code() == grpc.StatusCode.OUT_OF_RANGE and error_info(err.value).reason == "VERSION_AHEAD"
    with pytest.raises(grpc.RpcError) as err:
        stub.GetGame(svc.GetGameRequest(name=game.name, at_version=0))
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert error_info(err.value).reason == "INVALID_AT_VERSION"


@pytest.mark.parametrize(("ruleset", "seats"), [("ttr-europe", 2), ("bang", 4)])
def test_a_replay_brings_the_recent_events_a_spectator_was_shown(stub, ruleset: str, seats: int) -> None:
    """recent_events at N: the events of versions N-11..N exactly as a spectator's watch stream brought them
    (projected for a spectator, not revealed now that the game is over: the log would show them all)."""
    name, _, seen = _played(stub, ruleset, seats, 16)
    watched: dict[int, list[bytes]] = {}
    for message in stub.WatchGame(svc.WatchGameRequest(name=name, from_version=0), timeout=30):
        watched[message.version] = [e.SerializeToString(deterministic=True) for e in message.events]
    assert sorted(watched) == sorted(seen)
    for version in seen:
        reply = stub.GetGame(svc.GetGameRequest(name=name, at_version=version))
        expected = [e for v in range(max(version - 11, 1), version + 1) for e in watched[v]]
        assert [e.SerializeToString(deterministic=True) for e in reply.recent_events] == expected, version
        assert {e.version for e in reply.recent_events} <= set(range(version - 11, version + 1))
    assert not stub.GetGame(svc.GetGameRequest(name=name)).recent_events  # only with at_version
