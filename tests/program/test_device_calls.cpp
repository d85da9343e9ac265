// Device code that calls as C++ does, and grids that synchronise, run whole on the emulated
// device: recursion, function pointers and virtual methods (tests/programs/device_calls.cu
// checks every thread's results itself), recursion deeper than the emulated stack, which
// fails the launch in one line; a grid-wide barrier in cooperative launches
// (tests/programs/grid_sync.cu), and the same kernel launched plainly, which traps.
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

TEST_CASE("grid_sync.cu: this_grid().sync() in cooperative launches; a grid too large to be resident is refused") {
  if (program::find_nvcc().empty()) return;
  const program::Result r = run_program("grid_sync.cu");
  INFO(r.output);
  CHECK(r.exit_code == 0);
  // sum of i % 7 - 2 for i < 10000: 1428 full cycles of (-2 -1 0 1 2 3 4) = 7 each, then
  // i = 9996..9999 give -2 -1 0 1: 9996 - 2 = 9994; the second round doubles every value.
  CHECK(r.output.find("cudaLaunchCooperativeKernel: no error, sums 9994 and 19988") != std::string::npos);
  CHECK(r.output.find("cudaLaunchKernelExC: no error, sums 9994 and 19988") != std::string::npos);
  // 132 multiprocessors x 16 blocks of 128 threads (2048 threads each) = 2112 at once.
  CHECK(r.output.find("2113 blocks: cudaErrorCooperativeLaunchTooLarge") != std::string::npos);
  CHECK(r.output.find("cudaOccupancyMaxActiveClusters: no error, within the resident blocks") != std::string::npos);
  CHECK(r.output.find("a cooperative launch of 2113 blocks, more than the 2112 (16 a multiprocessor of 132, blocks of "
                      "128 threads) the device holds at once") != std::string::npos);
  CHECK(r.output.find("PASSED") != std::string::npos);
  REQUIRE(r.trace.launches.size() == 2);
  CHECK(r.trace.launches[0].blocks.size() == 12);
}

TEST_CASE("grid_sync.cu plain: grid.sync() outside a cooperative launch traps, as on a GPU, in one line") {
  if (program::find_nvcc().empty()) return;
  const program::Result r = run_program("grid_sync.cu", {"plain"});
  INFO(r.output);
  CHECK(r.exit_code != 0);
  CHECK(r.output.find("a grid-wide sync outside a cooperative launch (cudaLaunchCooperativeKernel)") != std::string::npos);
}
