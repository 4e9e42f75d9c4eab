"""The facts of BANG!: cards, characters and roles, loaded from ``data/*.json``.

Rows are copied from ``shared/reference/bang`` (DESIGN 6) and become frozen dataclasses
at import. ``validate`` checks them (duplicate keys, unknown handler names, the totals
of the base deck: 80 cards, 4 suits x 13 ranks in use, per-name counts) and every error
names the offending row.

Strict and expansion-aware (issue 10): every row belongs to an expansion (its
``expansion`` key, else the file's), ``cards*.json`` and ``characters*.json`` are all
read (an expansion may bring its own file), the totals are checked per expansion
(``EXPANSION_COUNTS``: rows of an expansion without totals are refused), unknown row
keys and unknown passive or trait names are refused, and ``deck_for`` /
``characters_for`` build the deck and the character pool of the chosen expansions.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tabletop_server.service.games.bang.counts import BASE_COUNTS, EXPANSION_COUNTS

DATA = Path(__file__).parent / "data"
SUITS = ("hearts", "diamonds", "clubs", "spades")
RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
RANK_VALUE = {rank: i + 2 for i, rank in enumerate(RANKS)}
EXPANSIONS = ("base", "dodge_city", "armed_and_dangerous")
COLORS = ("brown", "blue", "green", "orange")
CARD_KEYS = frozenset({"key", "name", "color", "effect", "target", "range", "weapon_range", "bang_card", "missed",
                       "passive", "args", "copies", "use", "cost", "response", "expansion", "ruling", "text",
                       "upgrade"})
COPY_KEYS = frozenset({"id", "suit", "rank"})
# A reprint row: more copies of a card type loaded earlier (its base row), under the row's expansion.
REPRINT_KEYS = frozenset({"key", "copies", "expansion"})
PART_KEYS = frozenset({"effect", "target", "range", "args", "missed", "cost", "when"})  # a ``use`` or ``response``
CHARACTER_KEYS = frozenset({"key", "name", "life", "ability", "text", "traits", "expansion", "ruling"})
# Passive effects of cards in play, and traits of characters, that some rule reads.
PASSIVES = frozenset({"distance_in", "distance_out", "barrel", "unlimited_bang"})
TRAITS = frozenset({"distance_in", "distance_out", "barrel", "unlimited_bang", "missed_needed", "draw_checks",
                    "bang_missed_swap", "any_card_missed", "silence_others", "hand_limit", "beer_heal",
                    "uses_per_turn", "draw_count", "starting_cubes"})
COSTS = frozenset({"discard", "cubes"})
# When a card in play is used (its ``use`` row's ``when``): in your phase 2 (the default), or
# only as part of something else (Armed & Dangerous: with a BANG! card, for an extra BANG!, on a draw!).
WHENS = ("own_turn", "bang_card", "extra_bang", "draw_check")
UPGRADE_KEYS = frozenset({"cubes", "repeat", "adds", "when"})
# When an upgrade is decided: as the card is played, as it answers, or once its shot is cancelled.
UPGRADE_WHENS = ("played", "answered", "cancelled")
TARGETS = ("none", "other", "any")
RANGES = ("any", "reach", "distance_1")


class DataError(ValueError):
    """A data row is wrong; the message names the file and the row."""


@dataclass(frozen=True)
class CardType:
    """One card name: its handler, targeting and passive effects while in play."""

    key: str
    name: str
    color: str
    effect: str
    target: str
    range: str
    weapon_range: int = 0
    bang_card: bool = False
    missed: bool = False
    passive: Mapping[str, Any] = field(default_factory=dict)
    args: Mapping[str, Any] = field(default_factory=dict)
    # What using the card from play does (green cards; the row's ``use``): a CardType of
    # its own (effect, target, range, args; ``missed``: it answers a BANG! as a Missed!).
    use: CardType | None = None
    expansion: str = "base"
    # Extra cost paid after committing to the card and target (the row's ``cost``):
    # ``{"discard": n}`` more cards from hand, asked as a follow-up request (``costs.py``).
    cost: Mapping[str, Any] = field(default_factory=dict)
    # What else happens when the card answers a request from the hand (the row's
    # ``response``; Dodge: a Missed! that also draws a card).
    response: CardType | None = None
    # What the card does, in words, for a player (the row's ``text``; GetRuleset's catalog).
    text: str = ""
    # When a ``use`` part is used (``WHENS``; Armed & Dangerous): the card's own phase 2 by default.
    when: str = "own_turn"
    # An Armed & Dangerous upgrade (the row's ``upgrade``): ``cubes`` per purchase, paid from any of
    # the player's cube holders; ``repeat`` (bought several times), ``adds`` ("target": one more
    # target per purchase), ``when`` it is decided (``UPGRADE_WHENS``, default "played").
    upgrade: Mapping[str, Any] = field(default_factory=dict)

    @property
    def equipment(self) -> bool:
        """Blue cards stay in play in front of a player."""
        return self.color != "brown"


@dataclass(frozen=True)
class Card:
    """One physical card: a stable id, its name and its sign."""

    id: str
    key: str
    suit: str
    rank: str
    expansion: str = "base"


@dataclass(frozen=True)
class Character:
    """One character: printed bullets, the ability handler and passive traits."""

    key: str
    name: str
    life: int
    ability: str
    text: str
    traits: Mapping[str, Any] = field(default_factory=dict)
    expansion: str = "base"


@dataclass(frozen=True)
class Role:
    """One role card."""

    key: str
    name: str
    goal: str
    revealed: bool


def load() -> tuple[dict[str, CardType], dict[str, Card], dict[str, Character], dict[str, Role],
                    dict[int, tuple[str, ...]], dict[int, str]]:
    """Read the three data files into tables keyed by id."""
    types: dict[str, CardType] = {}
    cards: dict[str, Card] = {}
    for name, row in _all_rows("cards", "cards"):
        if isinstance(row, dict) and set(row) <= REPRINT_KEYS:
            copies = reprint_row(row, name, types)
        else:
            key = _key(row, name, types)
            _check_keys(row, CARD_KEYS, f"{name}: card {key!r}")
            types[key], copies = card_row(row)
        for copy in copies:
            if copy.id in cards:
                raise DataError(f"{name}: card {copy.key!r}: duplicate copy id {copy.id!r}")
            cards[copy.id] = copy
    characters: dict[str, Character] = {}
    for name, row in _all_rows("characters", "characters"):
        key = _key(row, name, characters)
        _check_keys(row, CHARACTER_KEYS, f"{name}: character {key!r}")
        characters[key] = Character(key, row["name"], int(row["life"]), row["ability"], row.get("text", ""),
                                    dict(row.get("traits", {})), str(row["expansion"]))
    raw = json.loads((DATA / "roles.json").read_text(encoding="utf-8"))
    roles = {k: Role(k, v["name"], v["goal"], bool(v["revealed"])) for k, v in raw["roles"].items()}
    counts = {int(n): tuple(v["roles"]) for n, v in raw["player_counts"].items()}
    win_rules = {int(n): str(v["win_rule"]) for n, v in raw["player_counts"].items()}
    return types, cards, characters, roles, counts, win_rules


@dataclass(frozen=True)
class KillRule:
    """A reward or penalty when ``killer`` eliminates ``victim`` (roles; ``any`` matches every role)."""

    victim: str
    killer: str
    then: str  # "draw" (``count`` cards) or "discard_all" (the killer's hand and cards in play)
    count: int = 0


KILL_EFFECTS = ("draw", "discard_all")


@dataclass(frozen=True)
class Mode:
    """A game mode (the win rule's name in ``roles.json``): who starts, whether roles are dealt face
    up, and, for the 3-player game, each role's target and goal text (Dodge City, DC-044..046)."""

    key: str
    first: str  # the role that takes the first turn
    face_up: bool = False
    targets: Mapping[str, str] = field(default_factory=dict)  # role -> the role it must kill
    goals: Mapping[str, str] = field(default_factory=dict)  # role -> goal text shown instead of the role's


def load_modes() -> tuple[dict[str, Mode], dict[int, tuple[str, ...]]]:
    """The game modes, and the expansions each player count requires (3 and 8 players: Dodge City)."""
    raw = json.loads((DATA / "roles.json").read_text(encoding="utf-8"))
    modes = {k: Mode(k, str(v["first"]), bool(v.get("face_up", False)), dict(v.get("targets", {})),
                     dict(v.get("goals", {})))
             for k, v in raw.get("modes", {}).items()}
    requires = {int(n): tuple(v.get("requires", ())) for n, v in raw["player_counts"].items()}
    return modes, requires


def validate_modes(modes: Mapping[str, Mode], counts: Mapping[int, tuple[str, ...]], win_rules: Mapping[int, str],
                   requires: Mapping[int, tuple[str, ...]]) -> None:
    """Every player count has a mode whose first role is dealt exactly once and whose targets are roles
    of its pool; required expansions are known."""
    for n, pool in counts.items():
        mode = modes.get(win_rules[n])
        if mode is None:
            raise DataError(f"roles.json: player count {n}: win rule {win_rules[n]!r} has no mode")
        if pool.count(mode.first) != 1 or set(mode.targets.items()) - {(a, b) for a in pool for b in pool}:
            raise DataError(f"roles.json: player count {n}: bad role pool {pool} for mode {mode.key!r} (its first "
                            "role once, its targets in the pool)")
        if set(requires.get(n, ())) - set(EXPANSIONS[1:]):
            raise DataError(f"roles.json: player count {n}: unknown required expansion(s) {requires[n]}")


def load_kill_rules() -> dict[str, tuple[KillRule, ...]]:
    """Rewards and penalties per game mode (the win rule's name), from ``roles.json``."""
    raw = json.loads((DATA / "roles.json").read_text(encoding="utf-8"))
    out: dict[str, tuple[KillRule, ...]] = {}
    for mode, rows in raw.get("kill_rules", {}).items():
        rules = []
        for row in rows:
            rule = KillRule(str(row["victim"]), str(row["killer"]), str(row["then"]), int(row.get("count", 0)))
            if rule.then not in KILL_EFFECTS or {rule.victim, rule.killer} - set(raw["roles"]) - {"any"}:
                raise DataError(f"roles.json: kill rule of {mode!r}: bad row {row!r}")
            rules.append(rule)
        out[mode] = tuple(rules)
    return out


def card_row(row: Mapping[str, Any]) -> tuple[CardType, list[Card]]:
    """One card row: its type and its physical copies."""
    key = str(row["key"])
    where = f"cards.json: card {key!r}"
    for c in row["copies"]:
        _check_keys(c, COPY_KEYS, f"{where}: copy {c.get('id')!r}")
    for part in ("use", "response"):
        if row.get(part) is not None:
            _check_keys(row[part], PART_KEYS, f"{where}: {part}")
    expansion = str(row.get("expansion", "base"))
    ctype = CardType(
        key=key, name=row["name"], color=row["color"], effect=row["effect"],
        target=row.get("target", "none"), range=row.get("range", "any"),
        weapon_range=int(row.get("weapon_range", 0)), bang_card=bool(row.get("bang_card")),
        missed=bool(row.get("missed")), passive=dict(row.get("passive", {})), args=dict(row.get("args", {})),
        use=_use_type(key, row), cost=dict(row.get("cost", {})), response=_use_type(key, row, "response"),
        expansion=expansion, text=str(row.get("text", "")), upgrade=dict(row.get("upgrade", {})))
    return ctype, [Card(c["id"], key, c["suit"], c["rank"], expansion) for c in row["copies"]]


def reprint_row(row: Mapping[str, Any], name: str, types: Mapping[str, CardType]) -> list[Card]:
    """A row with only ``key`` and ``copies``: copies of an earlier row's card type (DC-002).

    The copies belong to the row's expansion (they join the deck only when it is chosen)
    and act exactly as the card they reprint: one ``CardType``, so no rule can tell them apart.
    """
    key = row.get("key")
    if not isinstance(key, str) or key not in types:
        raise DataError(f"{name}: reprint row {key!r} names no card loaded before it")
    expansion = str(row.get("expansion", "base"))
    if expansion == types[key].expansion:
        raise DataError(f"{name}: reprint row {key!r}: give more copies in the card's own row")
    for c in row["copies"]:
        _check_keys(c, COPY_KEYS, f"{name}: card {key!r}: copy {c.get('id')!r}")
    return [Card(c["id"], key, c["suit"], c["rank"], expansion) for c in row["copies"]]


def validate(types: Mapping[str, CardType], cards: Mapping[str, Card], characters: Mapping[str, Character],
             roles: Mapping[str, Role], counts: Mapping[int, tuple[str, ...]],
             effects: Iterable[str], abilities: Iterable[str],
             win_rules: Mapping[int, str] | None = None, win_rule_names: Iterable[str] = ()) -> None:
    """Raise :class:`DataError` naming the first bad row."""
    effect_names, ability_names = set(effects), set(abilities)
    for n, rule in (win_rules or {}).items():
        if rule not in set(win_rule_names):
            raise DataError(f"roles.json: player count {n}: unknown win rule {rule!r}")
    for t in types.values():
        where = f"cards.json: card {t.key!r}"
        if t.effect not in effect_names:
            raise DataError(f"{where}: unknown effect handler {t.effect!r}")
        if t.color not in COLORS or t.target not in TARGETS or t.range not in RANGES:
            raise DataError(f"{where}: bad color/target/range {t.color!r}/{t.target!r}/{t.range!r}")
        _check_card_parts(t, where, effect_names)
    for c in cards.values():
        if c.suit not in SUITS or c.rank not in RANKS:
            raise DataError(f"cards.json: copy {c.id!r}: bad sign {c.rank}{c.suit}")
    _check_totals(cards)
    base = [c for c in cards.values() if c.expansion == "base"]
    if {c.suit for c in base} != set(SUITS) or {c.rank for c in base} != set(RANKS):
        raise DataError("cards.json: the deck does not use every suit and rank")
    for ch in characters.values():
        if ch.ability not in ability_names:
            raise DataError(f"characters.json: character {ch.key!r}: unknown ability handler {ch.ability!r}")
        if not 1 <= ch.life <= 5:
            raise DataError(f"characters.json: character {ch.key!r}: life {ch.life} out of 1..5")
        unknown = set(ch.traits) - TRAITS
        if unknown or ch.expansion not in EXPANSIONS:
            raise DataError(f"characters.json: character {ch.key!r}: unknown trait(s) {sorted(unknown)} "
                            f"or expansion {ch.expansion!r}")
    for n, pool in counts.items():
        # A pool has at most one Sheriff (none in the 3-player game); the mode's first role is checked
        # in ``validate_modes``.
        if len(pool) != n or pool.count("sheriff") > 1 or any(r not in roles for r in pool):
            raise DataError(f"roles.json: player count {n}: bad role pool {pool}")


def deck_for(cards: Mapping[str, Card], expansions: Iterable[str]) -> tuple[str, ...]:
    """The card ids of the base deck and the chosen expansions, in the rows' order (setup shuffles them)."""
    chosen = {"base", *expansions}
    return tuple(cid for cid, c in cards.items() if c.expansion in chosen)


def characters_for(characters: Mapping[str, Character], expansions: Iterable[str]) -> tuple[str, ...]:
    """The character pool of the base game and the chosen expansions, in the rows' order."""
    chosen = {"base", *expansions}
    return tuple(k for k, ch in characters.items() if ch.expansion in chosen)


# Helpers

def _all_rows(stem: str, section: str) -> list[tuple[str, dict[str, Any]]]:
    """Rows of ``<stem>.json`` and then of every ``<stem>_*.json`` (an expansion's own file), each
    with its ``expansion`` filled in from the file's when the row has none."""
    out = []
    for path in [DATA / f"{stem}.json", *sorted(DATA.glob(f"{stem}_*.json"))]:
        raw = json.loads(path.read_text(encoding="utf-8"))
        default = raw.get("expansion", "base")
        for row in _rows(path.name, section):
            if not isinstance(row, dict):
                raise DataError(f"{path.name}: a row of {section!r} is not a JSON object: {row!r}")
            out.append((path.name, {**row, "expansion": row.get("expansion", default)}))
    return out


def _check_keys(row: Mapping[str, Any], allowed: frozenset[str], where: str) -> None:
    unknown = set(row) - allowed
    if unknown:
        raise DataError(f"{where}: unknown key(s) {sorted(unknown)}")


def _check_card_parts(t: CardType, where: str, effect_names: set[str]) -> None:
    unknown = set(t.passive) - PASSIVES
    if unknown:
        raise DataError(f"{where}: unknown passive(s) {sorted(unknown)}")
    if t.expansion not in EXPANSIONS:
        raise DataError(f"{where}: unknown expansion {t.expansion!r}")
    for part, spec in (("use", t.use), ("response", t.response)):
        if spec is None:
            continue
        if spec.effect not in effect_names or spec.target not in TARGETS or spec.range not in RANGES:
            raise DataError(f"{where}: {part}: bad effect/target/range {spec.effect!r}/{spec.target!r}/{spec.range!r}")
    for cost in (t.cost, *(s.cost for s in (t.use,) if s is not None)):
        if set(cost) - COSTS:
            raise DataError(f"{where}: unknown cost(s) {sorted(set(cost) - COSTS)}")
    if t.use is not None and t.use.when not in WHENS:
        raise DataError(f"{where}: use: unknown when {t.use.when!r}")
    if set(t.upgrade) - UPGRADE_KEYS or t.upgrade.get("when", "played") not in UPGRADE_WHENS:
        raise DataError(f"{where}: bad upgrade {dict(t.upgrade)!r}")
    if t.color == "orange" and t.effect != "dangerous":
        raise DataError(f"{where}: an orange card is put in play by the 'dangerous' handler")


def _check_totals(cards: Mapping[str, Card]) -> None:
    by_expansion: dict[str, Counter[str]] = {}
    for c in cards.values():
        by_expansion.setdefault(c.expansion, Counter())[c.key] += 1
    base = by_expansion.get("base", Counter())
    if dict(base) != BASE_COUNTS or sum(base.values()) != 80:
        raise DataError(f"cards.json: base deck totals differ: {dict(base)} ({sum(base.values())} cards, want 80)")
    for expansion, got in by_expansion.items():
        want = EXPANSION_COUNTS.get(expansion)
        if want is None:
            raise DataError(f"cards.json: expansion {expansion!r} has no printed totals to check its rows against")
        if dict(got) != want:
            raise DataError(f"cards.json: {expansion} totals differ: {dict(got)}, want {want}")


def _use_type(key: str, row: Mapping[str, Any], part: str = "use") -> CardType | None:
    use = row.get(part)
    if use is None:
        return None
    return CardType(key=key, name=row["name"], color="brown", effect=use["effect"],
                    target=use.get("target", "none"), range=use.get("range", "any"),
                    missed=bool(use.get("missed")), args=dict(use.get("args", {})), cost=dict(use.get("cost", {})),
                    when=str(use.get("when", "own_turn")))


def _rows(name: str, section: str) -> list[dict[str, Any]]:
    raw = json.loads((DATA / name).read_text(encoding="utf-8"))
    rows = raw[section]
    if not isinstance(rows, list):
        raise DataError(f"{name}: {section!r} must be a list")
    return rows


def _key(row: Mapping[str, Any], name: str, seen: Mapping[str, object]) -> str:
    key = row.get("key")
    if not isinstance(key, str) or not key:
        raise DataError(f"{name}: row without a key: {dict(row)!r}")
    if key in seen:
        raise DataError(f"{name}: duplicate key {key!r}")
    return key
