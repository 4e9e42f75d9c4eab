"""Replays: the spectator's view of a game at a past version (``GetGameRequest.at_version``; issue 31).

A game replays exactly from its seed and its log (``service.engine.replay``, Principle 2), so the
state at version N is the deal followed by every logged action (and conceding) up to N. The answer is
always the spectator's projection (``convert.view(state, ruleset, None)``), whoever asks and whether
or not the game is over: it is what any spectator was shown at that version, so a replay of a running
game reveals nothing a spectator did not see then. A seat's own past hand is not offered (it would
be that seat's view, not the replay the issue asks for).

Bounded: the log is read in XRANGE pages of ``log_pages.MAX_PAGE_SIZE`` entries and only up to N;
the work is N entries at most, and N is at most the game's version, which the ruleset's action
limit bounds (``RulesetInfo.max_actions``: 2,000 BANG! actions, 1,500 TTR ones, plus the seats'
joins). The replay runs in a worker thread so the event loop keeps serving other games.
"""

from __future__ import annotations

import asyncio
from typing import Any

import orjson
from tabletop.v1 import game_pb2

from tabletop_server.service.api import convert, log_pages, seeds
from tabletop_server.service.api.errors import InvalidArgument, OutOfRange, ServiceReason
from tabletop_server.service.engine.replay import new_game, step
from tabletop_server.service.engine.ruleset import Ruleset, State
from tabletop_server.service.store.redis_store import GameStore

RECENT_VERSIONS = 12  # GetGameResponse.recent_events: the versions a replay's feed says (the live feed's length)


async def view_at(store: GameStore, game_id: str, doc: dict[str, Any], ruleset: Ruleset, current: int,
                  version: int) -> game_pb2.View:
    """The spectator's view of the game at ``version`` (1 = as dealt); ``current`` is the game's version now."""
    if version < 1:
        raise InvalidArgument(ServiceReason.INVALID_AT_VERSION, f"at_version is {version}: a replay starts at "
                              "version 1 (the game as dealt); omit at_version for the game now.", field="at_version")
    if version > current:
        raise OutOfRange(ServiceReason.VERSION_AHEAD, f"at_version {version} is after the game's version "
                         f"{current}: replay version {current} or less.", version=current)
    raw: list[tuple[int, bytes]] = []
    after = 1  # version 1 is the creation: its opening events are the deal the seed makes again
    while after < version:
        page = await store.entries(game_id, after, count=min(log_pages.MAX_PAGE_SIZE, version - after))
        if not page:
            break
        raw += page
        after = page[-1][0]
    return await asyncio.to_thread(_replayed_view, doc, ruleset, [value for v, value in raw if v <= version])


async def events_up_to(store: GameStore, game_id: str, ruleset: Ruleset, version: int) -> list[game_pb2.Event]:
    """The events of the last ``RECENT_VERSIONS`` versions up to ``version`` (checked by ``view_at``), as a
    spectator's live feed was shown them then (never revealed, even once the game is over): one bounded XRANGE."""
    first = max(version - RECENT_VERSIONS, 0)
    raw = await store.entries(game_id, first, count=version - first)
    return [e for v, value in raw if v <= version
            for e in convert.events(orjson.loads(value)["events"], v, ruleset, None)]


# Helpers

def _replayed_view(doc: dict[str, Any], ruleset: Ruleset, entries: list[bytes]) -> game_pb2.View:
    state, _ = new_game(ruleset, doc["options"], len(doc["seats"]), seeds.seed_of(doc), doc.get("rules_version"))
    for value in entries:
        _apply(ruleset, state, orjson.loads(value))
    return convert.view(state, ruleset, None)


def _apply(ruleset: Ruleset, state: State, entry: dict[str, Any]) -> None:
    """One stored entry: its action, or the conceding its KIND_SEAT_CONCEDED events say (joins change nothing)."""
    if entry["action"] is not None:
        step(ruleset, state, entry["seat"], entry["action"])
        return
    for kind, event in entry["events"]:
        if kind == "l" and event.get("kind") == "SEAT_CONCEDED":
            step(ruleset, state, event["seat"], None)
