"""Layering: game code is pure (DESIGN 1). Walks the imports of service/games and service/engine."""

from __future__ import annotations

import ast
from pathlib import Path

FORBIDDEN = {"grpc", "redis", "flask", "time", "random", "os", "socket", "threading", "datetime", "secrets",
             "service.api", "service.store", "rest"}
ROOT = Path(__file__).resolve().parents[2] / "service"


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_games_and_engine_import_no_io_clock_or_global_random() -> None:
    files = [*ROOT.joinpath("games").rglob("*.py"), *ROOT.joinpath("engine").rglob("*.py")]
    assert files
    bad = []
    for path in files:
        for name in _imports(path):
            if any(name == f or name.startswith(f + ".") for f in FORBIDDEN):
                bad.append(f"{path.relative_to(ROOT.parent)} imports {name}")
    assert not bad, "\n".join(bad)


def test_the_checker_catches_a_forbidden_import(tmp_path: Path) -> None:
    sample = tmp_path / "x.py"
    sample.write_text("import random\nfrom redis import Redis\n")
    assert {"random", "redis"} <= _imports(sample)
