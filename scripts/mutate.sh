#!/usr/bin/env bash
# Mutation testing with mutmut on one module (or a glob of them), then a per-package summary.
#   scripts/mutate.sh 'service.games.ttr_europe.scoring*'     # one module: a few minutes
#   scripts/mutate.sh 'service.games.bang*'                   # a whole game: about half an hour on 2 cores
# mutmut copies the tree into mutants/ and never edits the working tree. Settings: [tool.mutmut] in
# pyproject.toml. `mutmut show <name>` prints one mutant's diff; survivors are explained in docs/mutation.md.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=${VENV:-.venv}
"$venv/bin/mutmut" run --max-children "${MUTMUT_CHILDREN:-$(nproc)}" "$@" || true
"$venv/bin/python" scripts/mutation_report.py "$@"
