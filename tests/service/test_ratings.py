"""A finished game's rating update on a real Redis (docs/ratings.md, service/api/ratings.py): exactly once
whatever is retried, replayed, raced or interrupted; only fair games between players count."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from tabletop_server.service.api import ratings
from tabletop_server.service.engine import rating, registry
from tabletop_server.service.engine.rating import Change
from tabletop_server.service.store import keys
from tabletop_server.service.store.ratings import RatingStore
from tabletop_server.service.store.redis_store import connect
from tests.engine.ratings_kit import finished_doc

TTL = 3600


def _players(count: int) -> list[str]:
    tag = secrets.token_hex(4)
    return [f"r{tag}-{i}" for i in range(count)]


def _run(redis_url: str, body: Callable[[RatingStore], Awaitable[Any]]) -> Any:
    async def go() -> Any:
        client = connect(redis_url)
        try:
            return await body(RatingStore(client))
        finally:
            await client.close()
    return asyncio.run(go())


async def _rate(store: RatingStore, doc: dict[str, Any], now_ms: int = 1) -> bool:
    ruleset = registry.get(doc["ruleset"])
    assert ruleset is not None
    return await ratings.rate_game(store, doc, ruleset, TTL, now_ms)


def test_a_game_is_rated_once_however_often_and_however_many_replicas_rate_it(redis_url: str) -> None:
    players = _players(3)
    doc = finished_doc("ttr-europe", 3, 21, list(players))

    async def body(store: RatingStore) -> Any:
        results = await asyncio.gather(*(_rate(store, doc) for _ in range(6)))  # racing replicas
        for _ in range(3):
            await _rate(store, doc)  # a retried, then replayed, finish
        return results, [await store.standing(p, "ttr-europe") for p in players], await store.record(doc["id"])

    results, standings, record = _run(redis_url, body)
    assert all(results) and record["done"]
    places = {e["player"]: e for e in record["players"]}
    for player, standing in zip(players, standings, strict=True):
        assert standing is not None and standing.games == 1
        expected = rating.moved(rating.Rating(), Change(places[player]["mu"], places[player]["sigma"], 1, True))
        assert standing.rating.mu == pytest.approx(expected.mu) and standing.rating.sigma == pytest.approx(expected.sigma)
        assert standing.wins == int(places[player]["won"])
    winners = [p for p in players if places[p]["place"] == 1]
    assert winners and all(places[p]["mu"] > 0 for p in winners)


def test_an_update_interrupted_between_players_finishes_without_counting_twice(redis_url: str) -> None:
    players = _players(4)
    doc = finished_doc("bang", 4, 8, list(players))

    async def body(store: RatingStore) -> Any:
        # A replica computed the record and applied it to the first player, then died.
        record = await store.put_record(doc["id"], await ratings._compute(
            store, doc, ratings.sides_of(doc, registry.get("bang")) or [], "bang"), TTL)  # type: ignore[arg-type]
        first = record["players"][0]
        await store.apply(first["player"], "bang", doc["id"], Change(first["mu"], first["sigma"], first["place"],
                                                                     first["won"]), first["name"], 1)
        await _rate(store, doc)  # the game is drained again by another replica
        await store.client.execute("DEL", keys.player(first["player"], "rated:bang"))
        await _rate(store, doc)  # a replay after the record is done: stops at the record
        return [await store.standing(p, "bang") for p in players], record

    standings, record = _run(redis_url, body)
    assert all(s is not None and s.games == 1 for s in standings)
    mu = {e["player"]: e["mu"] for e in record["players"]}
    for player, standing in zip(players, standings, strict=True):
        assert standing is not None and standing.rating.mu == pytest.approx(rating.MU + mu[player])


def test_bang_moves_a_side_together(redis_url: str) -> None:
    players = _players(5)
    doc = finished_doc("bang", 5, 14, list(players))

    async def body(store: RatingStore) -> Any:
        await _rate(store, doc)
        return await store.record(doc["id"])

    record = _run(redis_url, body)
    roles = [p["role"] for p in doc["state"]["p"]]
    winners = set(doc["state"]["winners"])
    for entry in record["players"]:
        side_won = entry["place"] == 1
        assert side_won == (entry["seat"] in winners or (roles[entry["seat"]] in ("sheriff", "deputy")
                                                          and bool(winners & {s for s, r in enumerate(roles)
                                                                              if r in ("sheriff", "deputy")})))
        assert (entry["mu"] > 0) == side_won


@pytest.mark.parametrize("unfair", ["seed_chosen", "abandoned", "anonymous_seat", "bot_seat", "same_player_twice",
                                    "not_finished"])
def test_games_that_do_not_count_change_no_rating(redis_url: str, unfair: str) -> None:
    players: list[str | None] = list(_players(3))
    fields: dict[str, Any] = {}
    if unfair == "seed_chosen":
        fields["seed_chosen"] = True
    elif unfair == "abandoned":
        fields["end"] = "ABANDONED"
    elif unfair in ("anonymous_seat", "bot_seat"):
        players[2] = None
        if unfair == "bot_seat":
            fields["bots"] = {"2": "basic"}
    elif unfair == "same_player_twice":
        players[2] = players[0]
    else:
        fields["status"] = "ACTIVE"
    doc = finished_doc("ttr-europe", 3, 5, players, **fields)

    async def body(store: RatingStore) -> Any:
        return await _rate(store, doc), [await store.standing(p, "ttr-europe") for p in players if p], \
            await store.record(doc["id"])

    counted, standings, record = _run(redis_url, body)
    assert not counted and standings == [None] * len(standings) and record is None


def test_two_games_of_a_player_finishing_together_both_count_and_the_board_shows_the_newest(redis_url: str) -> None:
    players = _players(3)
    first = finished_doc("ttr-europe", 2, 31, [players[0], players[1]])
    second = finished_doc("ttr-europe", 2, 32, [players[0], players[2]])

    async def body(store: RatingStore) -> Any:
        await asyncio.gather(_rate(store, first), _rate(store, second))
        standing = await store.standing(players[0], "ttr-europe")
        score = await store.client.execute("ZSCORE", keys.leaderboard("ttr-europe", "z"), players[0])
        history = await store.history(players[0], "ttr-europe", 10)
        return standing, float(score), history

    standing, score, history = _run(redis_url, body)
    assert standing is not None and standing.games == 2
    assert score == pytest.approx(rating.ordinal(standing.rating))
    assert {h.game_id for h in history} == {first["id"], second["id"]}
    assert history[0].rating == standing.rating  # the newest change leads to the rating stored
