"""A table beyond one move: conceding a started game and the rematch after a finished one (issue 15).

Pure functions over the stored game document; ``host.py`` runs them inside its compare-and-set,
so each is one atomic change with its log entry.

- Conceding is the ruleset's (``Ruleset.concede``: what it means differs per game). The service
  keeps ``doc["conceded"]`` (the seats, in order) for ``Seat.conceded`` and to refuse a conceded
  seat's later actions; the log entry's KIND_SEAT_CONCEDED event is what a replay concedes by.
- A rematch is a new game whose id is derived from the old one (:func:`rematch_id`), so that two
  seats asking at the same moment, on any replicas, create it once: the second write of version 0
  loses and that caller takes its seat in the game the first one wrote. Its seats are *reserved*
  for the old seats (same index, same display name) until each player claims his with the old
  game's token; bots are seated at once. The old game names the new one (``doc["rematch"]``).
"""

from __future__ import annotations

import hashlib
from typing import Any

from tabletop.v1 import game_pb2

from tabletop_server.service.api import auth, players, seeds
from tabletop_server.service.api.errors import FailedPrecondition, ServiceReason
from tabletop_server.service.api.identity import Player
from tabletop_server.service.engine.errors import EngineReason
from tabletop_server.service.engine.replay import new_game
from tabletop_server.service.engine.ruleset import Ruleset

# The keys of a finished game's document that its rematch takes over unchanged.
CARRIED = ("ruleset", "max_actions", "bots", "timer", "public")


def conceded(doc: dict[str, Any]) -> list[int]:
    """The seats that conceded (none in a game created before conceding existed)."""
    return list(doc.get("conceded", ()))


def check_not_conceded(doc: dict[str, Any], seat: int) -> None:
    """A seat that conceded takes no more decisions: FAILED_PRECONDITION SEAT_CONCEDED."""
    if seat in doc.get("conceded", ()):
        raise FailedPrecondition(EngineReason.SEAT_CONCEDED, "This seat conceded; it can only watch the game now.")


def concede(doc: dict[str, Any], ruleset: Ruleset, seat: int, timed_out: bool = False) -> list[Any]:
    """``seat`` concedes the active game: the stored events (the lifecycle one, then the ruleset's)."""
    check_not_conceded(doc, seat)
    rule = getattr(ruleset, "concede", None)
    if rule is None:
        raise FailedPrecondition(ServiceReason.CONCEDE_NOT_SUPPORTED, f"{ruleset.INFO.id} games cannot be conceded.")
    events = [["g", e] for e in rule(doc["state"], seat)]
    doc["conceded"] = [*conceded(doc), seat]
    doc.get("bots", {}).pop(str(seat), None)
    doc.get("strikes", {}).pop(str(seat), None)
    return [["l", {"kind": "SEAT_CONCEDED", "seat": seat, "timed_out": timed_out}], *events]


def rematch_id(game_id: str) -> str:
    """The id of ``game_id``'s rematch: the same on every replica, as long as a game id."""
    return hashlib.sha256(f"rematch:{game_id}".encode()).hexdigest()[:16]


def check_finished(doc: dict[str, Any]) -> None:
    """A rematch follows a finished game."""
    if doc["status"] != "FINISHED":
        raise FailedPrecondition(ServiceReason.GAME_NOT_FINISHED, "A rematch can be asked for once the game is over.")


def rematch_doc(old: dict[str, Any], ruleset: Ruleset, now: float, seed: int) -> tuple[dict[str, Any], list[Any]]:
    """The rematch's first document (every person's seat reserved) and its creation events."""
    rule = getattr(ruleset, "rematch", None)
    options = rule(old["state"], old["options"]) if rule is not None else old["options"]
    state, opening = new_game(ruleset, options, len(old["seats"]), seed)
    game_id = rematch_id(old["id"])
    bots = old.get("bots", {})
    seats: list[dict[str, Any]] = []
    for i, seat in enumerate(old["seats"]):
        name = seat["name"] if seat else f"seat {i}"
        if str(i) in bots:  # a bot's seat: its token is never given to anyone
            seats.append({"name": name, "token": auth.new_token(game_id, i)[1]})
        else:
            seats.append({"name": name, "token": "", "reserved": True})
    doc = {"id": game_id, "options": options, **seeds.deal_record(ruleset, state, game_id, seed), "seed_chosen": False,
           "seed_source": seeds.SERVER, "seats": seats, "actions": 0,
           "status": "WAITING", "created": now, "updated": now, "state": state, "rematch_of": old["id"],
           **{k: old[k] for k in CARRIED if k in old}}
    doc["status"] = "ACTIVE" if all_seated(doc) else "WAITING"
    events: list[Any] = [["l", {"kind": "CREATED"}], *([["l", {"kind": "STARTED"}]] if doc["status"] == "ACTIVE"
                                                        else []), *(["g", e] for e in opening)]
    return doc, events


def claim(doc: dict[str, Any], seat: int, player: Player | None = None) -> tuple[game_pb2.SeatCredential, list[Any]]:
    """The player of ``seat`` in the old game takes his reserved seat: his new credential and the events
    (a signed-in player's seat is bound to him again, as in the old game)."""
    held = doc["seats"][seat]
    if held is None or not held.get("reserved"):
        raise FailedPrecondition(ServiceReason.SEAT_TAKEN, f"Seat {seat} of the rematch is taken already (you "
                                 "claimed it before, or you left it and somebody joined).")
    doc["seats"][seat], credential = players.occupy(doc["id"], seat, held["name"], player)
    events: list[Any] = [["l", {"kind": "SEAT_JOINED", "seat": seat, "name": held["name"]}]]
    return credential, events + start_if_seated(doc)


def all_seated(doc: dict[str, Any]) -> bool:
    """Whether every seat is held (none open, none still reserved for a rematch's player)."""
    return all(s is not None and not s.get("reserved") for s in doc["seats"])


def start_if_seated(doc: dict[str, Any]) -> list[Any]:
    """Start a waiting game whose last seat was just taken: its STARTED event, if it did."""
    if doc["status"] != "WAITING" or not all_seated(doc):
        return []
    doc["status"] = "ACTIVE"
    return [["l", {"kind": "STARTED"}]]
