#!/bin/bash
# compute-sanitizer's racecheck over the example programs and tests/programs, unmodified and
# with a barrier taken out, on the machine with the GPU:
#   scripts/device/racecheck_programs.sh [OUT_DIR]
# Each program is built with nvcc -lineinfo for this GPU and run under racecheck twice: the
# analysis report (one line per pair of racing source lines) and the hazard report (the
# threads). racecheck.tsv lists, per program, the line pairs racecheck named; it is what the
# emulated device's race reports are checked against (docs/validation.md).
set -u
cd "$(dirname "$0")/../.."
OUT_DIR=${1:-${OUT:-build-device/racecheck}}
W=$OUT_DIR/racecheck
mkdir -p "$W/bin" "$W/src"
export PATH=$PATH:/usr/local/cuda/bin
arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d '.')
arch=${arch:-90}

# name, sources, an edit (sed expression on the first source, "" for none), arguments
cases=(
  "reduction|examples/reduction.cu||"
  "reduction-nosync|examples/reduction.cu|21s/__syncthreads();//|"
  "transpose|examples/transpose.cu||"
  "transpose-nosync|examples/transpose.cu|24s/__syncthreads();//|"
  "histogram|examples/histogram.cu||"
  "histogram-nosync|examples/histogram.cu|21s/__syncthreads();//|"
  "strided_loop|examples/strided_loop.cu||"
  "matmul_tiled|tests/programs/matmul_tiled.cu||64"
  "matmul_tiled-nosync1|tests/programs/matmul_tiled.cu|20s/__syncthreads();//|64"
  "matmul_tiled-nosync2|tests/programs/matmul_tiled.cu|22s/__syncthreads();//|64"
  "tiled_reduce|tests/programs/tiled_reduce.cu||"
  "transpose_twin|tests/programs/transpose_twin.cu||"
  "stencil|tests/programs/stencil/stencil.cu||"
  "shared_atomics|tests/programs/atomics/shared_atomics.cu||"
  "global_atomics|tests/programs/atomics/global_atomics.cu||"
  "atomic_patterns|tests/programs/atomics/atomic_patterns.cu||"
  "partition_reduce|tests/programs/warp/partition_reduce.cu||"
  "vector_add|tests/programs/vector_add.cu||"
  "symbols|tests/programs/symbols.cu||"
)
printf 'program\tlines\thazards\tsummary\n' >"$W/racecheck.tsv"
for c in "${cases[@]}"; do
  IFS='|' read -r name src edit args <<<"$c"
  base=$(basename "$src")
  mkdir -p "$W/src/$name"
  cp "$(dirname "$src")"/* "$W/src/$name/" 2>/dev/null
  [ -n "$edit" ] && sed -i "$edit" "$W/src/$name/$base"
  if ! nvcc -O2 -lineinfo -arch=sm_$arch -I "$(dirname "$src")" -o "$W/bin/$name" "$W/src/$name/$base" >"$W/$name.build.txt" 2>&1; then
    printf '%s\tbuild failed\t\t\n' "$name" >>"$W/racecheck.tsv"; continue
  fi
  timeout 120 compute-sanitizer --tool racecheck --racecheck-report analysis "$W/bin/$name" $args >"$W/$name.analysis.txt" 2>&1
  timeout 120 compute-sanitizer --tool racecheck --racecheck-report hazard --print-limit 20 "$W/bin/$name" $args >"$W/$name.hazard.txt" 2>&1
  lines=$(grep -oE '[A-Za-z_]+\.cu:[0-9]+' "$W/$name.analysis.txt" | paste -sd' ' -)
  hz=$(grep -cE 'Error|Warning' "$W/$name.hazard.txt")
  summ=$(grep -m1 'RACECHECK SUMMARY' "$W/$name.analysis.txt" | sed 's/=* *//')
  printf '%s\t%s\t%s\t%s\n' "$name" "${lines:--}" "$hz" "$summ" >>"$W/racecheck.tsv"
done
cat "$W/racecheck.tsv"
tar -C "$OUT_DIR" -czf "$OUT_DIR/racecheck.tgz" racecheck
