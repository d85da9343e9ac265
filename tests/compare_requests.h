// Two traces of one program compared warp by warp (tests/sass/test_sass.cpp on the GPU
// tracer's kept files, tests/gpu/test_gpu_tracer.cpp live on a GPU): each warp's requests
// as a set of space, operation, line, lanes, and each lane's array (global: by name;
// shared: the window) and offset.
#pragma once
#include <array>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>

#include "trace/trace.h"

namespace ws::test {

using Request = std::tuple<int, int, uint32_t, uint32_t, std::array<std::string, 32>, std::array<uint32_t, 32>>;

inline std::map<std::pair<uint32_t, uint32_t>, std::multiset<Request>> requests_of(
    const trace::Trace& t, uint32_t launch, const std::set<uint32_t>* blocks = nullptr, bool global_only = false) {
  std::map<std::pair<uint32_t, uint32_t>, std::multiset<Request>> out;
  for (const trace::Record& r : t.records) {
    if (r.launch != launch || (blocks && !blocks->count(r.block))) continue;
    const trace::Site& s = t.sites[r.site];
    if (global_only && s.space != trace::Space::Global) continue;
    std::array<std::string, 32> arrays{};
    std::array<uint32_t, 32> offsets{};
    for (int l = 0; l < 32; ++l)
      if (r.lane_active(l)) {
        arrays[size_t(l)] = s.space == trace::Space::Shared ? "shared" : t.buffers[r.buffer_of(l)].name;
        offsets[size_t(l)] = r.offset[size_t(l)];
      }
    out[{r.block, r.warp}].insert({int(s.space), int(s.op), s.line, r.active, arrays, offsets});
  }
  return out;
}

}  // namespace ws::test
