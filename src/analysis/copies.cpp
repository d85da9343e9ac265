// src/analysis/copies.cpp — copies into shared memory followed through one launch's
// records: async halves (cp.async's, and a bulk or tensor copy's 512-byte pieces) paired by
// their order in the warp, plain ld → st copies by lane,
// each shared element's source column, and the events placed among the requests.
#include "analysis/copies.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

namespace ws::analysis {

using trace::Record;
using trace::Trace;

namespace {

uint64_t warp_key(const Record& r) { return uint64_t(r.block) << 32 | r.warp; }

uint64_t elements_of(const trace::Buffer& b) {
  const uint64_t n = b.elem_bytes ? b.size_bytes / b.elem_bytes : 0;
  return n ? n : b.rows * b.cols;
}

// Writes into `out` the source columns of the lanes of `w` (a shared write) from `rd`
// (the global read that fed it), element by element.
void fill(const Trace& t, uint64_t wi, const Record& w, const Record& rd, uint32_t bytes, Copies& out) {
  for (int l = 0; l < trace::kWarpSize; ++l) {
    if (!w.lane_active(l) || !rd.lane_active(l)) continue;
    const uint32_t sb = w.buffer_of(l), gb = rd.buffer_of(l);
    if (sb >= t.buffers.size() || gb >= t.buffers.size()) continue;
    const trace::Buffer &sbuf = t.buffers[sb], &gbuf = t.buffers[gb];
    if (sbuf.space != trace::Space::Shared || gbuf.space == trace::Space::Shared || !sbuf.elem_bytes || !gbuf.elem_bytes)
      continue;
    auto it = std::find_if(out.shared.begin(), out.shared.end(), [&](const SourceColumns& s) { return s.buffer == sb; });
    if (it == out.shared.end()) {
      SourceColumns s;
      s.buffer = sb;
      s.from = gb;
      s.elem_bytes = sbuf.elem_bytes;
      s.from_elem_bytes = gbuf.elem_bytes;
      s.column.assign(size_t(elements_of(sbuf)), -1);
      s.written_at.assign(s.column.size(), kNoRecord);
      out.shared.push_back(std::move(s));
      it = out.shared.end() - 1;
    }
    for (uint32_t b = 0; b < bytes; b += sbuf.elem_bytes) {
      const uint64_t se = (w.offset[size_t(l)] + b) / sbuf.elem_bytes, ge = (rd.offset[size_t(l)] + b) / gbuf.elem_bytes;
      if (se >= it->column.size() || it->column[size_t(se)] >= 0) continue;
      it->column[size_t(se)] = int32_t(column_of(gbuf, ge));
      it->written_at[size_t(se)] = wi;
    }
  }
}

void place_events(const Trace& t, Copies& out) {
  if (t.events.empty()) return;
  // Each warp's records in order, by (block, warp): their seq rises with execution.
  std::unordered_map<uint64_t, std::vector<std::pair<uint32_t, uint64_t>>> runs;
  for (uint64_t i = 0; i < t.records.size(); ++i) runs[warp_key(t.records[i])].push_back({t.records[i].seq, i});
  out.events.resize(t.events.size());
  for (uint32_t k = 0; k < t.events.size(); ++k) {
    const trace::Event& e = t.events[k];
    EventMark& m = out.events[k];
    m.event = k;
    if (e.at != trace::kUnplaced && e.at < t.records.size()) m.placed = e.at;
    auto it = runs.find(uint64_t(e.block) << 32 | e.warp);
    if (it == runs.end()) continue;
    const auto& run = it->second;
    auto at = std::upper_bound(run.begin(), run.end(), std::pair<uint32_t, uint64_t>{e.seq, kNoRecord});
    if (at != run.end()) m.before = at->second;
    if (at != run.begin()) m.after = std::prev(at)->second;
  }
}

}  // namespace

uint64_t column_of(const trace::Buffer& b, uint64_t e) {
  const uint64_t pitch = std::max<uint64_t>(1, b.row_pitch());
  return b.col_major ? e / pitch : e % pitch;
}

uint64_t Copies::partner(uint64_t record) const {
  auto find = [&](const std::vector<std::pair<uint64_t, uint64_t>>& v) {
    auto it = std::lower_bound(v.begin(), v.end(), std::pair<uint64_t, uint64_t>{record, 0});
    return it != v.end() && it->first == record ? it->second : kNoRecord;
  };
  const uint64_t w = find(async_pairs);
  return w != kNoRecord ? w : find(by_read);
}

const SourceColumns* Copies::columns_of(uint32_t buffer) const {
  for (const SourceColumns& s : shared)
    if (s.buffer == buffer) return &s;
  return nullptr;
}

Copies follow_copies(const Trace& t) {
  Copies out;
  // An async write's read: the reads of each (block, warp, read site) in order, and how
  // many of them each (block, warp, write site) has taken.
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>, std::vector<uint64_t>> reads;
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>, size_t> taken;
  std::unordered_map<uint64_t, uint64_t> last_load;  // by warp: its most recent global load
  // A bulk copy's group wholly outside its tensor has a write record and no read record: a
  // warp's bulk halves at a site are paired only where their counts agree (by read site).
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>, int64_t> bulk_balance;
  for (const Record& r : t.records) {
    const trace::Site* s = r.site < t.sites.size() ? &t.sites[r.site] : nullptr;
    if (s && s->form == trace::Form::BulkRead) ++bulk_balance[{r.block, r.warp, r.site}];
    if (s && s->form == trace::Form::BulkWrite && s->partner != trace::kNoSite) --bulk_balance[{r.block, r.warp, s->partner}];
  }
  for (uint64_t i = 0; i < t.records.size(); ++i) {
    const Record& r = t.records[i];
    if (r.site >= t.sites.size()) continue;
    const trace::Site& s = t.sites[r.site];
    if (s.form == trace::Form::AsyncRead || s.form == trace::Form::BulkRead) {
      reads[{r.block, r.warp, r.site}].push_back(i);
    } else if ((s.form == trace::Form::AsyncWrite || s.form == trace::Form::BulkWrite) && s.partner != trace::kNoSite) {
      if (s.form == trace::Form::BulkWrite && bulk_balance.at({r.block, r.warp, s.partner}) != 0) continue;
      const auto& q = reads[{r.block, r.warp, s.partner}];
      const size_t k = taken[{r.block, r.warp, r.site}]++;
      if (k >= q.size()) continue;  // its read was not recorded
      out.async_pairs.push_back({i, q[k]});
      fill(t, i, r, t.records[q[k]], s.bytes, out);
    } else if (s.form == trace::Form::Plain && s.op == trace::Op::Load && s.space == trace::Space::Global) {
      last_load[warp_key(r)] = i;
    } else if (s.form == trace::Form::Plain && s.op == trace::Op::Store && s.space == trace::Space::Shared) {
      auto it = last_load.find(warp_key(r));
      if (it == last_load.end()) continue;
      const Record& ld = t.records[it->second];
      if (t.sites[ld.site].bytes == s.bytes) fill(t, i, r, ld, s.bytes, out);
    }
  }
  for (const auto& [w, rd] : out.async_pairs) out.by_read.push_back({rd, w});
  std::sort(out.by_read.begin(), out.by_read.end());
  place_events(t, out);
  return out;
}

int64_t nearest_mma(const Trace& t, uint64_t record, bool* later, bool* other_warp) {
  if (later) *later = false;
  if (other_warp) *other_warp = false;
  if (record >= t.records.size()) return -1;
  const Record& r = t.records[record];
  int64_t before = -1, after = -1;
  // Another warp's of the block: the nearest in time (placed events; else the first).
  int64_t near = -1;
  uint64_t gap = ~uint64_t(0);
  for (size_t k = 0; k < t.events.size(); ++k) {
    const trace::Event& e = t.events[k];
    if (e.launch != r.launch || e.block != r.block || e.site >= t.event_sites.size() ||
        t.event_sites[e.site].form != trace::Form::Mma)
      continue;
    if (e.warp != r.warp) {
      const uint64_t d = e.at == trace::kUnplaced ? ~uint64_t(0) - 1 : e.at > record ? e.at - record : record - e.at;
      if (d < gap) gap = d, near = int64_t(k);
      continue;
    }
    if (e.seq <= r.seq) before = int64_t(k);  // events run in order: the last one wins
    else if (after < 0) after = int64_t(k);
  }
  if (before < 0 && after < 0 && near >= 0) {
    if (other_warp) *other_warp = true;
    const uint64_t at = t.events[size_t(near)].at;
    if (later) *later = at != trace::kUnplaced && at > record;
    return near;
  }
  if (before >= 0 || after < 0) return before;
  if (later) *later = true;
  return after;
}

std::string event_text(const Trace& t, const trace::Event& e) {
  if (e.site >= t.event_sites.size()) return "?";
  const trace::Site& s = t.event_sites[e.site];
  std::string name = s.instruction.empty() ? trace::to_string(s.form) : s.instruction;
  if (s.form == trace::Form::Wait && s.instruction.find("wait_group") != std::string::npos)
    return name + " " + std::to_string(e.arg) + " (lets " + std::to_string(e.arg) +
           (e.arg == 1 ? " group" : " groups") + " stay in flight)";
  return name;
}

}  // namespace ws::analysis
