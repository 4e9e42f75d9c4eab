"""Golden playthroughs: whole random-bot games written out action by action, event by event.

A playthrough is the ruleset's exact behaviour for one seed: the actions a seeded bot
chose and every (unprojected) event they caused; below each event, the message seat 0 and a
spectator receive for it (projected, then encoded: ``0>`` and ``*>``, nothing when hidden), and
every 50 actions and at the end the views of seat 0 and a spectator, as clients get them. ``tests/conformance/test_playthroughs.py``
replays each one and fails on any difference, so a rule change shows up as a readable
diff. When a change is intended, regenerate and review the diff:

    .venv/bin/python scripts/gen_playthroughs.py
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from google.protobuf import text_format
from google.protobuf.message import Message

from tabletop_server.service.engine import registry
from tabletop_server.service.engine.replay import new_game

OUT = ROOT / "tests" / "playthroughs"
GAMES = {"ttr-europe": [(2, 101), (4, 202)], "bang": [(4, 303), (7, 404)]}
# Games of the rules versions before issue 33 (SplitMix64), written by that release: stored games of those
# versions must replay exactly as they were dealt (their files are never regenerated).
LEGACY = {"ttr-europe": [(2, 101, "ttr-europe/2005-official.1")], "bang": [(4, 303, "bang-base-1"), (7, 404, "bang-base-1")]}


def render(ruleset_id: str, seats: int, seed: int, rules_version: str | None = None) -> str:
    """The playthrough's text (``rules_version``: dealt as that version; the newest by default)."""
    ruleset = registry.get(ruleset_id)
    assert ruleset is not None
    options = ruleset.decode_options(None)
    state, opening = new_game(ruleset, options, seats, seed, rules_version)
    bot = random.Random(seed)
    lines = [f"# {ruleset_id} ({rules_version or ruleset.INFO.rules_version}), {seats} seats, seed {seed}, default options",
             "0 setup", *(f"    {_json(event)}" for event in opening)]
    step = 0
    while not ruleset.is_over(state) and step < 5000:
        seat = bot.choice(ruleset.to_act(state))
        action = bot.choice(ruleset.legal_actions(state, seat))
        events = ruleset.apply(state, seat, action)
        step += 1
        lines.append(f"{step} seat {seat}: {_json(action)}")
        for event in events:
            lines.append(f"    {_json(event)}")
            for viewer, mark in ((0, "0>"), (None, "*>")):
                projected = ruleset.project(event, viewer)
                if projected is not None:
                    lines.append(f"      {mark} {_proto(ruleset.encode_event(projected))}")
        if step % 50 == 0 or ruleset.is_over(state):
            lines += [f"  view 0: {_proto(ruleset.view(state, 0))}", f"  view *: {_proto(ruleset.view(state, None))}"]
    lines.append(f"# over after {step} actions: {ruleset.is_over(state)}")
    return "\n".join(lines) + "\n"


def path(ruleset_id: str, seats: int, seed: int, rules_version: str | None = None) -> Path:
    legacy = f"-{rules_version.replace('/', '_')}" if rules_version else ""
    return OUT / f"{ruleset_id}-{seats}p-seed{seed}{legacy}.txt"


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for ruleset_id, games in GAMES.items():
        for seats, seed in games:
            path(ruleset_id, seats, seed).write_text(render(ruleset_id, seats, seed))


def _proto(message: Message) -> str:
    return text_format.MessageToString(message, as_one_line=True)


def _json(value: object) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


if __name__ == "__main__":
    main()
