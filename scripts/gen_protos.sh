#!/usr/bin/env bash
# The one generator of code from protos/. CI runs it and fails on any diff.
# Python: clients/python/src/tabletop/v1 (protobuf, gRPC, mypy stubs).
# TypeScript: clients/typescript/src/gen (protobuf-es v2), when its node_modules exist.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-.venv/bin/python}
export PATH="$(dirname "$PY"):$PATH"
OUT=clients/python/src/tabletop/v1
rm -f "$OUT"/*_pb2*.py "$OUT"/*_pb2*.pyi
"$PY" -m grpc_tools.protoc -I protos -I third_party/protos \
  --python_out=clients/python/src --grpc_python_out=clients/python/src \
  --mypy_out=clients/python/src --mypy_grpc_out=clients/python/src \
  protos/tabletop/v1/*.proto
# TypeScript: `npm run generate` = buf generate (clients/typescript/buf.gen.yaml), with the
# pinned npm buf and local protoc-gen-es; it cleans src/gen first, so a rerun is a no-op.
if [ -x clients/typescript/node_modules/.bin/buf ] && [ -x clients/typescript/node_modules/.bin/protoc-gen-es ]; then
  (cd clients/typescript && npm run --silent generate)
else
  echo "gen_protos: TypeScript skipped (run 'npm ci' in clients/typescript to regenerate src/gen)" >&2
fi
