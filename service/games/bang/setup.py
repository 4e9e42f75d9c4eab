"""Setting a game up (BANG-004, 005, 008..010, 013; RULINGS BANG-010; DC-041, 044, 046).

Roles are dealt from the pool for the player count, characters from the pool of the
game's expansions, both by the seeded generator. Life is the character's bullets, +1
for the Sheriff. The starting hand is the printed bullets (the seeds; the Sheriff's
extra bullet is life only), one more for the Sheriff with the ``sheriff_extra_card``
house rule. The game mode's first role takes the first turn: the Sheriff, or the Deputy
in the 3-player game. 3 and 8 players exist only with Dodge City (``roles.json``
``requires``); without it they are refused with SEAT_COUNT_NEEDS_EXPANSION.

The Dodge City house rules (``HOUSE_RULES``) are stored in ``opts`` under their own keys
in every Dodge City game; the character handlers read them there.

A rematch (BANG-032, BANG-033) is a new game whose options carry over what the rules
let carry over: ``kept_characters`` (survivors keep their characters, never their
cards), ``retired_characters`` (not dealt, so the eliminated draw a new one) and
``sheriff_seat`` (the role passes to the left; the others are dealt at random). The
rematch keys are stored only when set, so a game without them deals exactly as before.
"""

from __future__ import annotations

from typing import Any

from tabletop_server.service.engine.errors import EngineReason, MalformedAction
from tabletop_server.service.engine.rng import Rng, seed_state, shake_state
from tabletop_server.service.engine.ruleset import Options
from tabletop_server.service.games.bang import versions
from tabletop_server.service.games.bang.actions import advance
from tabletop_server.service.games.bang.cubes import SUPPLY
from tabletop_server.service.games.bang.layout import Event, State
from tabletop_server.service.games.bang.reasons import Reason
from tabletop_server.service.games.bang.state import game_rng
from tabletop_server.service.games.bang.tables import (
    CHARACTERS,
    REQUIRES,
    ROLE_POOLS,
    deck_and_characters,
    mode_of,
)
from tabletop_server.service.games.bang.turn import start_turn

DEFAULT_OPTIONS: dict[str, Any] = {"expansions": [], "sheriff_extra_card": False}
# House rules of Dodge City characters (RULINGS, Dodge City table), boolean, off by default. They
# are stored (all three) in every Dodge City game and in no other: without the expansion they are
# refused when on, so a base game's options and state stay as they were.
HOUSE_RULES: dict[str, str] = {"jose_delgado_in_play": "dodge_city", "pixie_pete_draws_four": "dodge_city",
                               "sean_mallory_unlimited": "dodge_city"}
# Rematch options, absent unless set (stored games and their replays stay unchanged).
REMATCH_OPTIONS = ("kept_characters", "retired_characters", "sheriff_seat")
# Expansions offered to clients; one not listed is refused with EXPANSION_NOT_AVAILABLE.
BUILT_EXPANSIONS: frozenset[str] = frozenset({"dodge_city", "armed_and_dangerous"})


def normalize_options(options: Options | None) -> dict[str, Any]:
    """Defaults filled in; an expansion that is not built yet, or a bad rematch option, is refused."""
    opts = {**DEFAULT_OPTIONS, **(options or {})}
    unknown = set(opts) - set(DEFAULT_OPTIONS) - set(REMATCH_OPTIONS) - set(HOUSE_RULES)
    if unknown:
        raise MalformedAction(EngineReason.INVALID_OPTION, f"Unknown options {sorted(unknown)}",
                              field="options.bang")
    missing = [e for e in opts["expansions"] if e not in BUILT_EXPANSIONS]
    if missing:
        raise MalformedAction(Reason.EXPANSION_NOT_AVAILABLE,
                              f"Expansion(s) {', '.join(missing)} not available yet; play the base game",
                              field="options.bang.expansions")
    out = {"expansions": list(opts["expansions"]), "sheriff_extra_card": bool(opts["sheriff_extra_card"])}
    out.update(_house_rules(opts))
    out.update(_rematch_options(opts))
    return out


def setup(options: Options, seat_count: int, seed: int, rules_version: str | None = None) -> State:
    """Deal roles, characters, life and hands; the Sheriff's turn is started. ``rules_version``: deal as
    that version did (a stored game replayed from its seed); the newest for the options by default."""
    opts = normalize_options(options)
    if seat_count not in ROLE_POOLS:
        raise MalformedAction(EngineReason.INVALID_SEAT_COUNT, f"BANG! takes {min(ROLE_POOLS)} to "
                              f"{max(ROLE_POOLS)} players", field="seats")
    _check_expansions_for(opts, seat_count)
    _check_seats(opts, seat_count)
    deck, _ = deck_and_characters(opts["expansions"])
    version = _version(opts, rules_version)
    rng_state = seed_state(seed) if version in versions.SPLITMIX_RULES_VERSIONS else shake_state(seed)
    state: State = {"v": version, "opts": opts, "rng": rng_state, "deck": list(deck),
                    "discard": [], "p": [], "turn": 0, "phase": "draw", "turn_no": 0, "bangs": 0,
                    "pending": [], "winners": []}
    rng = game_rng(state)
    roles = deal_roles(rng, seat_count, opts.get("sheriff_seat"))
    chars = deal_characters(rng, seat_count, opts)
    rng.shuffle(state["deck"])
    for seat in range(seat_count):
        ch = CHARACTERS[chars[seat]]
        sheriff = roles[seat] == "sheriff"
        life = ch.life + (1 if sheriff else 0)
        cards = ch.life + (1 if sheriff and opts["sheriff_extra_card"] else 0)
        hand = [state["deck"].pop() for _ in range(cards)]
        state["p"].append({"role": roles[seat], "char": ch.key, "life": life, "max": life,
                           "hand": hand, "table": [], "alive": True})
    state["turn"] = roles.index(mode_of(seat_count).first)  # the Sheriff; the Deputy with 3 players (DC-046)
    if "armed_and_dangerous" in opts["expansions"]:
        deal_cubes(state)
    return state


def deal_cubes(state: State) -> None:
    """Armed & Dangerous: the shared supply of 32 cubes; a character with ``starting_cubes`` (Red Ringo:
    4, AD-040) starts with them on his character card, from the supply."""
    state["supply"] = SUPPLY
    for p in state["p"]:
        start = int(CHARACTERS[p["char"]].traits.get("starting_cubes", 0))
        if start:
            p["cubes"] = start
            state["supply"] -= start


def deal_roles(rng: Rng, seat_count: int, sheriff_seat: int | None) -> list[str]:
    """Roles by seat: all shuffled, or the Sheriff fixed and the others shuffled (BANG-033)."""
    roles = list(ROLE_POOLS[seat_count])
    if sheriff_seat is None:
        rng.shuffle(roles)
        return roles
    roles.remove("sheriff")
    rng.shuffle(roles)
    roles.insert(sheriff_seat, "sheriff")
    return roles


def deal_characters(rng: Rng, seat_count: int, opts: dict[str, Any]) -> list[str]:
    """Characters by seat: kept ones stay, the other seats draw from the characters not in use (BANG-032)."""
    kept = {k["seat"]: k["character"] for k in opts.get("kept_characters", [])}
    taken = set(kept.values()) | set(opts.get("retired_characters", []))
    # Without rematch options this is the plain shuffle of all characters, dealt in seat order.
    free = [c for c in deck_and_characters(opts["expansions"])[1] if c not in taken]
    rng.shuffle(free)
    drawn = iter(free)
    return [kept[seat] if seat in kept else next(drawn) for seat in range(seat_count)]


def start(state: State) -> list[Event]:
    """Start the Sheriff's first turn (run by the package's ``setup``); returns its events."""
    events: list[Event] = []
    start_turn(state, state["turn"], events)
    advance(state, events)
    return events


# Helpers

def _rematch_options(opts: dict[str, Any]) -> dict[str, Any]:
    """The rematch keys that are set, checked for everything but seat ranges (``_check_seats``)."""
    out: dict[str, Any] = {}
    kept: list[dict[str, Any]] = [{"seat": int(k["seat"]), "character": str(k["character"])}
                                  for k in opts.get("kept_characters") or []]
    retired = [str(c) for c in opts.get("retired_characters") or []]
    seats: set[int] = set()
    used: set[str] = set()
    for i, k in enumerate(kept):
        field = f"options.bang.kept_characters[{i}]"
        seat: int = k["seat"]
        if seat < 0 or seat in seats:
            raise MalformedAction(EngineReason.INVALID_OPTION, f"Seat {seat} is negative or kept twice",
                                  field=f"{field}.seat")
        _check_character(k["character"], used, f"{field}.character")
        seats.add(seat)
    for i, c in enumerate(retired):
        _check_character(c, used, f"options.bang.retired_characters[{i}]")
    if kept:
        out["kept_characters"] = sorted(kept, key=lambda k: int(k["seat"]))  # one stored form per table
    if retired:
        out["retired_characters"] = retired
    if opts.get("sheriff_seat") is not None:
        if int(opts["sheriff_seat"]) < 0:
            raise MalformedAction(EngineReason.INVALID_OPTION, "The Sheriff's seat cannot be negative",
                                  field="options.bang.sheriff_seat")
        out["sheriff_seat"] = int(opts["sheriff_seat"])
    return out


def _house_rules(opts: dict[str, Any]) -> dict[str, bool]:
    """The house rules, all three stored in a game with their expansion; one that is on without it is refused."""
    out: dict[str, bool] = {}
    for key, expansion in HOUSE_RULES.items():
        on = bool(opts.get(key, False))
        if expansion in opts["expansions"]:
            out[key] = on
        elif on:
            raise MalformedAction(Reason.OPTION_NEEDS_EXPANSION, f"The house rule {key} changes a "
                                  f"{_EXPANSION_TITLE[expansion]} character: add {expansion_option(expansion)} to "
                                  "options.bang.expansions, or leave the rule off", field=f"options.bang.{key}",
                                  expansion=expansion_option(expansion))
    return out


def expansion_option(expansion: str) -> str:
    """The BangExpansion value name of an expansion key (``dodge_city`` -> ``BANG_EXPANSION_DODGE_CITY``)."""
    return f"BANG_EXPANSION_{expansion.upper()}"


def _check_expansions_for(opts: dict[str, Any], seat_count: int) -> None:
    """3 and 8 players exist only with Dodge City (its 3-player rules and its 8 role cards, DC-041, DC-044)."""
    missing = [e for e in REQUIRES.get(seat_count, ()) if e not in opts["expansions"]]
    if missing:
        names = " and ".join(expansion_option(e) for e in missing)
        raise MalformedAction(Reason.SEAT_COUNT_NEEDS_EXPANSION, f"A {seat_count}-player game of BANG! needs "
                              f"{' and '.join(_EXPANSION_TITLE[e] for e in missing)}: add {names} to "
                              f"options.bang.expansions, or seat {_plain_range()} players", field="seat_count",
                              expansion=names)
    if opts.get("sheriff_seat") is not None and "sheriff" not in ROLE_POOLS[seat_count]:
        raise MalformedAction(EngineReason.INVALID_OPTION, f"A {seat_count}-player game has no Sheriff: leave "
                              "sheriff_seat unset", field="options.bang.sheriff_seat")


def _plain_range() -> str:
    plain = [n for n in ROLE_POOLS if not REQUIRES.get(n)]
    return f"{min(plain)} to {max(plain)}"


_EXPANSION_TITLE = {"dodge_city": "Dodge City", "armed_and_dangerous": "Armed & Dangerous"}


def _check_character(key: str, used: set[str], field: str) -> None:
    if key not in CHARACTERS:
        raise MalformedAction(EngineReason.INVALID_OPTION, f"Unknown character {key!r}; use a key such as "
                              "'bart_cassidy'", field=field)
    if key in used:
        raise MalformedAction(EngineReason.INVALID_OPTION, f"Character {key!r} is kept or retired twice",
                              field=field)
    used.add(key)


def _check_seats(opts: dict[str, Any], seat_count: int) -> None:
    """Seat ranges, known only here; enough characters must be left for the seats that draw."""
    for i, k in enumerate(opts.get("kept_characters", [])):
        if k["seat"] >= seat_count:
            raise MalformedAction(EngineReason.INVALID_OPTION, f"Seat {k['seat']} is not in a {seat_count}-player "
                                  "game", field=f"options.bang.kept_characters[{i}].seat")
    if opts.get("sheriff_seat", 0) >= seat_count:
        raise MalformedAction(EngineReason.INVALID_OPTION, f"Seat {opts['sheriff_seat']} is not in a "
                              f"{seat_count}-player game", field="options.bang.sheriff_seat")
    drawing = seat_count - len(opts.get("kept_characters", []))
    pool = deck_and_characters(opts["expansions"])[1]
    free = len(pool) - len(opts.get("kept_characters", [])) - len(opts.get("retired_characters", []))
    if free < drawing:
        raise MalformedAction(EngineReason.INVALID_OPTION, f"{drawing} seats draw a character but only {free} are "
                              "neither kept nor retired", field="options.bang.retired_characters")


def _version(opts: dict[str, Any], asked: str | None) -> str:
    """The rules version to deal: the newest for the options, or ``asked`` when this code plays it."""
    armed = "armed_and_dangerous" in opts["expansions"]
    if asked is None:
        return versions.ARMED_RULES_VERSION if armed else versions.RULES_VERSION
    if asked not in versions.SUPPORTED_RULES_VERSIONS or asked.startswith("bang-ad-") != armed:
        raise MalformedAction(EngineReason.INVALID_OPTION, f"Rules version {asked!r} does not deal these options; "
                              f"this code deals {', '.join(sorted(versions.SUPPORTED_RULES_VERSIONS))}",
                              field="rules_version")
    return asked
