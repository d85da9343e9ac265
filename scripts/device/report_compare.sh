#!/bin/bash
# `warpscope report` on the GPU (counts mode, whole grid) against the emulator, site by site
# and epoch by epoch, for teaching launches under both DRAM models. Needs build-device/warpscope.
#   scripts/device/report_compare.sh [OUT_DIR]
cd "$(dirname "$0")/../.."
B=build-device/warpscope
OUT_DIR=${1:-${OUT:-build-device/out}}
mkdir -p "$OUT_DIR"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
ok=0 bad=0
for spec in "transpose_tiled --size 64" "transpose_tiled --size 200 --set pad=1" "matmul_tiled --size 64" \
            "matmul_tiled --size 4 --set tile=2" "matmul_coarse2d_vec --size 256" "matmul_coarse1d --size 96" \
            "pmpp_exercise --size 1024" "copy --size 5000" "strided_copy --size 5000 --set stride=8"; do
  set -- $spec
  k=$1
  shift
  for dram in hbm textbook; do
    $B report --backend gpu --kernel $k "$@" --set dram=$dram --format json >"$OUT_DIR/g.json" 2>"$OUT_DIR/g.err"
    $B report --backend emulator --kernel $k "$@" --set dram=$dram --format json >"$OUT_DIR/e.json" 2>"$OUT_DIR/e.err"
    if python3 - "$OUT_DIR/g.json" "$OUT_DIR/e.json" <<'PY'
import json, sys
g, e = (json.load(open(p)) for p in sys.argv[1:3])
# Sites in a stable order: two compilers may evaluate `out[i] = in[i]` in either order, so
# the order of first execution (and the site numbers it gives) is not compared.
key = lambda s: (s["line"], s["array"], s["op"], s["bytes_per_lane"])
strip = lambda sites: [{k: v for k, v in s.items() if k != "site"} for s in sites]
gl, el = g["launches"][0], e["launches"][0]
gs, es = sorted(strip(gl["sites"]), key=key), sorted(strip(el["sites"]), key=key)
for a, b in zip(gs, es):
    if a != b:
        print("   site", key(a), {k: (a[k], b.get(k)) for k in a if a[k] != b.get(k)})
        break
if len(gs) != len(es): print("   sites:", len(gs), "against", len(es))
if gl["epochs"] != el["epochs"]: print("   epochs differ")
if g["lane_accesses"] != e["lane_accesses"]: print("   lane accesses", g["lane_accesses"], e["lane_accesses"])
sys.exit(0 if gs == es and gl["epochs"] == el["epochs"] and g["lane_accesses"] == e["lane_accesses"] else 1)
PY
    then ok=$((ok + 1)); echo "same      $spec dram=$dram"
    else bad=$((bad + 1)); echo "DIFFERENT $spec dram=$dram ($(head -c 200 "$OUT_DIR/g.err"))"
    fi
  done
done
echo "report --backend gpu vs --backend emulator: $ok equal, $bad different"
[ "$bad" -eq 0 ]
