// src/analysis/analyze.cpp — whole-trace statistics: per site (sectors, wavefronts, why)
// and per barrier epoch (DRAM channel and bank spread of every global array). One pass
// over the records; no allocation per record.
#include <algorithm>
#include <bit>
#include <map>
#include <set>

#include "analysis/detail.h"

namespace ws::analysis {
namespace {

using trace::Space;

// Divides by a constant, with a shift when it is a power of two.
struct Divider {
  uint64_t d = 1;
  int shift = -1;
  explicit Divider(uint64_t v) : d(v ? v : 1) {
    if (!(d & (d - 1))) shift = __builtin_ctzll(d);
  }
  uint64_t div(uint64_t x) const { return shift >= 0 ? x >> shift : x / d; }
  uint64_t mod(uint64_t x) const { return shift >= 0 ? x & (d - 1) : x % d; }
};

// Burst id -> flat (channel * banks + bank) cell of the DRAM model.
struct CellMap {
  Divider ch, bk;
  bool hash, pow2_channels;
  uint64_t channels, banks;
  explicit CellMap(const DramModel& m)
      : ch(m.channels), bk(m.banks), hash(m.xor_hash), channels(ch.d), banks(bk.d) {
    pow2_channels = ch.shift >= 0;
  }
  uint32_t operator()(uint64_t g) const {
    uint64_t row = ch.div(g);
    uint64_t c = ch.mod(g);
    if (hash) {
      uint64_t h = ch.mod(bk.div(row));
      c = pow2_channels ? (c ^ h) : (c + h) % channels;
    }
    return uint32_t(c * banks + bk.mod(row));
  }
};

struct ArrayWork {
  uint64_t requests = 0;
  std::vector<uint64_t> cells;  // [channel * banks + bank]
};

struct EpochWork {
  EpochStats totals;
  std::vector<ArrayWork> arrays;  // by buffer id; cells empty until touched
};

struct SiteInfo {
  uint32_t bytes = 4;
  bool global = true;
  bool modelled = true;     // cost_modelled(its space)
  bool serialized = false;  // an atomic whose lanes on one address take turns
};

}  // namespace

Report analyze(const trace::Trace& t, const DramModel& dram_in) {
  Report rep;
  rep.dram = dram_in;
  if (!rep.dram.channels) rep.dram.channels = 1;
  if (!rep.dram.banks) rep.dram.banks = 1;
  if (!rep.dram.burst_bytes) rep.dram.burst_bytes = 1;
  const DramModel& dram = rep.dram;
  const CellMap cell(dram);
  const uint64_t burst = dram.burst_bytes;
  const size_t ncells = size_t(dram.channels) * dram.banks;

  const size_t nsites = t.sites.size();
  std::vector<SiteInfo> info(nsites);
  rep.sites.resize(nsites);
  std::vector<uint32_t> best_active(nsites, 0);
  for (size_t i = 0; i < nsites; ++i) {
    const auto& s = t.sites[i];
    rep.sites[i].site = uint32_t(i);
    info[i].bytes = detail::lane_bytes(s.bytes);
    info[i].global = s.space != Space::Shared;  // local and constant memory are served in sectors too
    info[i].modelled = cost_modelled(s.space);
    info[i].serialized = serialized_atomic(s);
  }

  std::map<uint32_t, EpochWork> epochs;
  EpochWork* cur = nullptr;
  uint32_t cur_epoch = 0;
  detail::SortedLanes lanes;

  for (size_t ri = 0; ri < t.records.size(); ++ri) {
    const trace::Record& r = t.records[ri];
    if (r.site >= nsites) {
      ++rep.skipped_records;
      continue;
    }
    ++rep.records;
    const SiteInfo& si = info[r.site];
    SiteStats& ss = rep.sites[r.site];
    uint32_t active = uint32_t(__builtin_popcount(r.active));
    ss.requests += 1;
    ss.lane_accesses += active;
    if (active > best_active[r.site] || ss.example == ~uint64_t(0)) {
      best_active[r.site] = active;
      ss.example = ri;
    }
    if (!cur || r.epoch != cur_epoch) {
      cur = &epochs[r.epoch];
      cur_epoch = r.epoch;
      if (cur->arrays.empty()) cur->arrays.resize(t.buffers.size());
    }
    EpochStats& et = cur->totals;
    et.requests += 1;
    et.lane_accesses += active;

    if (!si.modelled) continue;  // counted, with no cost (another CTA's shared memory)
    if (si.global) {
      detail::sort_lanes(r, lanes);
      auto c = detail::global_counts(lanes, si.bytes);
      if (si.serialized) c.sectors = detail::serialized_sectors(lanes, si.bytes);
      uint32_t ideal = (c.bytes + 31) / 32;
      ss.sectors += c.sectors;
      ss.lines += c.lines;
      ss.ideal_sectors += ideal;
      ss.bytes_requested += c.bytes;
      et.sectors += c.sectors;
      et.ideal_sectors += ideal;
      et.bytes_requested += c.bytes;
      if (r.buffer < t.buffers.size() && t.buffers[r.buffer].space == Space::Global) {
        ArrayWork& aw = cur->arrays[r.buffer];
        if (aw.cells.empty()) aw.cells.assign(ncells, 0);
        uint64_t* cells = aw.cells.data();
        aw.requests += 1;
        detail::for_each_granule(lanes, si.bytes, burst, [&](uint64_t g) { ++cells[cell(g)]; });
      }
    } else {
      auto c = si.serialized ? detail::serialized_shared_counts(r, si.bytes) : detail::shared_counts(r, si.bytes, nullptr);
      ss.wavefronts += c.wavefronts;
      ss.ideal_wavefronts += c.ideal;
      ss.bank_conflicts += c.wavefronts - c.ideal;
      ss.max_way = std::max(ss.max_way, c.max_way);
      et.wavefronts += c.wavefronts;
      et.ideal_wavefronts += c.ideal;
      et.bank_conflicts += c.wavefronts - c.ideal;
    }
  }

  // Per-site averages and the plain-language line.
  for (SiteStats& ss : rep.sites) finish_site(t, ss.requests ? &t.records[ss.example] : nullptr, ss);

  // Per-epoch DRAM spread.
  rep.epochs.reserve(epochs.size());
  for (auto& [e, w] : epochs) {
    EpochStats es = std::move(w.totals);
    es.epoch = e;
    for (size_t b = 0; b < w.arrays.size(); ++b)
      if (!w.arrays[b].cells.empty()) es.arrays.push_back(array_spread(uint32_t(b), w.arrays[b].requests, w.arrays[b].cells, dram));
    rep.epochs.push_back(std::move(es));
  }
  return rep;
}

void finish_site(const trace::Trace& t, const trace::Record* example, SiteStats& ss) {
  if (ss.requests) {
    const double q = double(ss.requests);
    ss.sectors_per_request = double(ss.sectors) / q;
    ss.ideal_sectors_per_request = double(ss.ideal_sectors) / q;
    ss.wavefronts_per_request = double(ss.wavefronts) / q;
    ss.conflicts_per_request = double(ss.bank_conflicts) / q;
  }
  ss.efficiency = ss.sectors ? double(ss.bytes_requested) / (double(ss.sectors) * 32.0) : 0.0;
  // Counts mode counts the whole grid but keeps block 0's requests: a site only other blocks
  // ran (an edge tile's guarded loads) has figures and no request to explain them by.
  ss.why = example    ? why_site(t, *example, ss)
           : ss.requests ? "ran only outside the recorded blocks: no request of it was kept to explain"
                         : "not executed in the recorded blocks";
}

ArrayEpochStats array_spread(uint32_t buffer, uint64_t requests, const std::vector<uint64_t>& cells,
                             const DramModel& dram) {
  ArrayEpochStats a;
  a.buffer = buffer;
  a.requests = requests;
  a.per_channel.assign(dram.channels, 0);
  a.per_bank.assign(dram.channels, std::vector<uint64_t>(dram.banks, 0));
  for (uint32_t c = 0; c < dram.channels; ++c) {
    for (uint32_t k = 0; k < dram.banks; ++k) {
      const size_t i = size_t(c) * dram.banks + k;
      const uint64_t v = i < cells.size() ? cells[i] : 0;
      a.per_bank[c][k] = v;
      a.per_channel[c] += v;
    }
    a.bursts += a.per_channel[c];
    if (a.per_channel[c]) ++a.channels_used;
  }
  return a;
}

namespace {
std::string why_site_plain(const trace::Trace& t, const trace::Record& ex, const SiteStats& ss);
std::string why_plain(const trace::Trace& t, const trace::Record& r);
}  // namespace

// A bulk copy's line: each of its records (one thread's 512 bytes) in the record's words.
std::string why_site(const trace::Trace& t, const trace::Record& ex, const SiteStats& ss) {
  const std::string plain = why_site_plain(t, ex, ss);
  if (ex.site >= t.sites.size()) return plain;
  const trace::Form f = t.sites[ex.site].form;
  if (f != trace::Form::BulkRead && f != trace::Form::BulkWrite) return plain;
  const size_t arrow = plain.find(" → ");
  return "a bulk copy, one thread's, kept 512 bytes a record: each record's 32 pieces of 16 bytes" +
         (arrow == std::string::npos ? ": " + plain : plain.substr(arrow));
}

namespace {

std::string why_site_plain(const trace::Trace& t, const trace::Record& ex, const SiteStats& ss) {
  if (ex.site >= t.sites.size() || !ss.requests) return "not executed in the recorded blocks";
  const trace::Site& site = t.sites[ex.site];
  const uint32_t bytes = detail::lane_bytes(site.bytes);
  if (!cost_modelled(site.space)) return why_unmodelled(t, ex);
  auto p = detail::pattern(ex, bytes);
  if (site.space != trace::Space::Shared) {  // local and constant memory are served in sectors too
    detail::GlobalNumbers g{ss.sectors_per_request, ss.ideal_sectors_per_request, ss.efficiency};
    return detail::why_global(t, site, p, g);
  }
  // Where the site's requests differ in their worst bank (partial[2 * s * t]: lanes 2 words
  // apart at s = 1, 4 at s = 2), the example's shape beside the site's worst would not add
  // up: the example is described alone, with the worst of the others.
  if (const SharedCost own = shared_cost(site, ex); own.max_way != ss.max_way)
    return why_plain(t, ex) + "; other requests of the line up to " + std::to_string(ss.max_way) + "-way";
  detail::SharedNumbers n;
  n.wavefronts = ss.wavefronts_per_request;
  n.ideal = double(ss.ideal_wavefronts) / double(ss.requests);
  n.conflicts = ss.conflicts_per_request;
  n.max_way = ss.max_way;
  detail::shared_banks(ex, bytes, n.banks_used, n.bank);
  return detail::why_shared(t, site, p, n, false);
}

}  // namespace

std::pair<size_t, size_t> bulk_issue(const trace::Trace& t, size_t i) {
  const trace::Record& r = t.records.at(i);
  // Whether record j + 1 continues the copy that record j is part of.
  auto follows = [&](size_t j) {
    const trace::Record& o = t.records[j];
    const trace::Record& n = t.records[j + 1];
    if (n.site != r.site || n.block != r.block || n.warp != r.warp || o.site != r.site || o.block != r.block ||
        o.warp != r.warp)
      return false;
    return n.seq == o.seq || (n.seq == o.seq + 1 && o.active == ~0u && o.launch == n.launch);
  };
  size_t a = i, b = i + 1;
  while (a > 0 && follows(a - 1)) --a;
  while (b < t.records.size() && follows(b - 1)) ++b;
  return {a, b};
}

std::string why_unmodelled(const trace::Trace& t, const trace::Record& r) {
  std::set<uint32_t> ranks;
  std::string array;
  for (int l = 0; l < trace::kWarpSize; ++l) {
    if (!r.lane_active(l)) continue;
    const uint32_t b = r.buffer_of(l);
    if (b >= t.buffers.size()) continue;
    if (t.buffers[b].cta) ranks.insert(t.buffers[b].cta - 1);
    if (array.empty()) array = trace::array_name(t.buffers[b]);
  }
  std::string who;
  for (uint32_t k : ranks) who += (who.empty() ? "" : ranks.size() > 1 && k == *ranks.rbegin() ? " and " : ", ") + std::to_string(k);
  const std::string verb = r.site < t.sites.size() && t.sites[r.site].op == trace::Op::Store ? "writes" : "reaches";
  return verb + " " + (array.empty() ? std::string("shared memory") : "`" + array + "`") + " of CTA rank" +
         (ranks.size() > 1 ? "s " : " ") + (who.empty() ? "?" : who) +
         " in its cluster (distributed shared memory): the path between SMs has no cost model here, so no sectors or "
         "wavefronts are given";
}

namespace {

// A bulk (TMA) copy is one thread's instruction, kept as records of up to 512 bytes (32
// pieces of 16) that follow one another: which of them `r` is, and the copy's bytes.
std::string bulk_head(const trace::Trace& t, const trace::Record& r, const trace::Site& site) {
  if (site.form != trace::Form::BulkRead && site.form != trace::Form::BulkWrite) return "";
  const trace::Record* all = t.records.data();
  if (&r < all || &r >= all + t.records.size()) return "";
  const size_t i = size_t(&r - all);
  const auto [a, b] = bulk_issue(t, i);
  uint64_t bytes = 0;
  for (size_t j = a; j < b; ++j) bytes += uint64_t(std::popcount(t.records[j].active)) * site.bytes;
  return "one thread's bulk copy of " + std::to_string(bytes) + " bytes, record " + std::to_string(i - a + 1) + " of " +
         std::to_string(b - a) + ": ";
}

// Of the record alone (a bulk copy's record as if its pieces were lanes).
std::string why_plain(const trace::Trace& t, const trace::Record& r) {
  if (r.site >= t.sites.size()) return "unknown site";
  const trace::Site& site = t.sites[r.site];
  uint32_t bytes = detail::lane_bytes(site.bytes);
  if (!cost_modelled(site.space)) return why_unmodelled(t, r);
  auto p = detail::pattern(r, bytes);
  if (site.space != trace::Space::Shared) {  // local and constant memory are served in sectors too
    GlobalCost c = global_cost(site, r);
    detail::GlobalNumbers g{double(c.sectors), double(c.ideal_sectors), c.efficiency};
    return detail::why_global(t, site, p, g);
  }
  SharedCost c = shared_cost(site, r);
  detail::SharedNumbers n;
  n.wavefronts = c.wavefronts;
  n.ideal = c.ideal_wavefronts;
  n.conflicts = c.conflicts;
  n.max_way = c.max_way;
  detail::shared_banks(r, bytes, n.banks_used, n.bank);
  return detail::why_shared(t, site, p, n, true);
}

}  // namespace

std::string why(const trace::Trace& t, const trace::Record& r) {
  if (r.site >= t.sites.size()) return "unknown site";
  const trace::Site& site = t.sites[r.site];
  if (const std::string bulk = bulk_head(t, r, site); !bulk.empty()) {
    const std::string rest = why_plain(t, r);
    // Its pieces read as a warp's lanes would ("the warp reads 4 runs ..."): said of the record.
    const size_t arrow = rest.find(" → ");
    return bulk + (arrow == std::string::npos ? rest : "its 32 pieces of 16 bytes" + rest.substr(arrow));
  }
  return why_plain(t, r);
}


}  // namespace ws::analysis
