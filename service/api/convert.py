"""Conversions between stored game documents and contract messages (no rules here)."""

from __future__ import annotations

from typing import Any

from google.protobuf import timestamp_pb2
from tabletop.v1 import game_pb2

from tabletop_server.service.api import seeds, wire
from tabletop_server.service.engine.ruleset import Ruleset, RulesetInfo

STATUS = {
    "WAITING": game_pb2.GAME_STATUS_WAITING,
    "ACTIVE": game_pb2.GAME_STATUS_ACTIVE,
    "FINISHED": game_pb2.GAME_STATUS_FINISHED,
}
LIFECYCLE = {
    "CREATED": game_pb2.LifecycleEvent.KIND_CREATED,
    "SEAT_JOINED": game_pb2.LifecycleEvent.KIND_SEAT_JOINED,
    "STARTED": game_pb2.LifecycleEvent.KIND_STARTED,
    "FINISHED": game_pb2.LifecycleEvent.KIND_FINISHED,
    "ABANDONED": game_pb2.LifecycleEvent.KIND_ABANDONED,
    "BOT_PLAYED": game_pb2.LifecycleEvent.KIND_BOT_PLAYED,
    "SEAT_TAKEN_OVER": game_pb2.LifecycleEvent.KIND_SEAT_TAKEN_OVER,
    "SEAT_TAKEN_BACK": game_pb2.LifecycleEvent.KIND_SEAT_TAKEN_BACK,
    "SEAT_LEFT": game_pb2.LifecycleEvent.KIND_SEAT_LEFT,
    "SEAT_CONCEDED": game_pb2.LifecycleEvent.KIND_SEAT_CONCEDED,
    "REMATCH": game_pb2.LifecycleEvent.KIND_REMATCH,
}
_VIEW_FIELD = {f.name: f.number for f in game_pb2.View.DESCRIPTOR.fields}  # the oneof's field per ruleset
# How a finished game ended (a game finished before "end" was stored ended by its rules).
END = {"COMPLETED": game_pb2.GAME_END_COMPLETED, "ABANDONED": game_pb2.GAME_END_ABANDONED}


def game(doc: dict[str, Any], version: int, ruleset: Ruleset) -> game_pb2.Game:
    """The public ``Game`` message of a stored document."""
    bots = doc.get("bots", {})
    out = doc.get("conceded", ())
    seats = [game_pb2.Seat(index=i, display_name=(s or {}).get("name", ""),
                           occupied=s is not None and not s.get("reserved"), reserved=bool((s or {}).get("reserved")),
                           bot=bots.get(str(i), ""), conceded=i in out, invited=bool((s or {}).get("invited")),
                           player_bound=bool((s or {}).get("player"))) for i, s in enumerate(doc["seats"])]
    timer = doc.get("timer")
    timed = {"turn_timer": game_pb2.TurnTimer(decision_seconds=timer["seconds"], bot=timer["bot"],
                                              takeover_after=timer["takeover_after"],
                                              concede_after=timer.get("concede_after", 0))} if timer else {}
    rematch = f"games/{doc['rematch']}" if doc.get("rematch") else ""
    rematch_of = f"games/{doc['rematch_of']}" if doc.get("rematch_of") else ""
    deadlines = [game_pb2.Deadline(seat=int(seat), due_time=timestamp(due))
                 for seat, due in sorted(doc.get("waiting", {}).items(), key=lambda item: int(item[0]))]
    # The oneof field is chosen by the ruleset at run time, hence the ignores on ** below.
    options = game_pb2.GameOptions(**{ruleset.INFO.proto_field: ruleset.encode_options(doc["options"])})  # type: ignore[arg-type]
    return game_pb2.Game(name=f"games/{doc['id']}", ruleset=doc["ruleset"], status=STATUS[doc["status"]],
                         seats=seats, version=version, options=options,
                         create_time=timestamp(doc["created"]), update_time=timestamp(doc["updated"]),
                         seed_chosen=doc.get("seed_chosen", False), action_count=doc.get("actions", 0),
                         max_actions=doc.get("max_actions", ruleset.INFO.max_actions),
                         end=END[doc.get("end", "COMPLETED")] if doc["status"] == "FINISHED" else game_pb2.GAME_END_UNSPECIFIED,
                         deadlines=deadlines, public=doc.get("public", False), rematch=rematch,
                         rematch_of=rematch_of, seed_source=seeds.source_of(doc),
                         seed_commitment=doc.get("commitment", ""),
                         rules_version=doc.get("rules_version") or ruleset.rules_version(doc["state"]), **timed)


def event(stored: list[Any], version: int, ruleset: Ruleset, seat: int | None,
          reveal_all: bool = False) -> game_pb2.Event | None:
    """One stored event ``["l", {...}]`` or ``["g", {...}]`` as ``seat`` may see it."""
    kind, payload = stored
    if kind == "l":
        seat_field = {"seat": payload["seat"]} if "seat" in payload else {}
        return game_pb2.Event(version=version, lifecycle=game_pb2.LifecycleEvent(
            kind=LIFECYCLE[payload["kind"]], display_name=payload.get("name", ""), bot=payload.get("bot", ""),
            timed_out=payload.get("timed_out", False), game=payload.get("game", ""), **seat_field))
    projected = payload if reveal_all else ruleset.project(payload, seat)
    if projected is None:
        return None
    return game_pb2.Event(version=version, **{ruleset.INFO.proto_field: ruleset.encode_event(projected)})  # type: ignore[arg-type]


def events(stored: list[Any], version: int, ruleset: Ruleset, seat: int | None,
           reveal_all: bool = False) -> list[game_pb2.Event]:
    """Every stored event of one version that ``seat`` may see."""
    out = (event(e, version, ruleset, seat, reveal_all) for e in stored)
    return [e for e in out if e is not None]


def view(state: dict[str, Any], ruleset: Ruleset, seat: int | None) -> game_pb2.View:
    """The ruleset's projection of the state, wrapped in the generic ``View``."""
    return game_pb2.View(**{ruleset.INFO.proto_field: ruleset.view(state, seat)})  # type: ignore[arg-type]


def view_bytes(state: dict[str, Any], ruleset: Ruleset, seat: int | None) -> bytes:
    """``view(state, ruleset, seat)`` serialized, written around the ruleset's serialized view (no copy)."""
    return wire.message_field(_VIEW_FIELD[ruleset.INFO.proto_field], ruleset.view(state, seat).SerializeToString())


def timestamp(seconds: float) -> timestamp_pb2.Timestamp:
    """A stored time (seconds since the epoch) as a protobuf Timestamp."""
    whole = int(seconds)
    return timestamp_pb2.Timestamp(seconds=whole, nanos=int((seconds - whole) * 1e9))


def ruleset(info: RulesetInfo) -> game_pb2.Ruleset:
    """The ``Ruleset`` message of a ruleset's INFO (ListRulesets and GetRuleset give the same)."""
    return game_pb2.Ruleset(
        id=info.id, display_name=info.display_name, min_seats=info.min_seats, max_seats=info.max_seats,
        rules_version=info.rules_version, max_actions=info.max_actions,
        options=[game_pb2.RulesetOption(name=o.name, description=o.description, default_value=o.default,
                                        allowed_values=list(o.allowed_values)) for o in info.options],
        seat_ranges=[game_pb2.SeatRange(min_seats=r.min_seats, max_seats=r.max_seats,
                                        required_options=[game_pb2.RequiredOption(option=k, value=v)
                                                          for k, v in r.requires])
                     for r in info.ranges()])
