#!/usr/bin/env bash
# Fuzzes every reader of outside input with libFuzzer (Debian's clang), each target for
# SECONDS (default 60), from the seeds in tests/fuzz/corpus/NAME (copied: what a run finds
# stays in build-fuzz/corpus/NAME). Runs one target per core at a time (FUZZ_JOBS to
# change it). Prints, per target: executions, coverage, and whether it found a crash (then
# the input is in build-fuzz/crash-NAME-*: add it to the corpus once fixed, and the
# ordinary tests replay it forever). Exits 1 when a target found something. FUZZ_SEED fixes
# libFuzzer's seed (the test command's short runs use one, so that a run can be repeated).
#   scripts/fuzz.sh [SECONDS] [TARGET...]
set -u
cd "$(dirname "$0")/.."
secs=${1:-60}
[ $# -gt 0 ] && shift
targets=${*:-wstrace bench_json ptx ptx_run runtime sass_raw sass_dis lesson progress deck settings params}
command -v clang++ >/dev/null || { echo "warpscope: fuzzing needs clang (apt-get install clang)"; exit 2; }
b=build-fuzz
CC=clang CXX=clang++ cmake -S . -B $b -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWARPSCOPE_FUZZ=ON \
  -DWARPSCOPE_CUDA=OFF -DWARPSCOPE_GUI=OFF >/dev/null || exit 1
# shellcheck disable=SC2046
cmake --build $b -j "$(nproc)" --target $(for t in $targets; do echo "fuzz_$t"; done) >"$b/build.log" 2>&1 ||
  { tail -30 "$b/build.log"; exit 1; }
fuzz_one() {  # target seconds: one run, its exit status in fuzz-NAME.rc
  local t=$1
  mkdir -p "corpus/$t"
  cp -n "../tests/fuzz/corpus/$t"/* "corpus/$t/" 2>/dev/null
  ./tests/fuzz_"$t" -max_total_time="$2" ${FUZZ_SEED:+-seed=$FUZZ_SEED} -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024 \
    -max_len=65536 -artifact_prefix="crash-$t-" -print_final_stats=1 "corpus/$t" >"fuzz-$t.log" 2>&1
  echo $? >"fuzz-$t.rc"
}
export -f fuzz_one
export FUZZ_SEED
(cd $b && printf '%s\n' $targets | xargs -P "${FUZZ_JOBS:-$(nproc)}" -I{} bash -c 'fuzz_one {} '"$secs")
status=0
printf "%-11s %8s %12s %8s %6s %7s  %s\n" target seconds executions exec/s cov corpus result
for t in $targets; do
  log="$b/fuzz-$t.log"
  rc=$(cat "$b/fuzz-$t.rc" 2>/dev/null || echo 1)
  execs=$(grep -o "stat::number_of_executed_units: *[0-9]*" "$log" | grep -o "[0-9]*$" | tail -1)
  rate=$(grep -o "stat::average_exec_per_sec: *[0-9]*" "$log" | grep -o "[0-9]*$" | tail -1)
  cov=$(grep -o "cov: [0-9]*" "$log" | tail -1 | grep -o "[0-9]*")
  corp=$(ls "$b/corpus/$t" | wc -l)
  result="no crash"
  [ "$rc" -ne 0 ] && { result="FOUND: $(grep -m1 -E "ERROR|==[0-9]+==|deadly signal|terminate|runtime error" "$log")"; status=1; }
  printf "%-11s %8s %12s %8s %6s %7s  %s\n" "$t" "$secs" "${execs:-?}" "${rate:-?}" "${cov:-?}" "$corp" "$result"
done
exit $status
