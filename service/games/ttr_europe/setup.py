"""Setting a game up: the dealt state before the first turn (TTR_NOTES section 5, setup).

The whole state is plain JSON; its keys are documented here once:

- ``v`` state schema version (1: SplitMix64 generator, 2: SHAKE-256; see ``RULES_VERSIONS``); ``n`` seats; ``opts`` the decoded options; ``rng`` the generator.
- ``phase``: ``tickets`` (initial ticket choice, simultaneous), ``play``, ``last`` (final
  round), ``over``.
- ``turn`` the seat whose turn it is (the first player during ``tickets``); ``first``.
- ``drawn``: train cards taken so far this turn (0 or 1).
- ``deck`` (top = last element), ``discard``, ``face_up`` (5 slots, -1 empty): card codes.
- ``hands``: per seat, 9 counts by card code. ``tickets``: per seat, kept ticket ids.
  ``offered``: per seat, ticket ids awaiting a keep decision.
- ``ticket_pile`` (top = first element), ``box``: tickets out of the game.
- ``trains``, ``stations`` (left), ``score`` (route points during play): per seat.
- ``owner``: per route (index ``id - 1``), the owning seat or -1. ``station_at``: city -> seat.
- ``tunnel``: the pending tunnel decision or None. ``last``: ``{"trigger", "left"}`` or None.
- ``passes``: turns passed in a row (every seat passing in a row ends a deadlocked game).
- ``result``: final scoring once ``over``, else None.
- optional ``conceded``: the seats that conceded, in order (``concede.py``).

The types are ``layout.GameState``; ``tests/games/ttr_europe/test_ttr_layout.py`` keeps this list equal to them.
"""

from __future__ import annotations

from typing import Any

from tabletop_server.service.engine.errors import EngineReason, MalformedAction, RuleError
from tabletop_server.service.engine.rng import seed_state, shake_state
from tabletop_server.service.games.ttr_europe.board import LONG_TICKETS, REGULAR_TICKETS, ROUTE_IDS, RULES
from tabletop_server.service.games.ttr_europe.cards import EMPTY, game_rng, new_deck, refill_face_up
from tabletop_server.service.games.ttr_europe.layout import State
from tabletop_server.service.games.ttr_europe.reasons import TtrReason

STATE_VERSION = 2
# The rules version of each state version. Version 2 (issue 33) deals from the SHAKE-256 generator
# keyed by a 256-bit seed; games stored at version 1 keep SplitMix64 and replay exactly as dealt.
RULES_VERSIONS = {1: "ttr-europe/2005-official.1", 2: "ttr-europe/2005-official.2"}
RULES_VERSION = RULES_VERSIONS[STATE_VERSION]


def setup(options: dict[str, Any], seat_count: int, seed: int, rules_version: str | None = None) -> State:
    """Deal a new game: shuffled deck, hands, face-up row, starting tickets, first player.

    ``rules_version``: deal as that version did (a stored game replayed from its seed); the newest by default.
    """
    version = _state_version(rules_version)
    if not RULES.min_players <= seat_count <= RULES.max_players:
        raise MalformedAction(EngineReason.INVALID_SEAT_COUNT,
                              f"Ticket to Ride: Europe needs {RULES.min_players} to {RULES.max_players} "
                              "players", field="seats", seats=seat_count)
    state: State = {
        "v": version, "n": seat_count,
        "opts": {"tunnel_failure_discards": bool(options.get("tunnel_failure_discards", False))},
        "rng": seed_state(seed) if version == 1 else shake_state(seed), "phase": "tickets", "turn": 0, "first": 0, "drawn": 0,
        "deck": new_deck(), "discard": [], "face_up": [EMPTY] * RULES.face_up,
        "hands": [[0] * 9 for _ in range(seat_count)],
        "tickets": [[] for _ in range(seat_count)], "offered": [[] for _ in range(seat_count)],
        "ticket_pile": [], "box": [],
        "trains": [RULES.trains] * seat_count, "stations": [RULES.stations] * seat_count,
        "score": [0] * seat_count, "owner": [-1] * len(ROUTE_IDS), "station_at": {},
        "tunnel": None, "last": None, "passes": 0, "result": None,
    }
    rng = game_rng(state)
    rng.shuffle(state["deck"])
    deal(state)
    longs, regulars = list(LONG_TICKETS), list(REGULAR_TICKETS)
    rng.shuffle(longs)
    rng.shuffle(regulars)
    for seat in range(seat_count):
        state["offered"][seat] = [longs.pop() for _ in range(RULES.setup_long)] + [
            regulars.pop() for _ in range(RULES.setup_regular)]
    # The long tickets nobody was dealt go back to the box, out of the game (TTR-007).
    state["box"] = longs
    state["ticket_pile"] = regulars
    # The rules pick the most-travelled player; an engine may pick at random (TTR-011).
    state["first"] = state["turn"] = rng.below(seat_count)
    return state


def deal(state: State) -> None:
    """Deal the starting hands from the top of the deck, then turn up the face-up row.

    Split out so tests can stack the deck of a fresh state and deal again.
    """
    deck: list[int] = state["deck"]
    for _ in range(RULES.initial_hand):
        for hand in state["hands"]:
            hand[deck.pop()] += 1
    refill_face_up(state, [])


def rules_version(state: State) -> str:
    """The rules version a game was dealt with (its commitment names it, docs/fair-play.md)."""
    return RULES_VERSIONS[int(state["v"])]


def check_rules_version(state: State) -> None:
    """Refuse a game dealt by rules this code does not play (a newer release's game, mid rolling upgrade).

    A replica must never apply rules a game was not created with: it answers FAILED_PRECONDITION, and the
    client retries on a replica of the release that plays it (as BANG! does, ``bang.actions``)."""
    version = state.get("v")
    if version not in RULES_VERSIONS:
        raise RuleError(TtrReason.RULES_VERSION_UNSUPPORTED,
                        f"This game follows rules version {version!r}; this server plays "
                        f"{', '.join(RULES_VERSIONS.values())}. Retry later (a replica of the release that plays "
                        "it), or create a new game", rules_version=str(version))


# Helpers

def _state_version(rules_version: str | None) -> int:
    if rules_version is None:
        return STATE_VERSION
    found = [v for v, name in RULES_VERSIONS.items() if name == rules_version]
    if not found:
        raise MalformedAction(EngineReason.INVALID_OPTION, f"Unknown rules version {rules_version!r}; this code "
                              f"deals {', '.join(RULES_VERSIONS.values())}", field="rules_version")
    return found[0]
