#!/bin/bash
# The whole GPU check in one command, on the machine with the GPU:
#   scripts/device/run_all.sh [OUT_DIR]
# builds test_gpu, ws_gpu_tool and warpscope for the GPU here (cmake + ninja + nvcc, into
# build-device-src/, binaries to build-device/); with PREBUILT=1 it uses the binaries that
# scripts/device/prepare.sh staged in build-device/ on another machine instead. Then runs
# every stage, writes every log and table under OUT_DIR (default $OUT, else
# build-device/out), packs them into results.tgz, and prints a short summary last. Stages
# are bounded in time so that one slow stage cannot swallow the others. When PUBLISHED_DIR
# (default .sources/, ignored by git) holds checkouts of SGEMM_CUDA and xGeMM, the build
# compiles their published kernels too: bench times them beside the entries that
# reproduce them, and the SASS stage compares their memory instructions.
set -u
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
OUT_DIR=${1:-${OUT:-$ROOT/build-device/out}}
W=$OUT_DIR/results
mkdir -p "$W"
BIN=$ROOT/build-device
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:${LD_LIBRARY_PATH:-}
for d in /usr/local/cuda/bin /opt/nvidia/nsight-compute/*/ /usr/local/cuda/nsight-compute*/; do
  [ -d "$d" ] && PATH=$PATH:$d
done
# cuBLAS from the Python wheels when the toolkit's copy is missing.
if ! ldconfig -p 2>/dev/null | grep -q libcublas.so.13 && [ ! -e /usr/local/cuda/lib64/libcublas.so.13 ]; then
  for d in $(python3 -c 'import nvidia, os; print(os.path.dirname(nvidia.__file__))' 2>/dev/null)/cu*/lib; do
    [ -d "$d" ] && LD_LIBRARY_PATH=$d:$LD_LIBRARY_PATH
  done
fi
STAGES=${STAGES:-env tests diff bench sass ncu report sanitize traces tracer hgemm}
summary=()
say() { summary+=("$*"); echo "== $*"; }

if [ "${PREBUILT:-0}" != 1 ]; then
  b0=$(date +%s)
  arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d '.')
  [ "$arch" = 90 ] && arch=90a  # Hopper: its own target, which the wgmma rung needs
  PUBLISHED_DIR=${PUBLISHED_DIR:-$ROOT/.sources}
  [ -d "$PUBLISHED_DIR/SGEMM_CUDA" ] && [ -d "$PUBLISHED_DIR/xGeMM" ] || PUBLISHED_DIR=
  # The differential test alone needs only its runner (a build of seconds, not minutes).
  targets="test_gpu ws_gpu_tool warpscope ptx_diff_gpu"
  [ "$(echo $STAGES)" = diff ] && targets=ptx_diff_gpu
  {
    cmake -S . -B build-device-src -G Ninja -DCMAKE_BUILD_TYPE=Release -DWARPSCOPE_CUDA=ON -DWARPSCOPE_GUI=OFF \
      -DCMAKE_CUDA_ARCHITECTURES="${arch:-90a}" -DWARPSCOPE_PUBLISHED_DIR="$PUBLISHED_DIR" &&
      ninja -C build-device-src $targets &&
      mkdir -p "$BIN" &&
      for t in $targets; do cp build-device-src/tests/$t "$BIN/" 2>/dev/null || cp build-device-src/$t "$BIN/"; done
  } >"$W/build.txt" 2>&1
  rc=$?
  say "build: rc=$rc, sm_${arch:-90a}, published kernels: ${PUBLISHED_DIR:-none}, $(( $(date +%s) - b0 )) s (log: results/build.txt)"
  if [ $rc -ne 0 ]; then
    tail -20 "$W/build.txt"
    exit 1
  fi
fi
if [ "${PREBUILT:-0}" = 1 ] && [ -f "$BIN/bins.tar.xz" ]; then  # prepare.sh's pack
  tar -C "$BIN" -xJf "$BIN/bins.tar.xz" && say "prebuilt: $(cat "$BIN/commit" 2>/dev/null || echo 'commit unknown')"
fi
has() { case " $STAGES " in *" $1 "*) return 0;; esac; return 1; }
START=$(date +%s)
DEADLINE=$((START + ${BUDGET:-540}))
# Seconds a stage may take: its own limit, cut to what is left before the deadline.
lim() { local l=$(( DEADLINE - $(date +%s) - 15 )); [ "$l" -gt "$1" ] && l=$1; [ "$l" -lt 5 ] && l=5; echo $l; }

if has env; then
  {
    date -u +%Y-%m-%dT%H:%M:%SZ; uname -a; nvidia-smi || true
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw --format=csv || true
    nvcc --version | tail -2; which ncu compute-sanitizer cuobjdump cu++filt c++filt || true
    ldd "$BIN/ws_gpu_tool"; ldd --version | head -1
    "$BIN/ws_gpu_tool" info
  } >"$W/env.txt" 2>&1
  say "env: $(grep -m1 -o '"name":"[^"]*"' "$W/env.txt") $(grep -m1 -o 'libcublas.so.13 => [^ ]*' "$W/env.txt")"
fi

if has tests; then
  timeout $(lim 180) "$BIN/test_gpu" >"$W/test_gpu.txt" 2>&1
  rc=$?
  say "gpu tests: rc=$rc; $(grep -E '^\[doctest\] (test cases|assertions)' "$W/test_gpu.txt" | tr '\n' ' ')"
fi

if has diff; then
  # The PTX interpreter's differential test: the generated cases on this GPU. Its fixture
  # (ptx_diff_<gpu>.txt) is what tests/ptx/fixtures/diff/h200.txt holds when this is an H200.
  gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 | grep -o -E 'H100|H200|A100|L4|L40S' | head -1)
  mkdir -p "$BIN/ptx_diff"
  python3 scripts/ptx_diff_cases.py "$BIN/ptx_diff" >"$W/diff.txt" 2>&1 &&
    timeout $(lim 120) "$BIN/ptx_diff_gpu" "$BIN/ptx_diff/ptx_diff.ptx" "$BIN/ptx_diff/ptx_diff.cases" \
      "$OUT_DIR/ptx_diff_$(echo ${gpu:-gpu} | tr A-Z a-z).txt" >>"$W/diff.txt" 2>&1
  say "diff: rc=$?; $(tail -1 "$W/diff.txt")"
fi

if has sass; then
  cuobjdump -sass "$BIN/ws_gpu_tool" >"$W/sass.txt" 2>&1
  cuobjdump -res-usage "$BIN/ws_gpu_tool" >"$W/res_usage.txt" 2>&1
  python3 scripts/device/sass_compare.py "$W/sass.txt" >"$W/zero_cost_sass.md" 2>&1
  say "sass: $(tail -1 "$W/zero_cost_sass.md")"
  gzip -f "$W/sass.txt"
fi

if has ncu; then
  M=l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum
  M=$M,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum
  M=$M,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
  M=$M,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
  M=$M,smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum
  timeout $(lim 150) ncu --clock-control none --kernel-name regex:device_kernel --metrics "$M" --csv --page raw \
    "$BIN/ws_gpu_tool" probe plain >"$W/ncu.csv" 2>"$W/ncu.log"
  rc=$?
  timeout $(lim 60) "$BIN/ws_gpu_tool" probe counts >"$W/counts.jsonl" 2>>"$W/ncu.log"
  python3 scripts/device/ncu_compare.py "$W/ncu.csv" "$W/counts.jsonl" >"$W/validation.md" 2>>"$W/ncu.log"
  say "ncu: rc=$rc; $(tail -1 "$W/validation.md")"
fi

if has report && [ -x "$BIN/warpscope" ]; then
  timeout $(lim 120) scripts/device/report_compare.sh "$W/report" >"$W/report_compare.txt" 2>&1
  say "report: $(tail -1 "$W/report_compare.txt")"
  rm -rf "$W/report"
fi

if has sanitize; then
  timeout $(lim 150) compute-sanitizer --tool memcheck --error-exitcode 9 "$BIN/ws_gpu_tool" sanitize >"$W/memcheck.txt" 2>&1
  m=$?
  timeout $(lim 90) compute-sanitizer --tool racecheck --racecheck-report hazard --error-exitcode 9 "$BIN/ws_gpu_tool" sanitize plain \
    >"$W/racecheck.txt" 2>&1
  r=$?
  timeout $(lim 90) compute-sanitizer --tool synccheck --error-exitcode 9 "$BIN/ws_gpu_tool" sanitize plain >"$W/synccheck.txt" 2>&1
  y=$?
  timeout $(lim 120) compute-sanitizer --tool initcheck --error-exitcode 9 "$BIN/ws_gpu_tool" sanitize plain >"$W/initcheck.txt" 2>&1
  i=$?
  say "sanitizer: memcheck rc=$m ($(grep -m1 'ERROR SUMMARY' "$W/memcheck.txt")), racecheck rc=$r ($(grep -m1 -E 'RACECHECK SUMMARY|ERROR SUMMARY' "$W/racecheck.txt")), synccheck rc=$y ($(grep -m1 'ERROR SUMMARY' "$W/synccheck.txt")), initcheck rc=$i ($(grep -m1 'ERROR SUMMARY' "$W/initcheck.txt"))"
  # The user's side: GPU builds of the examples and tests/programs under all four tools.
  timeout $(lim 300) bash scripts/device/sanitize_programs.sh "$W" >"$W/sanitize_programs.txt" 2>&1
  say "$(tail -1 "$W/sanitize_programs.txt")"
fi

if has tracer; then
  # The user's programs on this GPU through the GPU tracer, beside the emulated device (its
  # own build, with the tracer; reports, SASS traces, the three levels of the tiled SGEMM).
  BUILD=build-device-src timeout $(lim 400) bash scripts/device/trace_programs.sh "$W/tracer" >"$W/tracer.txt" 2>&1
  say "tracer: rc=$?; $(grep -c 'gpu rc=0' "$W/tracer.txt") programs traced; $(grep -m1 'merged' "$W/tracer.txt" | sed 's/^ *//' | cut -c1-80)"
fi

if has traces; then
  mkdir -p "$W/replay"
  for spec in "transpose_tiled --size 64" "transpose_tiled --size 64 --set pad=1" "matmul_tiled --size 64" \
              "matmul_coarse2d_vec --size 128" "copy --size 4096" "strided_copy --size 4096" "pmpp_exercise --size 1024" \
              "matmul_siboehm5 --size 128" "matmul_siboehm6 --size 128" "matmul_xgemm6 --size 128"; do
    set -- $spec
    name=$1; shift
    suffix=$(echo "$*" | grep -o 'pad=1' | sed 's/=//')
    timeout $(lim 30) "$BIN/ws_gpu_tool" trace --kernel $name "$@" --out "$W/replay/$name${suffix:+_$suffix}.wstrace" \
      >>"$W/traces.txt" 2>&1
  done
  say "traces: $(ls "$W/replay" | wc -l) files"
fi

if has bench; then
  timeout $(lim ${BENCH_TIMEOUT:-300}) "$BIN/ws_gpu_tool" bench --seconds ${BENCH_SECONDS:-0.4} --out "$W/bench.json" \
    >"$W/bench.txt" 2>"$W/bench.log"
  say "bench: rc=$?"
fi

if has hgemm; then
  # The catalog's tensor-core rungs beside the standalone mma.sync and wgmma kernels and
  # cuBLAS HGEMM, one run (bench/device/hgemm_variants.cu; 4000 takes the edge blocks' path).
  nvcc -O3 -arch=sm_90a -std=c++20 -DWS_CATALOG -Isrc -Ikernels -o "$BIN/hgemm_variants" \
    bench/device/hgemm_variants.cu -lcublas -lcuda >"$W/hgemm_build.txt" 2>&1 &&
    timeout $(lim 120) "$BIN/hgemm_variants" 4096 8192 4000 >"$W/hgemm.txt" 2>&1
  say "hgemm: rc=$?; $(grep -m1 'c2 catalog' "$W/hgemm.txt" | tr -s ' ' | cut -c1-100)"
fi

for f in bench.json bench.txt validation.md zero_cost_sass.md test_gpu.txt hgemm.txt; do [ -f "$W/$f" ] && cp "$W/$f" "$OUT_DIR/"; done
tar -C "$OUT_DIR" -czf "$OUT_DIR/results.tgz" results && rm -rf "$W"
echo
echo "==== summary ($(( $(date +%s) - START )) s)"
for l in "${summary[@]}"; do echo "$l"; done
