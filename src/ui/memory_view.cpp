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

}  // namespace

void memory_view(Ui& ui, Pane& p) {
  const Theme& t = theme();
  UiState& s = ui.state;
  if (!p.model) {
    ImGui::TextDisabled(ui.recorder.busy() ? "recording…" : "no trace loaded");
    return;
  }
  const Session& m = *p.model;
  const auto& tr = m.trace();
  toolbar(ui, m);

  std::vector<size_t> shown;
  for (size_t i = 0; i < tr.buffers.size(); ++i)
    if (!s.hidden_buffers[tr.buffers[i].name]) shown.push_back(i);
  ImVec2 area_a = ImGui::GetCursorScreenPos();
  ImVec2 avail = ImGui::GetContentRegionAvail();
  if (shown.empty()) {
    ImGui::TextDisabled("every array is hidden: tick one above");
    return;
  }
  if (avail.x < 40 || avail.y < 40) return;
  if (p.grids.size() != tr.buffers.size()) p.grids.assign(tr.buffers.size(), GridView{});

  ImFont* small = font_for(FontRole::Small);
  const float title_h = ImGui::GetTextLineHeight() + 6;
  const float lab_h = small->FontSize + 4;
  const float lab_w = small->CalcTextSizeA(small->FontSize, 1e9f, 0, "00000").x + 6;
  const float slot_gap = 12;

  // Arrangement: the number of columns that gives the largest cells overall.
  int best_cols = 1;
  float best_cell = -1;
  for (int cols = 1; cols <= int(shown.size()); ++cols) {
    int rows = (int(shown.size()) + cols - 1) / cols;
    float sw = (avail.x - slot_gap * float(cols - 1)) / float(cols) - lab_w;
    float sh = (avail.y - slot_gap * float(rows - 1)) / float(rows) - title_h - lab_h;
    float worst = 1e9f;
    for (size_t i : shown) {
      const GridShape& g = m.shapes[i];
      worst = std::min(worst, std::min(sw / float(g.cols), sh / float(g.rows)));
    }
    if (worst > best_cell) {
      best_cell = worst;
      best_cols = cols;
    }
  }
  const int grid_rows = (int(shown.size()) + best_cols - 1) / best_cols;
  const float even_w = (avail.x - slot_gap * float(best_cols - 1)) / float(best_cols);
  const float slot_h = (avail.y - slot_gap * float(grid_rows - 1)) / float(grid_rows);

  const RequestFigures& rv = p.request();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  ImGuiIO& io = ImGui::GetIO();

  for (size_t si = 0; si < shown.size(); ++si) {
    const size_t bi = shown[si];
    const trace::Buffer& buf = tr.buffers[bi];
    const GridShape& g = m.shapes[bi];
    GridView& view = p.grids[bi];
    const int col = int(si) % best_cols, row = int(si) / best_cols;
    const float x_off = float(col) * (even_w + slot_gap);
    const float slot_w = even_w;
    ImVec2 sa(area_a.x + x_off, area_a.y + float(row) * (slot_h + slot_gap));
    ImVec2 ca(sa.x + lab_w, sa.y + title_h + lab_h);                       // canvas
    ImVec2 cb(sa.x + slot_w, sa.y + slot_h);
    if (cb.x - ca.x < 8 || cb.y - ca.y < 8) continue;
    const ImVec2 csz(cb.x - ca.x, cb.y - ca.y);
    const bool current = rv.site && rv.site->buffer == bi;

    // Title: name, shape, space; the buffer of the current request is marked.
    {
      char title[160];
      const char* space = buf.space == trace::Space::Shared ? "shared" : "global";
      if (g.wrapped)  // a 1-D array, drawn 128 bytes to a row
        std::snprintf(title, sizeof title, "%llu %s · %s · %u per row", (unsigned long long)g.elements,
                      type_name(g.elem_bytes), space, g.cols);
      else
        std::snprintf(title, sizeof title, "%u×%u %s · %s%s", g.rows, g.cols, type_name(g.elem_bytes), space,
                      g.col_major ? " · column-major" : "");
      ImFont* bold = font_for(FontRole::Bold);
      dl->PushClipRect(sa, ImVec2(sa.x + slot_w, sa.y + title_h), true);
      dl->AddText(bold, bold->FontSize, ImVec2(sa.x, sa.y + 2), current ? t.accent : t.text, buf.name.c_str());
      float nx = sa.x + bold->CalcTextSizeA(bold->FontSize, 1e9f, 0, buf.name.c_str()).x + 8;
      dl->AddText(ImVec2(nx, sa.y + 3), t.text_dim, title);
      if (current) {
        const char* tag = rv.site->op == trace::Op::Store ? "◀ store" : "◀ load";
        float tx = nx + ImGui::CalcTextSize(title).x + 10;
        if (tx + ImGui::CalcTextSize(tag).x < sa.x + slot_w) dl->AddText(ImVec2(tx, sa.y + 3), t.accent, tag);
      }
      dl->PopClipRect();
    }

    // Zoom and pan.
    const float fit = std::min(csz.x / float(g.cols), csz.y / float(g.rows));
    ImGui::SetCursorScreenPos(ca);
    ImGui::PushID(int(bi));
    ImGui::InvisibleButton("##canvas", csz, ImGuiButtonFlags_MouseButtonLeft | ImGuiButtonFlags_MouseButtonRight);
    const bool hovered = ImGui::IsItemHovered();
    if (view.center.x < 0) view.center = ImVec2(float(g.cols) * 0.5f, float(g.rows) * 0.5f);
    float cell = fit * view.zoom;
    ImVec2 mid(ca.x + csz.x * 0.5f, ca.y + csz.y * 0.5f);
    if (hovered && io.MouseWheel != 0) {
      ImVec2 under((io.MousePos.x - mid.x) / cell + view.center.x, (io.MousePos.y - mid.y) / cell + view.center.y);
      float z = std::clamp(view.zoom * std::pow(1.25f, io.MouseWheel), 1.0f, std::max(1.0f, 96.0f / fit));
      float ncell = fit * z;
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
      cell = fit;
    }

    // The current request's elements, per lane.
    struct LaneCells {
      int lane;
      uint64_t e0, e1;
    };
    std::vector<LaneCells> lanes;
    uint32_t per_lane_bytes = rv.site ? rv.site->bytes : 4;
    if (current)
      for (uint32_t bits = rv.rec->active; bits; bits &= bits - 1) {
        int lane = std::countr_zero(bits);
        uint64_t e0 = rv.rec->offset[lane] / g.elem_bytes;
        uint64_t e1 = (uint64_t(rv.rec->offset[lane]) + per_lane_bytes + g.elem_bytes - 1) / g.elem_bytes;
        lanes.push_back({lane, e0, e1});
      }
    // Follow: when zoomed in, keep the request's cells on screen.
    if (current && s.follow && view.zoom > 1.01f && !lanes.empty() && !ImGui::IsItemActive()) {
      float x0 = 1e30f, y0 = 1e30f, x1 = -1e30f, y1 = -1e30f;
      for (const auto& l : lanes)
        for_runs(g, l.e0, l.e1, [&](ImVec2 a, ImVec2 b) {
          x0 = std::min(x0, a.x), y0 = std::min(y0, a.y), x1 = std::max(x1, b.x), y1 = std::max(y1, b.y);
        });
      float hw = csz.x * 0.5f / cell, hh = csz.y * 0.5f / cell;
      bool inside = x0 >= view.center.x - hw && x1 <= view.center.x + hw && y0 >= view.center.y - hh &&
                    y1 <= view.center.y + hh;
      if (!inside && x1 > x0) view.center = ImVec2((x0 + x1) * 0.5f, (y0 + y1) * 0.5f);
    }
    // Keep the view over the buffer.
    {
      float hw = csz.x * 0.5f / cell, hh = csz.y * 0.5f / cell;
      float gx = float(g.cols), gy = float(g.rows);
      view.center.x = gx <= 2 * hw ? gx * 0.5f : std::clamp(view.center.x, hw, gx - hw);
      view.center.y = gy <= 2 * hh ? gy * 0.5f : std::clamp(view.center.y, hh, gy - hh);
    }
    // Canvas-local coordinates: cell (x, y) -> origin + (x, y) * cell.
    const ImVec2 origin(csz.x * 0.5f - view.center.x * cell + lab_w, csz.y * 0.5f - view.center.y * cell + title_h + lab_h);
    auto to_px = [&](ImVec2 c) { return ImVec2(origin.x + c.x * cell, origin.y + c.y * cell); };
    const ImVec2 clip_a(lab_w, title_h + lab_h), clip_b(slot_w, slot_h);

    Scene sc;
    sc.size = ImVec2(slot_w, slot_h);
    GridDraw gd;
    gd.key = &tr.buffers[bi];
    gd.heat = s.heat ? p.heat.layer(bi) : nullptr;
    gd.rows = g.rows;
    gd.cols = g.cols;
    gd.origin = origin;
    gd.cell = cell;
    gd.clip_min = clip_a;
    gd.clip_max = clip_b;
    gd.log_scale = s.heat_log;
    gd.grid_lines = true;
    gd.elem_bytes = g.elem_bytes;
    gd.row_elems = g.col_major ? g.rows : g.cols;
    const bool shared = buf.space == trace::Space::Shared;
    gd.major_every = !shared && !g.col_major && (uint64_t(g.cols) * g.elem_bytes) % 32 == 0 ? 32 / g.elem_bytes : 0;
    gd.bank_tint = shared;
    sc.grid(gd);

    // Visible cell range.
    const uint32_t vc0 = uint32_t(std::max(0.0f, std::floor((clip_a.x - origin.x) / cell)));
    const uint32_t vr0 = uint32_t(std::max(0.0f, std::floor((clip_a.y - origin.y) / cell)));
    const uint32_t vc1 = std::min<uint32_t>(g.cols, uint32_t(std::max(0.0f, std::ceil((clip_b.x - origin.x) / cell))));
    const uint32_t vr1 = std::min<uint32_t>(g.rows, uint32_t(std::max(0.0f, std::ceil((clip_b.y - origin.y) / cell))));

    // Bank numbers in shared arrays once cells are large enough to carry them.
    if (shared && s.show_banks && cell >= 30 && size_t(vc1 - vc0) * (vr1 - vr0) <= 2500) {
      for (uint32_t r = vr0; r < vr1; ++r)
        for (uint32_t c = vc0; c < vc1; ++c) {
          uint64_t e = g.element(r, c);
          if (e >= g.elements) continue;
          uint32_t bank = uint32_t((e * g.elem_bytes / 4) % 32);
          ImVec2 q = to_px(ImVec2(float(c + 1), float(r + 1)));
          char lbl[16];
          std::snprintf(lbl, sizeof lbl, "b%u", bank);
          sc.text(ImVec2(q.x - 3, q.y - 2), lbl, t.text_dim, FontRole::Small, 1, 1);
        }
    }

    // Lines (128 B) and sectors (32 B) of a global request, then the lane cells on top.
    if (current && !shared) {
      std::set<uint64_t> sectors, lines128;
      for (uint32_t bits = rv.rec->active; bits; bits &= bits - 1) {
        int lane = std::countr_zero(bits);
        uint64_t a = rv.rec->offset[lane], b = a + per_lane_bytes - 1;
        for (uint64_t x = a / 32; x <= b / 32; ++x) sectors.insert(x);
        for (uint64_t x = a / 128; x <= b / 128; ++x) lines128.insert(x);
      }
      const float lw = std::clamp(cell * 0.22f, 1.0f, 3.0f);
      if (s.show_lines)
        for (uint64_t l : lines128)
          for_runs(g, l * 128 / g.elem_bytes, (l + 1) * 128 / g.elem_bytes, [&](ImVec2 a, ImVec2 b) {
            ImVec2 pa = to_px(a), pb = to_px(b);
            sc.rect(ImVec2(pa.x - lw, pa.y - lw), ImVec2(pb.x + lw, pb.y + lw), t.line128, lw, 2);
          });
      if (s.show_sectors)
        for (uint64_t x : sectors)
          for_runs(g, x * 32 / g.elem_bytes, (x + 1) * 32 / g.elem_bytes, [&](ImVec2 a, ImVec2 b) {
            ImVec2 pa = to_px(a), pb = to_px(b);
            sc.rect(ImVec2(pa.x - 1, pa.y - 1), ImVec2(pb.x + 1, pb.y + 1), t.sector, cell >= 6 ? 2.0f : 1.0f);
          });
    }
    // Words of a shared request that share a bank with another word of the same phase
    // (the n-way conflict) get a red rim.
    std::set<uint64_t> conflicted;  // element indices
    if (current && shared && rv.s.max_way > 1) {
      const int phases = per_lane_bytes >= 16 ? 4 : per_lane_bytes == 8 ? 2 : 1;
      const int lanes_per_phase = 32 / phases;
      std::map<uint32_t, std::set<uint64_t>> words;  // phase * 32 + bank -> distinct words
      for (uint32_t bits = rv.rec->active; bits; bits &= bits - 1) {
        int lane = std::countr_zero(bits);
        uint64_t a = rv.rec->offset[lane];
        for (uint64_t w = a / 4; w <= (a + per_lane_bytes - 1) / 4; ++w)
          words[uint32_t(lane / lanes_per_phase) * 32 + uint32_t(w % 32)].insert(w);
      }
      for (const auto& [key, ws] : words)
        if (ws.size() > 1)
          for (uint64_t w : ws) conflicted.insert(w * 4 / g.elem_bytes);
    }
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

    // Row and column numbers in the margins.
    Scene labels;
    labels.size = sc.size;
    if (s.show_labels) {
      const uint32_t kr = label_step(cell, lab_h);
      const uint32_t kc = label_step(cell, small->CalcTextSizeA(small->FontSize, 1e9f, 0, "0000").x + 6);
      for (uint32_t r = (vr0 + kr - 1) / kr * kr; r < vr1; r += kr) {
        ImVec2 q = to_px(ImVec2(0, float(r) + 0.5f));
        labels.text(ImVec2(lab_w - 5, q.y), std::to_string(r), t.text_dim, FontRole::Small, 1, 0.5f);
      }
      for (uint32_t c = (vc0 + kc - 1) / kc * kc; c < vc1; c += kc) {
        ImVec2 q = to_px(ImVec2(float(c) + 0.5f, 0));
        labels.text(ImVec2(q.x, title_h + lab_h - 2), std::to_string(c), t.text_dim, FontRole::Small, 0.5f, 1);
      }
    }

    // Draw: the canvas part clipped to the canvas, the labels to the slot.
    dl->PushClipRect(ImVec2(sa.x + clip_a.x, sa.y + clip_a.y), ImVec2(sa.x + clip_b.x, sa.y + clip_b.y), true);
    draw_scene(dl, sc, sa, ui.painter());
    dl->PopClipRect();
    dl->PushClipRect(sa, ImVec2(sa.x + slot_w, sa.y + slot_h), true);
    draw_scene(dl, labels, sa, nullptr);
    dl->PopClipRect();

    // Hover: what is under the mouse.
    if (hovered && !ImGui::IsItemActive()) {
      float cx = (io.MousePos.x - sa.x - origin.x) / cell, cy = (io.MousePos.y - sa.y - origin.y) / cell;
      if (cx >= 0 && cy >= 0 && cx < float(g.cols) && cy < float(g.rows)) {
        uint32_t r = uint32_t(cy), c = uint32_t(cx);
        uint64_t e = g.element(r, c);
        if (e < g.elements) {
          uint64_t byte = e * g.elem_bytes;
          const HeatLayer* h = p.heat.layer(bi);
          float heat = h && !h->cells.empty() ? h->cells[size_t(r) * h->cols + c] : 0;
          ImGui::BeginTooltip();
          ImGui::Text("%s[%u][%u]   element %llu", buf.name.c_str(), r, c, (unsigned long long)e);
          ImGui::TextDisabled("byte %llu · sector %llu · line %llu", (unsigned long long)byte,
                              (unsigned long long)(byte / 32), (unsigned long long)(byte / 128));
          if (shared) ImGui::TextDisabled("bank %llu", (unsigned long long)((byte / 4) % 32));
          ImGui::TextDisabled("%.0f lane accesses so far", heat);
          ImGui::EndTooltip();
        }
      }
    }
    ImGui::PopID();
  }
  ImGui::SetCursorScreenPos(ImVec2(area_a.x, area_a.y + avail.y));
  ImGui::Dummy(ImVec2(0, 0));
}

}  // namespace ws::ui
