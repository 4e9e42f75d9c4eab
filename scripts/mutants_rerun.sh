#!/usr/bin/env bash
# Re-run named mutants against chosen tests, one by one, without a new mutmut pass.
#   scripts/mutants_rerun.sh <mutant-list-file> <result-file> <test paths...>
# mutmut selects, per mutant, the tests its first pass saw covering the function; tests written after
# that pass are not among them. This runs each listed mutant in mutants/ against the given tests (copy
# them into mutants/tests first) the way mutmut does: the code is imported unmutated, then each mutant is
# switched on in a forked child (scripts/mutants_rerun.py says why). Appends "<mutant> <exit code> <first
# failing test>" to the result file: 1 = killed, 0 = survived. Mutants already in the result file are skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
list=$(realpath "$1"); out=$(realpath -m "$2"); shift 2
venv=$(realpath "${VENV:-.venv}")
script=$(realpath scripts/mutants_rerun.py)
cd mutants
"$venv/bin/python" "$script" "$list" "$out" "$@"
