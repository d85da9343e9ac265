#!/bin/bash
# compute-sanitizer's four tools (memcheck, racecheck, synccheck, initcheck) over GPU builds
# of the example programs and tests/programs, on the machine with the GPU:
#   scripts/device/sanitize_programs.sh [OUT_DIR]
# Each program is built with nvcc -lineinfo for this GPU (a program that needs what this
# toolkit or GPU lacks is listed as not built, with nvcc's first error), then run once under
# each tool, several programs at a time. sanitize.tsv has a row per program and tool: the
# exit status and the tool's summary line. The programs written to race or fault
# (tests/programs/races, tests/programs/bad) are left out: their findings are the point.
set -u
cd "$(dirname "$0")/../.."
OUT_DIR=${1:-${OUT:-build-device/sanitize}}
W=$OUT_DIR/sanitize
mkdir -p "$W/bin" "$W/log"
export PATH=$PATH:/usr/local/cuda/bin
arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d '.')
arch=${arch:-90}
[ "$arch" = 90 ] && arch=90a  # the Hopper-only instructions some programs use
# Programs that check the runtime's refusals on purpose (an invalid symbol copy, a graph with
# a cycle, an unmapped host pointer, a cooperative launch too large): memcheck reports their
# refused calls as API errors, so for them it reports memory errors only.
deliberate=" graphs symbols zero_copy grid_sync "
# name|sources|arguments|libraries
cases=(
  "reduction|examples/reduction.cu||"
  "transpose|examples/transpose.cu||"
  "histogram|examples/histogram.cu||"
  "strided_loop|examples/strided_loop.cu||"
  "matmul_tiled|tests/programs/matmul_tiled.cu|64|"
  "tiled_reduce|tests/programs/tiled_reduce.cu||"
  "transpose_twin|tests/programs/transpose_twin.cu||"
  "vector_add|tests/programs/vector_add.cu||"
  "symbols|tests/programs/symbols.cu||"
  "threads|tests/programs/threads.cu||"
  "device_calls|tests/programs/device_calls.cu||"
  "graphs|tests/programs/graphs.cu||"
  "grid_sync|tests/programs/grid_sync.cu||"
  "zero_copy|tests/programs/zero_copy.cu||"
  "timing_loop|tests/programs/timing_loop.cu||"
  "async_copy|tests/programs/async_copy.cu||"
  "ldmatrix_swizzle|tests/programs/ldmatrix_swizzle.cu||"
  "tc_twin|tests/programs/tc_twin.cu||"
  "tma_box|tests/programs/tma_box.cu||-lcuda"
  "cublas_gemm|tests/programs/cublas_gemm.cu||-lcublas -lcublasLt"
  "stencil|tests/programs/stencil/stencil.cu||"
  "shared_atomics|tests/programs/atomics/shared_atomics.cu||"
  "global_atomics|tests/programs/atomics/global_atomics.cu||"
  "atomic_patterns|tests/programs/atomics/atomic_patterns.cu||"
  "partition_reduce|tests/programs/warp/partition_reduce.cu||"
)
for m in tests/programs/matrix/*.cu; do
  [ -f "$m" ] && cases+=("$(basename "$m" .cu)|$m||")
done

build() {
  IFS='|' read -r name srcs args libs <<<"$1"
  if nvcc -O2 -lineinfo -arch=sm_$arch -std=c++17 -o "$W/bin/$name" $srcs $libs >"$W/log/$name.build" 2>&1; then
    echo "$name built"
  else
    printf '%s\tbuild\t-\t%s\n' "$name" "$(grep -m1 -i error "$W/log/$name.build" | cut -c1-160)" >>"$W/notbuilt.tsv"
  fi
}
run_one() {  # name tool args
  local name=$1 tool=$2 args=$3 log=$W/log/$1.$2.txt extra=()
  [ "$tool" = racecheck ] && extra=(--racecheck-report analysis)
  case "$deliberate" in *" $name "*) [ "$tool" = memcheck ] && extra=(--report-api-errors no) ;; esac
  timeout 120 compute-sanitizer --tool "$tool" "${extra[@]}" --error-exitcode 9 "$W/bin/$name" $args >"$log" 2>&1
  local rc=$?
  printf '%s\t%s\t%s\t%s\n' "$name" "$tool" "$rc" \
    "$(grep -m1 -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | sed 's/^========= //')"
}
export -f build run_one
export W arch deliberate
: >"$W/notbuilt.tsv"
printf '%s\n' "${cases[@]}" | xargs -P 8 -I{} bash -c 'build "$@"' _ {} >"$W/build.txt" 2>&1
printf 'program\ttool\trc\tsummary\n' >"$W/sanitize.tsv"
jobs=()
for c in "${cases[@]}"; do
  IFS='|' read -r name srcs args libs <<<"$c"
  [ -x "$W/bin/$name" ] || continue
  for tool in memcheck racecheck synccheck initcheck; do jobs+=("$name|$tool|$args"); done
done
printf '%s\n' "${jobs[@]}" | xargs -P 6 -I{} bash -c 'IFS="|" read -r n t a <<<"$1"; run_one "$n" "$t" "$a"' _ {} \
  | sort >>"$W/sanitize.tsv"
cat "$W/notbuilt.tsv" >>"$W/sanitize.tsv"
ran=$(tail -n +2 "$W/sanitize.tsv" | awk -F'\t' '$2 != "build"' | wc -l)
clean=$(tail -n +2 "$W/sanitize.tsv" | awk -F'\t' '$2 != "build" && $3 == 0' | wc -l)
echo "sanitize programs: $ran runs, $clean clean, $(wc -l <"$W/notbuilt.tsv") not built (table: sanitize/sanitize.tsv)"
