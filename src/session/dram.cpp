// src/session/dram.cpp — the DRAM view's array choice and its epoch's bursts per channel and bank.
#include "session/dram.h"

#include <algorithm>

#include "analysis/analysis.h"

namespace ws::session {

bool DramFigures::hits(uint32_t channel, uint32_t bank) const {
  return std::binary_search(hit.begin(), hit.end(), std::make_pair(channel, bank));
}

bool DramFigures::hits_channel(uint32_t channel) const {
  return std::binary_search(hit_channels.begin(), hit_channels.end(), channel);
}

DramArray dram_array_at(const Session& s, uint64_t step, DramChoice choice) {
  DramArray a;
  const trace::Trace& t = s.trace();
  if (choice.kind == DramChoice::Kind::Array) {
    if (choice.buffer < t.buffers.size()) a.buffer = choice.buffer;
    return a;
  }
  if (choice.kind == DramChoice::Kind::All || t.records.empty()) return a;
  const uint64_t n = t.records.size();
  step = std::min(step, n - 1);
  // The array of record i when it is a global request, else kNoBuffer.
  auto global = [&](uint64_t i) {
    const trace::Record& r = t.records[i];
    return t.sites[r.site].space == trace::Space::Global ? r.buffer : trace::kNoBuffer;
  };
  a.followed = true;
  if (uint32_t b = global(step); b != trace::kNoBuffer) {
    a.buffer = b;
    return a;
  }
  // A shared request: the nearest global request before it, else after it. The search is
  // bounded, so a trace of shared accesses alone costs a frame little.
  constexpr uint64_t kReach = 1 << 16;
  for (uint64_t k = 1; k <= kReach && k <= step; ++k)
    if (uint32_t b = global(step - k); b != trace::kNoBuffer) {
      a.buffer = b;
      a.other_request = true;
      a.from = step - k;
      return a;
    }
  for (uint64_t k = 1; k <= kReach && step + k < n; ++k)
    if (uint32_t b = global(step + k); b != trace::kNoBuffer) {
      a.buffer = b;
      a.other_request = true;
      a.from = step + k;
      return a;
    }
  return a;
}

DramFigures dram_figures(const Session& s, const RequestFigures& rv, uint32_t array) {
  DramFigures f;
  f.recorded = recorded_text(s);
  const analysis::DramModel& d = s.report().dram;
  f.epoch = rv.rec ? rv.rec->epoch : 0;
  f.channels = std::max<uint32_t>(1, d.channels);
  f.banks = std::max<uint32_t>(1, d.banks);
  f.shared = rv.shared || !rv.modelled;  // (another CTA's shared memory: no DRAM traffic either)
  const uint32_t C = f.channels, B = f.banks;
  f.cells.assign(size_t(C) * B, 0);
  f.per_channel.assign(C, 0);
  for (const auto& e : s.report().epochs) {
    if (e.epoch != f.epoch) continue;
    for (const auto& a : e.arrays) {
      if (array != trace::kNoBuffer && a.buffer != array) continue;
      for (uint32_t c = 0; c < C && c < a.per_bank.size(); ++c)
        for (uint32_t b = 0; b < B && b < a.per_bank[c].size(); ++b) f.cells[size_t(b) * C + c] += a.per_bank[c][b];
      for (uint32_t c = 0; c < C && c < a.per_channel.size(); ++c) f.per_channel[c] += a.per_channel[c];
    }
  }
  for (uint32_t c = 0; c < C; ++c) {
    f.busy += f.per_channel[c] > 0;
    f.total += f.per_channel[c];
  }
  for (uint64_t v : f.cells) f.max_cell = std::max(f.max_cell, v);
  if (rv.rec && rv.site && !rv.shared && rv.modelled && (array == trace::kNoBuffer || rv.rec->buffer == array)) {
    const auto bursts = analysis::touched_granules(*rv.rec, rv.site->bytes, d.burst_bytes);
    f.request_bursts = bursts.size();
    for (uint64_t x : bursts) {
      f.hit.emplace_back(d.channel(x * d.burst_bytes), d.bank(x * d.burst_bytes));
      f.hit_channels.push_back(f.hit.back().first);
    }
    std::sort(f.hit.begin(), f.hit.end());
    f.hit.erase(std::unique(f.hit.begin(), f.hit.end()), f.hit.end());
    std::sort(f.hit_channels.begin(), f.hit_channels.end());
    f.hit_channels.erase(std::unique(f.hit_channels.begin(), f.hit_channels.end()), f.hit_channels.end());
  }
  return f;
}

DramFigures dram_view_figures(const Session& s, const RequestFigures& rv, DramChoice choice, DramArray* shown) {
  const DramArray a = dram_array_at(s, rv.step, choice);
  if (shown) *shown = a;
  if (!a.other_request) return dram_figures(s, rv, a.buffer);
  DramFigures f = dram_figures(s, s.request(a.from), a.buffer);
  f.request_bursts = 0;
  f.hit.clear();
  f.hit_channels.clear();
  f.shared = true;
  return f;
}

}  // namespace ws::session
