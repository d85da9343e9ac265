// src/analysis/pipeline.cpp — a block's bulk copies as boxes in the slots they land in, and
// its waits and mmas, from the records and the copies' pairing (copies.cpp).
#include "analysis/pipeline.h"

#include <algorithm>
#include <bit>
#include <map>
#include <set>
#include <tuple>

#include "analysis/analysis.h"

namespace ws::analysis {

Pipeline pipeline_of(const trace::Trace& t, const Copies& c, uint32_t block) {
  Pipeline p;
  p.block = block;
  // The boxes: the read records of one instruction of one warp (a box's 512-byte pieces
  // share its seq), with the write records paired to them.
  struct Box {
    uint64_t issued = kNoRecord, landed = kNoRecord;
    uint32_t warp = 0, buffer = trace::kNoBuffer;
    uint64_t lo = ~uint64_t(0), hi = 0;
    uint32_t to = trace::kNoBuffer;    // a store's global array
    uint32_t from = trace::kNoBuffer;  // a load's global array
  };
  // The shared bytes of record `r` (a load's write half, a store's read half) into box b.
  auto cover = [](Box& b, const trace::Record& r, uint32_t bytes) {
    for (int l = 0; l < trace::kWarpSize; ++l) {
      if (!r.lane_active(l)) continue;
      if (b.buffer == trace::kNoBuffer) b.buffer = r.buffer_of(l);
      if (r.buffer_of(l) != b.buffer) continue;
      b.lo = std::min<uint64_t>(b.lo, r.offset[size_t(l)]);
      b.hi = std::max<uint64_t>(b.hi, r.offset[size_t(l)] + bytes);
    }
  };
  std::vector<Box> boxes;
  std::map<std::tuple<uint32_t, uint32_t, uint64_t>, size_t> of;  // (warp, site, its first record) -> its box
  for (uint64_t i = 0; i < t.records.size(); ++i) {
    const trace::Record& r = t.records[i];
    if (r.block != block) continue;
    p.first = std::min(p.first, i);
    p.last = i;
    if (r.site >= t.sites.size() || t.sites[r.site].form != trace::Form::BulkRead) continue;
    auto [o, fresh] = of.emplace(std::make_tuple(r.warp, r.site, uint64_t(bulk_issue(t, size_t(i)).first)), boxes.size());
    if (fresh) boxes.push_back({i, kNoRecord, r.warp});
    Box& b = boxes[o->second];
    // A store reads shared memory (its slot) and writes global memory at its wait.
    const bool store = t.sites[r.site].space == trace::Space::Shared;
    if (store) cover(b, r, t.sites[r.site].bytes);
    else if (b.from == trace::kNoBuffer && r.active) b.from = r.buffer_of(std::countr_zero(r.active));
    const uint64_t w = c.partner(i);
    if (w == kNoRecord || w >= t.records.size()) continue;
    const trace::Record& wr = t.records[w];
    b.landed = std::min(b.landed, w);
    if (!store) cover(b, wr, wr.site < t.sites.size() ? t.sites[wr.site].bytes : 16);
    else if (b.to == trace::kNoBuffer) b.to = wr.buffer_of(std::countr_zero(wr.active));
  }
  // The slots: where the boxes land (a box that never landed is left out), and apart from
  // them the bytes that stores read (a tile a box lands in and a store then writes back out
  // is two rows: what came in, what went out).
  std::map<std::tuple<uint32_t, uint64_t, bool>, PipelineSlot> slots;
  for (const Box* b = boxes.data(); b != boxes.data() + boxes.size(); ++b) {  // (in issue order)
    if (b->buffer == trace::kNoBuffer) continue;
    PipelineSlot& s = slots[{b->buffer, b->lo, b->to != trace::kNoBuffer}];
    s.buffer = b->buffer;
    s.offset = b->lo;
    if (b->to != trace::kNoBuffer) s.to = b->to;
    // The global array its boxes came from; kNoBuffer when they came from several.
    if (s.boxes.empty()) s.from = b->from;
    else if (s.from != b->from) s.from = trace::kNoBuffer;
    s.bytes = std::max(s.bytes, b->hi - b->lo);
    s.boxes.push_back({b->issued, b->landed, b->warp, b->hi - b->lo});
  }
  for (auto& [key, s] : slots) p.slots.push_back(std::move(s));
  if (p.slots.empty()) return p;
  // The block's waits and mmas, at their place among every warp's requests (a file that
  // did not keep it: where the timeline marks them, by their own warp's requests).
  std::set<uint32_t> warps;
  std::map<uint32_t, PipelineBarrier> barriers;
  for (const EventMark& m : c.events) {
    if (m.event >= t.events.size()) continue;
    const trace::Event& e = t.events[m.event];
    if (e.block != block || e.site >= t.event_sites.size()) continue;
    const uint64_t at = e.at != trace::kUnplaced ? std::min<uint64_t>(e.at, t.records.size()) : m.when();
    if (at == kNoRecord) continue;
    const trace::Form f = t.event_sites[e.site].form;
    if (e.barrier != trace::kNoBarrier && (f == trace::Form::Phase || f == trace::Form::Wait)) {
      PipelineBarrier& b = barriers[e.barrier];
      b.offset = e.barrier;
      if (f == trace::Form::Phase) b.phases.push_back({at, e.warp, e.arg, m.event});
      else b.waits.push_back({at, e.warp, f, m.event});
    }
    if (f != trace::Form::Wait && f != trace::Form::Mma) continue;
    p.ticks.push_back({at, e.warp, f, m.event});
    warps.insert(e.warp);
  }
  std::stable_sort(p.ticks.begin(), p.ticks.end(), [](const PipelineTick& x, const PipelineTick& y) { return x.step < y.step; });
  p.warps.assign(warps.begin(), warps.end());
  for (auto& [offset, b] : barriers) {
    std::stable_sort(b.phases.begin(), b.phases.end(), [](const PipelinePhase& x, const PipelinePhase& y) { return x.step < y.step; });
    std::stable_sort(b.waits.begin(), b.waits.end(), [](const PipelineTick& x, const PipelineTick& y) { return x.step < y.step; });
    p.barriers.push_back(std::move(b));
  }
  return p;
}

}  // namespace ws::analysis
