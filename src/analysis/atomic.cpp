// src/analysis/atomic.cpp — what an atomic costs as the hardware carries it out. Lanes that
// update one address cannot be served together the way a load broadcasts: each update
// reads, changes and writes the word, so they take turns, unless the compiled code counted
// or combined them first (ATOMS.POPC.INC; ptxas's warp aggregation). The rules, measured on
// an H100, are in docs/validation.md, "Atomics".
#include <algorithm>

#include "analysis/detail.h"

namespace ws::analysis {

using trace::AtomicPath;
using trace::Record;
using trace::Site;

bool serialized_atomic(const Site& s) {
  if (s.op != trace::Op::Atomic || s.atomic == AtomicPath::Combined) return false;
  if (s.space != trace::Space::Shared) return true;  // a RED takes each lane's update, an add of 1 or not
  return s.atomic != AtomicPath::Increment && s.instruction.rfind("ATOMS.POPC.INC", 0) != 0;
}

GlobalCost global_cost(const Site& s, const Record& r) {
  GlobalCost g = global_cost(r, s.bytes);
  if (!serialized_atomic(s)) return g;
  detail::SortedLanes lanes;
  detail::sort_lanes(r, lanes);
  g.sectors = detail::serialized_sectors(lanes, detail::lane_bytes(s.bytes));
  g.efficiency = g.sectors ? double(g.bytes_requested) / (double(g.sectors) * 32.0) : 0.0;
  return g;
}

SharedCost shared_cost(const Site& s, const Record& r) {
  SharedCost c = shared_cost(r, s.bytes);
  if (!serialized_atomic(s)) return c;
  const auto n = detail::serialized_shared_counts(r, s.bytes);
  c.wavefronts = n.wavefronts;
  c.conflicts = n.wavefronts - n.ideal;
  c.max_way = n.max_way;
  return c;
}

namespace detail {

uint32_t serialized_sectors(const SortedLanes& s, uint32_t bytes) {
  // Lanes on one address are adjacent in sorted order: each run of them visits every sector
  // its bytes cover that many times, and runs on other addresses of a sector ride along.
  uint32_t total = 0;
  uint64_t sector = ~uint64_t(0);
  uint32_t most = 0;  // the longest run seen in `sector`
  for (uint32_t i = 0; i < s.n;) {
    uint32_t j = i + 1;
    while (j < s.n && s.off[j] == s.off[i]) ++j;
    const uint32_t run = j - i;
    for (uint64_t x = s.off[i] >> 5, e = (s.off[i] + bytes - 1) >> 5; x <= e; ++x) {
      if (x != sector) {
        total += most;
        sector = x;
        most = 0;
      }
      most = std::max(most, run);
    }
    i = j;
  }
  return total + most;
}

SharedCounts serialized_shared_counts(const Record& r, uint32_t bytes) {
  bytes = std::min(lane_bytes(bytes), 16u);
  const uint32_t phases = shared_phases(bytes);
  const uint32_t per_phase = trace::kWarpSize / phases;
  const uint32_t phase_mask = per_phase == 32 ? ~0u : (1u << per_phase) - 1u;
  SharedCounts c;
  for (uint32_t p = 0; p < phases; ++p) {
    uint32_t mask = (r.active >> (p * per_phase)) & phase_mask;
    if (!mask) continue;
    // Every lane's update of every word it covers takes its bank for one wavefront.
    uint32_t per_bank[32] = {};
    for (; mask; mask &= mask - 1) {
      const uint64_t off = r.address(int(p * per_phase + unsigned(__builtin_ctz(mask))));
      for (uint64_t w = off >> 2, e = (off + bytes - 1) >> 2; w <= e; ++w) ++per_bank[w & 31];
    }
    const uint32_t way = *std::max_element(per_bank, per_bank + 32);
    c.wavefronts += way;
    c.ideal += 1;
    c.max_way = std::max(c.max_way, way);
  }
  return c;
}

uint32_t most_on_one_address(const Record& r) {
  SortedLanes s;
  sort_lanes(r, s);
  uint32_t most = 0;
  for (uint32_t i = 0, j = 0; i < s.n; i = j) {
    while (j < s.n && s.off[j] == s.off[i]) ++j;
    most = std::max(most, j - i);
  }
  return most;
}

}  // namespace detail
}  // namespace ws::analysis
