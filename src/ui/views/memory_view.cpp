// src/ui/views/memory_view.cpp — Memory view: every buffer of the launch as a grid of cells. The current request's
// (its scene builders: src/ui/figure/memory_scene.cpp)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <set>
#include "ui/figure/theme.h"
#include "ui/views/views.h"
#include "ui/figure/scenes.h"

namespace ws::ui {

namespace {

void toolbar(UiState& s, const Session& m) {
  ImGui::Checkbox("heat", &s.memory.heat);
  ImGui::SameLine();
  ImGui::Checkbox("sectors", &s.memory.show_sectors);
  ImGui::SameLine();
  ImGui::Checkbox("lines", &s.memory.show_lines);
  ImGui::SameLine();
  ImGui::Checkbox("follow", &s.memory.follow);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("Zoom and pan to the current request (F).\nThe wheel or a drag on a grid turns it off;\n"
                      "a double-click on the grid turns it on again.");
  copies_toggle(s, m);
  // One toggle per buffer, after "arrays:", wrapping to the next row at the panel's edge.
  const ImGuiStyle& st = ImGui::GetStyle();
  const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
  auto next_fits = [&](float w, float gap) {
    if (ImGui::GetItemRectMax().x + gap + w <= right) ImGui::SameLine(0, gap);
  };
  // The arrays this launch's instructions reach, each name once (a program's kernels may
  // each declare a `tile`, and its other launches' arrays are not drawn here).
  const trace::Trace& t = m.trace();
  std::vector<bool> used(t.buffers.size(), false);
  bool mixed = false;
  for (const trace::Site& site : t.sites) {
    if (site.buffer < used.size()) used[site.buffer] = true;
    else mixed = true;
  }
  std::vector<std::string> names;
  std::set<std::string> listed;
  for (size_t i = 0; i < t.buffers.size(); ++i)
    if ((used[i] || mixed) && listed.insert(t.buffers[i].name).second) names.push_back(t.buffers[i].name);
  auto box_w = [&](const std::string& n) { return ImGui::GetFrameHeight() + st.ItemInnerSpacing.x + ImGui::CalcTextSize(n.c_str()).x; };
  float all = ImGui::CalcTextSize("arrays:").x;
  for (const std::string& n : names) all += st.ItemSpacing.x + box_w(n);
  // Where the row has no room for them all, one button on it opens them (a short panel
  // keeps its rows for the grids: 1280×720's normal layout).
  const float left = right - ImGui::GetItemRectMax().x - 24;
  size_t hidden = 0;
  for (const std::string& n : names) hidden += s.memory.hidden_buffers[n];
  if (all > left && ImGui::GetContentRegionAvail().y < 420) {
    char label[64];
    std::snprintf(label, sizeof label, "arrays: %zu of %zu", names.size() - hidden, names.size());
    next_fits(ImGui::CalcTextSize(label).x + st.FramePadding.x * 2, 24);
    if (ImGui::Button(label)) ImGui::OpenPopup("##arrays");
    if (ImGui::BeginPopup("##arrays")) {
      for (const std::string& n : names) {
        bool shown = !s.memory.hidden_buffers[n];
        if (ImGui::Checkbox(n.c_str(), &shown)) s.memory.hidden_buffers[n] = !shown;
      }
      ImGui::EndPopup();
    }
    return;
  }
  next_fits(ImGui::CalcTextSize("arrays:").x, 24);
  ImGui::TextDisabled("arrays:");
  for (const std::string& n : names) {
    bool shown = !s.memory.hidden_buffers[n];
    next_fits(box_w(n), st.ItemSpacing.x);
    if (ImGui::Checkbox(n.c_str(), &shown)) s.memory.hidden_buffers[n] = !shown;
  }
}

// The views "follow" showed become the user's to zoom and pan, so nothing moves when
// following stops (by a wheel or a drag, the toolbar, the View menu or F).
void hold_views(std::vector<GridView>& grids) {
  for (GridView& v : grids)
    if (v.shown_cell > 0 && v.shown_followed) {
      v.zoom = std::max(1.0f, v.shown_zoom);
      v.center = v.shown_center;
      v.shown_followed = false;
    }
}

// Zoom about the mouse and drag to pan, which stop following; double-click to follow
// again. Returns whether the view changed.
bool zoom_and_pan(Pane& p, const GridShape& g, const MemoryLayout::Slot& s, ImVec2 canvas_min, bool hovered,
                  bool& follow) {
  ImGuiIO& io = ImGui::GetIO();
  GridView& view = p.grids[s.buffer];
  if (hovered && ImGui::IsMouseDoubleClicked(0)) {
    view.zoom = 1;
    view.center = ImVec2(-1, -1);
    follow = true;
    return true;
  }
  const bool wheel = hovered && io.MouseWheel != 0;
  const bool drag = ImGui::IsItemActive() && ImGui::IsMouseDragging(ImGuiMouseButton_Left, 1.0f) &&
                    (io.MouseDelta.x != 0 || io.MouseDelta.y != 0);
  if (!wheel && !drag) return false;
  if (follow) {
    follow = false;
    hold_views(p.grids);
  }
  if (view.center.x < 0) view.center = ImVec2(float(g.cols) * 0.5f, float(g.rows) * 0.5f);
  const ImVec2 csz(s.clip_max.x - s.clip_min.x, s.clip_max.y - s.clip_min.y);
  const ImVec2 mid(canvas_min.x + csz.x * 0.5f, canvas_min.y + csz.y * 0.5f);
  float cell = s.fit * view.zoom;
  if (wheel) {
    ImVec2 under((io.MousePos.x - mid.x) / cell + view.center.x, (io.MousePos.y - mid.y) / cell + view.center.y);
    float z = std::clamp(view.zoom * std::pow(1.25f, io.MouseWheel), 1.0f, std::max({1.0f, view.zoom, 96.0f / s.fit}));
    float ncell = s.fit * z;
    view.center = ImVec2(under.x - (io.MousePos.x - mid.x) / ncell, under.y - (io.MousePos.y - mid.y) / ncell);
    view.zoom = z;
    cell = ncell;
  }
  if (drag) {
    view.center.x -= io.MouseDelta.x / cell;
    view.center.y -= io.MouseDelta.y / cell;
  }
  return true;
}

// What is under the mouse.
void cell_tooltip(const Session& m, HeatMap& heat, const MemoryLayout::Slot& s, ImVec2 slot_min) {
  ImGuiIO& io = ImGui::GetIO();
  const trace::Buffer& buf = m.trace().buffers[s.buffer];
  const GridShape& g = m.shapes()[s.buffer];
  uint32_t r, c;
  if (!cell_at(s, g, ImVec2(io.MousePos.x - slot_min.x, io.MousePos.y - slot_min.y), r, c)) return;
  uint64_t e = g.element(r, c);
  if (e >= g.elements) return;
  uint64_t byte = e * g.elem_bytes;
  const HeatLayer* h = heat.layer(s.buffer);
  float n = h && !h->cells.empty() ? h->cells[size_t(r) * h->cols + c] : 0;
  ImGui::BeginTooltip();
  ImGui::Text("%s%s   element %llu", buf.name.c_str(), g.index_text(e).c_str(), (unsigned long long)e);
  ImGui::TextDisabled("byte %llu · sector %llu · line %llu", (unsigned long long)byte,
                      (unsigned long long)analysis::sector_of(byte), (unsigned long long)analysis::line_of(byte));
  if (buf.space == trace::Space::Shared) ImGui::TextDisabled("bank %u", analysis::bank_of(byte));
  ImGui::TextDisabled("%.0f lane accesses so far", n);
  ImGui::EndTooltip();
}

}  // namespace

MemoryViewState memory_state(const UiState& s, Pane& p) {
  MemoryViewState st;
  st.heat = s.memory.heat;
  st.heat_log = s.memory.heat_log;
  st.sectors = s.memory.show_sectors;
  st.lines = s.memory.show_lines;
  st.labels = s.memory.show_labels;
  st.banks = s.memory.show_banks;
  st.follow = s.memory.follow;
  st.source_columns = s.memory.source_columns;
  st.hidden = &s.memory.hidden_buffers;
  st.grids = &p.grids;
  st.heat_map = &p.heat;
  return st;
}

void memory_view(ViewContext& c) {
  Pane& p = c.pane;
  c.sink.banner(p, false);
  if (!p.model) {
    ImGui::TextDisabled(c.busy ? "recording…" : "no trace loaded");
    return;
  }
  const Session& m = *p.model;
  // The toggles are in the View menu too; a class's layouts give their room to the grids.
  if (!c.state.present && !c.comparing) toolbar(c.state, m);
  const ImVec2 area = ImGui::GetCursorScreenPos();
  const ImVec2 whole = ImGui::GetContentRegionAvail();
  // The figures' key under the grids where the panel is tall enough (a shared tile's even
  // and odd bank shading, the sector and line outlines, the shade of traffic).
  const float key_h = memory_legend_height();
  const bool keyed = whole.y >= 10 * key_h;
  const ImVec2 avail(whole.x, keyed ? whole.y - key_h - 4 : whole.y);
  if (p.grids.size() != m.trace().buffers.size()) p.grids.assign(m.trace().buffers.size(), GridView{});
  if (!c.state.memory.follow) hold_views(p.grids);
  const RequestFigures& rv = p.request();
  MemoryLayout layout = memory_layout(m, rv, memory_state(c.state, p), avail);
  if (layout.all_hidden) {
    ImGui::TextDisabled("every array is hidden: tick one above");
    return;
  }
  // While playing, a followed view glides to the next request instead of jumping.
  auto ease = [&](MemoryLayout& L) {
    if (!c.state.playing) return;
    const float k = 1.0f - std::exp(-ImGui::GetIO().DeltaTime * 12.0f);
    for (auto& s : L.slots) {
      const GridView& v = p.grids[s.buffer];
      if (s.tile || s.bands.count > 1 || !s.followed || !v.shown_followed || v.shown_cell <= 0) continue;
      const float cell = v.shown_cell + (s.cell - v.shown_cell) * k;
      const ImVec2 c(v.shown_center.x + (s.center.x - v.shown_center.x) * k,
                     v.shown_center.y + (s.center.y - v.shown_center.y) * k);
      if (std::fabs(cell - s.cell) < 0.05f && std::fabs(c.x - s.center.x) * s.cell < 0.5f &&
          std::fabs(c.y - s.center.y) * s.cell < 0.5f)
        continue;
      place_slot(s, m.shapes()[s.buffer], cell, c);
    }
  };
  ease(layout);
  // The canvases take the mouse first; the layout is made again with the zoom and pan they set.
  bool changed = false;
  std::vector<std::pair<bool, bool>> mouse(layout.slots.size());  // per slot: hovered, held
  for (size_t i = 0; i < layout.slots.size(); ++i) {
    const auto& s = layout.slots[i];
    if (s.tile) continue;
    const ImVec2 ca(area.x + s.min.x + s.clip_min.x, area.y + s.min.y + s.clip_min.y);
    ImGui::SetCursorScreenPos(ca);
    ImGui::PushID(int(s.buffer));
    ImGui::InvisibleButton("##canvas", ImVec2(s.clip_max.x - s.clip_min.x, s.clip_max.y - s.clip_min.y),
                           ImGuiButtonFlags_MouseButtonLeft | ImGuiButtonFlags_MouseButtonRight);
    const bool hovered = ImGui::IsItemHovered(), active = ImGui::IsItemActive();
    changed |= zoom_and_pan(p, m.shapes()[s.buffer], s, ca, hovered, c.state.memory.follow);
    mouse[i] = {hovered, active};
    ImGui::PopID();
  }
  if (changed) {
    layout = memory_layout(m, rv, memory_state(c.state, p), avail);
    ease(layout);
  }
  for (const auto& s : layout.slots) {
    if (s.tile) continue;
    GridView& v = p.grids[s.buffer];
    if (!s.followed) v.center = s.center;
    v.shown_cell = s.cell;
    v.shown_center = s.center;
    v.shown_zoom = s.cell / std::max(1e-3f, s.fit);
    v.shown_followed = s.followed;
  }
  MemoryViewState st = memory_state(c.state, p);
  place_bank_key(st, m, layout, keyed);
  // A lesson's question waits: no verdict on the cells, and no outlines of the request's
  // sectors and lines to count (its lanes' cells stay: they are what the student reasons from).
  if (c.veil) st.conflicts = st.sectors = st.lines = false;
  // A question about a copy's bytes: the record on screen is one piece of the copy (512 of
  // a 4096-byte box), and the shade of the traffic so far outlines whole boxes; neither is
  // drawn until it is answered.
  if (c.veil_copies) st.request_lanes = st.heat = false;
  draw_memory(ImGui::GetWindowDrawList(), area, m, rv, st, layout, c.painter);
  if (keyed) {
    Scene key;
    memory_legend_scene(key, rv, st, whole.x, false);
    draw_scene(ImGui::GetWindowDrawList(), key, ImVec2(area.x, area.y + whole.y - key_h), nullptr);
  }
  for (size_t i = 0; i < layout.slots.size() && i < mouse.size(); ++i)
    if (mouse[i].first && !mouse[i].second)
      cell_tooltip(m, p.heat, layout.slots[i], ImVec2(area.x + layout.slots[i].min.x, area.y + layout.slots[i].min.y));
  ImGui::SetCursorScreenPos(ImVec2(area.x, area.y + whole.y));
  c.sink.banner(p, true);
  ImGui::SetCursorScreenPos(ImVec2(area.x, area.y + whole.y));
  ImGui::Dummy(ImVec2(0, 0));
}

}  // namespace ws::ui
