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
b0=$(date +%s)
{ cmake -S . -B build-tracer -G Ninja -DCMAKE_BUILD_TYPE=Release -DWARPSCOPE_CUDA=ON -DWARPSCOPE_GUI=OFF \
    -DWARPSCOPE_TESTS=OFF -DCMAKE_CUDA_ARCHITECTURES="${arch:-90}" &&
  ninja -C build-tracer warpscope warpscope_tracer; } >"$OUT_DIR/build.txt" 2>&1 || { tail -30 "$OUT_DIR/build.txt"; exit 1; }
echo "build: $(( $(date +%s) - b0 )) s"
W=build-tracer/warpscope
for p in tests/programs/*.cu examples/*.cu; do
  n=$(basename "$p" .cu)
  args=""
  case $n in matmul_tiled) args="-- 64";; esac
  keep=""
  blocks=""
  case $n in transpose_twin|reduction|histogram) keep="$OUT_DIR/fixtures/$n";; matmul_tiled) keep="$OUT_DIR/fixtures/$n"; blocks="--blocks 0-1";; esac
  t0=$(date +%s.%N)
  WARPSCOPE_KEEP_GPU_RAW=$keep timeout 120 $W run "$p" --backend gpu $blocks --format json --out "$OUT_DIR/sass/$n.wstrace" $args \
    >"$OUT_DIR/$n.gpu.json" 2>"$OUT_DIR/$n.gpu.err"
  rc=$?
  t1=$(date +%s.%N)
  timeout 300 $W run "$p" --backend emulator --format json $args >"$OUT_DIR/$n.emu.json" 2>"$OUT_DIR/$n.emu.err"
  rce=$?
  echo "$n: gpu rc=$rc ($(awk "BEGIN{printf \"%.1f\", $t1 - $t0}") s), emulator rc=$rce; $(head -c 300 "$OUT_DIR/$n.gpu.err")"
done
# The three levels of the textbook tiled SGEMM, recorded on this GPU and on the emulated device.
timeout 300 $W run tests/programs/matmul_tiled.cu --backend gpu --levels -- 64 >"$OUT_DIR/matmul_levels.txt" 2>&1
echo "levels: rc=$?"; grep -A4 "matmul_tiled.cu:21" "$OUT_DIR/matmul_levels.txt"
# Plain vs traced, whole program (the tracer's cost on top of nvcc-built code), and the
# kernel alone as the program's own events time it.
nvcc -arch=sm_${arch:-90} -lineinfo -O3 tests/programs/matmul_tiled.cu -o /tmp/mm
TR=build-tracer/gpu_tracer
for i in 1 2; do
  /usr/bin/time -f "plain %e s" /tmp/mm 1024 >/dev/null
  CUDA_INJECTION64_PATH=$PWD/$TR/libwarpscope_tracer.so WARPSCOPE_GPU_TRACE=/tmp/mm.raw /usr/bin/time -f "traced all blocks %e s" /tmp/mm 1024 >/dev/null
  CUDA_INJECTION64_PATH=$PWD/$TR/libwarpscope_tracer.so WARPSCOPE_GPU_TRACE=/tmp/mm.raw WARPSCOPE_TRACE_BLOCKS=0-3 /usr/bin/time -f "traced blocks 0-3 %e s" /tmp/mm 1024 >/dev/null
done 2>&1
ls -la /tmp/mm.raw
# The kernel alone, plain (ncu's duration), beside the tracer's time of the same launch
# (its patches' work included): the instrumented / plain ratio.
ncu --metrics gpu__time_duration.sum --csv /tmp/mm 1024 2>/dev/null | grep -i "gpu__time" | head -2 | sed "s/^/plain kernel: /"
for blocks in all 0-3; do
  WARPSCOPE_KEEP_GPU_RAW=/tmp/keep_$blocks timeout 300 build-tracer/warpscope run tests/programs/matmul_tiled.cu --backend gpu \
    --blocks $blocks --format json -- 1024 >/tmp/mm_$blocks.json 2>&1
  python3 - "/tmp/keep_$blocks/gpu.raw" "$blocks" <<'PY'
import struct, sys
b = open(sys.argv[1], 'rb').read(); at = 16
while at + 16 <= len(b):
    t, _, n = struct.unpack_from('<IIQ', b, at); at += 16
    if t == 3:
        executed, kept = struct.unpack_from('<QQ', b, at + 48)
        ns = struct.unpack_from('<Q', b, at + 72)[0]
        print('traced (%s): %.3f ms, %d warp instructions, %d kept' % (sys.argv[2], ns / 1e6, executed, kept))
    at += n
PY
done
