#!/bin/bash
# On the machine with the GPU: builds warpscope with the GPU tracer, then runs every
# program of tests/programs and examples/ on the GPU (traced at the SASS level) and on the
# emulated device, writing each one's report (JSON) and trace under OUT_DIR, the tracer's
# raw files and disassemblies of two of them (the CPU tests' fixtures), and the time of
# each program plain and traced.
#   scripts/device/trace_programs.sh [OUT_DIR]
set -u
cd "$(dirname "$0")/../.."
OUT_DIR=${1:-${OUT:-build-device/out}}
mkdir -p "$OUT_DIR/sass"
arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d '.')
[ "$arch" = 90 ] && arch=90a  # Hopper: its own target, which the wgmma rung needs
b0=$(date +%s)
# BUILD: a build folder to use (run_all.sh's build-device-src is one); configured here when new.
BUILD=${BUILD:-build-tracer}
{ { [ -f "$BUILD/build.ninja" ] ||
    cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DWARPSCOPE_CUDA=ON -DWARPSCOPE_GUI=OFF \
      -DWARPSCOPE_TESTS=OFF -DCMAKE_CUDA_ARCHITECTURES="${arch:-90a}"; } &&
  ninja -C "$BUILD" warpscope warpscope_tracer; } >"$OUT_DIR/build.txt" 2>&1 || { tail -30 "$OUT_DIR/build.txt"; exit 1; }
echo "build: $(( $(date +%s) - b0 )) s"
W=$BUILD/warpscope
for p in tests/programs/*.cu examples/*.cu; do
  n=$(basename "$p" .cu)
  args=""
  case $n in matmul_tiled) args="-- 64";; esac
  keep=""
  blocks=""
  case $n in transpose_twin|reduction|histogram) keep="$OUT_DIR/fixtures/$n";; matmul_tiled) keep="$OUT_DIR/fixtures/$n"; blocks="--blocks 0-1";; esac
  # The flags each program's users build it with (the tests' own): Hopper's instructions
  # need sm_90a, the libraries their -l. Kept beside the trace for the index's hash.
  flags=""
  case $n in
    wgmma_gemm|wgmma_tile|cluster_dsmem) flags="-arch=sm_90a";;
    tma_replace|driver_api) flags="-arch=sm_90a -lcuda";;
    cublas_gemm) flags="-lcublas -lcublasLt";;
    curand_host) flags="-lcurand";;
  esac
  rm -f "$OUT_DIR/sass/$n.flags"
  [ -n "$flags" ] && echo "$flags" >"$OUT_DIR/sass/$n.flags"
  t0=$(date +%s.%N)
  WARPSCOPE_KEEP_GPU_RAW=$keep timeout 120 $W run "$p" $flags --backend gpu $blocks --format json --out "$OUT_DIR/sass/$n.wstrace" $args \
    >"$OUT_DIR/$n.gpu.json" 2>"$OUT_DIR/$n.gpu.err"
  rc=$?
  t1=$(date +%s.%N)
  timeout 300 $W run "$p" $flags --backend emulator --format json $args >"$OUT_DIR/$n.emu.json" 2>"$OUT_DIR/$n.emu.err"
  rce=$?
  echo "$n: gpu rc=$rc ($(awk "BEGIN{printf \"%.1f\", $t1 - $t0}") s), emulator rc=$rce; $(head -c 300 "$OUT_DIR/$n.gpu.err")"
done
# Which committed program each trace was recorded from, by the hash of its sources and flags.
python3 scripts/replay_index.py "$OUT_DIR/sass"
# The three levels of the textbook tiled SGEMM, recorded on this GPU and on the emulated device.
timeout 300 $W run tests/programs/matmul_tiled.cu --backend gpu --levels -- 64 >"$OUT_DIR/matmul_levels.txt" 2>&1
echo "levels: rc=$?"; grep -A4 "matmul_tiled.cu:21" "$OUT_DIR/matmul_levels.txt"
# Each launch plain (the timer: events, warm-up, median, buffers restored before each run)
# against the same launch traced, every program at its own size.
python3 - "$OUT_DIR" <<'PY'
import glob, json, os, sys
for f in sorted(glob.glob(sys.argv[1] + '/*.gpu.json')):
    try:
        j = json.load(open(f))
    except Exception:
        print('%-16s unreadable' % os.path.basename(f)); continue
    for r in j.get('gpu_times', {}).get('rows', []):
        o = r.get('overhead', {})
        print('%-16s %-24s plain %9.4f ms   traced %9.3f ms   %7.0fx' % (os.path.basename(f)[:-9], r.get('kernel'),
              r.get('ms', 0), o.get('record_ms', 0), o.get('record_ratio', 0)))
PY
# At a realistic size: the textbook tiled SGEMM at 1024², every block traced and blocks
# 0-3 only, each beside its plain time and cuBLAS measured in the same run.
for blocks in all 0-3; do
  timeout 300 $W run tests/programs/matmul_tiled.cu --backend gpu --blocks $blocks -- 1024 2>&1 | sed -n '/^time on the GPU/,$p'
done
