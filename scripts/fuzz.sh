#!/usr/bin/env bash
# Fuzzes every reader of outside input with libFuzzer (Debian's clang), each target for
# SECONDS (default 60), from the seeds in tests/fuzz/corpus/NAME (copied: what a run finds
# stays in build-fuzz/corpus/NAME). Prints, per target: executions, coverage, and whether it
# found a crash (then the input is in build-fuzz/crash-NAME-*: add it to the corpus once
# fixed, and the ordinary tests replay it forever).
#   scripts/fuzz.sh [SECONDS] [TARGET...]
set -u
cd "$(dirname "$0")/.."
secs=${1:-60}
[ $# -gt 0 ] && shift
targets=${*:-wstrace bench_json ptx sass_raw sass_dis lesson progress deck params}
command -v clang++ >/dev/null || { echo "warpscope: fuzzing needs clang (apt-get install clang)"; exit 2; }
b=build-fuzz
CC=clang CXX=clang++ cmake -S . -B $b -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWARPSCOPE_FUZZ=ON \
  -DWARPSCOPE_CUDA=OFF -DWARPSCOPE_GUI=OFF >/dev/null || exit 1
# shellcheck disable=SC2046
cmake --build $b -j "$(nproc)" --target $(for t in $targets; do echo "fuzz_$t"; done) >/dev/null || exit 1
status=0
printf "%-11s %8s %12s %8s %6s %7s  %s\n" target seconds executions exec/s cov corpus result
for t in $targets; do
  mkdir -p "$b/corpus/$t"
  cp -n tests/fuzz/corpus/$t/* "$b/corpus/$t/" 2>/dev/null
  log="$b/fuzz-$t.log"
  (cd $b && ./tests/fuzz_$t -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024 \
     -max_len=65536 -artifact_prefix="crash-$t-" -print_final_stats=1 "corpus/$t" >"fuzz-$t.log" 2>&1)
  rc=$?
  execs=$(grep -o "stat::number_of_executed_units: *[0-9]*" "$log" | grep -o "[0-9]*$")
  rate=$(grep -o "stat::average_exec_per_sec: *[0-9]*" "$log" | grep -o "[0-9]*$")
  cov=$(grep -o "cov: [0-9]*" "$log" | tail -1 | grep -o "[0-9]*")
  corp=$(ls "$b/corpus/$t" | wc -l)
  result="no crash"
  [ $rc -ne 0 ] && { result="FOUND: $(grep -m1 -E "ERROR|==[0-9]+==|deadly signal|terminate" "$log")"; status=1; }
  printf "%-11s %8s %12s %8s %6s %7s  %s\n" "$t" "$secs" "${execs:-?}" "${rate:-?}" "${cov:-?}" "$corp" "$result"
done
exit $status
