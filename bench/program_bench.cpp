// bench/program_bench.cpp — how fast a user's program becomes a trace and a view on the
// emulated device, beside the catalog emulator running the same kernel: lane accesses per
// second of the run (the program's own host code included), the nvcc time, and
// save-to-view (compile, run, read back, analyse: what the app waits for after a save).
// Not a test: it prints figures. Run from the repository root.
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "catalog.h"
#include "emu/record.h"
#include "program/program.h"
#include "session/session.h"
#include "session/worker.h"

int main() {
  using namespace ws;
  if (program::find_nvcc().empty()) {
    std::printf("nvcc not found: nothing to measure\n");
    return 0;
  }
  struct Case {
    const char* file;
    std::vector<std::string> args;
    const char* twin;  // the catalog kernel it matches, "" when none
    int64_t size;
    std::vector<std::pair<std::string, int64_t>> params;
  };
  const std::vector<Case> cases = {
      {"examples/transpose.cu", {}, "transpose_tiled", 64, {{"tile", 32}}},
      {"tests/programs/transpose_twin.cu", {"1024"}, "transpose_tiled", 1024, {{"tile", 32}, {"rows", 8}}},
      {"tests/programs/matmul_tiled.cu", {"64"}, "matmul_tiled", 64, {{"tile", 16}}},
      {"tests/programs/matmul_tiled.cu", {"256"}, "matmul_tiled", 256, {{"tile", 16}}},
      {"examples/reduction.cu", {}, "", 0, {}},
  };
  std::printf("%-32s %6s %12s %10s %10s %10s %12s %12s %14s\n", "program", "arg", "accesses", "compile s", "run s",
              "emulate s", "accesses/s", "save->view s", "twin emu acc/s");
  for (const Case& c : cases) {
    session::LaunchSpec spec;
    spec.program.source = c.file;
    spec.program.args = c.args;
    spec.program.echo = false;
    spec.backend = "emulator";
    spec.max_records = 2'000'000;
    const auto t0 = std::chrono::steady_clock::now();
    auto s = session::record_session(spec);
    const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    uint64_t acc = 0;
    double emu_s = 0;  // the launches alone, as the emulated device timed them
    for (const trace::Launch& l : s->whole_trace().launches) {
      acc += l.lane_accesses;
      emu_s += l.seconds;
    }
    // The run alone: compile again is not needed for the figure; the capture timed it.
    const double run_s = s->capture_seconds();
    double twin = 0;
    if (*c.twin) {
      const auto* k = catalog::find(c.twin);
      catalog::Params p;
      std::map<std::string, int64_t> set(c.params.begin(), c.params.end());
      if (k && catalog::resolve(*k, c.size, set, p).empty()) {
        auto arrays = catalog::make_arrays(*k, p);
        trace::Trace t;
        const auto e0 = std::chrono::steady_clock::now();
        const uint64_t n = emu::record(*k, p, arrays, {}, t);
        twin = double(n) / std::chrono::duration<double>(std::chrono::steady_clock::now() - e0).count();
      }
    }
    std::printf("%-32s %6s %12llu %10.2f %10.3f %10.3f %12.3e %12.2f %14.3e\n", c.file,
                c.args.empty() ? "-" : c.args[0].c_str(), (unsigned long long)acc, total - run_s, run_s, emu_s,
                emu_s > 0 ? double(acc) / emu_s : 0.0, total, twin);
  }
  std::printf("(run s: the program's whole run in its child process, host code and trace file included;\n"
              " emulate s: its launches on the emulated device, recording included; accesses/s: lane accesses per\n"
              " second of that; compile s: nvcc and the rest; goal: >= 5e7 accesses/s, save->view <= 1.5 s)\n");
  return 0;
}
