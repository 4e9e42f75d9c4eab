"""ListLeaderboard and GetPlayerProfile (issue 28): reads of what ``ratings.py`` wrote (docs/ratings.md).

A leaderboard is a sorted set per ruleset (player id by rating); a page is a range of places, so a page
token is the place to start at. ``around_me`` starts the page about half a page above the signed-in
player. A profile reads the player's rating of every offered ruleset in one round trip, then the places
and histories of the rulesets the player was rated in (bounded: a history is at most 100 changes).
"""

from __future__ import annotations

import base64
import re
from typing import Any

from tabletop.v1 import rating_pb2

from tabletop_server.service.api import convert, page_tokens
from tabletop_server.service.api.errors import NotFound, ServiceReason
from tabletop_server.service.api.my_games import player_of
from tabletop_server.service.engine import rating, registry
from tabletop_server.service.store.ratings import RatingStore, Standing

DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE = 50, 100
DEFAULT_HISTORY, MAX_HISTORY = 20, 100
_TOKEN = re.compile(r"at:([0-9]{1,27})")  # leading zeros allowed: a token may be as long as the field allows
MAX_START = 10**9


async def page(store: RatingStore, caller: Any, req: rating_pb2.ListLeaderboardRequest) -> rating_pb2.ListLeaderboardResponse:
    """One page of a ruleset's leaderboard, best first."""
    ruleset = _ruleset(req.parent)
    size = max(1, min(req.page_size or DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE))
    start = _decode(req.page_token)
    if req.around_me:
        place = await store.position(ruleset, player_of(caller).id)
        start = max(0, place - size // 2) if place is not None else 0
    total = await store.size(ruleset)
    rows = await store.board(ruleset, start, size)
    found = await store.standings([p for p, _ in rows], ruleset) if rows else []
    entries = [rating_pb2.LeaderboardEntry(rank=start + i + 1, player_id=pid, rating=score,
                                           display_name=s.display_name if s else "",
                                           games_played=s.games if s else 0, games_won=s.wins if s else 0)
               for i, ((pid, score), s) in enumerate(zip(rows, found, strict=True))]
    more = start + len(rows) < total and len(rows) == size
    return rating_pb2.ListLeaderboardResponse(entries=entries, total_size=total,
                                              next_page_token=_encode(start + size) if more else "")


async def profile(store: RatingStore, caller: Any, req: rating_pb2.GetPlayerProfileRequest) -> rating_pb2.GetPlayerProfileResponse:
    """A player's rated games and ratings ("players/me": the signed-in player)."""
    player_id = req.name.removeprefix("players/")
    if player_id == "me":
        player_id = player_of(caller).id
    count = max(1, min(req.history_size or DEFAULT_HISTORY, MAX_HISTORY))
    rulesets = [r.INFO.id for r in registry.all_rulesets()]
    standings = await store.standings_of(player_id, rulesets)
    out = rating_pb2.PlayerProfile(name=f"players/{player_id}", player_id=player_id)
    for ruleset, standing in zip(rulesets, standings, strict=True):
        if standing is None:
            continue
        out.ratings.append(await _rating(store, player_id, ruleset, standing, count))
        out.games_played += standing.games
        out.games_won += standing.wins
        out.display_name = out.display_name or standing.display_name
    return rating_pb2.GetPlayerProfileResponse(profile=out)


# Helpers

async def _rating(store: RatingStore, player_id: str, ruleset: str, standing: Standing,
                  count: int) -> rating_pb2.PlayerRating:
    place = await store.position(ruleset, player_id)
    history = [rating_pb2.RatingChange(game=f"games/{h.game_id}", time=convert.timestamp(h.time_ms / 1000),
                                       rating=rating.ordinal(h.rating), mu_change=h.mu_change, place=h.place,
                                       won=h.won)
               for h in await store.history(player_id, ruleset, count)]
    return rating_pb2.PlayerRating(ruleset=ruleset, rating=rating.ordinal(standing.rating), mu=standing.rating.mu,
                                   sigma=standing.rating.sigma, games_played=standing.games,
                                   games_won=standing.wins, rank=place + 1 if place is not None else 0,
                                   history=history)


def _ruleset(parent: str) -> str:
    ruleset = parent.removeprefix("rulesets/")
    if registry.get(ruleset) is None:
        offered = ", ".join(r.INFO.id for r in registry.all_rulesets())
        raise NotFound(ServiceReason.RULESET_NOT_FOUND, f"No ruleset {parent}; offered: {offered} (ListRulesets).")
    return ruleset


def _encode(start: int) -> str:
    return base64.urlsafe_b64encode(f"at:{start}".encode()).decode().rstrip("=")


def _decode(token: str) -> int:
    if not token:
        return 0
    return min(int(page_tokens.read(token, _TOKEN, "ListLeaderboard").group(1)), MAX_START)
