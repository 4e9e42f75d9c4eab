"""Every refusal a player can meet, pinned: reason, message, details and field, and the state left unchanged.

A rejected action's reason, message and details are what a client shows its player, so they are part of
the contract. The catalog under ``error_catalog/`` was made by walking deterministic random games of each
ruleset and trying, at each step, wrong variants of the legal actions (another seat, another kind, each
field changed, dropped or added); for each distinct refusal (its reason and message, with numbers taken
out) it keeps the first two positions that produced it. This test replays those games and checks that
each stored action is still refused exactly so, and that the refusal changes nothing.

After a deliberate change to a message, regenerate the catalog and review its diff:

    .venv/bin/python tests/games/test_error_catalog.py --update
"""

from __future__ import annotations

import copy
import json
import random
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tabletop_server.service.engine import registry
from tabletop_server.service.engine.errors import MalformedAction, RuleError
from tabletop_server.service.engine.ruleset import Ruleset

CATALOG = Path(__file__).parent / "error_catalog"
RULESETS = [r.INFO.id for r in registry.all_rulesets()]
GAMES_PER_SEAT_COUNT = 3
MAX_STEPS = 400
KEEP = 2  # examples kept per distinct refusal
# The catalog's games are dealt as the rules versions before issue 33 dealt them (SplitMix64): the refusals
# do not depend on the generator, and these deals reach refusals (NOT_ENOUGH_TRAINS, a lethal hit
# answered without a Beer...) that the same seeds under SHAKE-256 do not.
DEALT_AS = {"ttr-europe": "ttr-europe/2005-official.1", "bang": "bang-base-1"}


def _walk(ruleset: Ruleset, seats: int, seed: int) -> Iterator[tuple[int, dict[str, Any]]]:
    """The positions of one deterministic random game, before each move (do not mutate them)."""
    rng = random.Random(seed)
    state = ruleset.setup(ruleset.decode_options(None), seats, seed, DEALT_AS[ruleset.INFO.id])  # type: ignore[call-arg]
    for step in range(MAX_STEPS):
        if ruleset.is_over(state):
            return
        yield step, state
        seat = rng.choice(ruleset.to_act(state))
        ruleset.apply(state, seat, rng.choice(ruleset.legal_actions(state, seat)))


def _refusal(ruleset: Ruleset, state: dict[str, Any], seat: int, action: Any) -> dict[str, Any] | None:
    """The error ``action`` meets (None if it is accepted); asserts a refusal changes nothing."""
    trial = copy.deepcopy(state)
    try:
        ruleset.apply(trial, seat, action)
    except RuleError as err:
        assert trial == state, f"refused {action!r} but changed the state"
        found = {"reason": err.reason, "message": err.message, "details": err.details}
        if isinstance(err, MalformedAction):
            found["field"] = err.field
        return found
    return None


def _kind_key(action: dict[str, Any]) -> str:
    return "kind" if "kind" in action else "type"


def _variants(action: Any, pools: dict[str, list[Any]], kinds: list[str]) -> Iterator[Any]:
    """Wrong versions of a legal action: each field changed, dropped or doubled, another kind."""
    if not isinstance(action, dict):
        return
    kind_key = _kind_key(action)
    for kind in kinds:
        if kind != action.get(kind_key):
            yield {**action, kind_key: kind}
    for key, value in action.items():
        if key == kind_key:
            continue
        yield {k: v for k, v in action.items() if k != key}
        others: list[Any] = [v for v in pools.get(key, []) if v != value]
        if isinstance(value, bool):
            others.append(not value)
        elif isinstance(value, int):
            others += [value - 1, value + 1, -1, 10_000]
        elif isinstance(value, list):
            others += [value[:-1], [*value, *value[-1:]], value[::-1]] if value else [[0]]
        elif value is None:
            others += [0, -1]
        else:
            others += [None, 7]
        for other in others:
            yield {**action, key: other}
    yield {**action, "extra": 1}


def _pools(ruleset: Ruleset, games: list[tuple[int, int]]) -> tuple[dict[str, list[Any]], list[tuple[str, str]]]:
    """The values each action field takes in these games (a few per field), and every action kind."""
    pools: dict[str, list[Any]] = {}
    kinds: list[tuple[str, str]] = []
    for seats, seed in games:
        for _, state in _walk(ruleset, seats, seed):
            for action in (a for s in ruleset.to_act(state) for a in ruleset.legal_actions(state, s)):
                key = _kind_key(action)
                if (key, action[key]) not in kinds:
                    kinds.append((key, action[key]))
                for field, value in action.items():
                    if field != key and value not in pools.setdefault(field, []) and len(pools[field]) < 12:
                        pools[field].append(value)
    return pools, kinds


def _signature(found: dict[str, Any]) -> str:
    return found["reason"] + ": " + re.sub(r"\d+", "#", found["message"]) + " " + ",".join(sorted(found["details"]))


def generate(ruleset_id: str, tries_per_step: int = 60) -> list[dict[str, Any]]:
    """The catalog of one ruleset (see the module docstring)."""
    ruleset = registry.get(ruleset_id)
    assert ruleset is not None
    info = ruleset.INFO
    kept: dict[str, int] = {}
    entries: list[dict[str, Any]] = []
    games = [(seats, 100 * seats + game) for seats in info.plain_seat_counts()
             for game in range(GAMES_PER_SEAT_COUNT)]
    pools, kinds = _pools(ruleset, games)
    probes = [{key: kind} for key, kind in kinds]
    probes += [{key: kind, field: value} for key, kind in kinds for field, values in pools.items()
               for value in values[:3]]
    for seats, seed in games:
        pick = random.Random(seed)
        for step, state in _walk(ruleset, seats, seed):
            deciders = ruleset.to_act(state)
            legal = [a for s in deciders for a in ruleset.legal_actions(state, s)]
            candidates = [v for a in legal for v in _variants(a, pools, [k for _, k in kinds])] + probes
            candidates += [(s, a) for s in range(seats) if s not in deciders for a in legal[:2]]
            for candidate in pick.sample(candidates, min(tries_per_step, len(candidates))):
                seat, action = candidate if isinstance(candidate, tuple) else (pick.choice(deciders), candidate)
                found = _refusal(ruleset, state, seat, action)
                if found is None or kept.get(_signature(found), 0) >= KEEP:
                    continue
                kept[_signature(found)] = kept.get(_signature(found), 0) + 1
                entries.append({"seats": seats, "seed": seed, "step": step, "seat": seat, "action": action,
                                "error": found})
    return entries


def _load(ruleset_id: str) -> list[dict[str, Any]]:
    return json.loads((CATALOG / f"{ruleset_id}.json").read_text())  # type: ignore[no-any-return]


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_every_catalogued_refusal_is_unchanged(ruleset_id: str) -> None:
    ruleset = registry.get(ruleset_id)
    assert ruleset is not None
    entries = _load(ruleset_id)
    assert len({_signature(e["error"]) for e in entries}) >= 20, "the catalog lost its breadth"
    games: dict[tuple[int, int], list[dict[str, Any]]] = {}
    for entry in entries:
        games.setdefault((entry["seats"], entry["seed"]), []).append(entry)
    for (seats, seed), wanted in games.items():
        by_step: dict[int, list[dict[str, Any]]] = {}
        for entry in wanted:
            by_step.setdefault(entry["step"], []).append(entry)
        last = max(by_step)
        for step, state in _walk(ruleset, seats, seed):
            for entry in by_step.get(step, []):
                found = _refusal(ruleset, state, entry["seat"], entry["action"])
                assert found == entry["error"], f"{seats} seats, seed {seed}, step {step}: {entry['action']!r}"
            if step == last:
                break
        else:
            raise AssertionError(f"{seats} seats, seed {seed}: the game ended before step {last}")


if __name__ == "__main__" and sys.argv[1:] == ["--update"]:
    CATALOG.mkdir(exist_ok=True)
    for rid in RULESETS:
        catalog = generate(rid)
        text = "[\n" + ",\n".join(json.dumps(e, sort_keys=True) for e in catalog) + "\n]\n"
        (CATALOG / f"{rid}.json").write_text(text)
        print(rid, len(catalog), "entries,", len({_signature(e["error"]) for e in catalog}), "refusals")
