"""Count how much of the rulebook checklist the scenario tests cover.

Reads the ids of ``shared/reference/RULES_CHECKLIST.md`` (beside the repository, or the
path given) and the ids named by ``@pytest.mark.rule(...)`` markers under ``tests/``, and
prints covered / total per game, plus the ids not covered.

Usage: ``.venv/bin/python scripts/rule_coverage.py [path/to/RULES_CHECKLIST.md]``
"""

from __future__ import annotations

import re
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHECKLIST = ROOT.parent / "shared" / "reference" / "RULES_CHECKLIST.md"
ROW = re.compile(r"^\| ((?:TTR|BANG|DC|AD)-\d{3}) \|", re.MULTILINE)
MARK = re.compile(r"mark\.rule\(([^)]*)\)")
ID = re.compile(r"(?:TTR|BANG|DC|AD)-\d{3}")


def main() -> None:
    checklist = Path(sys.argv[1]) if len(sys.argv) > 1 else CHECKLIST
    rows = list(dict.fromkeys(ROW.findall(checklist.read_text())))  # the index at the end repeats some ids
    marked = {i for p in (ROOT / "tests").rglob("*.py") for m in MARK.findall(p.read_text()) for i in ID.findall(m)}
    by_game: dict[str, list[str]] = defaultdict(list)
    for row in rows:
        by_game[row.split("-")[0]].append(row)
    for game, ids in by_game.items():
        missing = [i for i in ids if i not in marked]
        print(f"{game:5} {len(ids) - len(missing):4} / {len(ids):<4} covered"
              + (f"   not covered: {', '.join(missing)}" if missing else ""))


if __name__ == "__main__":
    main()
