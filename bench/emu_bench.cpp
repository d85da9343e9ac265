// bench/emu_bench.cpp — how fast the CPU emulator turns a launch into a trace.
// Prints lane-level accesses per second (one core) for a few catalog kernels, recording
// every block. Not a test: it prints figures.
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "catalog.h"
#include "emu/record.h"

int main(int argc, char** argv) {
  struct Case {
    const char* id;
    int64_t size;
  };
  std::vector<Case> cases = {{"copy", 1 << 20},           {"transpose_tiled", 512},
                             {"transpose_read_coalesced", 512}, {"matmul_naive", 128},
                             {"matmul_tiled", 256},        {"matmul_coarse2d", 256},
                             {"matmul_coarse2d_vec", 256}};
  if (argc > 1) cases = {{argv[1], argc > 2 ? std::stoll(argv[2]) : 0}};
  std::printf("%-28s %8s %12s %12s %10s %14s\n", "kernel", "size", "accesses", "records", "seconds", "accesses/s");
  double total_acc = 0, total_s = 0;
  for (const auto& c : cases) {
    const auto* k = ws::catalog::find(c.id);
    if (!k) continue;
    ws::catalog::Params p;
    if (!ws::catalog::resolve(*k, c.size, {}, p).empty()) continue;
    auto arrays = ws::catalog::make_arrays(*k, p);
    ws::trace::Trace t;
    ws::emu::record(*k, p, arrays, {}, t);  // warm-up: stacks, pages
    arrays = ws::catalog::make_arrays(*k, p);
    auto t0 = std::chrono::steady_clock::now();
    uint64_t acc = ws::emu::record(*k, p, arrays, {}, t);
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    total_acc += double(acc);
    total_s += s;
    std::printf("%-28s %8lld %12llu %12zu %10.3f %14.3e\n", c.id, (long long)p.size(), (unsigned long long)acc,
                t.records.size(), s, double(acc) / s);
  }
  std::printf("overall: %.3e lane accesses per second (one core; target >= 1e8)\n", total_acc / total_s);
  return 0;
}
