#!/bin/bash
# The SGEMM ladder past the textbook on this machine's GPU: build with the published kernels, SASS traces of the new entries,
# the matmul_tuned search, the sgemm family against cuBLAS (with SGEMM_CUDA 10/11 beside),
# the new rungs at 1024..8192.
set -u
OUT=${OUT:-/tmp/out}
export PATH=$PATH:/usr/local/cuda/bin
t0=$(date +%s)
B=build-sgemm-ladder
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv > $OUT/gpu.txt 2>&1
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DWARPSCOPE_CUDA=ON -DWARPSCOPE_GUI=OFF -DWARPSCOPE_TESTS=OFF \
  -DCMAKE_CUDA_ARCHITECTURES=90 -DWARPSCOPE_PUBLISHED_DIR=${PUBLISHED_DIR:-$PWD/.sources} > $OUT/build.txt 2>&1 &&
  ninja -C $B warpscope warpscope_tracer >> $OUT/build.txt 2>&1
rc=$?; echo "build rc=$rc $(( $(date +%s) - t0 )) s"; [ $rc -ne 0 ] && { grep -B2 -A8 -m5 error $OUT/build.txt | head -60; exit 1; }
mkdir -p $OUT/sass
for k in matmul_warptile matmul_double_buffer matmul_tuned; do
  timeout 60 $B/warpscope sass --kernel $k --out $OUT/sass/$k.wstrace > $OUT/sass/$k.txt 2>&1; echo "sass $k rc=$?"
done
s0=$(date +%s)
for wn in 32 64; do for g in 1 2 4 8 16; do
  echo "# wn=$wn group=$g"
  timeout 40 $B/warpscope bench -k matmul_tuned --set wn=$wn --set group=$g --no-overhead --no-zero-cost --seconds 0.3 2>&1 | grep -E "^(cuBLAS|matmul_tuned)"
done; done > $OUT/search.txt 2>&1
echo "search $(( $(date +%s) - s0 )) s"; grep matmul_tuned $OUT/search.txt
s0=$(date +%s)
for n in 1024 2048 8192; do
  timeout 60 $B/warpscope bench -k matmul_xgemm6,matmul_warptile,matmul_double_buffer,matmul_tuned --size $n --no-overhead --no-zero-cost --no-variants --seconds 0.2 > $OUT/sizes-$n.txt 2>&1
  grep -E "^(cuBLAS|matmul_)" $OUT/sizes-$n.txt
done
echo "sizes $(( $(date +%s) - s0 )) s"
s0=$(date +%s)
timeout 300 $B/warpscope bench --family sgemm --seconds 0.2 --out $OUT/bench-sgemm-h100.json > $OUT/bench.txt 2>&1
echo "bench rc=$? $(( $(date +%s) - s0 )) s"; cat $OUT/bench.txt | head -40
echo "total $(( $(date +%s) - t0 )) s"
cd $OUT && tar czf results.tgz sass search.txt sizes-*.txt bench.txt bench-sgemm-h100.json gpu.txt build.txt && rm -rf sass sizes-*.txt
