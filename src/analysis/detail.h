// src/analysis/detail.h — the allocation-free inner loops shared by the per-request
// functions, the whole-trace statistics and the plain-language lines. Internal to
// src/analysis.
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>

#include "analysis/analysis.h"

namespace ws::analysis::detail {

// Byte offsets of the active lanes of one request, ascending.
struct SortedLanes {
  uint64_t off[trace::kWarpSize];
  uint32_t n = 0;
};

inline uint32_t lane_bytes(uint32_t bytes_per_lane) { return bytes_per_lane ? bytes_per_lane : 1; }

inline void sort_lanes(const trace::Record& r, SortedLanes& s) {
  s.n = 0;
  for (uint32_t m = r.active; m; m &= m - 1) s.off[s.n++] = r.address(int(__builtin_ctz(m)));
  bool up = true, down = true;
  for (uint32_t i = 1; i < s.n; ++i) {
    up &= s.off[i - 1] <= s.off[i];
    down &= s.off[i - 1] >= s.off[i];
  }
  if (up) return;
  if (down) {
    std::reverse(s.off, s.off + s.n);
    return;
  }
  std::sort(s.off, s.off + s.n);
}

// Calls f(id) once for every distinct granule (addr / granule) that the byte ranges
// [off, off + bytes) of the sorted lanes touch, in ascending order; returns the count.
template <class F>
inline uint32_t for_each_granule(const SortedLanes& s, uint32_t bytes, uint64_t granule, F&& f) {
  if (!granule) granule = 1;
  const int shift = (granule & (granule - 1)) ? -1 : __builtin_ctzll(granule);
  auto div = [&](uint64_t x) { return shift >= 0 ? x >> shift : x / granule; };
  uint32_t count = 0;
  uint64_t last = 0;
  bool any = false;
  for (uint32_t i = 0; i < s.n; ++i) {
    uint64_t lo = div(s.off[i]), hi = div(s.off[i] + bytes - 1);
    if (any && lo <= last) lo = last + 1;
    for (uint64_t g = lo; g <= hi; ++g) {
      f(g);
      ++count;
    }
    if (!any || hi > last) last = hi;
    any = true;
  }
  return count;
}

struct GlobalCounts {
  uint32_t sectors = 0, lines = 0, bytes = 0;
};

// Sectors, lines and distinct bytes of the sorted lanes, in one pass.
inline GlobalCounts global_counts(const SortedLanes& s, uint32_t bytes) {
  GlobalCounts c;
  if (!s.n) return c;
  uint64_t last_sector = 0, last_line = 0;
  for (uint32_t i = 0; i < s.n; ++i) {
    uint64_t a = s.off[i], e = a + bytes - 1;
    uint64_t s0 = a >> 5, s1 = e >> 5, l0 = a >> 7, l1 = e >> 7;
    if (i == 0) {
      c.sectors += uint32_t(s1 - s0 + 1);
      c.lines += uint32_t(l1 - l0 + 1);
    } else {
      if (s1 > last_sector) c.sectors += uint32_t(s1 - std::max(s0, last_sector + 1) + 1);
      if (l1 > last_line) c.lines += uint32_t(l1 - std::max(l0, last_line + 1) + 1);
    }
    last_sector = std::max(last_sector, s1);
    last_line = std::max(last_line, l1);
    uint64_t next = i + 1 < s.n ? s.off[i + 1] - a : bytes;
    c.bytes += uint32_t(std::min<uint64_t>(next, bytes));
  }
  return c;
}

struct SharedCounts {
  uint32_t wavefronts = 0, ideal = 0, max_way = 0;
};

inline uint32_t shared_phases(uint32_t bytes) { return bytes <= 4 ? 1u : std::min(bytes / 4u, 32u); }

// Wavefronts of one shared request. `words_per_bank`, when not null, receives
// phases * 32 counts (distinct words per bank, per phase).
SharedCounts shared_counts(const trace::Record& r, uint32_t bytes, uint32_t* words_per_bank);

// An atomic whose lanes take turns on a shared address (analysis::serialized_atomic):
// sectors = the sum over the sectors it touches of the most lanes on one address in that
// sector (32 lanes on one word: 32; 32 consecutive words: 4).
uint32_t serialized_sectors(const SortedLanes& s, uint32_t bytes);
// The same in shared memory: per phase, the most lane updates that fall in one bank (a
// word's lanes each take a turn; distinct words of a bank conflict as loads do).
SharedCounts serialized_shared_counts(const trace::Record& r, uint32_t bytes);
// The most active lanes at one address (1: no two lanes share one; 0: none active).
uint32_t most_on_one_address(const trace::Record& r);

// What the active lanes of one request do, in lane order.
enum class Shape {
  None,       // no active lane
  Same,       // every lane at the same offset
  Stride,     // a constant byte stride between consecutive active lanes
  Runs,       // a few equal runs of consecutive elements
  Groups,     // groups of 4, 8 or 16 lanes, a constant stride within each group
  Few,        // a few distinct offsets, each shared by several lanes
  Scattered,  // anything else
};
struct Pattern {
  Shape shape = Shape::None;
  uint32_t active = 0;
  int64_t stride = 0;     // Stride, Groups: bytes from one lane to the next
  uint32_t runs = 0;      // Runs, Groups: how many; Few: distinct offsets
  uint32_t run_len = 0;   // Runs, Groups: lanes in each
  bool gap_known = false; // Groups: the groups start a constant `gap` bytes apart
  int64_t gap = 0;
  uint32_t first = 0;     // offset of the first active lane
  uint32_t most_on_one = 0;  // the most active lanes at one offset (an atomic's turns)
};
Pattern pattern(const trace::Record& r, uint32_t bytes);

// The plain-language line for a site or one request. Numbers are per request (averages
// for a site).
struct GlobalNumbers {
  double sectors = 0, ideal = 0, efficiency = 0;
};
struct SharedNumbers {
  double wavefronts = 0, ideal = 0, conflicts = 0;
  uint32_t max_way = 0;
  uint32_t banks_used = 0;  // distinct banks of the example request (0: unknown)
  int bank = -1;            // the one bank when all words of the example share it
};
std::string why_global(const trace::Trace& t, const trace::Site& s, const Pattern& p,
                       const GlobalNumbers& g);
std::string why_shared(const trace::Trace& t, const trace::Site& s, const Pattern& p,
                       const SharedNumbers& n, bool single_request);

// Distinct banks touched by a shared request, and the bank when there is just one.
void shared_banks(const trace::Record& r, uint32_t bytes, uint32_t& banks_used, int& only_bank);

// Formats a per-request figure: "4", "4.5", "12.25".
std::string num(double v);

}  // namespace ws::analysis::detail
