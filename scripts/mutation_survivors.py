"""Print each surviving mutant's change, fast: ``mutmut show`` starts mutmut once per mutant.

    .venv/bin/python scripts/mutation_survivors.py . 'tabletop_server.service.games.bang*' > survivors.txt

Reads the mutants/ copy: each survivor ``x_f__mutmut_N`` is diffed against ``x_f__mutmut_orig``.
"""

from __future__ import annotations

import difflib
import fnmatch
import json
import re
import sys
from pathlib import Path

root = Path(sys.argv[1])
glob = sys.argv[2] if len(sys.argv) > 2 else "*"
# Optional: a file of mutant names (one per line) to print instead of the survivors recorded in the
# .meta files, e.g. the "survived:" lines of a mutmut log when the .meta files were rewritten since.
listed = set(Path(sys.argv[3]).read_text().split()) if len(sys.argv) > 3 else None


def funcs_of(src: str, names: set[str]) -> dict[str, list[str]]:
    """The source lines of the named functions (mutmut writes them at top level or in classes)."""
    out: dict[str, list[str]] = {}
    lines = src.splitlines()
    starts: dict[str, tuple[int, int]] = {}
    for i, line in enumerate(lines):
        m = re.match(r"(\s*)(?:async\s+)?def (\S+?)\(", line)
        if m and m.group(2) in names:
            starts[m.group(2)] = (i, len(m.group(1)))
    for name, (i, ind) in starts.items():
        body = [lines[i]]
        for text in lines[i + 1:]:
            if text.strip() and (len(text) - len(text.lstrip())) <= ind:
                break
            body.append(text)
        out[name] = body
    return out
for meta in sorted(root.glob("mutants/src/tabletop_server/service/**/*.py.meta")):
    codes = json.loads(meta.read_text())["exit_code_by_key"]
    surv = [k for k, v in codes.items() if (k in listed if listed is not None else v == 0) and fnmatch.fnmatch(k, glob)]
    if not surv: continue
    src = meta.with_suffix("").read_text()
    want: set[str] = set()
    for k in surv:
        f = k.split(".")[-1]; want |= {f, f.rsplit("__mutmut_", 1)[0] + "__mutmut_orig"}
    funcs = funcs_of(src, want)
    for k in surv:
        f = k.split(".")[-1]; base = f.rsplit("__mutmut_", 1)[0]
        o, m = funcs.get(base + "__mutmut_orig"), funcs.get(f)
        print("===", k)
        if o is None or m is None:
            print("  (source not found)"); continue
        for line in difflib.unified_diff(o[1:], m[1:], lineterm="", n=0):
            if line.startswith(("---", "+++", "@@")): continue
            print("  " + line.strip()[:220])
