#!/usr/bin/env bash
# Builds warpscope with AddressSanitizer + UndefinedBehaviorSanitizer and runs every test.
# GPU tests (label "gpu") report "skipped" on machines without an NVIDIA GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
build=${WS_TEST_BUILD:-build-test}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWARPSCOPE_SANITIZE=ON -DWARPSCOPE_BENCHES=OFF >/dev/null
cmake --build "$build" -j "$(nproc)"
# intercept_tls_get_addr=0: GCC 12's runtime takes a dynamic TLS block that happens to start at
# a certain offset in its page for an old glibc's block with a header, reads the words before
# it as an address and a size, and LeakSanitizer's scan at exit then dies on them ("Tracer
# caught signal 11", no leak reported) now and then in a process that loads GL or CUDA.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:intercept_tls_get_addr=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/tests/lsan.supp}
ctest --test-dir "$build" --output-on-failure -j "$(nproc)"
# The fuzz targets' short form: every reader of outside input fuzzed for WS_FUZZ_SECONDS
# (default 20, 0 skips it; scripts/fuzz.sh alone runs a minute each) with libFuzzer, one target per core; a finding fails the run
# (scripts/fuzz.sh prints the table and where the input is).
secs=${WS_FUZZ_SECONDS:-20}
if [ "$secs" -gt 0 ]; then
  FUZZ_SEED=${FUZZ_SEED:-1} scripts/fuzz.sh "$secs"
fi
