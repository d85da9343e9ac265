#!/usr/bin/env bash
# The corpus runner: public CUDA programs, unmodified, run on the emulated device with the
# command a user would type, each judged by its own check (its exit status and its own
# PASS/FAIL lines). The programs' code never enters this repository: they are read from
# CORPUS, a folder holding any of
#   cuda-samples/  https://github.com/NVIDIA/cuda-samples
#   llm.c/         https://github.com/karpathy/llm.c        (dev/cuda)
#   SGEMM_CUDA/    https://github.com/siboehm/SGEMM_CUDA
#   xGeMM/         https://github.com/tgautam03/xGeMM
#
#   scripts/try-cuda-samples.sh CORPUS [--only REGEX] [--timeout S] [--jobs N] [--engine E] [--table FILE] [--list]
#
# --engine compiled|interpreter: the emulated device's engine (warpscope run --engine; default
# compiled), so that the two can be timed on the same rows.
#
# Each program ends as one of
#   pass     exit 0 and no failure line of its own
#   refused  warpscope stopped it with one line naming what the emulated device lacks
#   slow     it did not finish within the timeout (the emulated device is ~1e4x slower)
#   fail     it failed its own check or crashed, with what it printed last
#   SILENT   exit 0 but its own check printed a failure: wrong in silence (the worst case)
# --table writes the markdown table docs/programs.md carries. The exit status is 1 when any
# program ends SILENT, else 0. Needs `build/warpscope` (or WARPSCOPE=path) and nvcc.
set -u
corpus=${1:?usage: scripts/try-cuda-samples.sh CORPUS [--only REGEX] [--timeout S] [--jobs N] [--engine E] [--table FILE] [--list]}
shift
only=. timeout=120 table="" list=0 jobs=1 engine=compiled
while [ $# -gt 0 ]; do
  case $1 in
    --only) only=$2; shift 2 ;;
    --timeout) timeout=$2; shift 2 ;;
    --table) table=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --engine) engine=$2; shift 2 ;;
    --list) list=1; shift ;;
    *) echo "unknown option $1"; exit 2 ;;
  esac
done
ws=${WARPSCOPE:-$(cd "$(dirname "$0")/.." && pwd)/build/warpscope}
[ "$list" = 1 ] || [ -x "$ws" ] || { echo "no warpscope at $ws: build first (or set WARPSCOPE)"; exit 2; }

# One program a line: id | folder to run in (under CORPUS) | sources (in that folder) |
# warpscope flags (paths under CORPUS written as @/...) | the program's arguments.
entries=()
add() { entries+=("$1|$2|$3|$4|$5"); }

# NVIDIA's samples that a single machine with one GPU runs (multi-GPU, IPC and the
# graphics interop ones left out): every .cu/.cpp of the sample's folder, its Common headers.
samples="0_Introduction/asyncAPI 0_Introduction/clock 0_Introduction/fp16ScalarProduct
0_Introduction/matrixMul 0_Introduction/mergeSort 0_Introduction/simpleAssert
0_Introduction/simpleAtomicIntrinsics 0_Introduction/simpleAttributes 0_Introduction/simpleCallback
0_Introduction/simpleCooperativeGroups 0_Introduction/simpleHyperQ 0_Introduction/simpleMultiCopy
0_Introduction/simpleOccupancy 0_Introduction/simplePitchLinearTexture 0_Introduction/simplePrintf
0_Introduction/simpleStreams 0_Introduction/simpleTemplates 0_Introduction/simpleTexture
0_Introduction/simpleVoteIntrinsics 0_Introduction/simpleZeroCopy 0_Introduction/systemWideAtomics
0_Introduction/template 0_Introduction/vectorAdd
2_Concepts_and_Techniques/convolutionSeparable 2_Concepts_and_Techniques/dct8x8
2_Concepts_and_Techniques/eigenvalues 2_Concepts_and_Techniques/histogram
2_Concepts_and_Techniques/inlinePTX 2_Concepts_and_Techniques/interval
2_Concepts_and_Techniques/reduction 2_Concepts_and_Techniques/reductionMultiBlockCG
2_Concepts_and_Techniques/scalarProd 2_Concepts_and_Techniques/scan
2_Concepts_and_Techniques/shfl_scan 2_Concepts_and_Techniques/sortingNetworks
2_Concepts_and_Techniques/streamOrderedAllocation 2_Concepts_and_Techniques/threadFenceReduction
3_CUDA_Features/StreamPriorities 3_CUDA_Features/binaryPartitionCG 3_CUDA_Features/cdpSimplePrint
3_CUDA_Features/cudaTensorCoreGemm 3_CUDA_Features/graphMemoryNodes 3_CUDA_Features/jacobiCudaGraphs
3_CUDA_Features/bf16TensorCoreGemm 3_CUDA_Features/tf32TensorCoreGemm 3_CUDA_Features/immaTensorCoreGemm
3_CUDA_Features/dmmaTensorCoreGemm
3_CUDA_Features/newdelete 3_CUDA_Features/simpleCudaGraphs 3_CUDA_Features/warpAggregatedAtomicsCG
4_CUDA_Libraries/batchCUBLAS 4_CUDA_Libraries/conjugateGradientMultiBlockCG
4_CUDA_Libraries/matrixMulCUBLAS 4_CUDA_Libraries/simpleCUBLAS
5_Domain_Specific/BlackScholes 5_Domain_Specific/SobolQRNG 5_Domain_Specific/binomialOptions
5_Domain_Specific/dwtHaar1D 5_Domain_Specific/dxtc 5_Domain_Specific/fastWalshTransform
5_Domain_Specific/quasirandomGenerator 5_Domain_Specific/stereoDisparity
6_Performance/LargeKernelParameter 6_Performance/UnifiedMemoryPerf 6_Performance/alignedTypes
6_Performance/transpose"
if [ -d "$corpus/cuda-samples/Samples" ]; then
  for s in $samples; do
    d=$corpus/cuda-samples/Samples/$s
    [ -d "$d" ] || continue
    srcs=$(cd "$d" && ls *.cu *.cpp *.c 2>/dev/null | tr '\n' ' ')
    flags="-I @/cuda-samples/Common"
    grep -qlE 'cublas' "$d"/*.c* 2>/dev/null && flags="$flags -lcublas"
    add "cuda-samples/${s#*/}" "cuda-samples/Samples/$s" "$srcs" "$flags" ""
  done
  # The asynchronous-copy samples: simpleAWBarrier as it is, globalToShmemAsyncCopy at a
  # size its flags allow (its default multiplies 1280 x 1280 matrices a hundred times).
  s=0_Introduction/simpleAWBarrier
  [ -d "$corpus/cuda-samples/Samples/$s" ] && add "cuda-samples/${s#*/}" "cuda-samples/Samples/$s" "simpleAWBarrier.cu" "-I @/cuda-samples/Common" ""
  s=3_CUDA_Features/globalToShmemAsyncCopy
  [ -d "$corpus/cuda-samples/Samples/$s" ] && add "cuda-samples/${s#*/}" "cuda-samples/Samples/$s" "globalToShmemAsyncCopy.cu" "-I @/cuda-samples/Common" "-wA=128 -hA=128 -wB=128 -hB=128"
fi

# llm.c's kernels as its Makefile builds them (sizes are fixed in their text: most are
# far past what an emulated device finishes, and end "slow").
if [ -d "$corpus/llm.c/dev/cuda" ]; then
  for f in "$corpus"/llm.c/dev/cuda/*.cu; do
    n=$(basename "$f" .cu)
    case $n in nccl_all_reduce) continue ;; esac
    add "llm.c/$n" "llm.c/dev/cuda" "$n.cu" "-O3 --use_fast_math -lcublas -lcublasLt -std=c++17" "1"
  done
fi

# SGEMM_CUDA: the runner and every kernel, kernel 1 (naive) checked against cuBLAS.
if [ -d "$corpus/SGEMM_CUDA/src" ]; then
  add "SGEMM_CUDA/sgemm 1" "SGEMM_CUDA" "sgemm.cu src/runner.cu" "-I @/SGEMM_CUDA/src -lcublas -std=c++17" "1"
fi
# xGeMM: each step of its ladder, with its own check against cuBLAS.
if [ -d "$corpus/xGeMM/src" ]; then
  for f in "$corpus"/xGeMM/test/0[1-9]*.cu; do
    [ -e "$f" ] || continue
    n=$(basename "$f" .cu)
    k=$(cd "$corpus/xGeMM/src" && ls "${n%%_*}"_*.cu)
    add "xGeMM/$n" "xGeMM" "src/MatrixFP32.cu src/utils.cu src/$k test/$n.cu" "-I @/xGeMM/include -lcublas" ""
  done
fi

if [ "$list" = 1 ]; then
  printf '%s\n' "${entries[@]}" | cut -d'|' -f1
  exit 0
fi

# What warpscope says when the emulated device lacks something: the refusal's one line.
refusal_re='not implemented|does not provide|cannot run: |not supported by the emulated|the emulated device cannot|refused'
fail_re='FAIL|[Ff]ailed|[Mm]ismatch|Test failed|incorrect'
# One program: its verdict line, "VERDICT|ID|SECONDS|WHAT IT SAID".
judge() {
  local id=$1 dir=$2 srcs=$3 flags=$4 args=$5 t0 out rc secs own said verdict
  flags=${flags//@/$corpus}
  t0=$(date +%s)
  # shellcheck disable=SC2086
  out=$(cd "$corpus/$dir" && "$ws" run $srcs $flags --backend emulator --engine "$engine" --timeout "$timeout" -- $args 2>&1)
  rc=$?
  secs=$(( $(date +%s) - t0 ))
  # The program's own output: what it printed before warpscope's report began.
  own=$(awk '/^kernel  +[^ ]/{exit} !/^warpscope/{print}' <<<"$out")
  said=$(grep -E "$refusal_re" <<<"$out" | head -1)
  # A sample that finds a feature missing from the device it asked about waives itself
  # (exit 2): the emulated device said it lacks it.
  [ -z "$said" ] && [ $rc -eq 2 ] && said=$(grep -iE 'waiv|not support|requires' <<<"$own" | head -1)
  if [ $rc -eq 124 ] || grep -qE 'did not finish within' <<<"$out"; then
    verdict=slow; said="no end within ${timeout} s"
  elif [ -n "$said" ]; then
    verdict=refused
  elif [ $rc -eq 0 ] && ! grep -qE "$fail_re" <<<"$own"; then
    verdict=pass; said=$(grep -iE 'PASS|passed|correct|OK|match' <<<"$own" | tail -1)
  elif [ $rc -eq 0 ]; then
    verdict=SILENT; said=$(grep -E "$fail_re" <<<"$own" | head -1)
  else
    verdict=fail; said=$( (grep -E '^warpscope' <<<"$out"; grep -E "$fail_re" <<<"$own") | head -1)
    [ -n "$said" ] || said="exit $rc: $(tail -1 <<<"$out")"
  fi
  said=$(tr -d '|`' <<<"$said" | cut -c1-140)
  echo "$verdict|$id|$secs|$said"
}

rowdir=$(mktemp -d)
trap 'rm -rf "$rowdir"' EXIT
i=0
for e in "${entries[@]}"; do
  IFS='|' read -r id dir srcs flags args <<<"$e"
  [[ $id =~ $only ]] || continue
  i=$((i + 1))
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do sleep 0.5; done
  { r=$(judge "$id" "$dir" "$srcs" "$flags" "$args"); echo "$r" >"$rowdir/$(printf %04d $i)";
    IFS='|' read -r v n sec w <<<"$r"; printf '%-8s %-45s %5ss  %s\n' "$v" "$n" "$sec" "$w"; } &
done
wait
rows=() silent=0
for f in "$rowdir"/*; do
  [ -e "$f" ] || continue
  IFS='|' read -r v n sec w <"$f"
  [ "$v" = SILENT ] && silent=1
  rows+=("| \`$n\` | $v | $sec | $w |")
done
echo "pass $(grep -l '^pass|' "$rowdir"/* 2>/dev/null | wc -l), refused $(grep -l '^refused|' "$rowdir"/* 2>/dev/null | wc -l), slow $(grep -l '^slow|' "$rowdir"/* 2>/dev/null | wc -l), fail $(grep -l '^fail|' "$rowdir"/* 2>/dev/null | wc -l), SILENT $(grep -l '^SILENT|' "$rowdir"/* 2>/dev/null | wc -l) of $i"

if [ -n "$table" ]; then
  {
    echo "| program | result | seconds | what it said |"
    echo "|---|---|---:|---|"
    printf '%s\n' "${rows[@]}"
  } >"$table"
  echo "table: $table"
fi
exit $silent
