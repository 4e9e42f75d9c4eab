"""Layering: game code is pure (DESIGN 1), and the server is imported only under its namespace.

Walks the imports of service/games and service/engine for I/O, clock and global randomness; and every
Python file of the project for a bare ``service``/``rest`` import, which would load a second copy of
each module beside ``tabletop_server.service``/``tabletop_server.rest`` (src/tabletop_server).
"""

from __future__ import annotations

import ast
import itertools
from pathlib import Path

FORBIDDEN = {"grpc", "redis", "flask", "time", "random", "os", "socket", "threading", "datetime", "secrets",
             "tabletop_server.service.api", "tabletop_server.service.store", "tabletop_server.rest"}
PROJECT = Path(__file__).resolve().parents[2]
ROOT = PROJECT / "service"
BARE = ("service", "rest")


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


def _bare_names(path: Path) -> list[str]:
    """Bare ``service``/``rest`` module names in a file: imports, ``-m`` arguments, and strings naming
    one of their modules (``importlib.import_module("service.x")``, ``resources.files("rest")``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name.split(".")[0] in BARE]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found += [node.module] if node.module.split(".")[0] in BARE else []
        elif isinstance(node, ast.List | ast.Tuple):
            items = [e.value if isinstance(e, ast.Constant) else None for e in node.elts]
            found += [f"-m {b}" for a, b in itertools.pairwise(items) if a == "-m" and b in BARE]
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            first = node.args[0].value
            if isinstance(first, str) and first.split(".")[0] in BARE and _names_a_module(first):
                found.append(first)
    return found


def _names_a_module(name: str) -> bool:
    parts = name.split(".")
    target = PROJECT.joinpath(*parts)
    return target.is_dir() or target.with_suffix(".py").is_file()


def test_nothing_imports_the_server_as_bare_service_or_rest() -> None:
    files = [p for folder in ("service", "rest", "tests", "bench", "scripts")
             for p in PROJECT.joinpath(folder).rglob("*.py") if "node_modules" not in p.parts]
    assert len(files) > 300
    bad = [f"{p.relative_to(PROJECT)}: {name}" for p in files for name in _bare_names(p)]
    assert not bad, "\n".join(bad)


def test_the_namespace_links_to_the_folders() -> None:
    for name in BARE:
        link = PROJECT / "src" / "tabletop_server" / name
        assert link.is_symlink() and link.resolve() == PROJECT / name, link


def test_the_bare_name_checker_catches_each_form(tmp_path: Path) -> None:
    sample = tmp_path / "x.py"
    sample.write_text('import service.cli\nfrom rest.app import create_app\nfrom tabletop_server.rest import app\n'
                      'import importlib\nimportlib.import_module("service.games.bang")\n'
                      'cmd = [python, "-m", "service", "serve"]\nresources.files("rest")\nenv("service.name")\n')
    assert _bare_names(sample) == ["service.cli", "rest.app", "service.games.bang", "-m service", "rest"]
