#!/usr/bin/env bash
# Re-run named mutants against chosen tests, one by one, without a new mutmut pass.
#   scripts/mutants_rerun.sh <mutant-list-file> <result-file> <test paths...>
# mutmut selects, per mutant, the tests its first pass saw covering the function; tests written after
# that pass are not among them. This runs each listed mutant (MUTANT_UNDER_TEST, in mutants/) against
# the given tests (copy them into mutants/tests first) and appends "<mutant> <exit code> <first failing
# test>" to the result file: 1 = killed, 0 = survived. Mutants already in the result file are skipped.
set -uo pipefail
cd "$(dirname "$0")/.."
list=$(realpath "$1"); out=$(realpath -m "$2"); shift 2
venv=$(realpath "${VENV:-.venv}")
cd mutants
while read -r mutant; do
  [ -z "$mutant" ] && continue
  grep -q "^$mutant " "$out" 2>/dev/null && continue
  log=$(MUTANT_UNDER_TEST=$mutant timeout 600 "$venv/bin/python" -m pytest -x -q -p no:cacheprovider \
        -p no:xdist -m "not slow" "$@" 2>&1)
  code=$?
  echo "$mutant $code $(grep -m1 -oE '^FAILED [^ ]+' <<<"$log" | cut -c8-)" >> "$out"
done < "$list"
