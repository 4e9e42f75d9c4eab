"""WatchGame over Connect streaming and gRPC-Web: live events, the SSE watch caps, the end at shutdown."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from tabletop.v1 import game_service_pb2 as pb

from tabletop_server.rest.app import create_app, serve
from tests.rest.connect_wire import ConnectWire, Result


@pytest.mark.parametrize("protocol", ["connect-json", "connect-proto", "grpc-web"])
def test_a_watch_gets_the_event_live_is_capped_and_ends_cleanly_at_shutdown(grpc_server: Any, protocol: str) -> None:
    server = serve(create_app(grpc_server.target, max_watch_streams=1), "127.0.0.1", 0)
    closed = False
    try:
        front = server.app
        wire = ConnectWire(server.url, protocol)
        name, token, legal = _game_with_a_decider(wire)
        watch = pb.WatchGameRequest(name=name, from_version=legal.version)

        live = _in_thread(lambda: ConnectWire(server.url, protocol).stream("WatchGame", watch, pb.WatchGameResponse,
                                                                            token))
        _until(lambda: front.connect.open == 1)
        act = pb.SubmitActionRequest(name=name, action=legal.actions[0], expected_version=legal.version)
        assert wire.call("SubmitAction", act, pb.SubmitActionResponse, token).code == "ok"
        event = live()
        assert event.code == "ok" and [m.version for m in event.messages] == [legal.version + 1]  # type: ignore[attr-defined]
        _until(lambda: front.connect.open == 0 and front.watches.open == 0)  # the client left: its slot is free

        watch.from_version = legal.version + 1
        waiting = _in_thread(lambda: ConnectWire(server.url, protocol).stream("WatchGame", watch,
                                                                               pb.WatchGameResponse, token))
        _until(lambda: front.connect.open == 1)
        refused = wire.stream("WatchGame", watch, pb.WatchGameResponse, token)
        assert (refused.code, refused.reason) == ("resource_exhausted", "TOO_MANY_WATCH_STREAMS")

        server.close()
        closed = True
        ended = waiting()
        assert ended.code == "ok" and ended.messages == []  # a clean end: watch again from the last version
    finally:
        if not closed:
            server.close()


# Helpers

def _game_with_a_decider(wire: ConnectWire) -> tuple[str, str, Any]:
    created = wire.call("CreateGame", pb.CreateGameRequest(ruleset="ttr-europe", seat_count=2,
                                                           display_names=["ann", "bob"]), pb.CreateGameResponse).one()
    for credential in created.credentials:  # type: ignore[attr-defined]
        legal = wire.call("ListLegalActions", pb.ListLegalActionsRequest(name=created.game.name),  # type: ignore[attr-defined]
                          pb.ListLegalActionsResponse, credential.player_token).one()
        if legal.actions:  # type: ignore[attr-defined]
            return created.game.name, credential.player_token, legal  # type: ignore[attr-defined]
    raise AssertionError("no seat has a legal action")


def _in_thread(call: Callable[[], Result]) -> Callable[[], Result]:
    """Start ``call`` on a thread; the returned function waits for its result."""
    box: list[Result] = []
    thread = threading.Thread(target=lambda: box.append(call()), daemon=True)
    thread.start()

    def result() -> Result:
        thread.join(15)
        assert box, "the watch did not end"
        return box[0]
    return result


def _until(condition: Callable[[], bool], seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)
