"""One Redis reader per watched game per process, shared by every WatchGame stream of that game (issue 26).

Why: each WatchGame stream used to hold a Redis connection of its own, blocked in ``XREAD`` on its
game's log, so a process served at most ``TABLETOP_MAX_WATCH_STREAMS`` (192) streams, and 200 streams
from one client could lock everyone else out. Now a game's ``Feed`` is the one blocking reader of that
game's log in this process; each new entry is parsed once and handed to every ``Follower`` (one per
stream) through a bounded queue, and its projection for a seat is built once per entry and seat
(``Entry.response``), shared by every stream of that seat. A stream costs a coroutine and a queue; the
Redis connections follow the number of games watched (``TABLETOP_MAX_WATCHED_GAMES``), not of watchers.

Nothing is lost and nothing is repeated: the log in Redis stays the source. A follower reads what it
missed from the log (``GameHost._follow``) whenever the feed cannot vouch for it: when it joins a feed
already past its version, when an entry skips a version, and when its queue overflowed (a client that
reads slowly drops its queue and catches up from the log, costing only itself, never the feed).
"""

from __future__ import annotations

import asyncio
import collections
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

import orjson
from tabletop.v1 import game_pb2
from tabletop.v1 import game_service_pb2 as svc

from tabletop_server.service.api import convert
from tabletop_server.service.api.errors import ResourceExhausted, ServiceReason
from tabletop_server.service.engine.ruleset import Ruleset

QUEUE = 256  # entries a follower may fall behind before it drops them and reads the log instead
FINISHED = ["l", {"kind": "FINISHED"}]


@dataclass
class Entry:
    """One log entry, parsed once, with its projection per seat built on first use."""

    version: int
    events: list[Any]
    finished: bool
    projected: dict[int | None, svc.WatchGameResponse] = field(default_factory=dict)

    @classmethod
    def parse(cls, version: int, raw: bytes) -> Entry:
        events = orjson.loads(raw)["events"]
        return cls(version, events, any(e == FINISHED for e in events))

    def response(self, ruleset: Ruleset, seat: int | None) -> svc.WatchGameResponse:
        """The update as ``seat`` may see it (the same message for every stream of that seat: read only)."""
        message = self.projected.get(seat)
        if message is None:
            message = self.projected[seat] = svc.WatchGameResponse(
                version=self.version, events=convert.events(self.events, self.version, ruleset, seat))
        return message


class Follower:
    """One stream's place on a feed: a bounded queue of entries, and whether it overflowed."""

    def __init__(self, feed: Feed, active: Callable[[], bool]) -> None:
        self.feed = feed
        self.active = active
        self.queue: collections.deque[Entry] = collections.deque()
        self.lagged = False  # the queue overflowed: read the log from the last version sent
        self.error: BaseException | None = None
        self._ready = asyncio.Event()

    def push(self, entry: Entry) -> None:
        if len(self.queue) >= QUEUE:
            self.queue.clear()
            self.lagged = True
        else:
            self.queue.append(entry)
        self._ready.set()

    def wake(self) -> None:
        """Let the stream look at ``active()`` again (the server is draining)."""
        self._ready.set()

    def fail(self, error: BaseException) -> None:
        self.error = error
        self._ready.set()

    async def next(self) -> list[Entry]:
        """The entries queued since the last call, waiting for one; [] when only woken."""
        if not self.queue and not self.lagged and self.error is None:
            self._ready.clear()
            await self._ready.wait()
        if self.error is not None:
            raise self.error
        entries = list(self.queue)
        self.queue.clear()
        return entries


class Feed:
    """The one reader of a game's log in this process, and the followers it hands entries to."""

    def __init__(self, feeds: Feeds, game_id: str, head: int) -> None:
        self.feeds, self.game_id, self.head = feeds, game_id, head
        self.followers: set[Follower] = set()
        self.task: asyncio.Task[None] | None = None

    async def run(self) -> None:
        """Read the log after ``head`` until no follower is left (checked each time a read returns, so a
        feed whose last watcher just left keeps its connection for at most one block, and one who comes
        back within it finds the feed still there)."""
        try:
            while self.followers:
                for version, raw in await self.feeds.store.wait_entries(self.game_id, self.head,
                                                                        self.feeds.block_ms):
                    entry = Entry.parse(version, raw)
                    self.head = max(self.head, version)
                    for follower in list(self.followers):
                        follower.push(entry)
                for follower in list(self.followers):
                    if not follower.active():
                        follower.wake()
        except asyncio.CancelledError:
            raise
        except Exception as error:  # noqa: BLE001 - Redis failed: every stream ends with it (UNAVAILABLE)
            for follower in list(self.followers):
                follower.fail(error)
        finally:
            self.feeds.forget(self)


class Feeds:
    """Every game followed by this process: at most ``limit`` at once (0 = no cap), one reader each."""

    def __init__(self, store: Any, limit: int = 0, block_ms: int = 5000) -> None:
        self.store, self.limit, self.block_ms = store, limit, block_ms
        self.feeds: dict[str, Feed] = {}

    def admit(self, game_id: str) -> None:
        """Refuse a watch that would need a reader over the cap (RESOURCE_EXHAUSTED, before the stream opens)."""
        if self.limit and game_id not in self.feeds and len(self.feeds) >= self.limit:
            raise ResourceExhausted(ServiceReason.TOO_MANY_WATCH_STREAMS, f"This replica follows {self.limit} "
                                    "games at once (one Redis reader each); retry later.", limit=self.limit)

    def follow(self, game_id: str, head: int, active: Callable[[], bool]) -> Follower:
        """A follower on the game's feed (started after ``head`` when there is none yet)."""
        feed = self.feeds.get(game_id)
        if feed is None:
            feed = self.feeds[game_id] = Feed(self, game_id, head)
        follower = Follower(feed, active)
        feed.followers.add(follower)
        if feed.task is None:
            feed.task = asyncio.ensure_future(feed.run())
        return follower

    def leave(self, follower: Follower) -> None:
        follower.feed.followers.discard(follower)

    def forget(self, feed: Feed) -> None:
        if self.feeds.get(feed.game_id) is feed:
            del self.feeds[feed.game_id]
        for follower in list(feed.followers):  # joined after the last read: nothing reads for them now
            if follower.error is None:
                follower.fail(ConnectionError("the game's reader stopped"))

    def wake_all(self) -> None:
        """Every stream looks at ``active()`` now (the server started draining)."""
        for feed in list(self.feeds.values()):
            for follower in list(feed.followers):
                follower.wake()

    @property
    def open(self) -> int:
        return len(self.feeds)


async def updates(feeds: Feeds, game: Any, seat: int | None, from_version: int, active: Callable[[], bool],
                  backlog: int) -> AsyncIterator[svc.WatchGameResponse]:
    """Every version of ``game`` (a loaded ``host.Game``) after ``from_version`` as ``seat`` sees it, once and in
    order: a snapshot first when the caller is more than ``backlog`` behind, then the log up to now, then the
    game's feed; ends after the game finishes, or when ``active()`` turns False (the server drains)."""
    store = feeds.store
    version = max(0, from_version)
    if game.version - version > backlog or (version and await store.first_version(game.id) > version + 1):
        yield _snapshot(game, seat)
        version = game.version
    known = game.version  # the newest version this stream knows the game has
    finished = game.doc["status"] == "FINISHED"
    if finished and version >= known:
        return
    follower = feeds.follow(game.id, game.version, active)
    try:
        behind = version < known or follower.feed.head > version  # what the feed will not bring: from the log
        while active():
            from_log = behind or follower.lagged
            if from_log:
                follower.lagged = False
                raw = await store.entries(game.id, version, count=QUEUE)
                batch = [Entry.parse(v, data) for v, data in raw]
                behind = len(raw) == QUEUE
            else:
                batch = await follower.next()
            for entry in batch:
                if entry.version <= version:
                    continue
                if entry.version > version + 1 and not from_log:  # the feed cannot vouch for the gap
                    behind = True
                    break
                version, known = entry.version, max(known, entry.version)
                finished = finished or entry.finished
                yield entry.response(game.ruleset, seat)
            if finished and version >= max(known, follower.feed.head):
                return
    finally:
        feeds.leave(follower)


# Helpers

def _snapshot(game: Any, seat: int | None) -> svc.WatchGameResponse:
    return svc.WatchGameResponse(version=game.version, snapshot=game_pb2.Snapshot(
        game=convert.game(game.doc, game.version, game.ruleset),
        view=convert.view(game.doc["state"], game.ruleset, seat),
        **({"viewer_seat": seat} if seat is not None else {})))
