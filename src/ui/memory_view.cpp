// Memory view: every buffer of the launch as a grid of cells. The current request's
// lanes light up their cells in lane colours, the 32-byte sectors and 128-byte lines it
// touches are outlined, and a heat layer shows the traffic so far. The grid itself is one
// GridDraw (a texture on the GPU), so a 1024×1024 buffer costs the same as a small one;
// only the few cells of the current request are drawn as shapes.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <set>

#include "ui/theme.h"
#include "ui/ui.h"
#include "ui/views.h"

namespace ws::ui {

namespace {

// Cell rectangles covering elements [e0, e1) in memory order: one per grid row (or
// column, for column-major arrays) the range crosses. Canvas cell units.
template <class F>
void for_runs(const GridShape& g, uint64_t e0, uint64_t e1, F&& f) {
  e1 = std::min<uint64_t>(e1, g.elements);
  while (e0 < e1) {
    uint32_t r, c;
    if (!g.cell(e0, r, c)) return;
    if (g.col_major) {
      uint64_t end = std::min<uint64_t>(e1, uint64_t(c + 1) * g.rows);
      f(ImVec2(float(c), float(r)), ImVec2(float(c + 1), float(r + (end - e0))));
      e0 = end;
    } else {
      uint64_t end = std::min<uint64_t>(e1, uint64_t(r + 1) * g.cols);
      f(ImVec2(float(c), float(r)), ImVec2(float(c + (end - e0)), float(r + 1)));
      e0 = end;
    }
  }
}

// Label spacing: the smallest power of two whose on-screen gap fits a label.
uint32_t label_step(float cell, float need) {
  uint32_t k = 1;
  while (float(k) * cell < need && k < (1u << 30)) k *= 2;
  return k;
}

const char* type_name(uint32_t bytes) {
  switch (bytes) {
    case 1: return "char";
    case 2: return "half";
    case 4: return "float";
    case 8: return "double";
    case 16: return "float4";
    default: return "elem";
  }
}

// The current request's elements, per lane: [e0, e1) of the buffer's grid.
struct LaneCells {
  int lane;
  uint64_t e0, e1;
};
std::vector<LaneCells> request_cells(const RequestFigures& rv, const GridShape& g) {
  std::vector<LaneCells> lanes;
  if (!rv.rec || !rv.site) return lanes;
  const uint32_t bytes = rv.site->bytes;
  for (uint32_t bits = rv.rec->active; bits; bits &= bits - 1) {
    const int lane = std::countr_zero(bits);
    const uint64_t e0 = rv.rec->offset[lane] / g.elem_bytes;
    const uint64_t e1 = (uint64_t(rv.rec->offset[lane]) + bytes + g.elem_bytes - 1) / g.elem_bytes;
    lanes.push_back({lane, e0, e1});
  }
  return lanes;
}

bool shown(const MemoryViewState& st, const std::string& name) {
  if (!st.hidden) return true;
  auto it = st.hidden->find(name);
  return it == st.hidden->end() || !it->second;
}

}  // namespace

MemoryLayout memory_layout(const Session& m, const RequestFigures& rv, const MemoryViewState& st, ImVec2 avail,
                           int held) {
  MemoryLayout L;
  const auto& tr = m.trace();
  std::vector<size_t> bufs;
  for (size_t i = 0; i < tr.buffers.size(); ++i)
    if (shown(st, tr.buffers[i].name)) bufs.push_back(i);
  L.all_hidden = bufs.empty() && !tr.buffers.empty();
  if (bufs.empty() || avail.x < 40 || avail.y < 40) return L;

  ImFont* small = font_for(FontRole::Small);
  L.title_h = font_for(FontRole::Ui)->FontSize + 6;
  L.lab_h = small->FontSize + 4;
  L.lab_w = text_size(FontRole::Small, "00000").x + 6;
  const float slot_gap = 12;

  // Arrangement: the number of columns that gives the largest cells overall.
  int best_cols = 1;
  float best_cell = -1;
  for (int cols = 1; cols <= int(bufs.size()); ++cols) {
    int rows = (int(bufs.size()) + cols - 1) / cols;
    float sw = (avail.x - slot_gap * float(cols - 1)) / float(cols) - L.lab_w;
    float sh = (avail.y - slot_gap * float(rows - 1)) / float(rows) - L.title_h - L.lab_h;
    float worst = 1e9f;
    for (size_t i : bufs) {
      const GridShape& g = m.shapes[i];
      worst = std::min(worst, std::min(sw / float(g.cols), sh / float(g.rows)));
    }
    if (worst > best_cell) {
      best_cell = worst;
      best_cols = cols;
    }
  }
  const int grid_rows = (int(bufs.size()) + best_cols - 1) / best_cols;
  const float slot_w = (avail.x - slot_gap * float(best_cols - 1)) / float(best_cols);
  const float slot_h = (avail.y - slot_gap * float(grid_rows - 1)) / float(grid_rows);

  for (size_t si = 0; si < bufs.size(); ++si) {
    MemoryLayout::Slot s;
    s.buffer = bufs[si];
    const GridShape& g = m.shapes[s.buffer];
    const int col = int(si) % best_cols, row = int(si) / best_cols;
    s.min = ImVec2(float(col) * (slot_w + slot_gap), float(row) * (slot_h + slot_gap));
    s.size = ImVec2(slot_w, slot_h);
    s.clip_min = ImVec2(L.lab_w, L.title_h + L.lab_h);
    s.clip_max = s.size;
    const ImVec2 csz(s.clip_max.x - s.clip_min.x, s.clip_max.y - s.clip_min.y);
    if (csz.x < 8 || csz.y < 8) continue;
    s.current = rv.site && rv.site->buffer == s.buffer;

    GridView view = st.grids && s.buffer < st.grids->size() ? (*st.grids)[s.buffer] : GridView{};
    if (view.center.x < 0) view.center = ImVec2(float(g.cols) * 0.5f, float(g.rows) * 0.5f);
    s.fit = std::min(csz.x / float(g.cols), csz.y / float(g.rows));
    s.cell = s.fit * view.zoom;
    const float hw = csz.x * 0.5f / s.cell, hh = csz.y * 0.5f / s.cell;
    // Follow: when zoomed in, keep the request's cells on screen.
    if (s.current && st.follow && view.zoom > 1.01f && held != int(s.buffer)) {
      float x0 = 1e30f, y0 = 1e30f, x1 = -1e30f, y1 = -1e30f;
      for (const auto& l : request_cells(rv, g))
        for_runs(g, l.e0, l.e1, [&](ImVec2 a, ImVec2 b) {
          x0 = std::min(x0, a.x), y0 = std::min(y0, a.y), x1 = std::max(x1, b.x), y1 = std::max(y1, b.y);
        });
      bool inside = x0 >= view.center.x - hw && x1 <= view.center.x + hw && y0 >= view.center.y - hh &&
                    y1 <= view.center.y + hh;
      if (!inside && x1 > x0) view.center = ImVec2((x0 + x1) * 0.5f, (y0 + y1) * 0.5f);
    }
    // Keep the view over the buffer.
    const float gx = float(g.cols), gy = float(g.rows);
    view.center.x = gx <= 2 * hw ? gx * 0.5f : std::clamp(view.center.x, hw, gx - hw);
    // A grid shorter than its canvas sits at the top, under its column numbers.
    view.center.y = gy <= 2 * hh ? hh : std::clamp(view.center.y, hh, gy - hh);
    s.center = view.center;
    s.origin = ImVec2(csz.x * 0.5f - s.center.x * s.cell + s.clip_min.x, csz.y * 0.5f - s.center.y * s.cell + s.clip_min.y);
    s.col0 = uint32_t(std::max(0.0f, std::floor((s.clip_min.x - s.origin.x) / s.cell)));
    s.row0 = uint32_t(std::max(0.0f, std::floor((s.clip_min.y - s.origin.y) / s.cell)));
    s.col1 = std::min<uint32_t>(g.cols, uint32_t(std::max(0.0f, std::ceil((s.clip_max.x - s.origin.x) / s.cell))));
    s.row1 = std::min<uint32_t>(g.rows, uint32_t(std::max(0.0f, std::ceil((s.clip_max.y - s.origin.y) / s.cell))));
    L.slots.push_back(s);
  }
  return L;
}

void memory_slot_scene(Scene& sc, Scene& labels, const Session& m, const RequestFigures& rv, const MemoryViewState& st,
                       const MemoryLayout& L, const MemoryLayout::Slot& s) {
  const Theme& t = theme();
  const trace::Buffer& buf = m.trace().buffers[s.buffer];
  const GridShape& g = m.shapes[s.buffer];
  const bool shared = buf.space == trace::Space::Shared;
  const float cell = s.cell;
  auto to_px = [&](ImVec2 c) { return ImVec2(s.origin.x + c.x * cell, s.origin.y + c.y * cell); };
  sc.size = labels.size = s.size;

  GridDraw gd;
  gd.key = &buf;
  gd.heat = st.heat && st.heat_map ? st.heat_map->layer(s.buffer) : nullptr;
  gd.rows = g.rows;
  gd.cols = g.cols;
  gd.origin = s.origin;
  gd.cell = cell;
  gd.clip_min = s.clip_min;
  gd.clip_max = s.clip_max;
  gd.log_scale = st.heat_log;
  gd.grid_lines = true;
  gd.elem_bytes = g.elem_bytes;
  gd.row_elems = g.col_major ? g.rows : g.cols;
  // A stronger line at each 32-byte sector boundary of a row.
  gd.major_every = !shared && !g.col_major && (uint64_t(g.cols) * g.elem_bytes) % analysis::kSectorBytes == 0
                       ? analysis::kSectorBytes / g.elem_bytes
                       : 0;
  gd.bank_tint = shared;
  sc.grid(gd);

  // Bank numbers in shared arrays once cells are large enough to carry them.
  if (shared && st.banks && cell >= 30 && size_t(s.col1 - s.col0) * (s.row1 - s.row0) <= 2500) {
    for (uint32_t r = s.row0; r < s.row1; ++r)
      for (uint32_t c = s.col0; c < s.col1; ++c) {
        uint64_t e = g.element(r, c);
        if (e >= g.elements) continue;
        ImVec2 q = to_px(ImVec2(float(c + 1), float(r + 1)));
        sc.text(ImVec2(q.x - 3, q.y - 2), "b" + std::to_string(analysis::bank_of(e * g.elem_bytes)), t.text_dim,
                FontRole::Small, 1, 1);
      }
  }

  // Lines (128 B) and sectors (32 B) of a global request, then the lane cells on top.
  if (s.current && !shared) {
    const float lw = std::clamp(cell * 0.22f, 1.0f, 3.0f);
    if (st.lines)
      for (uint64_t l : rv.lines)
        for_runs(g, l * analysis::kLineBytes / g.elem_bytes, (l + 1) * analysis::kLineBytes / g.elem_bytes,
                 [&](ImVec2 a, ImVec2 b) {
                   ImVec2 pa = to_px(a), pb = to_px(b);
                   sc.rect(ImVec2(pa.x - lw, pa.y - lw), ImVec2(pb.x + lw, pb.y + lw), t.line128, lw, 2);
                 });
    if (st.sectors)
      for (const auto& sector : rv.sectors)
        for_runs(g, sector.sector * analysis::kSectorBytes / g.elem_bytes,
                 (sector.sector + 1) * analysis::kSectorBytes / g.elem_bytes, [&](ImVec2 a, ImVec2 b) {
                   ImVec2 pa = to_px(a), pb = to_px(b);
                   sc.rect(ImVec2(pa.x - 1, pa.y - 1), ImVec2(pb.x + 1, pb.y + 1), t.sector, cell >= 6 ? 2.0f : 1.0f);
                 });
  }
  // Words of a shared request that share a bank with another word of the same phase
  // (the n-way conflict) get a red rim.
  std::set<uint64_t> conflicted;  // element indices
  if (s.current && shared)
    for (const analysis::BankWord& w : rv.banks)
      if (w.way > 1) conflicted.insert(w.word * analysis::kBankBytes / g.elem_bytes);
  const std::vector<LaneCells> lanes = s.current ? request_cells(rv, g) : std::vector<LaneCells>{};
  const float min_px = 4;
  for (const auto& l : lanes)
    for_runs(g, l.e0, l.e1, [&](ImVec2 a, ImVec2 b) {
      ImVec2 pa = to_px(a), pb = to_px(b);
      if (pb.x - pa.x < min_px) {
        float c = (pa.x + pb.x) * 0.5f;
        pa.x = c - min_px * 0.5f, pb.x = c + min_px * 0.5f;
      }
      if (pb.y - pa.y < min_px) {
        float c = (pa.y + pb.y) * 0.5f;
        pa.y = c - min_px * 0.5f, pb.y = c + min_px * 0.5f;
      }
      float inset = cell >= 16 ? 1.5f : 0.0f;
      sc.fill(ImVec2(pa.x + inset, pa.y + inset), ImVec2(pb.x - inset, pb.y - inset), lane_color(l.lane), cell >= 16 ? 3 : 0);
      if (conflicted.count(l.e0)) sc.rect(pa, pb, t.bad, cell >= 8 ? 2.5f : 1.5f, 3);
    });
  if (cell >= 24)
    for (const auto& l : lanes) {
      uint32_t r, c;
      if (!g.cell(l.e0, r, c)) continue;
      ImVec2 q = to_px(ImVec2(float(c) + 0.5f, float(r) + 0.5f));
      sc.text(q, std::to_string(l.lane), IM_COL32(10, 12, 16, 255), FontRole::Small, 0.5f, 0.5f);
    }

  // Title: name, shape, space; the buffer of the current request is marked.
  {
    char title[160];
    const char* space = shared ? "shared" : "global";
    if (g.wrapped)  // a 1-D array, drawn 128 bytes to a row
      std::snprintf(title, sizeof title, "%llu %s · %s · %u per row", (unsigned long long)g.elements,
                    type_name(g.elem_bytes), space, g.cols);
    else
      std::snprintf(title, sizeof title, "%u×%u %s · %s%s", g.rows, g.cols, type_name(g.elem_bytes), space,
                    g.col_major ? " · column-major" : "");
    const std::string name = fit_text(FontRole::Bold, buf.name, s.size.x);
    labels.text(ImVec2(0, 2), name, s.current ? t.accent : t.text, FontRole::Bold);
    const float nx = text_size(FontRole::Bold, name).x + 8;
    const std::string shape = fit_text(FontRole::Ui, title, s.size.x - nx);
    if (!shape.empty()) labels.text(ImVec2(nx, 3), shape, t.text_dim, FontRole::Ui);
    if (s.current) {
      const char* tag = rv.site->op == trace::Op::Store ? "◀ store" : "◀ load";
      const float tx = nx + text_size(FontRole::Ui, shape).x + 10;
      if (tx + text_size(FontRole::Ui, tag).x < s.size.x) labels.text(ImVec2(tx, 3), tag, t.accent, FontRole::Ui);
    }
  }
  // Row and column numbers in the margins.
  if (st.labels) {
    const uint32_t kr = label_step(cell, L.lab_h);
    const uint32_t kc = label_step(cell, text_size(FontRole::Small, "0000").x + 6);
    const float half = font_for(FontRole::Small)->FontSize * 0.5f;
    float last_bottom = -1e9f;
    for (uint32_t r = (s.row0 + kr - 1) / kr * kr; r < s.row1; r += kr) {
      // Kept below the column numbers' band (row 0 of a small grid would reach into it),
      // and apart from the number above.
      ImVec2 q = to_px(ImVec2(0, float(r) + 0.5f));
      q.y = std::max(q.y, s.clip_min.y + half);
      if (q.y - half < last_bottom || q.y + half > s.size.y) continue;
      last_bottom = q.y + half;
      labels.text(ImVec2(L.lab_w - 5, q.y), std::to_string(r), t.text_dim, FontRole::Small, 1, 0.5f);
    }
    for (uint32_t c = (s.col0 + kc - 1) / kc * kc; c < s.col1; c += kc) {
      ImVec2 q = to_px(ImVec2(float(c) + 0.5f, 0));
      labels.text(ImVec2(q.x, L.title_h + L.lab_h - 2), std::to_string(c), t.text_dim, FontRole::Small, 0.5f, 1);
    }
  }
}

std::vector<SceneChunk> memory_chunks(ImVec2 area, const Session& m, const RequestFigures& rv,
                                      const MemoryViewState& st, const MemoryLayout& layout) {
  std::vector<SceneChunk> out;
  for (const auto& s : layout.slots) {
    Scene canvas, labels;
    memory_slot_scene(canvas, labels, m, rv, st, layout, s);
    const ImVec2 sa(area.x + s.min.x, area.y + s.min.y);
    // The canvas clipped to the canvas, the labels to the slot.
    SceneChunk c;
    c.scene.append(canvas, sa);
    c.clip_min = ImVec2(sa.x + s.clip_min.x, sa.y + s.clip_min.y);
    c.clip_max = ImVec2(sa.x + s.clip_max.x, sa.y + s.clip_max.y);
    out.push_back(std::move(c));
    SceneChunk l;
    l.scene.append(labels, sa);
    l.clip_min = sa;
    l.clip_max = ImVec2(sa.x + s.size.x, sa.y + s.size.y);
    out.push_back(std::move(l));
  }
  return out;
}

void draw_memory(ImDrawList* dl, ImVec2 area, const Session& m, const RequestFigures& rv, const MemoryViewState& st,
                 const MemoryLayout& layout, GridPainter* painter) {
  for (const SceneChunk& c : memory_chunks(area, m, rv, st, layout)) {
    dl->PushClipRect(c.clip_min, c.clip_max, true);
    draw_scene(dl, c.scene, ImVec2(0, 0), painter);
    dl->PopClipRect();
  }
}

namespace {

void toolbar(Ui& ui, const Session& m) {
  UiState& s = ui.state;
  ImGui::Checkbox("heat", &s.heat);
  ImGui::SameLine();
  ImGui::Checkbox("sectors", &s.show_sectors);
  ImGui::SameLine();
  ImGui::Checkbox("lines", &s.show_lines);
  ImGui::SameLine();
  ImGui::Checkbox("follow", &s.follow);
  ImGui::SameLine(0, 24);
  ImGui::TextDisabled("arrays:");
  // One toggle per buffer.
  for (const auto& b : m.trace().buffers) {
    bool shown = !s.hidden_buffers[b.name];
    ImGui::SameLine();
    if (ImGui::Checkbox(b.name.c_str(), &shown)) s.hidden_buffers[b.name] = !shown;
  }
}


// Zoom about the mouse, drag to pan, double-click to fit.
void zoom_and_pan(GridView& view, const GridShape& g, const MemoryLayout::Slot& s, ImVec2 canvas_min, bool hovered) {
  ImGuiIO& io = ImGui::GetIO();
  if (view.center.x < 0) view.center = ImVec2(float(g.cols) * 0.5f, float(g.rows) * 0.5f);
  const ImVec2 csz(s.clip_max.x - s.clip_min.x, s.clip_max.y - s.clip_min.y);
  const ImVec2 mid(canvas_min.x + csz.x * 0.5f, canvas_min.y + csz.y * 0.5f);
  float cell = s.fit * view.zoom;
  if (hovered && io.MouseWheel != 0) {
    ImVec2 under((io.MousePos.x - mid.x) / cell + view.center.x, (io.MousePos.y - mid.y) / cell + view.center.y);
    float z = std::clamp(view.zoom * std::pow(1.25f, io.MouseWheel), 1.0f, std::max(1.0f, 96.0f / s.fit));
    float ncell = s.fit * z;
    view.center = ImVec2(under.x - (io.MousePos.x - mid.x) / ncell, under.y - (io.MousePos.y - mid.y) / ncell);
    view.zoom = z;
    cell = ncell;
  }
  if (ImGui::IsItemActive() && ImGui::IsMouseDragging(ImGuiMouseButton_Left, 1.0f)) {
    view.center.x -= io.MouseDelta.x / cell;
    view.center.y -= io.MouseDelta.y / cell;
  }
  if (hovered && ImGui::IsMouseDoubleClicked(0)) {
    view.zoom = 1;
    view.center = ImVec2(float(g.cols) * 0.5f, float(g.rows) * 0.5f);
  }
}

// What is under the mouse.
void cell_tooltip(const Session& m, HeatMap& heat, const MemoryLayout::Slot& s, ImVec2 slot_min) {
  ImGuiIO& io = ImGui::GetIO();
  const trace::Buffer& buf = m.trace().buffers[s.buffer];
  const GridShape& g = m.shapes[s.buffer];
  float cx = (io.MousePos.x - slot_min.x - s.origin.x) / s.cell, cy = (io.MousePos.y - slot_min.y - s.origin.y) / s.cell;
  if (cx < 0 || cy < 0 || cx >= float(g.cols) || cy >= float(g.rows)) return;
  uint32_t r = uint32_t(cy), c = uint32_t(cx);
  uint64_t e = g.element(r, c);
  if (e >= g.elements) return;
  uint64_t byte = e * g.elem_bytes;
  const HeatLayer* h = heat.layer(s.buffer);
  float n = h && !h->cells.empty() ? h->cells[size_t(r) * h->cols + c] : 0;
  ImGui::BeginTooltip();
  ImGui::Text("%s[%u][%u]   element %llu", buf.name.c_str(), r, c, (unsigned long long)e);
  ImGui::TextDisabled("byte %llu · sector %llu · line %llu", (unsigned long long)byte,
                      (unsigned long long)analysis::sector_of(byte), (unsigned long long)analysis::line_of(byte));
  if (buf.space == trace::Space::Shared) ImGui::TextDisabled("bank %u", analysis::bank_of(byte));
  ImGui::TextDisabled("%.0f lane accesses so far", n);
  ImGui::EndTooltip();
}

}  // namespace

MemoryViewState memory_state(const UiState& s, Pane& p) {
  MemoryViewState st;
  st.heat = s.heat;
  st.heat_log = s.heat_log;
  st.sectors = s.show_sectors;
  st.lines = s.show_lines;
  st.labels = s.show_labels;
  st.banks = s.show_banks;
  st.follow = s.follow;
  st.hidden = &s.hidden_buffers;
  st.grids = &p.grids;
  st.heat_map = &p.heat;
  return st;
}

void memory_view(Ui& ui, Pane& p) {
  if (!p.model) {
    ImGui::TextDisabled(ui.recorder.busy() ? "recording…" : "no trace loaded");
    return;
  }
  const Session& m = *p.model;
  // The toggles are in the View menu too; a class's layouts give their room to the grids.
  if (!ui.state.present && !ui.comparing()) toolbar(ui, m);
  const ImVec2 area = ImGui::GetCursorScreenPos();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  if (p.grids.size() != m.trace().buffers.size()) p.grids.assign(m.trace().buffers.size(), GridView{});
  const RequestFigures& rv = p.request();
  const MemoryViewState st = memory_state(ui.state, p);
  MemoryLayout layout = memory_layout(m, rv, st, avail);
  if (layout.all_hidden) {
    ImGui::TextDisabled("every array is hidden: tick one above");
    return;
  }
  // The canvases take the mouse first; the layout is made again with the zoom and pan they set.
  int held = -1;
  std::vector<std::pair<bool, bool>> mouse;  // per slot: hovered, held
  for (const auto& s : layout.slots) {
    const ImVec2 ca(area.x + s.min.x + s.clip_min.x, area.y + s.min.y + s.clip_min.y);
    ImGui::SetCursorScreenPos(ca);
    ImGui::PushID(int(s.buffer));
    ImGui::InvisibleButton("##canvas", ImVec2(s.clip_max.x - s.clip_min.x, s.clip_max.y - s.clip_min.y),
                           ImGuiButtonFlags_MouseButtonLeft | ImGuiButtonFlags_MouseButtonRight);
    const bool hovered = ImGui::IsItemHovered(), active = ImGui::IsItemActive();
    zoom_and_pan(p.grids[s.buffer], m.shapes[s.buffer], s, ca, hovered);
    if (active) held = int(s.buffer);
    mouse.push_back({hovered, active});
    ImGui::PopID();
  }
  layout = memory_layout(m, rv, st, avail, held);
  for (const auto& s : layout.slots) p.grids[s.buffer].center = s.center;
  draw_memory(ImGui::GetWindowDrawList(), area, m, rv, st, layout, ui.painter());
  for (size_t i = 0; i < layout.slots.size() && i < mouse.size(); ++i)
    if (mouse[i].first && !mouse[i].second)
      cell_tooltip(m, p.heat, layout.slots[i], ImVec2(area.x + layout.slots[i].min.x, area.y + layout.slots[i].min.y));
  ImGui::SetCursorScreenPos(ImVec2(area.x, area.y + avail.y));
  ImGui::Dummy(ImVec2(0, 0));
}

}  // namespace ws::ui
