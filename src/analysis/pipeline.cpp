// src/analysis/pipeline.cpp — a block's bulk copies as boxes in the slots they land in, and
// its waits and mmas, from the records and the copies' pairing (copies.cpp).
#include "analysis/pipeline.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

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
  };
  std::vector<Box> boxes;
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>, size_t> of;  // (warp, site, seq) -> its box
  for (uint64_t i = 0; i < t.records.size(); ++i) {
    const trace::Record& r = t.records[i];
    if (r.block != block) continue;
    p.first = std::min(p.first, i);
    p.last = i;
    if (r.site >= t.sites.size() || t.sites[r.site].form != trace::Form::BulkRead) continue;
    auto [o, fresh] = of.emplace(std::make_tuple(r.warp, r.site, r.seq), boxes.size());
    if (fresh) boxes.push_back({i, kNoRecord, r.warp});
    Box& b = boxes[o->second];
    const uint64_t w = c.partner(i);
    if (w == kNoRecord || w >= t.records.size()) continue;
    const trace::Record& wr = t.records[w];
    const uint32_t bytes = wr.site < t.sites.size() ? t.sites[wr.site].bytes : 16;
    b.landed = std::min(b.landed, w);
    for (int l = 0; l < trace::kWarpSize; ++l) {
      if (!wr.lane_active(l)) continue;
      if (b.buffer == trace::kNoBuffer) b.buffer = wr.buffer_of(l);
      if (wr.buffer_of(l) != b.buffer) continue;
      b.lo = std::min<uint64_t>(b.lo, wr.offset[size_t(l)]);
      b.hi = std::max<uint64_t>(b.hi, wr.offset[size_t(l)] + bytes);
    }
  }
  // The slots: where the boxes land (a box that never landed is left out).
  std::map<std::pair<uint32_t, uint64_t>, PipelineSlot> slots;
  for (const Box* b = boxes.data(); b != boxes.data() + boxes.size(); ++b) {  // (in issue order)
    if (b->buffer == trace::kNoBuffer) continue;
    PipelineSlot& s = slots[{b->buffer, b->lo}];
    s.buffer = b->buffer;
    s.offset = b->lo;
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
