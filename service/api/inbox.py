"""A player's notifications: ListNotifications, MarkNotificationsRead and WatchPlayer (issue 27).

Notifications are made by the player index's scripts (``store/player_index.py``) when an entry's
flag turns on, into the player's inbox stream ``{p:<id>}:inbox``: bounded (``inbox_max``, the
oldest go first) and expiring (``inbox_ttl_seconds``). Each holds the player's ``PlayerGame`` of
that moment, which is the game's public message and the player's own seat: nothing the player's
seat may not see. WatchPlayer follows the same stream (``XREAD BLOCK``) from a notification id,
so a client resumes exactly after the last one it received.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Callable

from tabletop.v1 import player_pb2

from tabletop_server.service.api import convert
from tabletop_server.service.api.errors import InvalidArgument, ServiceReason
from tabletop_server.service.api.identity import Player
from tabletop_server.service.store.player_index import PlayerIndex

KINDS = {
    "TURN_STARTED": player_pb2.NOTIFICATION_KIND_TURN_STARTED,
    "DEADLINE_NEAR": player_pb2.NOTIFICATION_KIND_DEADLINE_NEAR,
    "INVITED": player_pb2.NOTIFICATION_KIND_INVITED,
    "GAME_FINISHED": player_pb2.NOTIFICATION_KIND_GAME_FINISHED,
    "REMATCH_ASKED": player_pb2.NOTIFICATION_KIND_REMATCH_ASKED,
    "TICKET_SEATED": player_pb2.NOTIFICATION_KIND_TICKET_SEATED,
}
DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE = 50, 100
START_HEADER = "tabletop-after-id"  # WatchPlayer's initial metadata: the notification id the stream starts after
_ID = re.compile(r"[0-9]{1,20}-[0-9]{1,20}")
_FILTER = re.compile(r"\s*read\s*=\s*(true|false)\s*")


def notification(entry_id: str, fields: dict[str, bytes], read: bool = False) -> player_pb2.PlayerNotification:
    """One stored notification as the contract's message."""
    ms = int(entry_id.split("-")[0])
    entry = player_pb2.PlayerGame.FromString(fields.get("e", b""))
    return player_pb2.PlayerNotification(id=entry_id, kind=KINDS.get(fields["k"].decode(), player_pb2.NOTIFICATION_KIND_UNSPECIFIED),
                                         game=f"games/{fields['g'].decode()}", player_game=entry,
                                         create_time=convert.timestamp(ms / 1000), read=read)


async def page(index: PlayerIndex, player: Player,
               req: player_pb2.ListNotificationsRequest) -> player_pb2.ListNotificationsResponse:
    """One page of the inbox, newest first (a filter on ``read`` may leave a page short, AIP-132)."""
    read_filter = _read_filter(req.filter)
    size = max(1, min(req.page_size or DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE))
    rows, unread, count = await index.inbox(player.id, req.page_token or None, size)
    out = [notification(i, f, i not in unread) for i, f in rows]
    if read_filter is not None:
        out = [n for n in out if n.read == read_filter]
    token = rows[-1][0] if len(rows) == size else ""
    return player_pb2.ListNotificationsResponse(notifications=out, next_page_token=token, unread_count=count)


async def mark_read(index: PlayerIndex, player: Player,
                    req: player_pb2.MarkNotificationsReadRequest) -> player_pb2.MarkNotificationsReadResponse:
    """Mark some (or every) notification read; ids of notifications that are gone are ignored."""
    left = await index.mark_read(player.id, list(req.ids), req.all)
    return player_pb2.MarkNotificationsReadResponse(unread_count=left)


async def watch(index: PlayerIndex, player: Player, after_id: str,
                active: Callable[[], bool]) -> tuple[str, AsyncIterator[player_pb2.WatchPlayerResponse]]:
    """The stream: notifications after ``after_id`` (or from now on), then each new one as it is made; and
    the id it starts after ("now" placed in the inbox: its newest id, "0-0" when empty), which the stream
    names in its initial metadata (``START_HEADER``) so a client that has received nothing yet resumes there."""
    if after_id and not _ID.fullmatch(after_id):
        raise InvalidArgument(ServiceReason.INVALID_NOTIFICATION_ID, "after_id is the id of a notification this "
                              "player received.", field="after_id")
    after = after_id or await index.latest(player.id)
    return after, _follow(index, player.id, after, active)


async def _follow(index: PlayerIndex, player_id: str, after: str,
                  active: Callable[[], bool]) -> AsyncIterator[player_pb2.WatchPlayerResponse]:
    while active():
        for entry_id, fields in await index.follow(player_id, after, 1000):
            after = entry_id
            yield player_pb2.WatchPlayerResponse(notification=notification(entry_id, fields))


def _read_filter(text: str) -> bool | None:
    if not text.strip():
        return None
    match = _FILTER.fullmatch(text)
    if match is None:
        raise InvalidArgument(ServiceReason.INVALID_FILTER, f"Cannot filter on {text.strip()!r}: use read = false "
                              "or read = true.", field="filter")
    return match.group(1) == "true"
