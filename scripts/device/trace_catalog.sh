#!/bin/bash
# On the machine with the GPU: every catalog kernel's plain instantiation (teaching size,
# default parameters) traced at the SASS level (`warpscope sass`), each trace written to
# OUT_DIR/catalog/ID.wstrace (the replay pack's assets/replay/sass/catalog/) and its
# source / SASS comparison to OUT_DIR/catalog/ID.txt.
#   BUILD=build-device-src scripts/device/trace_catalog.sh [OUT_DIR]
set -u
cd "$(dirname "$0")/../.."
OUT_DIR=${1:-${OUT:-build-device/out}}
BUILD=${BUILD:-build-tracer}
W=$BUILD/warpscope
mkdir -p "$OUT_DIR/catalog"
for id in $($W list --format json | python3 -c 'import json, sys; print(" ".join(k["id"] for k in json.load(sys.stdin)["kernels"]))'); do
  t0=$(date +%s.%N)
  timeout 120 $W sass --kernel "$id" --out "$OUT_DIR/catalog/$id.wstrace" >"$OUT_DIR/catalog/$id.txt" 2>&1
  rc=$?
  echo "$id: rc=$rc ($(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $t0}") s); $(grep -c 'merged' "$OUT_DIR/catalog/$id.txt") lines merged by ptxas, $(grep -c 'the same instructions' "$OUT_DIR/catalog/$id.txt") the same"
done
