// Device code that calls as C++ does, run whole on the emulated device: recursion, function
// pointers and virtual methods (tests/programs/device_calls.cu checks every thread's results
// itself), and recursion deeper than the emulated stack, which fails the launch in one line.
// Skipped where nvcc is missing.
#include <doctest/doctest.h>

#include <string>

#include "program/program.h"

using namespace ws;

namespace {

program::Result run_program(const std::string& file, std::vector<std::string> args = {}) {
  program::Options o;
  o.source = "tests/programs/" + file;
  o.args = std::move(args);
  o.echo = false;
  o.timeout_seconds = 120;
  return program::run(o);
}

}  // namespace

TEST_CASE("device_calls.cu: recursion, calls through function pointers and virtual methods") {
  if (program::find_nvcc().empty()) return;
  const program::Result r = run_program("device_calls.cu");
  INFO(r.output);
  CHECK(r.exit_code == 0);
  // fib(15) = 610; 11 + 10 + ... + 1 = 66; lanes 0, 1, 2 call add, sub, mul on (t + 10, 3);
  // a square of side 0, a triangle of base 1 and height 2, a disc of radius 2 (as 3 r²).
  CHECK(r.output.find("fib(15) = 610, chain(11) sums to 66, ops: 13 8 36, areas: 0 1 12") != std::string::npos);
  CHECK(r.output.find("PASSED") != std::string::npos);
}

TEST_CASE("device_calls.cu deep: recursion past the emulated stack fails its launch in one line") {
  if (program::find_nvcc().empty()) return;
  const program::Result r = run_program("device_calls.cu", {"deep"});
  INFO(r.output);
  CHECK(r.exit_code != 0);
  CHECK(r.output.find("recursion deeper than 1000 calls, more than the emulated device's stack holds") !=
        std::string::npos);
}
