// bench/gui/common.h — what the GUI benchmarks share: this process's resident memory, and a
// large trace made from one real recording.
#pragma once
#include <algorithm>
#include <chrono>
#include <fstream>
#include <memory>

#include "ui/ui.h"  // the session layer, as the views see it (bench/gui reaches it through ui)

namespace ws::bench {

// Resident set size in MiB (/proc/self/statm, 4 KiB pages).
inline double rss_mib() {
  std::ifstream f("/proc/self/statm");
  long pages = 0, resident = 0;
  f >> pages >> resident;
  return double(resident) * 4096.0 / (1 << 20);
}

// transpose_tiled at size 1024, every block recorded by the emulator, its records repeated
// (as later "blocks" of a bigger launch over the same arrays) until there are `records`.
struct LargeTrace {
  std::shared_ptr<trace::Trace> trace;
  size_t recorded = 0;     // records of the one real recording
  double record_s = 0;     // its recording time
};

inline LargeTrace large_trace(uint64_t records) {
  session::LaunchSpec req;
  req.kernel = "transpose_tiled";
  req.size = 1024;
  req.backend = "emulator";
  LargeTrace out;
  const auto t0 = std::chrono::steady_clock::now();
  session::Capture r = session::capture(session::resolve(req));
  out.record_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  out.trace = std::make_shared<trace::Trace>(std::move(r.trace));
  auto& recs = out.trace->records;
  out.recorded = recs.size();
  recs.reserve(std::max<uint64_t>(records, out.recorded));
  const uint32_t blocks = uint32_t(out.trace->launch().grid.count());
  for (uint32_t copy = 1; recs.size() < records; ++copy)
    for (size_t i = 0; i < out.recorded && recs.size() < records; ++i) {
      trace::Record x = recs[i];
      x.block += copy * blocks;
      recs.push_back(x);
    }
  return out;
}

}  // namespace ws::bench
