"""Mutant name globs for the functions changed since a commit, to mutate only what a change touched.

    .venv/bin/python scripts/changed_functions.py de6d571 service/games/bang
    scripts/mutate.sh $(.venv/bin/python scripts/changed_functions.py de6d571 service/games/bang)

A function (or method) is changed when its source differs from the one of the same name at the
commit, or is new. The globs use mutmut 3's names: ``pkg.module.x_func__mutmut_*`` for functions and
``pkg.module.xǁClassǁmethod__mutmut_*`` for methods. Decorated functions are skipped (mutmut does not
mutate them). Module-level code is not a function: mutate its module whole if it changed.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path


def functions(source: str) -> dict[str, str]:
    """Mutant glob -> source text of each undecorated function and method of a module."""
    out: dict[str, str] = {}
    tree = ast.parse(source)
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and not node.decorator_list:
            out[f"x_{node.name}"] = ast.get_source_segment(source, node) or ""
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and not item.decorator_list:
                    out[f"xǁ{node.name}ǁ{item.name}"] = ast.get_source_segment(source, item) or ""
    return out


def old_source(commit: str, path: Path) -> str:
    """The file at ``commit``, or "" when it did not exist."""
    done = subprocess.run(["git", "show", f"{commit}:{path.as_posix()}"], capture_output=True, text=True, check=False)
    return done.stdout if done.returncode == 0 else ""


def main(commit: str, folder: str) -> None:
    for path in sorted(Path(folder).rglob("*.py")):
        if path.name == "__init__.py":
            continue
        module = ".".join(("tabletop_server", *path.with_suffix("").parts))  # service/x.py: tabletop_server.service.x
        new = functions(path.read_text(encoding="utf-8"))
        before = old_source(commit, path)
        old = functions(before) if before else {}
        for name, text in new.items():
            if old.get(name) != text:
                print(f"{module}.{name}__mutmut_*")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
