"""Check that every rule id's marked tests can fail: each kills at least one mutant of the code they test.

A scenario test marked ``@pytest.mark.rule("TTR-036")`` that no broken program can fail proves nothing.
For each checklist id marked in the tests, this script takes the marked tests, finds (from mutmut's
per-test coverage in ``mutants/mutmut-stats.json``) the rule functions those tests run, most specific
first (run by the fewest tests of the whole suite), and runs only the marked tests against mutants of those
functions until one is killed. Ids whose tests kill none are printed and make the exit status 1.

Run a mutmut pass first so that ``mutants/`` exists (``scripts/mutate.sh 'tabletop_server.service.games.ttr_europe.setup*'``
is enough: every run collects the coverage of all tests). Then:

    .venv/bin/python scripts/rule_mutants.py            # every id (TTR, BANG, DC): collection, then seconds per id
    .venv/bin/python scripts/rule_mutants.py TTR-036    # some ids
"""

from __future__ import annotations

import importlib
import json
import os
import re
import sys
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MUTANTS = ROOT / "mutants"
TRIES = 30  # mutants tried per id before it is reported as not killing any
ID = re.compile(r"(?:TTR|BANG|DC|AD)-\d{3}")


def main(argv: list[str]) -> int:
    """Print, per id, the first mutant its marked tests kill (or that they kill none)."""
    _import_mutated_tree()
    stats = json.loads((MUTANTS / "mutmut-stats.json").read_text())["tests_by_mangled_function_name"]
    functions_by_test: dict[str, set[str]] = defaultdict(set)
    for function, tests in stats.items():
        for test in tests:
            functions_by_test[test].add(function)
    mutants_by_function = _mutants_by_function()
    tests_by_id = _marked_tests()
    failed = []
    for rule_id in sorted(argv or tests_by_id):
        tests = sorted(tests_by_id.get(rule_id, ()))
        marked = {t: functions_by_test.get(t, set()) for t in tests}
        covering = {f: sum(f in fs for fs in marked.values()) for fs in marked.values() for f in fs}
        # The rule's own code first: run by most of the marked tests, then by the fewest tests overall.
        candidates = sorted(covering, key=lambda f: (-covering[f], len(stats[f])))
        names = [m for f in candidates for m in mutants_by_function.get(f, [])[:3]][:TRIES]
        killer = next((m for m in names if _kills(m, tests)), None)
        print(f"{rule_id}: {len(tests)} tests, " + (f"kill {killer}" if killer else f"NO KILL in {len(names)} tried"),
              flush=True)
        if killer is None:
            failed.append(rule_id)
    print(f"{len(tests_by_id) if not argv else len(argv)} ids: {len(failed)} without a kill {' '.join(failed)}")
    return 1 if failed else 0


class _Collector:
    """A pytest plugin that records the rule ids of each collected test."""

    def __init__(self) -> None:
        self.tests_by_id: dict[str, set[str]] = defaultdict(set)

    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        for item in items:
            for mark in item.iter_markers("rule"):
                for rule_id in mark.args:
                    self.tests_by_id[rule_id].add(item.nodeid)


def _marked_tests() -> dict[str, set[str]]:
    collector = _Collector()
    os.chdir(MUTANTS)
    pytest.main(["--collect-only", "-q", "-p", "no:cacheprovider", "tests/games", "tests/conformance"],
                plugins=[collector])
    return {k: v for k, v in collector.tests_by_id.items() if ID.fullmatch(k)}


def _mutants_by_function() -> dict[str, list[str]]:
    """Mutant names by function, the mutants the whole suite killed first."""
    found: dict[str, list[tuple[bool, str]]] = defaultdict(list)
    for meta in MUTANTS.glob("src/tabletop_server/service/**/*.py.meta"):
        for name, code in json.loads(meta.read_text())["exit_code_by_key"].items():
            found[name.rsplit("__mutmut_", 1)[0]].append((code != 1, name))
    return {f: [n for _, n in sorted(v)] for f, v in found.items()}


def _kills(mutant: str, tests: list[str]) -> bool:
    """Whether the tests fail with ``mutant`` switched on, run as mutmut runs them.

    The code and the tests are imported once, in this process (the collection above imported
    every test module); each mutant then runs in a forked child (``mutants_rerun.run_one``), so
    a mutant costs its tests' run, not an interpreter start and the imports (about 20 s each on
    a loaded machine). As in mutmut, a mutant of code that runs at import (a data loader) is
    switched on after the import: only a test that calls that code again can kill it.
    """
    from mutants_rerun import run_one  # on the path since ``_import_mutated_tree``

    return run_one(mutant, tests)[0] == 1


def _import_mutated_tree() -> None:
    """Put ``mutants/`` first on the path and import the rule packages from it (unmutated until a
    child switches a mutant on)."""
    sys.path.insert(0, str(ROOT / "scripts"))
    sys.path[:0] = [str(MUTANTS / "src"), str(MUTANTS)]  # mutants/src holds tabletop_server
    from mutants_rerun import PACKAGES

    for package in PACKAGES:
        module = importlib.import_module(package)
        assert str(MUTANTS) in str(module.__file__), f"{package} imported from {module.__file__}, not mutants/"


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
