#!/usr/bin/env bash
# Every client release artefact in one command (issue 26): the Python client's wheel and sdist, the
# TypeScript client's npm tarball and the Java client's jar, into OUT (default dist/clients).
# The clients are on no registry: these files are what a studio installs (clients/README.md).
# Needs: the dev venv (.venv, setuptools), node and npm, and the Java client's Debian packages plus `jar`
# (clients/java/build.sh lists them).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-$PWD/.venv/bin/python}
mkdir -p "${1:-dist/clients}"
OUT=$(cd "${1:-dist/clients}" && pwd)
VERSION=$(sed -n 's/^version = "\(.*\)"/\1/p' clients/python/pyproject.toml)
# Python: setuptools' PEP 517 backend, called directly (the same as `python -m build`, without that tool).
for kind in wheel sdist; do  # one process each: setuptools keeps state between the two
  (cd clients/python && "$PY" -c "import sys; from setuptools import build_meta as b; b.build_$kind(sys.argv[1])" \
    "$OUT" >/dev/null 2>&1)
done
rm -rf clients/python/bdist_wheel clients/python/build
# TypeScript: compiled, then packed as npm would publish it (its "files" list).
(cd clients/typescript && { [ -d node_modules ] || npm ci --no-audit --no-fund >/dev/null; } \
  && npm run --silent build && npm pack --silent --pack-destination "$OUT" >/dev/null)
# Java: the generated and hand-written classes of clients/java/build.sh in one jar.
clients/java/build.sh >/dev/null
jar cf "$OUT/tabletop-client-java-$VERSION.jar" -C clients/java/build/classes .
ls -1 "$OUT"
