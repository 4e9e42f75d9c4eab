"""Small helpers shared by the service, REST and client tests."""

from __future__ import annotations

import grpc
from google.rpc import error_details_pb2
from grpc_status import rpc_status


def bearer(token: str) -> list[tuple[str, str]]:
    """gRPC metadata carrying a player token."""
    return [("authorization", f"Bearer {token}")]


def error_info(err: grpc.RpcError) -> error_details_pb2.ErrorInfo:
    """The one ErrorInfo of a rich gRPC error (fails the test if there is not exactly one)."""
    status = rpc_status.from_call(err)  # type: ignore[arg-type]
    assert status is not None, f"no rich status on {err}"
    infos = [d for d in status.details if d.Is(error_details_pb2.ErrorInfo.DESCRIPTOR)]
    assert len(infos) == 1, status
    info = error_details_pb2.ErrorInfo()
    infos[0].Unpack(info)
    return info


def create_game(stub, ruleset: str = "ttr-europe", seats: int = 3, seed: int | None = 7, **kw):  # type: ignore[no-untyped-def]
    """Create a game with every seat named; returns (game, {seat: token})."""
    from tabletop.v1 import game_service_pb2 as svc

    request = svc.CreateGameRequest(ruleset=ruleset, seat_count=seats,
                                    display_names=[f"p{i}" for i in range(seats)], **kw)
    if seed is not None:
        request.seed = seed
    response = stub.CreateGame(request)
    return response.game, {c.seat: c.player_token for c in response.credentials}


def deciding_seat(stub, name: str, tokens: dict[int, str]):  # type: ignore[no-untyped-def]
    """The first seat with legal actions and those actions, or (None, [])."""
    from tabletop.v1 import game_service_pb2 as svc

    for seat, token in tokens.items():
        actions = stub.ListLegalActions(svc.ListLegalActionsRequest(name=name), metadata=bearer(token)).actions
        if actions:
            return seat, list(actions)
    return None, []


def play(stub, name: str, tokens: dict[int, str], steps: int, rng) -> int:  # type: ignore[no-untyped-def]
    """Submit up to ``steps`` random legal actions; returns how many were applied."""
    from tabletop.v1 import game_service_pb2 as svc

    done = 0
    for _ in range(steps):
        seat, actions = deciding_seat(stub, name, tokens)
        if seat is None:
            break
        stub.SubmitAction(svc.SubmitActionRequest(name=name, action=rng.choice(actions)),
                          metadata=bearer(tokens[seat]))
        done += 1
    return done


def lengthen_log(redis_url: str, name: str, total: int) -> None:
    """Grow a game's log to ``total`` entries fast, straight in Redis: copies of its last entry.

    The game needs at least one action applied (its entry is what is copied); the game's
    version follows, so reads page through every entry as through one of a played game.
    """
    import redis

    from tabletop_server.service.store import keys

    game_id = name.removeprefix("games/")
    client = redis.Redis.from_url(redis_url)
    last_id, fields = client.xrevrange(keys.stream(game_id), count=1)[0]
    first = int(last_id.split(b"-")[0]) + 1
    for start in range(first, total + 1, 2000):
        pipe = client.pipeline(transaction=False)
        for version in range(start, min(start + 2000, total + 1)):
            pipe.xadd(keys.stream(game_id), {b"e": fields[b"e"]}, id=f"{version}-0")
        pipe.execute()
    client.hset(keys.game(game_id), "v", total)
    client.close()


def read_all(stub, name: str, token: str | None = None, page_size: int = 0):  # type: ignore[no-untyped-def]
    """Every GetGameLog page, following next_page_token until it is empty."""
    from tabletop.v1 import game_service_pb2 as svc

    pages, page_token = [], ""
    while True:
        page = stub.GetGameLog(svc.GetGameLogRequest(name=name, page_size=page_size, page_token=page_token),
                               metadata=bearer(token) if token else None)
        pages.append(page)
        page_token = page.next_page_token
        if not page_token:
            return pages
