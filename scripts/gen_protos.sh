#!/usr/bin/env bash
# The one generator of code from protos/. CI runs it and fails on any diff.
# Python: clients/python/src/tabletop/v1 (protobuf, gRPC, mypy stubs).
# TypeScript: clients/typescript/src/gen (protobuf-es v2), when its node_modules exist.
# Descriptor set: rest/descriptors.binpb, the tabletop.v1 files with their comments (source info),
# read by rest/openapi.py for the OpenAPI descriptions.
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
# The same protoc, so the set matches the stubs. Reproducible: files in C-locale order, names
# relative to -I (no absolute paths), no imports (only tabletop.v1's comments are read), and
# protoc's output is a function of the sources and of its version only (as for the stubs).
mapfile -t PROTOS < <(find protos/tabletop/v1 -name '*.proto' | LC_ALL=C sort)
"$PY" -m grpc_tools.protoc -I protos -I third_party/protos --include_source_info \
  --descriptor_set_out=rest/descriptors.binpb "${PROTOS[@]}"
# TypeScript: `npm run generate` = buf generate (clients/typescript/buf.gen.yaml), with the
# pinned npm buf and local protoc-gen-es; it cleans src/gen first, so a rerun is a no-op.
if [ -x clients/typescript/node_modules/.bin/buf ] && [ -x clients/typescript/node_modules/.bin/protoc-gen-es ]; then
  (cd clients/typescript && npm run --silent generate)
else
  echo "gen_protos: TypeScript skipped (run 'npm ci' in clients/typescript to regenerate src/gen)" >&2
fi
