"""Re-run named mutants against chosen tests, as mutmut runs them: import first, then switch the mutant on.

    cd mutants && ../.venv/bin/python ../scripts/mutants_rerun.py <list> <results> <test paths...>
    (or scripts/mutants_rerun.sh <list> <results> <test paths...>, which does that)

mutmut imports the code and collects the tests once, then forks one child per mutant and sets
``MUTANT_UNDER_TEST`` in the child. Code that runs at import (data loaders, registries) therefore runs
unmutated, and only a test that calls it again can kill its mutant. Setting the variable before Python
starts instead (as an earlier shell version of this script did) mutates the import itself: a loader mutant
then "dies" of an import error whatever the tests are, a false kill. Here the packages under test are
imported first, then each mutant runs in a forked child. Appends "<mutant> <exit code> <first failing
test>" per mutant to the results file: 1 = killed, 0 = survived (pytest's exit codes). Mutants already in
the results file are skipped, so an interrupted run resumes.
"""

from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path
from typing import Any

import pytest

PACKAGES = ("tabletop_server.service.games.bang", "tabletop_server.service.games.ttr_europe")  # imported unmutated, before any fork
# Left out as in mutmut's run (pyproject.toml): they read the source files, which fail on any mutated tree
# (false kills). A ``-k`` among the test arguments replaces this one.
STRUCTURE_CHECKS = "not modules_stay_small and not never_imports_io"


class FirstFailure:
    """A pytest plugin that remembers the first failing test's id."""

    def __init__(self) -> None:
        self.nodeid = ""

    def pytest_runtest_logreport(self, report: Any) -> None:
        if report.failed and not self.nodeid:
            self.nodeid = report.nodeid


def run_one(mutant: str, tests: list[str]) -> tuple[int, str]:
    """Fork, switch ``mutant`` on in the child, run the tests there; the exit code and first failure."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(read)
        os.environ["MUTANT_UNDER_TEST"] = mutant
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        first = FirstFailure()
        code = pytest.main(["-x", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", "-m", "not slow",
                            "-k", STRUCTURE_CHECKS, *tests], plugins=[first])
        os.write(write, first.nodeid.encode())
        os._exit(int(code))
    os.close(write)
    chunks = []
    while chunk := os.read(read, 65536):
        chunks.append(chunk)
    os.close(read)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), b"".join(chunks).decode()


def _import_tests(tests: list[str]) -> None:
    """Collect the tests once here, unmutated, so that their modules and what they import (grpc,
    hypothesis, the service) are in memory before the forks: each child then costs its tests' run,
    not seconds of imports. Collection imports test modules, never the code under test anew."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    saved = os.dup(1), os.dup(2)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    try:
        pytest.main(["--collect-only", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", *tests])
    finally:
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        os.close(devnull)


def main(argv: list[str]) -> None:
    listed, results, *tests = argv
    sys.path[:0] = [os.path.join(os.getcwd(), "src"), os.getcwd()]  # mutants/src holds tabletop_server
    for package in PACKAGES:
        importlib.import_module(package)
    _import_tests(tests)
    out = Path(results)
    done = {line.split()[0] for line in out.read_text().splitlines() if line.strip()} if out.exists() else set()
    for mutant in Path(listed).read_text().split():
        if mutant in done:
            continue
        code, first = run_one(mutant, tests)
        with out.open("a") as f:
            f.write(f"{mutant} {code} {first}\n")


if __name__ == "__main__":
    main(sys.argv[1:])
