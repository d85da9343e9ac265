// bench/analysis_bench.cpp — how fast the analysis digests a trace. Records a few catalog
// kernels with the CPU emulator, repeats their records up to about a million, and prints
// records per second for analyze() (both DRAM presets) and for the two report formats.
// Not a test: it prints figures.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "analysis/analysis.h"
#include "catalog.h"
#include "emu/record.h"

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  struct Case {
    const char* id;
    int64_t size;
  };
  std::vector<Case> cases = {{"transpose_tiled", 512},  {"transpose_read_coalesced", 512},
                             {"matmul_naive", 128},     {"matmul_tiled", 256},
                             {"matmul_coarse2d_vec", 256}, {"copy", 1 << 20}};
  if (argc > 1) cases = {{argv[1], argc > 2 ? std::stoll(argv[2]) : 0}};
  const size_t target = 1'000'000;
  std::printf("%-26s %9s %9s %11s %11s %11s %11s\n", "kernel", "records", "analyze", "(hbm)", "records/s",
              "json", "text");
  for (const auto& c : cases) {
    const auto* k = ws::catalog::find(c.id);
    if (!k) continue;
    ws::catalog::Params p;
    if (!ws::catalog::resolve(*k, c.size, {}, p).empty()) continue;
    auto arrays = ws::catalog::make_arrays(*k, p);
    ws::trace::Trace t;
    ws::emu::record(*k, p, arrays, {}, t);
    if (t.records.empty()) continue;
    const size_t n0 = t.records.size();
    t.records.reserve(std::max(target, n0));
    while (t.records.size() < target) t.records.push_back(t.records[t.records.size() % n0]);

    ws::analysis::DramModel textbook, hbm;
    ws::analysis::dram_preset("textbook", textbook);
    ws::analysis::dram_preset("hbm", hbm);
    // Best of three, so that a busy machine disturbs the figure less.
    ws::analysis::Report rep;
    double s_text = 1e30, s_hbm = 1e30;
    for (int rep_i = 0; rep_i < 3; ++rep_i) {
      auto t0 = std::chrono::steady_clock::now();
      rep = ws::analysis::analyze(t, textbook);
      s_text = std::min(s_text, seconds_since(t0));
      t0 = std::chrono::steady_clock::now();
      auto rep_hbm = ws::analysis::analyze(t, hbm);
      s_hbm = std::min(s_hbm, seconds_since(t0));
    }
    auto t0 = std::chrono::steady_clock::now();
    std::string j = ws::analysis::report_json(t, rep);
    double s_json = seconds_since(t0);
    t0 = std::chrono::steady_clock::now();
    std::string txt = ws::analysis::report_text(t, rep);
    double s_txt = seconds_since(t0);
    std::printf("%-26s %9zu %8.3fs %10.3fs %11.3e %10.4fs %10.4fs\n", c.id, t.records.size(), s_text, s_hbm,
                double(t.records.size()) / s_text, s_json, s_txt);
  }
  return 0;
}
