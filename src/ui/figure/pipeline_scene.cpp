// src/ui/figure/pipeline_scene.cpp — Pipeline view: a block's shared ring over its requests, as
// TMA filled it and its warps consumed it. One row per slot of shared memory the block's
// bulk copies land in (a stage of the ring): each box a bar from the request that issued it
// to the wait where it landed (in flight), then solid until the slot is filled again (its
// data there for the consumers). Under them a row per mbarrier: its phases as alternating
// shades, each flip where the arrival or the copy whose bytes completed the phase ran (its
// transaction bytes written there), the waits that named it as ticks; then a row per warp
// that waited or ran an mma or wgmma, a tick at each. The current request is the playhead, its block the block drawn.
#include <algorithm>
#include <cstdio>
#include <memory>

#include "analysis/pipeline.h"
#include "ui/figure/theme.h"
#include "ui/figure/scenes.h"

namespace ws::ui {

namespace {

// An mbarrier by the shared array that holds it, where the trace knows the arrays' places
// ("full[1]", "bar" for one alone: the smallest array around it, not the whole of shared
// memory), else by its offset ("mbarrier +12,296 B": exact, they lie 8 bytes apart).
std::string mbarrier_name(const trace::Trace& tr, uint64_t offset) {
  const trace::Buffer* best = nullptr;
  for (const trace::Buffer& b : tr.buffers) {
    if (b.space != trace::Space::Shared || b.shared_offset == ~uint64_t(0)) continue;
    if (offset < b.shared_offset || offset - b.shared_offset >= b.size_bytes) continue;
    if (!best || b.size_bytes < best->size_bytes) best = &b;
  }
  if (!best || best->name == "shared memory") return "mbarrier +" + fmt_count(offset) + " B";
  std::string name = best->name;
  if (const size_t colons = name.rfind("::"); colons != std::string::npos) name = name.substr(colons + 2);
  if (best->size_bytes > 8) name += "[" + std::to_string((offset - best->shared_offset) / 8) + "]";
  return name;
}

// The view's time axis: request r of the block at x.
struct Axis {
  float x0 = 0, x1 = 0;
  uint64_t first = 0;
  double span = 1;
  float x(uint64_t r) const { return x0 + float(double(r - std::min(r, first)) / span) * (x1 - x0); }
};

// One slot's row in [ya, yb]: each box in flight from its issue to its landing, then landed
// until the slot's next box is issued.
void slot_row(Scene& sc, const analysis::PipelineSlot& s, const Axis& ax, float ya, float yb) {
  const Theme& t = theme();
  const float small = font_for(FontRole::Small)->FontSize;
  sc.line(ImVec2(ax.x0, yb + 1), ImVec2(ax.x1, yb + 1), with_alpha(t.text_dim, 60), 1);
  for (size_t i = 0; i < s.boxes.size(); ++i) {
    const analysis::PipelineBox& b = s.boxes[i];
    const float xi = ax.x(b.issued);
    const float xl = b.landed == analysis::kNoRecord ? ax.x1 : std::max(xi + 2, ax.x(b.landed));
    const float xn = i + 1 < s.boxes.size() ? std::max(xl, ax.x(s.boxes[i + 1].issued)) : ax.x1;
    // In flight: issued, not yet waited for; then landed, there for the consumers.
    sc.fill(ImVec2(xi, ya), ImVec2(xl, yb), with_alpha(t.warn, 70), 2);
    sc.rect(ImVec2(xi, ya), ImVec2(xl, yb), t.warn, 1, 2);
    if (b.landed != analysis::kNoRecord) sc.fill(ImVec2(xl, ya), ImVec2(xn, yb), with_alpha(t.accent, 150), 2);
    const std::string in = fmt_bytes(b.bytes);
    if (text_size(FontRole::Small, in).x + 6 <= xl - xi && small <= yb - ya + 2)
      sc.text(ImVec2((xi + xl) * 0.5f, (ya + yb) * 0.5f), in, t.text, FontRole::Small, 0.5f, 0.5f);
  }
}

// One mbarrier's row in [ya, yb]: its phases as alternating shades, flipping where each
// completed (its bytes written there), the waits that named it as short ticks.
void barrier_row(Scene& sc, const analysis::PipelineBarrier& b, const Axis& ax, float ya, float yb) {
  const Theme& t = theme();
  const float small = font_for(FontRole::Small)->FontSize;
  float from = ax.x0;
  for (size_t i = 0; i <= b.phases.size(); ++i) {
    const float to = i < b.phases.size() ? std::max(from, ax.x(b.phases[i].step)) : ax.x1;
    sc.fill(ImVec2(from, ya), ImVec2(to, yb), with_alpha(t.accent, i % 2 ? 90 : 30), 0);
    from = to;
  }
  for (size_t i = 0; i < b.phases.size(); ++i) {
    const analysis::PipelinePhase& ph = b.phases[i];
    const float x = ax.x(ph.step);
    sc.line(ImVec2(x, ya), ImVec2(x, yb), t.warn, 2);
    const float next = i + 1 < b.phases.size() ? ax.x(b.phases[i + 1].step) : ax.x1;
    const std::string bytes = ph.bytes ? fmt_bytes(ph.bytes) : "";
    if (!bytes.empty() && text_size(FontRole::Small, bytes).x + 8 <= next - x && small <= yb - ya + 2)
      sc.text(ImVec2(x + 4, (ya + yb) * 0.5f), bytes, t.text, FontRole::Small, 0, 0.5f);
  }
  for (const analysis::PipelineTick& k : b.waits) {
    const float x = ax.x(k.step);
    sc.line(ImVec2(x, yb - (yb - ya) * 0.4f), ImVec2(x, yb), t.text, 2);
  }
}

// The ticks of the warps `ws` in [ya, yb]: a wait a line, an mma a short bar just right of it.
void warp_row(Scene& sc, const analysis::Pipeline& p, const std::vector<uint32_t>& ws, const Axis& ax, float ya, float yb) {
  const Theme& t = theme();
  sc.line(ImVec2(ax.x0, (ya + yb) * 0.5f), ImVec2(ax.x1, (ya + yb) * 0.5f), with_alpha(t.text_dim, 60), 1);
  for (const analysis::PipelineTick& k : p.ticks) {
    if (std::find(ws.begin(), ws.end(), k.warp) == ws.end()) continue;
    const float x = ax.x(k.step);
    // An mma just right of its place, so that a wait at the same place stays in sight.
    if (k.form == trace::Form::Mma) sc.fill(ImVec2(x + 2, ya + 2), ImVec2(x + 6, yb - 2), t.good, 1);
    else sc.line(ImVec2(x, ya), ImVec2(x, yb), t.text, 2);
  }
}

}  // namespace

bool has_bulk_copies(const Session& m) {
  for (const trace::Site& s : m.trace().sites)
    if (s.form == trace::Form::BulkRead) return true;
  return false;
}

void pipeline_scene(Scene& sc, const Session& m, uint64_t step, ImVec2 size) {
  const Theme& t = theme();
  sc.size = size;
  const trace::Trace& tr = m.trace();
  if (step >= tr.records.size()) return;
  const uint32_t block = tr.records[step].block;
  const std::shared_ptr<const analysis::Pipeline> held = m.pipeline(block);
  const analysis::Pipeline& p = *held;
  const float small = font_for(FontRole::Small)->FontSize, ui_h = font_for(FontRole::Ui)->FontSize;
  float y = 0;
  const auto bc = tr.launch().block_coords(block);
  char head[200];
  if (p.empty()) {
    std::snprintf(head, sizeof head, "block (%u,%u) made no bulk copy (TMA): no ring to draw", bc.x, bc.y);
    sc.text(ImVec2(0, 0), fit_text(FontRole::Ui, head, size.x), t.text_dim, FontRole::Ui);
    return;
  }
  size_t boxes = 0, slots = 0, stores = 0;
  for (const auto& s : p.slots) {
    const bool store = s.to != trace::kNoBuffer;  // a TMA store's slot: the shared bytes it reads
    (store ? stores : boxes) += s.boxes.size();
    slots += !store;
  }
  const std::string stored = stores ? " · " + std::to_string(stores) + (stores == 1 ? " TMA store" : " TMA stores") + " back" : "";
  std::snprintf(head, sizeof head, "block (%u,%u) · %zu TMA box%s into %zu slot%s of shared memory%s · requests %llu–%llu", bc.x,
                bc.y, boxes, boxes == 1 ? "" : "es", slots, slots == 1 ? "" : "s", stored.c_str(), (unsigned long long)(p.first + 1),
                (unsigned long long)(p.last + 1));
  sc.text(ImVec2(0, y), fit_text(FontRole::Ui, head, size.x), t.text, FontRole::Ui);
  y += ui_h + 6;
  // Rows: the slots, then the warps (one row for them all where a row each does not fit);
  // the key below. Each row as tall as the room allows.
  // The key's entries, each placed (its row, its left) at this width once.
  struct Key {
    std::string what;
    ImU32 fill;
    bool outline;
    int row = 0;
    float x = 0;
  };
  std::vector<Key> keys = {{"in flight: issued → landed at a wait", with_alpha(t.warn, 70), true},
                           {"landed, until the slot is filled again", with_alpha(t.accent, 150), false}};
  if (!p.barriers.empty()) keys.push_back({"mbarrier phase: flips when its arrivals and bytes are in", with_alpha(t.accent, 90), false});
  // The warps' ticks the key names: only the kinds this block has (a transpose runs no mma).
  const bool mmas = std::any_of(p.ticks.begin(), p.ticks.end(), [](const analysis::PipelineTick& k) { return k.form == trace::Form::Mma; });
  const bool waits = std::any_of(p.ticks.begin(), p.ticks.end(), [](const analysis::PipelineTick& k) { return k.form != trace::Form::Mma; });
  if (mmas) keys.push_back({"mma / wgmma", t.good, false});
  if (waits) keys.push_back({"wait", t.text, false});
  int key_rows = 1;
  for (float kx = 0; Key& k : keys) {
    const float w = 22 + text_size(FontRole::Small, k.what).x;
    if (kx > 0 && kx + w > size.x) ++key_rows, kx = 0;  // the next row
    k.row = key_rows - 1, k.x = kx;
    kx += w + 14;
  }
  const float key_h = float(key_rows) * (small + 4) + 4, least = small + 4;
  const size_t fixed = p.slots.size() + p.barriers.size();
  const bool one_row = p.warps.size() > 1 && (size.y - y - key_h - 4) / float(fixed + p.warps.size()) < least;
  std::vector<std::vector<uint32_t>> warp_rows;
  if (one_row) warp_rows.push_back(p.warps);
  else
    for (uint32_t w : p.warps) warp_rows.push_back({w});
  const size_t rows = fixed + warp_rows.size();
  const float row_h = std::clamp((size.y - y - key_h - 4) / float(std::max<size_t>(rows, 1)), least, 3 * small);
  float label_w = 0;
  std::vector<std::string> labels;
  for (const auto& s : p.slots) {
    // The array's own name (a kernel's "k::tiles" as "tiles"), then where in it.
    std::string name = s.buffer < tr.buffers.size() ? tr.buffers[s.buffer].name : "shared";
    if (const size_t colons = name.rfind("::"); colons != std::string::npos) name = name.substr(colons + 2);
    // A store's slot: the shared bytes it reads, and the global array it writes.
    // A load's slot: the global array its boxes came from.
    const std::string to = s.to < tr.buffers.size()     ? " → " + tr.buffers[s.to].name
                           : s.from < tr.buffers.size() ? " ← " + tr.buffers[s.from].name
                                                        : "";
    labels.push_back(name + " +" + fmt_bytes(s.offset) + to);
  }
  for (const auto& b : p.barriers) labels.push_back(mbarrier_name(tr, b.offset));
  for (const auto& ws : warp_rows) labels.push_back(ws.size() == 1 ? "warp " + std::to_string(ws[0]) : "warps");
  for (const auto& l : labels) label_w = std::max(label_w, text_size(FontRole::Small, l).x);
  label_w = std::min(label_w + 10, size.x * 0.35f);
  Axis ax;
  ax.x0 = label_w;
  ax.x1 = std::max(ax.x0 + 10, size.x - 4);
  ax.first = p.first;
  ax.span = double(std::max<uint64_t>(p.last - p.first + 1, 1));
  const float top = y;
  // The rows in order, each its label at the left: slots, mbarriers, warps.
  for (size_t row = 0; row < labels.size(); ++row, y += row_h) {
    const float ya = y + 2, yb = y + row_h - 2;
    sc.text(ImVec2(0, (ya + yb) * 0.5f), fit_text(FontRole::Small, labels[row], label_w - 6), t.text_dim, FontRole::Small, 0, 0.5f);
    if (row < p.slots.size()) slot_row(sc, p.slots[row], ax, ya, yb);
    else if (row < fixed) barrier_row(sc, p.barriers[row - p.slots.size()], ax, ya, yb);
    else warp_row(sc, p, warp_rows[row - fixed], ax, ya, yb);
  }
  // The playhead at the request on screen.
  const float px = ax.x(step);
  sc.line(ImVec2(px, top), ImVec2(px, y), t.playhead, 2);
  // The key; what the trace does not hold is said, not drawn.
  y += 4;
  for (const Key& k : keys) {
    const float ky = y + float(k.row) * (small + 4);
    sc.fill(ImVec2(k.x, ky + 2), ImVec2(k.x + 18, ky + small), k.fill, 2);
    if (k.outline) sc.rect(ImVec2(k.x, ky + 2), ImVec2(k.x + 18, ky + small), t.warn, 1, 2);
    sc.text(ImVec2(k.x + 22, ky), k.what, t.text_dim, FontRole::Small);
  }
}


}  // namespace ws::ui
