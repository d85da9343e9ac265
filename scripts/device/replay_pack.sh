#!/bin/bash
# On the machine with the GPU: the whole replay pack (assets/replay/) measured again, in one
# session, on this one GPU — every timing (`warpscope bench`: every family and variant,
# the published kernels beside the entries that reproduce them, cuBLAS and the device copy
# in the same run), the GPU traces of the catalog at teaching size, the SASS traces of every
# catalog kernel and of every program of tests/programs and examples/ with their launches'
# times — packed as OUT_DIR/pack.tgz in assets/replay's own layout, the logs as
# OUT_DIR/logs.tgz.
#   scripts/device/replay_pack.sh build|bench|large|traces|measure|all [OUT_DIR]
# `build` configures and builds BUILD (default build-device-src; the published kernels from
# PUBLISHED_DIR, default .sources/, when SGEMM_CUDA and xGeMM are there), `measure` runs
# what the pack holds with that build. Where one call is bounded (10 minutes), `measure`
# is run as its parts, `bench` (OUT_DIR/bench.json), `large` (OUT_DIR/bench_8192.json: the
# HGEMM ladder's top rungs at 8192 against cuBLAS HGEMM at 8192) and then `traces`
# (OUT_DIR/pack.tgz without either), at once one after the other on the same machine.
set -u
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
what=${1:-all}
case $what in build|bench|large|traces|measure|all) ;; *) echo "usage: scripts/device/replay_pack.sh build|bench|large|traces|measure|all [OUT_DIR]" >&2; exit 2 ;; esac
OUT_DIR=${2:-${OUT:-build-device/out}}
BUILD=${BUILD:-build-device-src}
mkdir -p "$OUT_DIR/logs"
L=$OUT_DIR/logs
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
PATH=$PATH:/usr/local/cuda/bin

if [ "$what" = build ] || [ "$what" = all ]; then
  b0=$(date +%s)
  arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d '.')
  [ "$arch" = 90 ] && arch=90a  # Hopper: its own target, which the wgmma rung needs
  PUBLISHED_DIR=${PUBLISHED_DIR:-$ROOT/.sources}
  [ -d "$PUBLISHED_DIR/SGEMM_CUDA" ] && [ -d "$PUBLISHED_DIR/xGeMM" ] || PUBLISHED_DIR=
  { cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DWARPSCOPE_CUDA=ON -DWARPSCOPE_GUI=OFF \
      -DCMAKE_CUDA_ARCHITECTURES="${arch:-90a}" -DWARPSCOPE_PUBLISHED_DIR="$PUBLISHED_DIR" &&
      ninja -C "$BUILD" warpscope warpscope_tracer ws_gpu_tool; } >"$L/build.txt" 2>&1
  rc=$?
  echo "build: rc=$rc, sm_${arch:-90a}, published kernels: ${PUBLISHED_DIR:-none}, $(( $(date +%s) - b0 )) s"
  [ $rc -eq 0 ] || { tail -30 "$L/build.txt"; exit 1; }
fi

W=$BUILD/warpscope
P=$OUT_DIR/pack
if [ "$what" = bench ] || [ "$what" = measure ] || [ "$what" = all ]; then
  mkdir -p "$P"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv >"$L/env.txt" 2>&1
  # Every timing in one run: each ladder against the reference measured beside it.
  t0=$(date +%s)
  timeout 570 "$W" bench --seconds "${BENCH_SECONDS:-0.4}" --out "$P/bench.json" >"$L/bench.txt" 2>"$L/bench.err"
  echo "bench: rc=$?, $(( $(date +%s) - t0 )) s"
  if [ "$what" = bench ]; then
    cp "$P/bench.json" "$L"/bench.txt "$L"/bench.err "$L"/env.txt "$OUT_DIR/" 2>/dev/null
    rm -rf "$P" "$L"
  fi
fi

if [ "$what" = large ] || [ "$what" = measure ] || [ "$what" = all ]; then
  # The tensor-core rungs at the larger size the ladder is also judged at, cuBLAS beside them.
  mkdir -p "$P"
  t0=$(date +%s)
  timeout 300 "$W" bench --kernel "${LARGE_KERNELS:-tc_mma_tuned,tc_wgmma,tc_wgmma_cluster}" --size 8192 \
    --seconds "${BENCH_SECONDS:-0.4}" --out "$P/bench_8192.json" >"$L/bench_8192.txt" 2>&1
  echo "large: rc=$?, $(( $(date +%s) - t0 )) s"
  if [ "$what" = large ]; then
    cp "$P/bench_8192.json" "$L"/bench_8192.txt "$OUT_DIR/" 2>/dev/null
    rm -rf "$P" "$L"
  fi
fi

if [ "$what" = traces ] || [ "$what" = measure ] || [ "$what" = all ]; then
  mkdir -p "$P/sass/catalog"
  TOOL=$(ls "$BUILD/tests/ws_gpu_tool" "$BUILD/ws_gpu_tool" 2>/dev/null | head -1)
  # The GPU traces of the catalog at teaching size (every block, the instrumented kernel).
  for spec in "transpose_tiled --size 64" "transpose_tiled --size 64 --set pad=1" "matmul_tiled --size 64" \
              "matmul_coarse2d_vec --size 128" "copy --size 4096" "copy --size 4096 --set vec=4" \
              "strided_copy --size 4096" "pmpp_exercise --size 1024" \
              "matmul_siboehm5 --size 128" "matmul_siboehm6 --size 128" "matmul_xgemm6 --size 128"; do
    set -- $spec
    name=$1; shift
    suffix=$(echo "$*" | grep -o 'pad=1\|vec=4' | sed 's/=//')
    timeout 60 "$TOOL" trace --kernel $name "$@" --out "$P/$name${suffix:+_$suffix}.wstrace" >>"$L/traces.txt" 2>&1
    echo "trace $name $*: rc=$?"
  done
  # Every catalog kernel's SASS, and every program traced whole with its launches' times.
  BUILD=$BUILD timeout 300 bash scripts/device/trace_catalog.sh "$OUT_DIR/cat" >"$L/catalog.txt" 2>&1
  echo "catalog: rc=$?, $(grep -c 'rc=0' "$L/catalog.txt") of $(grep -c 'rc=' "$L/catalog.txt") traced"
  cp "$OUT_DIR"/cat/catalog/*.wstrace "$P/sass/catalog/" 2>/dev/null
  BUILD=$BUILD timeout 420 bash scripts/device/trace_programs.sh "$OUT_DIR/prog" >"$L/programs.txt" 2>&1
  echo "programs: rc=$?, $(grep -c 'gpu rc=0' "$L/programs.txt") traced"
  cp "$OUT_DIR"/prog/sass/*.wstrace "$OUT_DIR"/prog/sass/programs.json "$P/sass/" 2>/dev/null
  cp "$OUT_DIR"/prog/*.txt "$L/" 2>/dev/null
  tar czf "$OUT_DIR/pack.tgz" -C "$P" .
  tar czf "$OUT_DIR/logs.tgz" -C "$OUT_DIR" --exclude='*.wstrace' logs cat/catalog
  echo "pack: $(tar tzf "$OUT_DIR/pack.tgz" | grep -c wstrace) traces, bench.json $(stat -c %s "$P/bench.json" 2>/dev/null) bytes"
  rm -rf "$P" "$OUT_DIR/cat" "$OUT_DIR/prog" "$OUT_DIR/logs"
fi
