#!/bin/bash
# Seed corpora for the fuzz targets (tests/fuzz), written to $1 (default build/fuzz-corpus):
#   onnx/    ONNX node test models, the small test models, the digits model and its two quantized
#            forms (webnx quantize: the chains the loader fuses), tests/hostile cases
#   mutate/  the valid models only (the structure-aware target mutates them)
#   json/    examples/dsl/*.json, tests/hostile JSON cases, and ONNX-JSON conversions of the
#            small node test models (protobuf's JSON mapping, which the JSON loader reads)
# Seeds are copied, never committed. Models over 64 KB are left out: libFuzzer's input size
# follows the largest seed.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="${1:-$ROOT/build/fuzz-corpus}"
NODE_TESTS="${NODE_TESTS:-$ROOT/../shared/onnx-node-tests}"
MAX_BYTES=65536
mkdir -p "$OUT/onnx" "$OUT/mutate" "$OUT/json"

small() { [ -f "$1" ] && [ "$(stat -c %s "$1")" -le "$MAX_BYTES" ]; }

valid=0
for model in "$NODE_TESTS"/*/model.onnx "$ROOT"/build/models/testdata/*.onnx \
             "$ROOT"/examples/digits/*.onnx "$ROOT"/build/models/shapes/*.onnx; do
  small "$model" || continue
  name="$(basename "$(dirname "$model")")_$(basename "$model")"
  cp -u "$model" "$OUT/onnx/$name"
  cp -u "$model" "$OUT/mutate/$name"
  valid=$((valid + 1))
done
# The digits model quantized by the package's quantizer (dynamic and QDQ): seeds whose graphs
# hold the chains fused at load (kernels/quant_fusion.cc). Needs dist/ (make wasm) for QDQ's
# calibration run; skipped without it.
if [ -f "$ROOT/dist/webnx.wasm" ]; then
  for mode in dynamic qdq; do
    target="$OUT/onnx/digits_$mode.onnx"
    [ -f "$target" ] || node "$ROOT/js/cli.mjs" quantize "$ROOT/examples/digits/digits_mobilenet.onnx" \
      "$target" --mode "$mode" --random 2 >/dev/null 2>&1 || true
    small "$target" && cp -u "$target" "$OUT/mutate/" && valid=$((valid + 1))
  done
fi
hostile=0
for case in "$ROOT"/tests/hostile/cases/*; do
  [ -f "$case" ] || continue
  case "$case" in
    *.json) cp -u "$case" "$OUT/json/hostile_$(basename "$case")" ;;
    *) cp -u "$case" "$OUT/onnx/hostile_$(basename "$case")" ;;
  esac
  hostile=$((hostile + 1))
done
for doc in "$ROOT"/examples/dsl/*.json; do
  small "$doc" && cp -u "$doc" "$OUT/json/dsl_$(basename "$doc")"
done
/usr/bin/python3 - "$NODE_TESTS" "$OUT/json" <<'PY'
import pathlib, sys
from google.protobuf import json_format
import onnx
src, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
count = 0
for model in sorted(src.glob("*/model.onnx")):
    if model.stat().st_size > 8192:
        continue
    target = out / f"onnxjson_{model.parent.name}.json"
    if not target.exists():
        target.write_text(json_format.MessageToJson(onnx.load(str(model))))
    count += 1
print(f"json: {count} ONNX-JSON conversions")
PY
echo "corpus in $OUT: $valid valid models, $hostile hostile cases," \
  "$(ls "$OUT/json" | wc -l) JSON documents"
