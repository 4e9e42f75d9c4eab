"""Layering: the server's layers, pure game code (DESIGN 1), no import cycles, one namespace.

The layers, the purity of games and the engine (no I/O, clock or global randomness) and the absence of
import cycles are import-linter contracts (``[tool.importlinter]`` in pyproject.toml, run by CI as
``lint-imports``): the first test runs them on the project, the next ones plant each kind of violation
in a copy of the layout and see its contract break. What import-linter cannot see stays hand-written
here: a bare ``service``/``rest`` import or module name (in an import, a ``-m`` argument or a string),
which would load a second copy of each module beside ``tabletop_server.service``/``tabletop_server.rest``
(src/tabletop_server), and the namespace links.
"""

from __future__ import annotations

import ast
import itertools
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

PROJECT = Path(__file__).resolve().parents[2]
BARE = ("service", "rest")
ROOT = "tabletop_server"
FAKE = "fakeroot"  # the copy's root package: the project's own is installed, so it would shadow a fake one


def _lint(config: Path, cwd: Path, *contracts: str) -> subprocess.CompletedProcess[str]:
    args = ", ".join(repr(c) for c in contracts)
    code = ("import sys; from importlinter.cli import lint_imports; "
            f"sys.exit(lint_imports(config_filename={str(config)!r}, limit_to_contracts=({args}{',' if args else ''}),"
            " no_cache=True, no_logo=True))")
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, timeout=300,
                          env={"PYTHONPATH": str(cwd), "PATH": "/usr/bin:/bin"}, check=False)


def _contracts() -> dict[str, Any]:
    return dict(tomllib.loads((PROJECT / "pyproject.toml").read_text())["tool"]["importlinter"])


def test_the_import_contracts_hold() -> None:
    ran = _lint(PROJECT / "pyproject.toml", PROJECT)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "5 kept, 0 broken" in ran.stdout, ran.stdout


def _module(root: Path, name: str, body: str = "") -> None:
    """Write module ``name`` (dotted, under the fake root) with its packages' __init__ files."""
    parts = name.split(".")
    for i in range(1, len(parts)):
        init = root.joinpath(*parts[:i], "__init__.py")
        init.parent.mkdir(parents=True, exist_ok=True)
        if not init.exists():
            init.write_text("")
    path = root.joinpath(*parts, "__init__.py") if name in _PACKAGES else root.joinpath(*parts).with_suffix(".py")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(path.read_text() + body if path.exists() else body)


_PACKAGES = {f"{FAKE}.service.games.bang.effects", f"{FAKE}.service.games.bang.characters"}


@pytest.fixture
def layout(tmp_path: Path) -> Path:
    """A copy of the layout the contracts name (root ``fakeroot``) and the contracts themselves, renamed, in
    ``tmp_path/pyproject.toml``; nothing broken yet."""
    text = (PROJECT / "pyproject.toml").read_text()
    config = text[text.index("\n[tool.importlinter]\n"):]
    (tmp_path / "pyproject.toml").write_text(config.replace(ROOT, FAKE))
    contracts = _contracts()["contracts"]
    named = {m for c in contracts for key in ("layers", "modules", "source_modules", "ancestors")
             for m in c.get(key, []) for m in m.split(" | ")}
    for name in sorted(named):
        _module(tmp_path, name.replace(ROOT, FAKE))
    _module(tmp_path, f"{FAKE}.service.games.bang.play", f"import {FAKE}.service.games.bang.costs\n")
    _module(tmp_path, f"{FAKE}.service.games.bang.actions", f"import {FAKE}.service.games.bang.play\n")
    assert _lint(tmp_path / "pyproject.toml", tmp_path).returncode == 0
    return tmp_path


@pytest.mark.parametrize(("module", "body", "contract"), [
    ("service.games.bang.rules", "import random\n", "pure-rules"),
    ("service.engine.rng", "from os import urandom\n", "pure-rules"),
    ("service.games.ttr_europe.scoring", "import time\n", "pure-rules"),
    ("service.engine.ruleset", f"import {FAKE}.service.games.bang.play\n", "layers"),
    ("service.games.bang.turn", f"from {FAKE}.service.store import redis_store\n", "layers"),
    ("service.store.redis_store", f"import {FAKE}.service.api.server\n", "layers"),
    ("service.games.ttr_europe.rules", f"import {FAKE}.service.games.bang.play\n", "games-independent"),
    ("service.games.bang.tables", f"import {FAKE}.service.games.bang.turn\n", "acyclic"),
    ("service.games.bang.upgrades", f"import {FAKE}.service.games.bang.actions\n", "pipeline-on-top"),
])
def test_each_contract_catches_its_violation(layout: Path, module: str, body: str, contract: str) -> None:
    if contract == "acyclic":  # a new cycle: turn -> tables -> turn
        _module(layout, f"{FAKE}.service.games.bang.turn", f"import {FAKE}.service.games.bang.tables\n")
    _module(layout, f"{FAKE}.{module}", body)
    ran = _lint(layout / "pyproject.toml", layout)
    report = " ".join(ran.stdout.split())  # long contract names wrap
    broken = [c["id"] for c in _contracts()["contracts"] if f"{c['name']} BROKEN" in report]
    assert ran.returncode != 0 and broken == [contract], ran.stdout


def test_no_import_cycle_is_excused() -> None:
    """The acyclic contract lists no exception (issue 30 removed BANG!'s last): a new cycle is removed, not excused."""
    acyclic = next(c for c in _contracts()["contracts"] if c["id"] == "acyclic")
    assert "ignore_imports" not in acyclic


def test_no_import_inside_a_function_in_the_games() -> None:
    """Every import of a game's rules is at the top of its module, where import-linter's layers and the
    reader see it (an import inside a function is how a cycle hides)."""
    found = []
    for path in sorted((PROJECT / "service" / "games").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        top = set(map(id, tree.body))
        found += [f"{path.relative_to(PROJECT)}:{node.lineno}" for node in ast.walk(tree)
                  if isinstance(node, ast.Import | ast.ImportFrom) and id(node) not in top
                  and not _under_type_checking(tree, node)]
    assert not found, found


def _under_type_checking(tree: ast.Module, node: ast.stmt) -> bool:
    return any(isinstance(top, ast.If) and isinstance(top.test, ast.Name) and top.test.id == "TYPE_CHECKING"
               and node in ast.walk(top) for top in tree.body)


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
