"""The BANG! card and character index (issue 30): where each card's and character's behaviour lives.

    .venv/bin/python scripts/bang_index.py > docs/bang-index.md

Generated from the data rows and the registries, never written by hand: for each card, the handlers its
row names (effect, use, response, a weapon's shot) and every handler registered under its key (draw!
outcome, lasting modifier, what happens when its cubes run out, redraw offer, extra BANG!, an answer to
the dying window), the requests
and steps of its own module (``effects/<key>.py``), and every line of the wing that names it in quotes; for each character, its
ability handler, the hooks it implements, the start-of-turn steps queued for it, and the same. Each
with its file and line. ``tests/games/bang/test_bang_index.py`` fails when the committed index is not
what this prints, so the index is true of the code it ships with.
"""

from __future__ import annotations

import functools
import inspect
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from tabletop_server.service.games import bang
from tabletop_server.service.games.bang.abilities import ABILITIES, Ability
from tabletop_server.service.games.bang.checks import CHECKS, REDRAWS
from tabletop_server.service.games.bang.cubes import WHEN_EMPTIED
from tabletop_server.service.games.bang.damage import REVIVES
from tabletop_server.service.games.bang.effects import EFFECTS
from tabletop_server.service.games.bang.effects.attacks import EXTRA_BANGS
from tabletop_server.service.games.bang.modifiers import MODIFIERS
from tabletop_server.service.games.bang.pending import REQUESTS, STEPS
from tabletop_server.service.games.bang.tables import CHARACTERS, TYPES
from tabletop_server.service.games.bang.turn import START_STEP_CHARACTER
from tabletop_server.service.games.bang.upgrades import SHOTS

PROJECT = Path(__file__).resolve().parents[1]
WING = PROJECT / "service" / "games" / "bang"
QUOTED = re.compile(r"[\"']([a-z0-9_]+)[\"']")
HOOKS = [name for name, value in vars(Ability).items() if callable(value) and not name.startswith("_")]


def where(obj: Any) -> str:
    """``file:line`` of a class or function, relative to the repository."""
    target = obj if inspect.isclass(obj) or inspect.isfunction(obj) else type(obj)
    path = Path(inspect.getsourcefile(target) or "").resolve().relative_to(PROJECT)
    return f"{path}:{inspect.getsourcelines(target)[1]}"


def _module_file(obj: Any) -> Path:
    target = obj if inspect.isclass(obj) or inspect.isfunction(obj) else type(obj)
    return Path(inspect.getsourcefile(target) or "").resolve()


def _own_module(key: str) -> Iterator[str]:
    """The requests and steps registered in the card's own module (``effects/<key>.py``), if it has one."""
    home = WING / "effects" / f"{key}.py"
    for kind, registry in (("request", REQUESTS), ("step", STEPS)):
        for name, handler in registry.items():
            if _module_file(handler) == home:
                yield f"{kind} `{name}`: {where(handler)}"


@functools.cache
def _quoted() -> dict[str, list[str]]:
    """Each word the wing's source writes in quotes -> the ``file:line`` places that do."""
    out: dict[str, list[str]] = {}
    for path in sorted(WING.rglob("*.py")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            for word in dict.fromkeys(QUOTED.findall(line)):
                out.setdefault(word, []).append(f"{path.relative_to(PROJECT)}:{number}")
    return out


def _named_in_source(key: str) -> list[str]:
    """Every line of the wing that names ``key`` in quotes (a row read, a step or request of its own)."""
    return _quoted().get(key, [])


def _entry(title: str, lines: list[str]) -> list[str]:
    return [f"### {title}", "", *[f"- {line}" for line in lines], ""]


def card_lines(key: str) -> list[str]:
    """What the index says of one card name."""
    t = TYPES[key]
    lines = [f"row: `{t.expansion}`, {t.color}, effect `{t.effect}`: {where(EFFECTS[t.effect])}"]
    for part, spec in (("use", t.use), ("response", t.response)):
        if spec is not None:
            lines.append(f"{part}: effect `{spec.effect}`: {where(EFFECTS[spec.effect])}")
    if t.upgrade:
        lines.append(f"upgrade (row): {dict(t.upgrade)}; `upgrades.Upgrade`: {where(REQUESTS['upgrade'])}")
    if t.cost:
        lines.append(f"cost (row): {dict(t.cost)}; `costs.PayCost`: {where(REQUESTS['cost'])}")
    registered: list[tuple[str, dict[str, Any], Callable[[Any], Any]]] = [
        ("draw! outcome", CHECKS, lambda c: c.resolve), ("lasting modifier", MODIFIERS, lambda m: m),
        ("when its cubes run out", WHEN_EMPTIED, lambda f: f), ("redraw offer", REDRAWS, lambda f: f),
        ("extra BANG!", EXTRA_BANGS, lambda x: x)]
    for label, registry, handler in registered:
        if key in registry:
            lines.append(f"{label} `{key}`: {where(handler(registry[key]))}")
    if t.effect in REVIVES:
        lines.append(f"answers the dying window `{t.effect}`: {where(REVIVES[t.effect])}")
    shot = str(t.use.args.get("shot")) if t.use is not None else ""
    if shot in SHOTS:
        lines.append(f"weapon shot `{shot}`: {where(SHOTS[shot])}")
    lines += list(_own_module(key))
    named = _named_in_source(key)
    if named:
        lines.append("named in: " + ", ".join(named))
    return lines


def character_lines(key: str) -> list[str]:
    """What the index says of one character."""
    c = CHARACTERS[key]
    handler = ABILITIES[c.ability]
    lines = [f"row: `{c.expansion}`, ability `{c.ability}`: {where(handler)}"]
    if c.traits:
        lines.append(f"traits (row): {dict(c.traits)}")
    cls = type(handler)
    for hook in HOOKS:
        if hook in vars(cls):
            lines.append(f"hook `{hook}`: {where(vars(cls)[hook])}")
    for step_name, who in START_STEP_CHARACTER.items():
        if who == key:
            lines.append(f"start step `{step_name}`: {where(STEPS[step_name])}")
    for kind, registry in (("request", REQUESTS), ("step", STEPS), ("lasting modifier", MODIFIERS)):
        if key in registry:
            lines.append(f"{kind} `{key}`: {where(registry[key])}")
    named = _named_in_source(key)
    if named:
        lines.append("named in: " + ", ".join(named))
    return lines


def render() -> str:
    """The whole index, as markdown."""
    assert bang.INFO  # the package registers every handler on import
    out = ["# BANG! index: where each card and character lives", "",
           ("Generated by `scripts/bang_index.py` from the data rows and the registries; "
           "`tests/games/bang/test_bang_index.py` keeps it true. Do not edit by hand."), "", "## Cards", ""]
    for key in sorted(TYPES, key=lambda k: (TYPES[k].expansion != "base", TYPES[k].expansion, k)):
        out += _entry(f"{TYPES[key].name} (`{key}`)", card_lines(key))
    out += ["## Characters", ""]
    for key in sorted(CHARACTERS, key=lambda k: (CHARACTERS[k].expansion != "base", CHARACTERS[k].expansion, k)):
        out += _entry(f"{CHARACTERS[key].name} (`{key}`)", character_lines(key))
    return "\n".join(out).rstrip("\n") + "\n"


if __name__ == "__main__":
    sys.stdout.write(render())
