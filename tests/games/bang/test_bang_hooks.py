"""Every argument of a BANG! hook is read by some handler (issue 30: hook arguments nobody reads go).

A hook is a method of a handler base class (``Ability``, ``RequestKind``, ``Step``, ``Effect``, ``Shot``,
``Modifier``, ``ExtraBang``) or a function registered in a registry of callables; each of its arguments
must be read by the base's default or by at least one registered handler, or it is only noise in every
signature (and a false promise to the next card's author).
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest

from tabletop_server.service.games import bang
from tabletop_server.service.games.bang import checks, cubes, damage, modifiers
from tabletop_server.service.games.bang.abilities import ABILITIES, Ability
from tabletop_server.service.games.bang.effects import EFFECTS, Effect, attacks
from tabletop_server.service.games.bang.pending import REQUESTS, STEPS, RequestKind, Step
from tabletop_server.service.games.bang.upgrades import SHOTS, Shot

# mutmut's copy (``mutants/``) rewrites every function of the sources these tests read.
pytestmark = [pytest.mark.fast, pytest.mark.skipif("mutants" in Path(__file__).parts, reason="reads the sources")]


def params_read(fn: Callable[..., Any]) -> tuple[list[str], set[str]]:
    """A function's parameters (``self`` aside), and those its body reads."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(fn))).body[0]
    assert isinstance(tree, ast.FunctionDef)
    params = [a.arg for a in tree.args.args + tree.args.kwonlyargs if a.arg != "self"]
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    return params, {p for p in params if p in names}


def unread_in_classes(base: type, handlers: Iterable[Any]) -> list[str]:
    classes = {k for h in handlers for k in type(h).__mro__ if isinstance(k, type) and issubclass(k, base)}
    out = []
    for name, value in vars(base).items():
        if name.startswith("_") or not inspect.isfunction(value):
            continue
        params, _ = params_read(value)
        read: set[str] = set()
        for cls in classes:
            if name in vars(cls):
                read |= params_read(vars(cls)[name])[1]
        out += [f"{base.__name__}.{name}({p})" for p in params if p not in read]
    return out


def unread_in_functions(label: str, fns: Iterable[Callable[..., Any]]) -> list[str]:
    params: list[str] = []
    read: set[str] = set()
    for fn in fns:
        p, r = params_read(fn)
        params, read = params or p, read | r
    return [f"{label}({p})" for p in params if p not in read]


def test_every_hook_argument_is_read_by_a_handler() -> None:
    assert bang.INFO  # every handler registered
    unread = (unread_in_classes(Ability, ABILITIES.values()) + unread_in_classes(RequestKind, REQUESTS.values())
              + unread_in_classes(Step, STEPS.values()) + unread_in_classes(Effect, EFFECTS.values())
              + unread_in_classes(Shot, SHOTS.values()) + unread_in_classes(modifiers.Modifier, modifiers.MODIFIERS.values())
              + unread_in_classes(attacks.ExtraBang, attacks.EXTRA_BANGS.values())
              + unread_in_functions("REDRAWS", checks.REDRAWS.values())
              + unread_in_functions("WHEN_EMPTIED", cubes.WHEN_EMPTIED.values())
              + unread_in_functions("WIN_RULES", damage.WIN_RULES.values())
              + unread_in_functions("REVIVES", damage.REVIVES.values())
              + unread_in_functions("CHECKS", [c.resolve for c in checks.CHECKS.values()]))
    assert unread == []


def test_the_check_sees_an_unread_argument() -> None:
    class Quiet(Ability):
        def on_hit(self, state: Any, seat: int, amount: int, source: int | None, events: list[Any]) -> None:
            events.append(seat)

    assert "Ability.on_hit(state)" in unread_in_classes(Ability, [Quiet()])
