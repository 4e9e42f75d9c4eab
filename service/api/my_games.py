"""A player's games: what the outbox indexes for each player of a game, and ListMyGames (issue 27).

The host keeps two fields in a game document that has players (``track``, ``stamp_turns``, in the
same compare-and-set as the move):

- ``players``: every player id the game ever bound or invited, in order (a player who left is
  still named, so the drain removes his entry); at most :data:`MAX_PLAYERS`;
- ``turns``: ``{seat: version}``, the version at which each waiting seat's decision started. A
  seat that stays to act keeps its stamp; a new stamp is a new turn (one TURN_STARTED);
- ``invitees``: every player id the game ever invited. A seat's ``invited`` is gone once its
  player joins, and the drain reads the game as it is when it gets to the mark (it may be a
  lease late), so an invitation joined before the drain saw it would never be told: the
  invitation is kept here, and the entry's invited flag (one INVITED) is set from it.

:func:`updates` turns a document into each player's entry (``PlayerGame``): the game's public
message (what a spectator sees) plus the player's own seat, so an entry, and every notification
made of it, holds nothing the player's seat may not see. :func:`page` reads the index.
"""

from __future__ import annotations

import base64
import re
import time
from typing import Any

from tabletop.v1 import player_pb2

from tabletop_server.service.api import convert, page_tokens
from tabletop_server.service.api.errors import InvalidArgument, ServiceReason, Unauthenticated
from tabletop_server.service.api.identity import Player
from tabletop_server.service.engine.ruleset import Ruleset
from tabletop_server.service.store.player_index import PlayerIndex, Update

MAX_PLAYERS = 64  # ids a game remembers (seats are at most 8; joins and leaves of many players are cut)
MY_TURN = 1e13  # added to the score of an entry awaiting the player: above every epoch-ms time
DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE = 50, 100
STATUS_FLAG = {"WAITING": "W", "ACTIVE": "A", "FINISHED": "F"}
_TERM = re.compile(r'\s*(?:(status)\s*=\s*"(WAITING|ACTIVE|FINISHED)"|(ruleset)\s*=\s*"([a-z0-9-]{1,64})"'
                   r'|(my_turn)\s*=\s*(true|false))\s*')
_CURSOR = re.compile(r"([0-9]{1,17}(?:\.[0-9]{1,6})?):([0-9a-f]{1,64})")


def track(doc: dict[str, Any]) -> bool:
    """Add the players now bound to or invited into a seat to ``doc["players"]`` (the invited ones also to
    ``doc["invitees"]``); True when it has any."""
    known: list[str] = doc.get("players", [])
    invitees: list[str] = doc.get("invitees", [])
    for seat in doc["seats"]:
        for pid in (seat or {}).get("player"), (seat or {}).get("invited"):
            if pid and pid not in known:
                known.append(pid)
        invited = (seat or {}).get("invited")
        if invited and invited not in invitees:
            invitees.append(invited)
    if invitees:  # invitations are made with the game, one per seat at most: bounded by the seats
        doc["invitees"] = invitees
    seated = {s.get("player") or s.get("invited") for s in doc["seats"] if s}
    while len(known) > MAX_PLAYERS:  # forget the oldest who left (their entries were removed when they left)
        known.remove(next(p for p in known if p not in seated))
    if known:
        doc["players"] = known
    return bool(known)


def stamp_turns(doc: dict[str, Any], ruleset: Ruleset, version: int) -> None:
    """Keep ``doc["turns"]`` for the write that makes ``version``."""
    old: dict[str, int] = doc.get("turns", {})
    waiting = ruleset.to_act(doc["state"]) if doc["status"] == "ACTIVE" else []
    doc["turns"] = {str(s): old.get(str(s), version) for s in waiting}


def updates(doc: dict[str, Any], version: int, ruleset: Ruleset, ttl: int, near_share: float = 0.0) -> list[Update]:
    """Each player's entry of the game at ``version``; a player who holds no seat any more is removed.
    A timed pending decision gets its DEADLINE_NEAR time: when ``near_share`` of its time is left."""
    game = convert.game(doc, version, ruleset)
    turns: dict[str, int] = doc.get("turns", {}) if doc["status"] == "ACTIVE" else {}
    conceded = set(doc.get("conceded", ()))
    winners = _winners(doc, ruleset)
    updated_ms = int(doc["updated"] * 1000)
    expires_ms = int((doc["updated"] + ttl) * 1000)
    out = []
    for pid in doc.get("players", []):
        seat = next((i for i, s in enumerate(doc["seats"]) if s and pid in (s.get("player"), s.get("invited"))), None)
        if seat is None:
            out.append(Update(pid, doc["id"], version, 0, "-,X,0,0", b"", expires_ms))
            continue
        invited = doc["seats"][seat].get("player") != pid
        pending = str(seat) in turns and not invited and seat not in conceded
        due = doc.get("waiting", {}).get(str(seat)) if pending else None
        entry = player_pb2.PlayerGame(
            game=game, seat=seat, decision_pending=pending, turn_seats=sorted(int(s) for s in turns),
            last_activity_time=convert.timestamp(doc["updated"]), invited=invited, winner_seats=winners,
            won=seat in winners, **({"deadline": convert.timestamp(due)} if due is not None else {}))
        was_invited = invited or pid in doc.get("invitees", ())  # told once, even when seen after the join
        flags = ",".join((str(turns[str(seat)]) if pending else "-", STATUS_FLAG[doc["status"]],
                          "1" if was_invited else "0", "1" if doc.get("rematch") else "0"))
        timer = doc.get("timer")
        near = due - near_share * timer["seconds"] if due is not None and timer and near_share else 0.0
        out.append(Update(pid, doc["id"], version, (MY_TURN if pending else 0) + updated_ms, flags,
                          entry.SerializeToString(), expires_ms, near, bool(doc.get("matched"))))
    return out


def player_of(caller: Any) -> Player:
    """The signed-in player of a call (else UNAUTHENTICATED PLAYER_REQUIRED: a seat token names no player)."""
    if not isinstance(caller, Player):
        raise Unauthenticated(ServiceReason.PLAYER_REQUIRED, "Sign in as a player: send 'authorization: Bearer "
                              "<JWT>' (your studio's token or a Tabletop session); seat tokens name no player.")
    return caller


async def page(index: PlayerIndex, player: Player, req: player_pb2.ListMyGamesRequest,
               clock: Any = time.time) -> player_pb2.ListMyGamesResponse:
    """One page of the player's games: my turn first, then the most recently active; expired ones dropped."""
    status, ruleset, my_turn = parse_filter(req.filter)
    size = max(1, min(req.page_size or DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE))
    cursor = decode_token(req.page_token)
    now_ms = clock() * 1000
    scan = size if not (status or ruleset or my_turn is not None) else size * 4
    rows = await index.games(player.id, cursor, scan)
    games: list[player_pb2.PlayerGame] = []
    expired: list[str] = []
    for game_id, _, raw, meta in rows:
        parts = meta.split(",")
        if not raw or len(parts) < 2 or float(parts[1]) < now_ms:
            expired.append(game_id)
            continue
        entry = player_pb2.PlayerGame.FromString(raw)
        if len(games) < size and _matches(entry, status, ruleset, my_turn):
            games.append(entry)
    if expired:
        await index.forget(player.id, expired)
    token = encode_token(rows[-1][1], rows[-1][0]) if len(rows) == scan else ""
    return player_pb2.ListMyGamesResponse(games=games, next_page_token=token)


def parse_filter(text: str) -> tuple[int, str, bool | None]:
    """``(GameStatus or 0, ruleset or "", my_turn or None)`` of an AIP-160 filter of the supported terms."""
    status, ruleset, my_turn = 0, "", None
    seen: set[str] = set()
    for term in re.split(r"\s+AND\s+", text.strip()) if text.strip() else []:
        match = _TERM.fullmatch(term)
        if match is None:
            raise InvalidArgument(ServiceReason.INVALID_FILTER, f"Cannot filter on {term.strip()!r}: use "
                                  'status = "ACTIVE", ruleset = "<id>" and my_turn = true, joined by AND.',
                                  field="filter")
        name = match.group(1) or match.group(3) or match.group(5)
        if name in seen:
            raise InvalidArgument(ServiceReason.INVALID_FILTER, f"{name} is given twice.", field="filter")
        seen.add(name)
        if match.group(1):
            status = convert.STATUS[match.group(2)]
        elif match.group(3):
            ruleset = match.group(4)
        else:
            my_turn = match.group(6) == "true"
    return status, ruleset, my_turn


def encode_token(score: float, game_id: str) -> str:
    return base64.urlsafe_b64encode(f"{score:.6f}:{game_id}".encode()).decode().rstrip("=")


def decode_token(token: str) -> tuple[float, str] | None:
    """The cursor (the last listed entry's score and game id), None for the first page."""
    if not token:
        return None
    match = page_tokens.read(token, _CURSOR, "ListMyGames")
    return float(match.group(1)), match.group(2)


# Helpers

def _winners(doc: dict[str, Any], ruleset: Ruleset) -> list[int]:
    """The winners' seats of a finished game, from the spectator's view (public by construction)."""
    if doc["status"] != "FINISHED" or doc.get("end") == "ABANDONED":
        return []
    return sorted(int(s) for s in getattr(ruleset.view(doc["state"], None), "winners", ()))


def _matches(entry: player_pb2.PlayerGame, status: int, ruleset: str, my_turn: bool | None) -> bool:
    return ((not status or entry.game.status == status) and (not ruleset or entry.game.ruleset == ruleset)
            and (my_turn is None or entry.decision_pending == my_turn))

