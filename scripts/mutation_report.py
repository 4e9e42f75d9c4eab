"""Summarise mutmut's results per package: generated, killed, survived, and the survivors' names.

Reads the `.meta` files mutmut leaves under mutants/ (exit code 0 = the tests passed = survived). Pass the
same globs as to `mutmut run` to report on those mutants only.
"""

from __future__ import annotations

import fnmatch
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

from mutmut.stats import status_by_exit_code  # mutmut's own table of exit codes


def main(argv: list[str]) -> int:
    """Print one line per package and the surviving mutants."""
    globs = argv or ["*"]
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    survivors: list[str] = []
    for meta in sorted(Path("mutants").glob("src/tabletop_server/service/**/*.py.meta")):
        for name, code in json.loads(meta.read_text())["exit_code_by_key"].items():
            if not any(fnmatch.fnmatch(name, g) for g in globs):
                continue
            package = ".".join(name.split(".")[:4])  # tabletop_server.service.games.<game>
            counts[package]["generated"] += 1
            outcome = _outcome(code)
            counts[package][outcome] += 1
            if outcome == "survived":
                survivors.append(name)
    print(f"{'package':40} {'generated':>9} {'killed':>7} {'survived':>8} {'timeout':>7} {'no tests':>8} "
          f"{'not run':>7} {'killed %':>8}")
    for package, c in sorted(counts.items()):
        ran = c["killed"] + c["survived"] + c["timeout"]
        share = 100 * (c["killed"] + c["timeout"]) / ran if ran else 0.0
        print(f"{package:40} {c['generated']:9} {c['killed']:7} {c['survived']:8} {c['timeout']:7} "
              f"{c['no tests']:8} {c['not run']:7} {share:7.1f}%")
    for name in survivors:
        print("survived:", name)
    return 0


def _outcome(code: int | None) -> str:
    status = status_by_exit_code[code]
    return {"not checked": "not run"}.get(status, status)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
