"""Checking a finished game's deal from its public record alone (issue 33; docs/fair-play.md).

The record is what anyone may read without credentials once a game is over: the ``Game`` (with the
commitment published at creation), the spectator's final view, and the whole log with the revealed
seed and salt (GetGameLog). :func:`verify` checks, in order:

1. the seed and salt open the commitment (``service.engine.commitment``);
2. the seed deals, under the game's rules version, exactly the opening the log shows;
3. every logged action (and conceding) applied to the state the seed dealt is accepted by the rules
   and produces exactly the logged events, every hidden draw included (the finished log shows them
   all); so no card was dealt but by the generator the commitment fixed;
4. the final state is over when the game says it was completed, and its spectator view (scores,
   winners, everything public at the end) is the one the service shows.

Any difference raises :class:`VerificationFailed` naming the first place it shows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from google.protobuf import json_format
from tabletop.v1 import game_pb2
from tabletop.v1 import game_service_pb2 as svc

from tabletop_server.service.api import convert
from tabletop_server.service.engine import registry
from tabletop_server.service.engine.commitment import opens
from tabletop_server.service.engine.errors import RuleError
from tabletop_server.service.engine.replay import new_game, step
from tabletop_server.service.engine.ruleset import Ruleset, State

CONCEDED = game_pb2.LifecycleEvent.KIND_SEAT_CONCEDED


class VerificationFailed(Exception):
    """The record does not prove a fair deal: the message says where it first differs."""


@dataclass
class PublicRecord:
    """A finished game as anyone may read it."""

    game: game_pb2.Game
    final_view: game_pb2.View
    entries: list[game_pb2.LogEntry]
    seed_hex: str
    salt: str

    def to_json(self) -> dict[str, Any]:
        """The record as a JSON document (proto3 JSON for the messages), for ``tabletop verify --save``."""
        return {"game": json_format.MessageToDict(self.game), "finalView": json_format.MessageToDict(self.final_view),
                "entries": [json_format.MessageToDict(e) for e in self.entries],
                "seedHex": self.seed_hex, "seedSalt": self.salt}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PublicRecord:
        """The inverse of :meth:`to_json`."""
        return cls(json_format.ParseDict(data["game"], game_pb2.Game()),
                   json_format.ParseDict(data.get("finalView", {}), game_pb2.View()),
                   [json_format.ParseDict(e, game_pb2.LogEntry()) for e in data["entries"]],
                   str(data.get("seedHex", "")), str(data.get("seedSalt", "")))

    @classmethod
    def from_responses(cls, game: svc.GetGameResponse, pages: list[svc.GetGameLogResponse]) -> PublicRecord:
        """The record of a GetGame (no token: the spectator's view) and every page of GetGameLog."""
        last = pages[-1] if pages else svc.GetGameLogResponse()
        return cls(game.game, game.view, [e for p in pages for e in p.entries], last.seed_hex, last.seed_salt)


@dataclass(frozen=True)
class Verified:
    """What a passed check covered."""

    actions: int
    events: int
    rules_version: str


def verify(record: PublicRecord) -> Verified:
    """Check the record (module docstring); raises :class:`VerificationFailed`."""
    game = record.game
    if game.status != game_pb2.GAME_STATUS_FINISHED or not record.seed_hex:
        raise VerificationFailed(f"{game.name} is not finished: its seed is revealed once it is over.")
    if not game.seed_commitment:
        raise VerificationFailed(f"{game.name} was created before commitments: there is nothing to check against.")
    if not opens(game.seed_commitment, game.ruleset, game.rules_version, game.name, record.seed_hex, record.salt):
        raise VerificationFailed("The revealed seed and salt do not match the commitment published at creation.")
    ruleset = _ruleset(game.ruleset)
    state, opening = _deal(ruleset, game, int(record.seed_hex, 16))
    actions = events = 0
    for index, entry in enumerate(record.entries):
        produced = _step(ruleset, state, entry, opening if index == 0 else [])
        actions += entry.HasField("action")
        events += _compare(ruleset, entry, produced)
    _check_end(ruleset, state, record)
    return Verified(actions, events, game.rules_version)


# Helpers

def _ruleset(ruleset_id: str) -> Ruleset:
    found = registry.get(ruleset_id)
    if found is None:
        raise VerificationFailed(f"This verifier does not know the ruleset {ruleset_id!r}.")
    return found


def _deal(ruleset: Ruleset, game: game_pb2.Game, seed: int) -> tuple[State, list[Any]]:
    options = ruleset.decode_options(getattr(game.options, ruleset.INFO.proto_field))
    try:
        state, opening = new_game(ruleset, options, len(game.seats), seed, game.rules_version)
    except RuleError as exc:
        raise VerificationFailed(f"The seed does not deal rules version {game.rules_version!r}: {exc}") from exc
    if ruleset.rules_version(state) != game.rules_version:
        raise VerificationFailed(f"This verifier does not deal rules version {game.rules_version!r}.")
    return state, opening


def _step(ruleset: Ruleset, state: State, entry: game_pb2.LogEntry, opening: list[Any]) -> list[Any]:
    """Apply one log entry to the state (the engine's replay step, as every replay does); its game events."""
    try:
        if entry.HasField("action"):
            return step(ruleset, state, entry.seat, ruleset.decode_action(getattr(entry.action, ruleset.INFO.proto_field)))
        conceded = [e.lifecycle.seat for e in entry.events if e.HasField("lifecycle") and e.lifecycle.kind == CONCEDED]
        produced = list(opening)
        for seat in conceded:
            produced += step(ruleset, state, seat, None)
        return produced
    except RuleError as exc:
        raise VerificationFailed(f"Version {entry.version}: the rules refuse the logged action of seat "
                                 f"{entry.seat}: {exc.reason} ({exc.message})") from exc


def _compare(ruleset: Ruleset, entry: game_pb2.LogEntry, produced: list[Any]) -> int:
    expected = [e.SerializeToString(deterministic=True) for e in entry.events if not e.HasField("lifecycle")]
    made = [e.SerializeToString(deterministic=True)
            for e in convert.events([["g", e] for e in produced], entry.version, ruleset, None, reveal_all=True)]
    if made != expected:
        raise VerificationFailed(f"Version {entry.version}: the logged events are not what the seed and the actions "
                                 f"produce (a draw, a deal or a result differs).")
    return len(made)


def _check_end(ruleset: Ruleset, state: State, record: PublicRecord) -> None:
    if record.game.end == game_pb2.GAME_END_COMPLETED and not ruleset.is_over(state):
        raise VerificationFailed("The game is shown completed, but the logged actions do not end it.")
    final = convert.view(state, ruleset, None)
    if record.final_view.ByteSize() and final.SerializeToString(deterministic=True) != \
            record.final_view.SerializeToString(deterministic=True):
        raise VerificationFailed("The final view (scores, winners) is not the one the logged actions reach.")
