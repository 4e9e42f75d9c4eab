"""Ratings converge (issue 28's proof): bots of known strength play a few thousand rated games through the matchmaker.

Players whose moves a bot chooses (``basic`` over ``greedy`` over ``random``, Ticket to Ride: Europe's
three levels, docs/ttr_europe.md) file quick-play tickets for games of two. Each round every player files a
ticket, in a new order, and the service's ``Matcher`` seats the queue (oldest first, so whom one meets
changes every round); each game it created is read back from Redis, played to its end in process by its
seats' bots and rated by the service's own ``ratings.rate_game`` (the function the player-index drain
calls; the drain itself is not run here, nor is the game played through the RPCs). On a private Redis.
Prints every player's final rating (``mu - 3 sigma``) with ``mu`` and ``sigma``, each level's mean, and the
margin between levels: the worst player of a level against the best of the level below.

Usage: ``.venv/bin/python bench/ratings.py [--games 3000] [--per-level 8] [--levels basic,greedy,random]``
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import orjson
from tabletop.v1 import matchmaking_pb2

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tabletop_server.service.api import ratings
from tabletop_server.service.api.host import GameHost
from tabletop_server.service.api.identity import Player
from tabletop_server.service.api.matcher import Matcher
from tabletop_server.service.api.quickplay import Quickplay
from tabletop_server.service.config import Config
from tabletop_server.service.engine import bots, rating, registry
from tabletop_server.service.store import keys
from tabletop_server.service.store.redis_store import GameStore, connect

LEVELS = ("basic", "greedy", "random")  # strongest first


async def league(url: str, games: int, levels: tuple[str, ...] = LEVELS, per_level: int = 8,
                 seed: int = 28) -> tuple[dict[str, rating.Rating], float]:
    """Play ``games`` rated games of two; every player's final rating, and the seconds it took."""
    client = connect(url)
    later = lambda: time.time() + 60  # tables of two are full at once: no wait matters
    play = Quickplay(client)
    matcher = Matcher(GameHost(GameStore(client), Config(redis_url=url, player_index=False, bot_delay_seconds=3600)),
                      play.tickets, clock=later)
    ruleset = registry.get("ttr-europe")
    assert ruleset is not None
    players = [f"{level}-{i}" for level in levels for i in range(per_level)]
    request = matchmaking_pb2.FindGameRequest(ruleset="ttr-europe", min_seats=2, max_seats=2)
    started, rated, step, order = time.perf_counter(), 0, 0, random.Random(seed)
    try:
        while rated < games:
            order.shuffle(players)  # who files first, so who meets whom, changes every round
            names = [(await play.find(Player(p, p, "bench"), request)).ticket.name for p in players]
            queue = names[0].removeprefix("tickets/").split(".")[0]
            await matcher.match(queue)
            made = {t["game"] for t in [await play.tickets.get(queue, n.split(".")[1]) for n in names]
                    if t and t["state"] == "SEATED"}
            for game in sorted(made)[:games - rated]:
                doc = orjson.loads(await client.execute("HGET", keys.game(game), "doc"))
                policies = [s["player"].split("-")[0] for s in doc["seats"]]
                state = doc["state"]
                while not ruleset.is_over(state):
                    seat = ruleset.to_act(state)[0]
                    ruleset.apply(state, seat, bots.choose(ruleset, state, seat, policies[seat], step))
                    step += 1
                doc.update(status="FINISHED", end="COMPLETED")
                assert await ratings.rate_game(play.ratings, doc, ruleset, 3600, int(time.time() * 1000))
                rated += 1
        found = await play.ratings.standings(players, "ttr-europe")
        return ({p: s.rating for p, s in zip(players, found, strict=True) if s is not None},
                time.perf_counter() - started)
    finally:
        await client.close()


def through_service(url: str, games: int, levels: tuple[str, ...] = LEVELS, per_level: int = 8,
                    key_file: str = "") -> tuple[dict[str, rating.Rating], float]:
    """The same league played wholly through a running service: each player files ``FindGame`` over gRPC,
    hands his seat to his bot (``SetSeatBot``: the seat stays his, so the game is rated for him), the
    service's bots play both seats, the player-index drain rates the finished game; the ratings are read
    back with ``GetPlayerProfile``. ``key_file``: the session key the service verifies players with."""
    import grpc
    from joserfc import jwt
    from joserfc.jwk import OKPKey
    from tabletop.v1 import game_pb2, game_service_pb2_grpc, rating_pb2
    from tabletop.v1 import game_service_pb2 as svc

    from tabletop_server.service.api.server import create_server

    config = Config(redis_url=url, session_key_file=key_file, bot_delay_seconds=0.0, timer_poll_seconds=0.05,
                    redis_safety="warn", create_per_minute_per_address=0, max_open_games_per_address=0)
    running = create_server(config, host="127.0.0.1", port=0)
    key = OKPKey.import_key(Path(key_file).read_bytes())
    players = [f"{level}-{i}" for level in levels for i in range(per_level)]
    now = int(time.time())
    tokens = {p: [("authorization", "Bearer " + jwt.encode(
        {"alg": "EdDSA", "typ": "JWT", "kid": key.thumbprint()},
        {"iss": "tabletop", "aud": "tabletop", "sub": p, "name": p, "iat": now, "exp": now + 86400}, key,
        algorithms=["EdDSA"]))] for p in players}
    request = matchmaking_pb2.FindGameRequest(ruleset="ttr-europe", min_seats=2, max_seats=2)
    started, played, order = time.perf_counter(), 0, random.Random(28)
    try:
        with grpc.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            stub = game_service_pb2_grpc.GameServiceStub(channel)
            while played < games:
                order.shuffle(players)
                names = {p: stub.FindGame(request, metadata=tokens[p], timeout=30).ticket.name for p in players}

                def all_seated(names: dict[str, str] = names) -> dict[str, Any] | None:
                    got = {p: stub.GetTicket(matchmaking_pb2.GetTicketRequest(name=names[p]), metadata=tokens[p],
                                             timeout=30).ticket for p in players}
                    return got if all(t.game for t in got.values()) else None

                seated = _until(all_seated)
                for p, ticket in seated.items():
                    stub.SetSeatBot(svc.SetSeatBotRequest(name=ticket.game, bot=p.split("-")[0]), metadata=tokens[p],
                                    timeout=30)
                for game in {t.game for t in seated.values()}:
                    _until(lambda g=game: stub.GetGame(svc.GetGameRequest(name=g), timeout=30).game.status
                           == game_pb2.GAME_STATUS_FINISHED or None, bound=600)
                played += len(players) // 2
                if played % 480 < len(players) // 2:
                    print(f"  {played} games played, {time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
            wanted = 2 * played

            def rated() -> dict[str, Any] | None:
                got = {p: stub.GetPlayerProfile(rating_pb2.GetPlayerProfileRequest(name=f"players/{p}"),
                                                timeout=30).profile for p in players}
                return got if sum(g.games_played for g in got.values()) == wanted else None

            profiles = _until(rated, bound=120)
    finally:
        running.stop(0)
    return ({p: rating.Rating(pr.ratings[0].mu, pr.ratings[0].sigma) for p, pr in profiles.items()},
            time.perf_counter() - started)


def report(board: dict[str, Any], levels: tuple[str, ...] = LEVELS) -> dict[str, float]:
    """Print every rating, each level's mean and the margins between levels; returns the margins."""
    shown = {p: rating.ordinal(r) for p, r in board.items()}
    for player, value in sorted(shown.items(), key=lambda kv: -kv[1]):
        print(f"  {player:10} rating {value:7.2f}  mu {board[player].mu:6.2f}  sigma {board[player].sigma:5.2f}")
    of = {level: [v for p, v in shown.items() if p.split("-")[0] == level] for level in levels}
    print("  mean rating: " + ", ".join(f"{level} {statistics.mean(of[level]):.2f}" for level in levels))
    margins = {}
    for high, low in itertools.pairwise(levels):
        margins[f"{high}>{low}"] = min(of[high]) - max(of[low])
        print(f"  margin {high} over {low}: the worst {high} {min(of[high]):.2f} - the best {low} "
              f"{max(of[low]):.2f} = {margins[f'{high}>{low}']:.2f}")
    return margins


def _until(check: Any, bound: float = 60.0) -> Any:
    deadline = time.monotonic() + bound
    while (got := check()) is None:
        if time.monotonic() > deadline:
            raise TimeoutError(f"not done after {bound} s")
        time.sleep(0.05)
    return got


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=3000)
    parser.add_argument("--per-level", type=int, default=8)
    parser.add_argument("--levels", default=",".join(LEVELS))
    parser.add_argument("--through-service", action="store_true",
                        help="play through a running service's RPCs, its bots and its drain (slower)")
    args = parser.parse_args()
    levels = tuple(args.levels.split(","))
    sys.path.insert(0, str(ROOT / "bench"))
    from run import _private_redis

    cpu = time.process_time()
    if args.through_service:
        import tempfile

        from joserfc.jwk import OKPKey
        with tempfile.NamedTemporaryFile(suffix=".pem") as pem:
            pem.write(OKPKey.generate_key("Ed25519").as_pem(private=True))
            pem.flush()
            board, seconds = through_service(_private_redis(), args.games, levels, args.per_level, pem.name)
        how = "through the service (FindGame, SetSeatBot, its bots, its drain)"
    else:
        board, seconds = asyncio.run(league(_private_redis(), args.games, levels, args.per_level))
        how = "through the matchmaker, played and rated in process"
    print(f"{args.games} rated Ticket to Ride games of two {how}, {len(board)} players "
          f"({args.per_level} per level: {', '.join(levels)}), in {seconds:.1f} s "
          f"({(time.process_time() - cpu) / args.games * 1000:.0f} ms of CPU per game in this process):")
    report(board, levels)


if __name__ == "__main__":
    main()
