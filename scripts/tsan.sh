#!/usr/bin/env bash
# ThreadSanitizer over the tests that run threads: the capture worker and the sessions it
# hands over (test_cli), the user's program in its child process and its runtime's threads
# (test_program), the emulator's fibers and block workers (test_emu), and the app's UI
# thread with its background sources (test_gui). A build of its own (build-tsan, no CUDA);
# exits non-zero on the first race report. Run from the source tree, as the tests expect.
#   scripts/tsan.sh [TEST...]        default: test_emu test_cli test_program test_gui
set -u
cd "$(dirname "$0")/.."
tests=${*:-test_emu test_cli test_program test_gui}
b=build-tsan
cmake -S . -B $b -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWARPSCOPE_TSAN=ON -DWARPSCOPE_CUDA=OFF >/dev/null || exit 1
# shellcheck disable=SC2086
cmake --build $b -j "$(nproc)" --target $tests >/dev/null || exit 1
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 history_size=4 ${TSAN_OPTIONS:-}"
status=0
for t in $tests; do
  s0=$(date +%s)
  "$b/tests/$t" >"$b/tsan-$t.log" 2>&1
  rc=$?
  races=$(grep -c "WARNING: ThreadSanitizer" "$b/tsan-$t.log")
  summary=$(grep -E "^\[doctest\] test cases" "$b/tsan-$t.log" | tail -1)
  printf "%-13s rc=%d  %d reports  %4d s  %s\n" "$t" "$rc" "$races" "$(( $(date +%s) - s0 ))" "$summary"
  [ "$rc" -ne 0 ] && status=1 && grep -m1 -A25 "WARNING: ThreadSanitizer" "$b/tsan-$t.log"
done
exit $status
