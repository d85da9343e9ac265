#!/bin/bash
# The SGEMM ladder past the textbook on this machine's GPU: build with the published kernels
# (PUBLISHED_DIR: checkouts of SGEMM_CUDA and xGeMM, default .sources/), the matmul_tuned
# search (bk × wn × group at 4096, the fastest setting picked), SASS traces of the new entries
# (matmul_tuned at that setting), the new rungs at 1024, 2048 and 8192, the tuned setting's
# bench row, and the sgemm family against cuBLAS with SGEMM_CUDA's kernels beside. Results
# packed into $OUT/results.tgz (a device run returns only a few files).
set -u
OUT=${OUT:-/tmp/out}
export PATH=$PATH:/usr/local/cuda/bin
t0=$(date +%s)
B=build-sgemm-ladder
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv > $OUT/gpu.txt 2>&1
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DWARPSCOPE_CUDA=ON -DWARPSCOPE_GUI=OFF -DWARPSCOPE_TESTS=OFF \
  -DCMAKE_CUDA_ARCHITECTURES=90a -DWARPSCOPE_PUBLISHED_DIR=${PUBLISHED_DIR:-$PWD/.sources} > $OUT/build.txt 2>&1 &&
  ninja -C $B warpscope warpscope_tracer >> $OUT/build.txt 2>&1
rc=$?; echo "build rc=$rc $(( $(date +%s) - t0 )) s"; [ $rc -ne 0 ] && { grep -B2 -A8 -m5 error $OUT/build.txt | head -60; exit 1; }
s0=$(date +%s)
for bk in 8 16; do for wn in 32 64; do for g in 1 2 4 8 16; do
  ms=$(timeout 40 $B/warpscope bench -k matmul_tuned --set bk=$bk --set wn=$wn --set group=$g --no-overhead --no-zero-cost --seconds 0.3 2>&1 | tee -a $OUT/search-full.txt | awk '/^matmul_tuned/{print $0}')
  echo "bk=$bk wn=$wn group=$g | $ms"
done; done; done > $OUT/search.txt 2>&1
echo "search $(( $(date +%s) - s0 )) s"; cat $OUT/search.txt; grep -m1 "^cuBLAS" $OUT/search-full.txt
best=$(python3 - $OUT/search.txt <<'PY'
import sys
rows=[]
for line in open(sys.argv[1]):
    if '|' not in line: continue
    head, tail = line.split('|', 1)
    f = tail.split()
    if '4096' in f and f.index('4096') + 1 < len(f):
        try: rows.append((float(f[f.index('4096') + 1]), head.strip()))
        except ValueError: pass
print(min(rows)[1] if rows else 'bk=8 wn=64 group=8')
PY
)
echo "best: $best"
sets=$(echo $best | sed -E 's/(bk|wn|group)=/--set \1=/g')
mkdir -p $OUT/sass
for k in matmul_warptile matmul_double_buffer; do
  timeout 60 $B/warpscope sass --kernel $k --out $OUT/sass/$k.wstrace > $OUT/sass/$k.txt 2>&1; echo "sass $k rc=$?"
done
timeout 60 $B/warpscope sass --kernel matmul_tuned $sets --out $OUT/sass/matmul_tuned.wstrace > $OUT/sass/matmul_tuned.txt 2>&1; echo "sass tuned ($sets) rc=$?"
s0=$(date +%s)
for n in 1024 2048 8192; do
  timeout 60 $B/warpscope bench -k matmul_xgemm6,matmul_warptile,matmul_double_buffer --size $n --no-overhead --no-zero-cost --no-variants --seconds 0.2 > $OUT/sizes-$n.txt 2>&1
  timeout 60 $B/warpscope bench -k matmul_tuned $sets --size $n --no-overhead --no-zero-cost --no-variants --seconds 0.2 >> $OUT/sizes-$n.txt 2>&1
  grep -E "^(cuBLAS|matmul_)" $OUT/sizes-$n.txt
done
echo "sizes $(( $(date +%s) - s0 )) s"
s0=$(date +%s)
timeout 60 $B/warpscope bench -k matmul_tuned $sets --seconds 0.3 --out $OUT/bench-tuned-h100.json > $OUT/bench-tuned.txt 2>&1
echo "tuned bench rc=$? $(( $(date +%s) - s0 )) s"; grep -E "^(cuBLAS|matmul_)" $OUT/bench-tuned.txt
s0=$(date +%s)
left=$(( 570 - ($(date +%s) - t0) )); [ $left -lt 30 ] && left=30
timeout $left $B/warpscope bench --family sgemm --seconds 0.2 --out $OUT/bench-sgemm-h100.json > $OUT/bench.txt 2>&1
echo "bench rc=$? $(( $(date +%s) - s0 )) s"; head -40 $OUT/bench.txt
echo "total $(( $(date +%s) - t0 )) s"
cd $OUT && tar czf results.tgz sass search.txt search-full.txt sizes-*.txt bench*.txt bench-*.json gpu.txt build.txt && rm -rf sass sizes-*.txt
