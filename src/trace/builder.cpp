// src/trace/builder.cpp — the builder's tables, its per-launch record cap, and the grouping of
// lane streams into warp records (builder.h).
#include "trace/builder.h"

#include <stdexcept>

#include "trace/grouping.h"

namespace ws::trace {
namespace {

bool name_char(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }

}  // namespace

uint32_t index_column(const std::string& text, uint32_t line, const std::string& array) {
  const std::string code = line_text(text, line);
  if (!array.empty()) {
    for (size_t p = code.find(array); p != std::string::npos; p = code.find(array, p + 1)) {
      const size_t after = p + array.size();
      if (p > 0 && name_char(code[p - 1])) continue;
      if (after < code.size() && code[after] == '[') return uint32_t(p + 1);
    }
  }
  const size_t b = code.find_first_not_of(" \t\r");
  return b == std::string::npos ? 0u : uint32_t(b + 1);
}

size_t Builder::SiteKeyHash::operator()(const SiteKey& k) const {
  uint64_t h = k.file;
  h = h * 1000003u ^ k.line;
  h = h * 1000003u ^ k.column;
  h = h * 1000003u ^ k.buffer;
  h = h * 1000003u ^ (uint32_t(k.space) | uint32_t(k.op) << 8 | uint32_t(k.bytes) << 16 | uint32_t(k.form) << 24);
  return size_t(h ^ std::hash<std::string>()(k.instruction));
}

Builder::Builder(Trace& out, uint64_t max_records, bool keep)
    : t_(&out), max_records_(max_records), keep_(keep) {
  for (size_t i = 0; i < out.sites.size(); ++i) {
    const Site& s = out.sites[i];
    sites_.emplace(SiteKey{s.file, s.line, s.column, s.buffer, uint8_t(s.space), uint8_t(s.op), s.bytes,
                           uint8_t(s.form), s.instruction},
                   uint32_t(i));
  }
  if (!out.launches.empty()) launch_ = uint32_t(out.launches.size() - 1);
  // Records already there of the launch still open count against its cap.
  launch_first_ = out.records.size();
  while (launch_first_ && out.records[launch_first_ - 1].launch == launch_) --launch_first_;
  resolve_ = [this](uint32_t key) { return catalog_key_site(key); };
}

uint32_t Builder::add_file(std::string name, std::string text) {
  t_->files.push_back({std::move(name), std::move(text)});
  return uint32_t(t_->files.size() - 1);
}

uint32_t Builder::add_buffer(Buffer b) {
  t_->buffers.push_back(std::move(b));
  return uint32_t(t_->buffers.size() - 1);
}

uint32_t Builder::add_shared(std::string name, uint32_t elem_bytes, uint64_t rows, uint64_t cols, uint64_t bytes,
                             uint64_t offset) {
  Buffer b = shared_buffer(std::move(name), elem_bytes, rows, cols, bytes);
  b.shared_offset = offset;
  return add_buffer(std::move(b));
}

uint32_t Builder::begin_launch(Launch l) {
  t_->launches.push_back(std::move(l));
  launch_ = uint32_t(t_->launches.size() - 1);
  launch_first_ = t_->records.size();
  return launch_;
}

uint32_t Builder::site(const Site& s) {
  SiteKey k{s.file, s.line, s.column, s.buffer, uint8_t(s.space), uint8_t(s.op), s.bytes, uint8_t(s.form), s.instruction};
  auto it = sites_.find(k);
  if (it != sites_.end()) return it->second;
  const uint32_t id = add_site(s);
  sites_.emplace(std::move(k), id);
  return id;
}

uint32_t Builder::add_site(Site s) {
  if (s.code.empty() && s.file < t_->files.size()) s.code = source_line(t_->files[s.file].text, s.line);
  t_->sites.push_back(std::move(s));
  return uint32_t(t_->sites.size() - 1);
}

KeySite Builder::catalog_key_site(uint32_t key) {
  Site s;
  s.file = 0;
  s.line = key_line(key);
  s.buffer = key_buffer(key);
  const Buffer* b = s.buffer < t_->buffers.size() ? &t_->buffers[s.buffer] : nullptr;
  s.space = b ? b->space : Space::Global;
  s.op = Op(key_op(key));
  s.bytes = uint8_t(key_bytes(key));
  s.form = Form(key_form(key));
  if (!t_->files.empty()) s.column = index_column(t_->files[0].text, s.line, b ? b->name : std::string());
  const uint32_t id = site(s);
  // An async copy's halves, and a TMA box's, are the sites of one line.
  const bool async = s.form == Form::AsyncRead || s.form == Form::AsyncWrite;
  if (async || s.form == Form::BulkRead || s.form == Form::BulkWrite) {
    const Form other = s.form == Form::AsyncRead ? Form::AsyncWrite
                       : s.form == Form::AsyncWrite ? Form::AsyncRead
                       : s.form == Form::BulkRead  ? Form::BulkWrite
                                                   : Form::BulkRead;
    for (uint32_t i = 0; i < t_->sites.size() && t_->sites[id].partner == kNoSite; ++i) {
      Site& o = t_->sites[i];
      if (o.form == other && o.partner == kNoSite && o.file == s.file && o.line == s.line) {
        o.partner = id;
        t_->sites[id].partner = i;
      }
    }
  }
  return {id, s.buffer};
}

uint32_t Builder::event_site(uint32_t key, uint32_t arg) {
  auto it = event_keys_.find(key);
  if (it != event_keys_.end()) return it->second;
  Site s;
  s.file = 0;
  s.line = key_line(key);
  s.form = Form(key_event_form(key));
  s.bytes = 0;
  // An event key carries no instruction; a catalog kernel's mma is one of the kernel
  // contract's forms, ctx.mma_m16n8k16 or ctx.wgmma (whose event carries its N), named so
  // that the fragment view can lay it out.
  if (s.form == Form::Mma)
    s.instruction = arg ? "wgmma.mma_async.sync.aligned.m64n" + std::to_string(arg) + "k16.f32.f16.f16"
                        : "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32";
  // ctx.setmaxnreg_dec / _inc: fewer or more registers than the thread had at launch.
  if (s.form == Form::Registers)
    s.instruction = std::string("setmaxnreg.") + (arg < registers_at_launch(launch().block.count()) ? "dec" : "inc") +
                    ".sync.aligned.u32";
  if (!t_->files.empty()) {
    s.column = index_column(t_->files[0].text, s.line, std::string());
    s.code = source_line(t_->files[0].text, s.line);
  }
  t_->event_sites.push_back(std::move(s));
  const uint32_t id = uint32_t(t_->event_sites.size() - 1);
  event_keys_.emplace(key, id);
  return id;
}

void Builder::add_event(const WarpAccess& a, uint32_t key, uint32_t arg) {
  const uint32_t site = event_site(key, arg);
  if (!keep_) return;
  Event& e = t_->events.emplace_back();
  e.launch = launch_;
  e.block = a.block;
  e.warp = a.warp;
  e.site = site;
  e.seq = a.seq;
  e.epoch = a.epoch;
  e.active = a.active;
  e.arg = arg;
  e.at = launch_records();
}

bool Builder::add(const WarpAccess& a) {
  if (!room()) {
    drop(1);
    return false;
  }
  Record& r = t_->records.emplace_back();
  r.launch = launch_;
  r.block = a.block;
  r.warp = a.warp;
  r.site = a.site;
  r.seq = a.seq;
  r.epoch = a.epoch;
  r.active = a.active;
  r.buffer = a.buffer;
  if (a.lanes) r.lanes = std::make_shared<const LaneBuffers>(*a.lanes);
  for (int l = 0; l < kWarpSize; ++l) r.offset[size_t(l)] = a.offset[l];
  return true;
}

bool Builder::add(Record&& r) {
  if (!room()) {
    drop(1);
    return false;
  }
  r.launch = launch_;
  t_->records.push_back(std::move(r));
  return true;
}

namespace {
// The lanes of a collective record that brought a row: kNoRow entries leave the active
// mask (their offset cleared) and the count of accesses.
uint32_t without_rowless(Record& r, uint64_t& accesses) {
  uint32_t active = r.active;
  for (int l = 0; l < kWarpSize; ++l)
    if (((active >> l) & 1u) && r.offset[size_t(l)] == kNoRow) {
      active &= ~(1u << l);
      r.offset[size_t(l)] = 0;
      --accesses;
    }
  return active;
}

static_assert(kMatrixForm == uint32_t(Form::Matrix) && kMmaForm == uint32_t(Form::Mma), "grouping.h's forms");
}  // namespace

uint64_t Builder::group(const uint64_t* const* first, const uint64_t* const* end, int nlanes, uint32_t block,
                        uint32_t warp, uint32_t epoch, uint32_t& seq) {
  const uint64_t* pos[kWarpSize];
  uint64_t accesses = 0;
  for (int l = 0; l < nlanes; ++l) {
    pos[l] = first[l];
    accesses += uint64_t(end[l] - first[l]);
  }
  // An event entry of the lanes `active`, numbered on the records' seq.
  auto event = [&](uint32_t active, uint32_t key, uint32_t arg) {
    WarpAccess e;
    e.block = block;
    e.warp = warp;
    e.epoch = epoch;
    e.seq = seq++;
    e.active = active;
    add_event(e, key, arg);
  };
  // Fast path: every lane executed the same sequence of keys (a converged warp).
  bool converged = true;
  const size_t len = size_t(end[0] - pos[0]);
  for (int l = 1; l < nlanes && converged; ++l) {
    if (size_t(end[l] - pos[l]) != len) {
      converged = false;
      break;
    }
    for (size_t i = 0; i < len; ++i)
      if ((pos[l][i] ^ pos[0][i]) >> 32) {
        converged = false;
        break;
      }
  }
  if (converged) {
    const uint32_t mask = nlanes == kWarpSize ? ~0u : ((1u << nlanes) - 1u);
    uint32_t last_key = ~0u;
    KeySite ks;
    for (size_t i = 0; i < len; ++i) {
      const uint32_t key = uint32_t(pos[0][i] >> 32);
      if (key_is_event(key)) {
        event(mask, key, uint32_t(pos[0][i]));
        accesses -= uint64_t(nlanes);
        continue;
      }
      if (key != last_key) {
        ks = key_site(key);
        last_key = key;
      }
      if (!room()) {
        drop(1);
        ++seq;
        continue;
      }
      Record& r = t_->records.emplace_back();
      r.launch = launch_;
      r.block = block;
      r.warp = warp;
      r.epoch = epoch;
      r.seq = seq++;
      r.site = ks.site;
      r.buffer = ks.buffer;
      r.active = mask;
      for (int l = 0; l < nlanes; ++l) r.offset[size_t(l)] = uint32_t(pos[l][i]);
      if (key_form(key) == uint32_t(Form::Matrix)) r.active = without_rowless(r, accesses);
    }
    return accesses;
  }
  // Divergent: one record per meeting of the lanes (grouping.h). Within a barrier
  // interval every lane is either at an access or done, so `pending` is the lanes with
  // entries left. A warp-collective entry waits for the lanes still on their way to it.
  for (;;) {
    uint32_t pending = 0;
    for (int l = 0; l < nlanes; ++l)
      if (pos[l] != end[l]) pending |= 1u << l;
    if (!pending) break;
    uint32_t leader = group_leader(pending);
    if (key_is_collective(uint32_t(*pos[leader] >> 32))) {
      uint32_t behind = 0;
      for (int l = 0; l < nlanes; ++l)
        if (((pending >> l) & 1u) && !key_is_collective(uint32_t(*pos[l] >> 32))) behind |= 1u << l;
      leader = collective_leader(pending, behind);
    }
    const uint32_t key = uint32_t(*pos[leader] >> 32);
    uint32_t same = 0;
    for (int l = 0; l < nlanes; ++l)
      if (pos[l] != end[l] && uint32_t(*pos[l] >> 32) == key) same |= 1u << l;
    const uint32_t lanes = group_lanes(pending, same);
    if (key_is_event(key)) {
      event(lanes, key, uint32_t(*pos[leader]));
      for (int l = 0; l < nlanes; ++l)
        if ((lanes >> l) & 1u) ++pos[l];
      accesses -= uint64_t(__builtin_popcount(lanes));
      continue;
    }
    const KeySite& ks = key_site(key);
    uint32_t off[kWarpSize] = {};
    for (int l = 0; l < nlanes; ++l)
      if ((lanes >> l) & 1u) off[l] = uint32_t(*pos[l]++);
    WarpAccess a;
    a.block = block;
    a.warp = warp;
    a.epoch = epoch;
    a.seq = seq++;
    a.site = ks.site;
    a.active = lanes;
    a.buffer = ks.buffer;
    a.offset = off;
    if (key_form(key) == uint32_t(Form::Matrix))
      for (int l = 0; l < nlanes; ++l)
        if (((lanes >> l) & 1u) && off[l] == kNoRow) {
          a.active &= ~(1u << l);
          off[l] = 0;
          --accesses;
        }
    add(a);
  }
  return accesses;
}

}  // namespace ws::trace
