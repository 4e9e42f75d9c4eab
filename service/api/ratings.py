"""Rating a finished game, once (docs/ratings.md): which games count, and the update's three steps.

The player-index drain calls :func:`rate_game` for every finished game it indexes (``indexer.py``), as
often as the game's marks come: before the marks are acknowledged, so a replica that dies midway leaves
the game to be drained, and rated, again. ``store/ratings.py`` makes every step idempotent.

A game counts only when it is fair and between players:

- it finished by its rules (``end`` COMPLETED; a game ended at its action limit, ABANDONED, counts for nobody);
- the server dealt it: no seat could have chosen the deal (``seed_chosen``, docs/fair-play.md);
- every seat is bound to a player, each a different one: a seat a bot held from the start, or an
  anonymous seat, keeps the whole game out of the ratings (bots are never rated with humans; a
  player's seat a bot took over on a timer stays the player's, and its result counts for the player);
- the ruleset says who finished where (``standings``).
"""

from __future__ import annotations

import logging
from typing import Any

from tabletop_server.service.engine import rating
from tabletop_server.service.engine.rating import Change, Rating
from tabletop_server.service.engine.ruleset import Ruleset
from tabletop_server.service.store.ratings import RatingStore

log = logging.getLogger("tabletop.ratings")


def sides_of(doc: dict[str, Any], ruleset: Ruleset) -> list[tuple[list[int], int]] | None:
    """The rated sides of a stored game (seats and place), or None when the game does not count."""
    if doc["status"] != "FINISHED" or doc.get("end", "COMPLETED") != "COMPLETED" or doc.get("seed_chosen"):
        return None
    players = [(seat or {}).get("player") for seat in doc["seats"]]
    if not all(players) or len(set(players)) != len(players):
        return None
    standings = getattr(ruleset, "standings", None)
    sides: list[tuple[list[int], int]] | None = standings(doc["state"]) if standings is not None else None
    if not sides or len(sides) < 2:
        return None
    return sides


async def rate_game(store: RatingStore, doc: dict[str, Any], ruleset: Ruleset, ttl: int, now_ms: int) -> bool:
    """Apply the game's rating update unless it does not count or is done; True when it counts."""
    sides = sides_of(doc, ruleset)
    if sides is None:
        return False
    game_id, ruleset_id = doc["id"], doc["ruleset"]
    record = await store.record(game_id)
    if record is not None and record.get("done"):
        return True
    if record is None:
        record = await store.put_record(game_id, await _compute(store, doc, sides, ruleset_id), ttl)
    for entry in record["players"]:
        change = Change(entry["mu"], entry["sigma"], entry["place"], entry["won"])
        after = await store.apply(entry["player"], ruleset_id, game_id, change, entry["name"], now_ms)
        await store.rank(ruleset_id, entry["player"], rating.ordinal(after.rating), after.games)
    await store.finish_record(game_id, record, ttl)
    return True


# Helpers

async def _compute(store: RatingStore, doc: dict[str, Any], sides: list[tuple[list[int], int]],
                   ruleset_id: str) -> dict[str, Any]:
    """The game's changes from the players' ratings now (the record keeps them: computed once)."""
    seats = [seat for side, _ in sides for seat in side]
    players = [doc["seats"][s]["player"] for s in seats]
    now = dict(zip(seats, await store.ratings(players, ruleset_id), strict=True))
    changes = rating.rate([[now.get(s, Rating()) for s in side] for side, _ in sides], [p for _, p in sides])
    out = []
    for (side, _), side_changes in zip(sides, changes, strict=True):
        for seat, change in zip(side, side_changes, strict=True):
            out.append({"player": doc["seats"][seat]["player"], "name": doc["seats"][seat].get("name", ""),
                        "seat": seat, "mu": change.mu, "sigma": change.sigma, "place": change.place,
                        "won": change.won, "before": [now[seat].mu, now[seat].sigma]})
    return {"game": doc["id"], "ruleset": ruleset_id, "players": out}
