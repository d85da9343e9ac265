// src/analysis/cost.cpp — what one request costs: sectors and lines in global memory,
// wavefronts and bank conflicts in shared memory, and the lane pattern behind them.
#include <algorithm>
#include <bit>
#include <cstring>
#include <tuple>

#include "analysis/detail.h"

namespace ws::analysis {

using trace::kWarpSize;
using trace::Record;

GlobalCost global_cost(const Record& r, uint32_t bytes_per_lane) {
  detail::SortedLanes s;
  detail::sort_lanes(r, s);
  auto c = detail::global_counts(s, detail::lane_bytes(bytes_per_lane));
  GlobalCost g;
  g.sectors = c.sectors;
  g.lines = c.lines;
  g.bytes_requested = c.bytes;
  g.ideal_sectors = (c.bytes + 31) / 32;
  g.efficiency = c.sectors ? double(c.bytes) / (double(c.sectors) * 32.0) : 0.0;
  return g;
}

SharedCost shared_cost(const Record& r, uint32_t bytes_per_lane) {
  uint32_t bytes = std::min(detail::lane_bytes(bytes_per_lane), 16u);
  SharedCost c;
  c.words_per_bank.assign(size_t(detail::shared_phases(bytes)) * 32, 0);
  auto n = detail::shared_counts(r, bytes, c.words_per_bank.data());
  c.wavefronts = n.wavefronts;
  c.ideal_wavefronts = n.ideal;
  c.conflicts = n.wavefronts - n.ideal;
  c.max_way = n.max_way;
  return c;
}

std::vector<uint64_t> touched_granules(const Record& r, uint32_t bytes_per_lane, uint32_t granule) {
  std::vector<uint64_t> out;
  if (!granule) return out;
  detail::SortedLanes s;
  detail::sort_lanes(r, s);
  detail::for_each_granule(s, detail::lane_bytes(bytes_per_lane), granule,
                           [&](uint64_t g) { out.push_back(g); });
  return out;
}

std::vector<SectorBytes> sector_bytes(const Record& r, uint32_t bytes_per_lane) {
  const uint32_t bytes = detail::lane_bytes(bytes_per_lane);
  std::vector<SectorBytes> out;  // few entries (at most 32 lanes × 2 sectors): a sorted vector
  for (uint32_t m = r.active; m; m &= m - 1) {
    const int lane = __builtin_ctz(m);
    const uint64_t first = r.address(int(lane)), last = first + bytes - 1;
    for (uint64_t a = first; a <= last; ++a) {
      auto it = std::lower_bound(out.begin(), out.end(), a / 32,
                                 [](const SectorBytes& s, uint64_t v) { return s.sector < v; });
      if (it == out.end() || it->sector != a / 32) {
        SectorBytes s;
        s.sector = a / 32;
        s.lane.fill(-1);
        it = out.insert(it, s);
      }
      if (it->lane[a % 32] < 0) it->lane[a % 32] = int8_t(lane);
    }
  }
  return out;
}

uint32_t lanes_past_end(const trace::Trace& t, const Record& r, uint32_t bytes_per_lane) {
  const uint32_t bytes = detail::lane_bytes(bytes_per_lane);
  uint32_t past = 0;
  for (uint32_t m = r.active; m; m &= m - 1) {
    const int lane = __builtin_ctz(m);
    const uint32_t b = r.buffer_of(lane);
    if (b >= t.buffers.size() || t.buffers[b].size_bytes == 0) continue;
    const uint64_t size = t.buffers[b].size_bytes, first = r.offset[size_t(lane)];
    if (first > size || size - first < bytes) past |= 1u << lane;
  }
  return past;
}

std::vector<BankWord> bank_words(const Record& r, uint32_t bytes_per_lane) {
  const uint32_t bytes = std::min(detail::lane_bytes(bytes_per_lane), 16u);
  const uint32_t per_phase = kWarpSize / detail::shared_phases(bytes);
  std::vector<BankWord> out;
  for (uint32_t m = r.active; m; m &= m - 1) {
    const uint32_t lane = unsigned(__builtin_ctz(m));
    const uint64_t off = r.address(int(lane));
    for (uint64_t w = off >> 2, e = (off + bytes - 1) >> 2; w <= e; ++w) {
      BankWord bw;
      bw.phase = lane / per_phase;
      bw.bank = uint32_t(w & 31);
      bw.word = w;
      auto key = [](const BankWord& x) { return std::tuple(x.phase, x.bank, x.word); };
      auto it = std::lower_bound(out.begin(), out.end(), bw, [&](const BankWord& a, const BankWord& b) { return key(a) < key(b); });
      if (it == out.end() || key(*it) != key(bw)) it = out.insert(it, bw);
      it->lanes |= 1u << lane;
    }
  }
  // The n-way of each word's bank in its phase: the length of its run of equal (phase, bank).
  for (size_t i = 0; i < out.size();) {
    size_t j = i;
    while (j < out.size() && out[j].phase == out[i].phase && out[j].bank == out[i].bank) ++j;
    for (size_t k = i; k < j; ++k) out[k].way = uint32_t(j - i);
    i = j;
  }
  return out;
}

uint32_t shared_phases(uint32_t bytes_per_lane) {
  return detail::shared_phases(std::min(detail::lane_bytes(bytes_per_lane), 16u));
}

uint32_t global_phases(uint32_t bytes_per_lane) { return detail::lane_bytes(bytes_per_lane) >= 16 ? 4 : 1; }

uint32_t broadcast_lanes(const std::vector<BankWord>& words) {
  uint32_t lanes = 0;
  for (const BankWord& w : words)
    if (std::popcount(w.lanes) > 1) lanes |= w.lanes;
  return lanes;
}

namespace detail {

SharedCounts shared_counts(const Record& r, uint32_t bytes, uint32_t* words_per_bank) {
  bytes = std::min(lane_bytes(bytes), 16u);  // no wider access exists
  const uint32_t phases = shared_phases(bytes);
  const uint32_t per_phase = kWarpSize / phases;
  const uint32_t phase_mask = per_phase == 32 ? ~0u : (1u << per_phase) - 1u;
  SharedCounts c;
  // A lane covers at most 5 words (16 bytes, misaligned); a phase at most 32 lanes of 2
  // words or 8 lanes of 5.
  uint64_t words[64];
  for (uint32_t p = 0; p < phases; ++p) {
    uint32_t* wpb = words_per_bank ? words_per_bank + p * 32 : nullptr;
    uint32_t mask = (r.active >> (p * per_phase)) & phase_mask;
    if (!mask) {
      if (wpb) std::memset(wpb, 0, 32 * sizeof(uint32_t));
      continue;
    }
    uint32_t n = 0;
    for (; mask; mask &= mask - 1) {
      uint64_t off = r.address(int(p * per_phase + unsigned(__builtin_ctz(mask))));
      for (uint64_t w = off >> 2, e = (off + bytes - 1) >> 2; w <= e && n < 64; ++w) words[n++] = w;
    }
    bool sorted = true;
    for (uint32_t i = 1; i < n; ++i) sorted &= words[i - 1] <= words[i];
    if (!sorted) std::sort(words, words + n);
    uint32_t count[32] = {};
    uint32_t way = 0;
    for (uint32_t i = 0; i < n; ++i) {
      if (i && words[i] == words[i - 1]) continue;  // same word: a broadcast
      way = std::max(way, ++count[words[i] & 31]);
    }
    if (wpb) std::memcpy(wpb, count, sizeof count);
    c.wavefronts += way;
    c.ideal += 1;
    c.max_way = std::max(c.max_way, way);
  }
  return c;
}

void shared_banks(const Record& r, uint32_t bytes, uint32_t& banks_used, int& only_bank) {
  bytes = std::min(lane_bytes(bytes), 16u);
  uint32_t banks = 0;
  for (uint32_t m = r.active; m; m &= m - 1) {
    uint64_t off = r.address(__builtin_ctz(m));
    for (uint64_t w = off >> 2, e = (off + bytes - 1) >> 2; w <= e; ++w) banks |= 1u << (w & 31);
  }
  banks_used = uint32_t(__builtin_popcount(banks));
  only_bank = banks_used == 1 ? __builtin_ctz(banks) : -1;
}

Pattern pattern(const Record& r, uint32_t bytes) {
  bytes = lane_bytes(bytes);
  Pattern p;
  uint32_t lane[kWarpSize];
  int64_t off[kWarpSize];
  uint32_t n = 0;
  for (uint32_t m = r.active; m; m &= m - 1) {
    lane[n] = unsigned(__builtin_ctz(m));
    off[n] = int64_t(r.address(int(lane[n])));
    ++n;
  }
  p.active = n;
  if (!n) return p;
  p.first = uint32_t(off[0]);
  p.most_on_one = most_on_one_address(r);
  bool same = true;
  for (uint32_t i = 1; i < n; ++i) same &= off[i] == off[0];
  if (same) {
    p.shape = Shape::Same;
    return p;
  }
  // A constant stride between consecutive active lanes (gaps in the mask allowed).
  bool constant = true;
  int64_t stride = 0;
  for (uint32_t i = 1; i < n && constant; ++i) {
    int64_t d = off[i] - off[i - 1], dl = int64_t(lane[i]) - int64_t(lane[i - 1]);
    if (d % dl) constant = false;
    else if (i == 1) stride = d / dl;
    else constant = d / dl == stride;
  }
  if (constant) {
    p.shape = Shape::Stride;
    p.stride = stride;
    return p;
  }
  // Equal runs of consecutive elements (a 2-D block whose rows are narrower than a warp).
  uint32_t runs = 1, len = 1, run_len = 0;
  bool equal = true;
  for (uint32_t i = 1; i < n; ++i) {
    if (lane[i] == lane[i - 1] + 1 && off[i] == off[i - 1] + int64_t(bytes)) {
      ++len;
      continue;
    }
    if (run_len && len != run_len) equal = false;
    run_len = len;
    len = 1;
    ++runs;
  }
  if (run_len && len != run_len) equal = false;
  if (!run_len) run_len = len;
  if (equal && runs > 1 && runs <= 16 && run_len >= 2) {
    p.shape = Shape::Runs;
    p.runs = runs;
    p.run_len = run_len;
    return p;
  }
  // Groups of G lanes (a 2-D block, or a lane index taken modulo G) with one stride inside
  // every group.
  for (uint32_t G : {16u, 8u, 4u}) {
    bool ok = true, have = false;
    int64_t s = 0;
    for (uint32_t i = 1; i < n && ok; ++i) {
      if (lane[i] / G != lane[i - 1] / G) continue;
      int64_t d = off[i] - off[i - 1], dl = int64_t(lane[i]) - int64_t(lane[i - 1]);
      if (d % dl) ok = false;
      else if (!have) s = d / dl, have = true;
      else ok = d / dl == s;
    }
    if (!ok || !have || s == 0) continue;
    // Where each group would start (its lane 0), to tell how far apart the groups are.
    uint32_t groups = 0;
    int64_t prev_start = 0, gap = 0;
    int prev_group = -1;
    bool gap_known = true;
    for (uint32_t i = 0; i < n; ++i) {
      int g = int(lane[i] / G);
      if (g == prev_group) continue;
      int64_t start = off[i] - s * int64_t(lane[i] % G);
      if (groups == 1) gap = (start - prev_start) / (g - prev_group);
      if (groups >= 1 && start - prev_start != gap * (g - prev_group)) gap_known = false;
      prev_start = start;
      prev_group = g;
      ++groups;
    }
    if (groups < 2) continue;
    p.shape = s == int64_t(bytes) ? Shape::Runs : Shape::Groups;
    p.stride = s;
    p.runs = groups;
    p.run_len = G;
    p.gap_known = gap_known;
    p.gap = gap;
    return p;
  }
  // A few distinct addresses shared by groups of lanes.
  int64_t sorted[kWarpSize];
  std::copy(off, off + n, sorted);
  std::sort(sorted, sorted + n);
  uint32_t distinct = uint32_t(std::unique(sorted, sorted + n) - sorted);
  if (distinct <= 4 && distinct < n) {
    p.shape = Shape::Few;
    p.runs = distinct;
    return p;
  }
  p.shape = Shape::Scattered;
  return p;
}

}  // namespace detail
}  // namespace ws::analysis
