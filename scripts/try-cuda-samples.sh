#!/usr/bin/env bash
# Runs programs of NVIDIA's cuda-samples, unmodified with their helper headers, on the
# emulated device, and says which ran: `scripts/try-cuda-samples.sh DIR` where DIR is a
# checkout of https://github.com/NVIDIA/cuda-samples (its code never enters this repository).
# Needs a built `build/warpscope` (or WARPSCOPE=path) and nvcc.
set -u
dir=${1:?usage: scripts/try-cuda-samples.sh CUDA_SAMPLES_DIR}
ws=${WARPSCOPE:-$(dirname "$0")/../build/warpscope}
[ -x "$ws" ] || { echo "no warpscope at $ws: build first (or set WARPSCOPE)"; exit 1; }
samples=(
  "0_Introduction/vectorAdd/vectorAdd.cu"
  "0_Introduction/simplePrintf/simplePrintf.cu"
  "0_Introduction/asyncAPI/asyncAPI.cu"
  "0_Introduction/simpleAtomicIntrinsics/simpleAtomicIntrinsics.cu 0_Introduction/simpleAtomicIntrinsics/simpleAtomicIntrinsics_cpu.cpp"
  "0_Introduction/matrixMul/matrixMul.cu -- -wA=64 -hA=64 -wB=64 -hB=64"
  "6_Performance/transpose/transpose.cu"
)
fail=0
for s in "${samples[@]}"; do
  read -r -a words <<<"$s"
  args=()
  for w in "${words[@]}"; do
    case $w in *.cu|*.cpp) args+=("$dir/Samples/$w") ;; *) args+=("$w") ;; esac
  done
  name=$(basename "${words[0]}" .cu)
  if out=$("$ws" run "${args[0]}" -I"$dir/Common" --timeout 600 "${args[@]:1}" 2>&1) &&
     ! grep -qiE "FAILED|error" <<<"$(grep -vE '^ +[0-9]+ |^[^ ]+:[0-9]+ ' <<<"$out")"; then
    echo "ran     $name ($(grep -c '^kernel ' <<<"$out") kernels reported)"
  else
    echo "FAILED  $name"; echo "$out" | grep -iE "error|fail" | head -3 | sed 's/^/        /'; fail=1
  fi
done
exit $fail
