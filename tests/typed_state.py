"""What the games' typed-state tests share (issue 30): a TypedDict's keys, what of a stored dict its
TypedDict does not allow, and what ``mypy --strict`` says of a made-up rule written against the types."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

SOURCE = Path(__file__).resolve().parents[1] / "src"  # the rules as source, for mypy


def typed_keys(cls: Any) -> tuple[frozenset[str], frozenset[str]]:
    """The required and all keys of a TypedDict."""
    return frozenset(cls.__required_keys__), frozenset(cls.__required_keys__ | cls.__optional_keys__)


def misfits_of(where: str, data: dict[str, Any], cls: Any) -> list[str]:
    """The keys of ``data`` that ``cls`` misses or does not allow, each named with ``where``."""
    required, allowed = typed_keys(cls)
    out = [f"{where}: missing {k!r}" for k in sorted(required - set(data))]
    return out + [f"{where}: untyped key {k!r}" for k in sorted(set(data) - allowed)]


def mypy_errors(rule: str, folder: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[dict[int, str], str]:
    """``mypy --strict`` over ``rule`` (a module's source): its errors by line, and its whole output."""
    from mypy import api  # here, not at the top: only the two slow tests pay for importing mypy

    monkeypatch.setenv("MYPYPATH", str(SOURCE))
    path = folder / "made_up_rule.py"
    path.write_text(rule, encoding="utf-8")
    out, _, _ = api.run(["--strict", "--no-incremental", "--follow-imports=silent", str(path)])
    return {int(line.split(":")[1]): line for line in out.splitlines() if ": error:" in line}, out
