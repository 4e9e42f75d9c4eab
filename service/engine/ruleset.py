"""The ruleset contract: what a game provides so the service can host it.

Read this once; games do not repeat it (DESIGN 2, after OpenSpiel's ``spiel.h``).

A ruleset is a module-level object with the attributes and functions below. States,
actions and events are plain JSON data (dicts, lists, str, int, bool, None): the
service stores them in Redis as JSON, so they survive any replica, and pending
decisions are data, never closures. Every function is pure and deterministic; all
randomness comes from ``service.engine.rng.Rng`` over the state's seed.

- ``INFO``: a :class:`RulesetInfo` (id, seats, options, rules version, proto field, action limit,
  and the seat counts that need some option, :class:`SeatRange`).
- ``setup(options, seat_count, seed, rules_version=None) -> State``: the dealt game (chance resolved),
  from a seed of up to 256 bits, as the newest rules version deals it or as ``rules_version`` did (a
  stored game replayed; every version keeps its generator, ``service.engine.rng``). A seat count
  whose ``SeatRange`` requires options the game lacks raises ``MalformedAction`` (INVALID_ARGUMENT)
  with a reason of the game's own and a message naming the option.
- ``rules_version(state) -> str``: the rules version the game was dealt with (a stored game keeps
  the version it was dealt with while ``INFO.rules_version`` names the newest); the deal's commitment
  names it (``service.engine.commitment``).
- ``to_act(state) -> list[int]``: seats whose decision is awaited now (several while
  choices are simultaneous; empty once the game is over).
- ``legal_actions(state, seat) -> list[Action]``: every action ``seat`` may take;
  built from the same ``check_*`` predicates ``apply`` uses.
- ``apply(state, seat, action) -> list[Event]``: checks everything first and raises
  :class:`~service.engine.errors.RuleError` before any write, then mutates ``state``
  in place and returns what happened (unprojected). Turn order is the ruleset's to
  enforce (``EngineReason.NOT_YOUR_TURN``).
- ``is_over(state) -> bool``.
- Optional ``opening_events(state) -> list[Event]``: what ``setup`` did in the open (a first
  turn that starts by itself, a card shown), taken out of the state once. The service logs
  them with the game's creation; ``service.engine.replay.new_game`` is the one caller.
- ``view(state, seat | None) -> proto message``: the game's view message as ``seat``
  (or a spectator) may see it. The only way state leaves the ruleset.
- ``project(event, seat | None) -> Event | None``: the event as ``seat`` may see it,
  or ``None`` when it must not see it at all.
- Codec between the contract and the rules: ``decode_options(pb | None) -> dict``
  (defaults filled; raises ``MalformedAction`` with reason ``INVALID_OPTION``),
  ``encode_options(dict) -> pb``, ``decode_action(pb) -> Action`` (raises
  ``MalformedAction``), ``encode_action(Action) -> pb``, ``encode_event(Event) -> pb``.
- Optional ``concede(state, seat) -> list[Event]``: ``seat`` gives up now, whoever is to decide,
  as the game defines it (BANG!: eliminated with the usual reveal; Ticket to Ride: no more turns,
  score kept). Raises ``RuleError`` when it cannot (the game is over, the seat is out already).
  Afterwards ``to_act`` never names the seat again. ``service.engine.replay`` replays a conceding
  as the step ``(seat, None)``. A ruleset without one cannot be conceded (FAILED_PRECONDITION).
- Optional ``rematch(state, options) -> Options``: the options of the next game at the same table
  from a finished ``state`` (BANG!: survivors keep their characters, the Sheriff passes on);
  without one, a rematch has the same options.
- Optional ``standings(state) -> list[(seats, place)] | None``: once the game is over, its sides (a seat
  alone, or a team) with each side's place (1 is first; equal places tie), for ratings (docs/ratings.md);
  None while the game has no result. A ruleset without one is never rated.
- Optional ``encode_catalog() -> proto message``: the ruleset's static facts (a board, cards,
  characters, scoring tables) as its catalog message, the field named ``INFO.proto_field`` of
  ``GetRulesetResponse.catalog``. Built from the tables the rules themselves loaded, so the two
  cannot disagree; the same on every call until a release changes it (the service serves it with
  an etag hashed from it, ``service.api.rulesets``). A ruleset without one is served without a catalog.
  (Named as a codec function: ``catalog`` is already BANG!'s module of data rows.)
- Optional ``CATALOG_LANGUAGES: tuple[str, ...]`` with ``localize_catalog(catalog, language)``: the
  languages besides English the catalog's names and texts exist in (BANG!: "cs", the Czech editions'
  words), and the function that puts one of them into a copy of the English catalog (GetRuleset's
  ``language_code``). Without them the catalog is English only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from google.protobuf.message import Message

State = dict[str, Any]
Action = dict[str, Any]
Event = dict[str, Any]
Options = dict[str, Any]


@dataclass(frozen=True)
class OptionInfo:
    """One option of a ruleset, as listed by ListRulesets."""

    name: str
    description: str
    default: str
    allowed_values: tuple[str, ...] = ()


@dataclass(frozen=True)
class SeatRange:
    """Seat counts ``min_seats`` to ``max_seats`` and the option values a game with that many seats needs.

    ``requires`` holds (option name, value) pairs, named as in ``OptionInfo``: for an option that takes a
    list (BANG!'s ``expansions``) the list must contain the value, otherwise the option must equal it.
    Listed by ListRulesets so that a client never has to guess which seat counts need which options.
    """

    min_seats: int
    max_seats: int
    requires: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class RulesetInfo:
    """What a ruleset is: data, no behaviour."""

    id: str
    display_name: str
    min_seats: int
    max_seats: int
    rules_version: str
    proto_field: str
    # Accepted actions after which a game the rules have not ended ends as abandoned: every game is
    # bounded, so is its log (one entry per action, plus creation and joins). Choose it well above
    # the longest games played (tests/conformance measures random bots), never as a game rule.
    max_actions: int
    options: tuple[OptionInfo, ...] = ()
    # The seat counts from min_seats to max_seats, each in exactly one range, with the options each
    # needs; empty: every count needs nothing. ``setup`` refuses a count whose options are missing.
    seat_ranges: tuple[SeatRange, ...] = ()

    def ranges(self) -> tuple[SeatRange, ...]:
        """The seat ranges, one plain range from min_seats to max_seats when none are declared."""
        return self.seat_ranges or (SeatRange(self.min_seats, self.max_seats),)

    def plain_seat_counts(self) -> list[int]:
        """The seat counts a game accepts with every option at its default (no requirement)."""
        return [n for r in self.ranges() if not r.requires for n in range(r.min_seats, r.max_seats + 1)]


class Ruleset(Protocol):
    """The functions every game module provides (see the module docstring)."""

    INFO: RulesetInfo

    def setup(self, options: Options, seat_count: int, seed: int, rules_version: str | None = None) -> State: ...

    def rules_version(self, state: State) -> str: ...

    def to_act(self, state: State) -> list[int]: ...

    def legal_actions(self, state: State, seat: int) -> list[Action]: ...

    def apply(self, state: State, seat: int, action: Action) -> list[Event]: ...

    def is_over(self, state: State) -> bool: ...

    def view(self, state: State, seat: int | None) -> Message: ...

    def project(self, event: Event, seat: int | None) -> Event | None: ...

    def decode_options(self, options: Message | None) -> Options: ...

    def encode_options(self, options: Options) -> Message: ...

    def decode_action(self, action: Message) -> Action: ...

    def encode_action(self, action: Action) -> Message: ...

    def encode_event(self, event: Event) -> Message: ...
