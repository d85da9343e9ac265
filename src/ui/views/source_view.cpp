// src/ui/views/source_view.cpp — Source panel: the program's files exactly as they were compiled, the current access's
// (its scene builders: src/ui/figure/source_scene.cpp)
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include "session/report.h"
#include "ui/figure/theme.h"
#include "ui/views/views.h"
#include "ui/figure/scenes.h"

namespace ws::ui {

namespace {

// The line's instructions, alike ones once with their count; a long list ends in "… N more"
// and long lines wrap, so the tooltip stays on the screen.
void site_tooltip(const Session& m, const LineStat& ls) {
  const float wrap = std::min(ImGui::GetIO().DisplaySize.x * 0.45f, ImGui::GetFontSize() * 40);
  ImGui::SetNextWindowSizeConstraints(ImVec2(0, 0), ImVec2(wrap + ImGui::GetFontSize() * 2, ImGui::GetIO().DisplaySize.y * 0.8f));
  ImGui::BeginTooltip();
  ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + wrap);
  ImGui::Text("line %u: %s requests", ls.line, fmt_count(ls.requests).c_str());
  const std::vector<SourceTipEntry> entries = source_tip_entries(m, ls);
  const size_t shown = entries.size() > 8 ? 7 : entries.size();
  for (size_t k = 0; k < shown; ++k) {
    const SourceTipEntry& e = entries[k];
    const std::string times = e.count > 1 ? "\u00d7" + std::to_string(e.count) + "  " : "";
    if (!e.instruction.empty()) ImGui::TextWrapped("%s%s", times.c_str(), e.instruction.c_str());
    ImGui::TextWrapped("%s%s", e.instruction.empty() ? times.c_str() : "", e.cost.c_str());
    if (!e.why.empty()) {
      ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
      ImGui::TextWrapped("  %s", e.why.c_str());
      ImGui::PopStyleColor();
    }
  }
  if (shown < entries.size()) ImGui::TextDisabled("\u2026 %zu more kinds of instruction", entries.size() - shown);
  if (!ls.sites.empty()) ImGui::TextDisabled("click: show or hide the line's instructions");
  ImGui::PopTextWrapPos();
  ImGui::EndTooltip();
}

}  // namespace

namespace {

// The file the panel shows (the current line's when that moves to another file, else the
// one picked), the file choice and the instructions toggle above it. `moved`: the current
// line went to another file.
const SourceText& source_file_bar(ViewContext& c, bool& moved) {
  Pane& p = c.pane;
  const Session& m = *p.model;
  const RequestFigures& rv = p.request();
  moved = false;
  if (rv.site && rv.site->file != p.source_file_shown) {
    p.source_file_shown = rv.site->file;
    if (m.source_of(rv.site->file)) p.source_file = rv.site->file, moved = true;
  }
  const SourceText* fp = m.source_of(p.source_file);
  if (!fp) fp = &m.main_source(), p.source_file = fp->file;
  const SourceText& f = *fp;
  if (m.sources().size() > 1 || !f.stats.empty()) {
    // The files (a program's headers too) and the instructions of every line.
    if (m.sources().size() > 1) {
      ImGui::SetNextItemWidth(std::min(ImGui::GetContentRegionAvail().x * 0.5f, ImGui::GetFontSize() * 16));
      const std::string cur = std::filesystem::path(f.name).filename().string();
      if (ImGui::BeginCombo("##file", cur.c_str())) {
        for (const SourceText& s : m.sources()) {
          std::string label = std::filesystem::path(s.name).filename().string();
          if (s.toolkit) label += "  (CUDA toolkit)";
          label += "##" + std::to_string(s.file);
          if (ImGui::Selectable(label.c_str(), s.file == f.file)) p.source_file = s.file;
          if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", s.name.c_str());
        }
        ImGui::EndCombo();
      }
      ImGui::SameLine();
    }
    // A projector keeps the rows for code (the View menu and a click on a line still open
    // the instructions).
    if (!c.state.present) {
      ImGui::Checkbox("instructions", &c.state.source.instructions);
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip("every memory line with the instructions it became and their costs (click a line for one)");
    }
  }
  return f;
}

// Brings the current line (all its wrapped pieces) into view when it changes, and when the
// rows are laid out anew (F5's large type, the panel resized): `layout` names the layout.
void scroll_to_line(Pane& p, const std::vector<SourceRow>& rows, uint32_t current, bool moved, float row_h, uint64_t layout) {
  if (current && (current != p.source_line_shown || moved || layout != p.source_layout_shown)) {
    size_t r = 0;
    while (r < rows.size() && rows[r].line != current) ++r;
    size_t r1 = r;  // one past the line's last piece
    while (r1 < rows.size() && rows[r1].line == current && (r1 == r || rows[r1].more)) ++r1;
    const float y = row_h * float(r), y1 = row_h * float(r1);
    const float top = ImGui::GetScrollY(), h = ImGui::GetWindowHeight();
    // The whole line in view, a third of the way down where it leaves room.
    if (y < top + row_h * 2 || y1 > top + h - row_h * 2) {
      const float above = std::max(0.0f, std::min(h * 0.35f, h - (y1 - y) - row_h * 1.5f));
      // Whole rows, and the top one a line's first piece (not "float* in, int n) {" alone).
      size_t top_row = size_t(std::max(0.0f, std::round((y - above) / row_h)));
      while (top_row > 0 && top_row < rows.size() && rows[top_row].more) --top_row;
      // A long line above, wrapped into many rows, may push the current line out: start at a
      // later line's first piece, at the current line itself if need be.
      while (top_row < r && y1 > row_h * float(top_row) + h) {
        ++top_row;
        while (top_row < r && rows[top_row].more) ++top_row;
      }
      ImGui::SetScrollY(row_h * float(top_row));
    }
    p.source_line_shown = current;
    p.source_layout_shown = layout;
  }
}

}  // namespace

void source_view(ViewContext& c) {
  Pane& p = c.pane;
  if (!p.model) {
    ImGui::TextDisabled(c.busy ? "recording…" : "no trace loaded");
    return;
  }
  const Session& m = *p.model;
  const RequestFigures& rv = p.request();
  bool moved = false;  // the current line went to another file: scroll to it there
  const SourceText& f = source_file_bar(c, moved);
  if (f.lines.empty()) {
    ImGui::TextDisabled("this trace carries no source for %s", f.name.empty() ? "its kernel" : f.name.c_str());
    return;
  }
  const uint32_t current = rv.site && rv.site->file == f.file ? rv.site->line : 0;
  const uint64_t key0 = uint64_t(f.file) << 32;
  const float ch = text_size(FontRole::Mono, "0").x;
  // Lines wrapped to the panel between tokens (whole lines, no sideways scrolling); a
  // projector's large type gets a narrower gutter.
  const bool present = c.state.present;
  const float avail_w = ImGui::GetContentRegionAvail().x;
  const float gutter_w = source_gutter_width(f, avail_w, present);
  const float num_w = ch * 5;
  const float row_h = source_row_height();
  const int wrap = std::max(12, int((avail_w - gutter_w - num_w - ImGui::GetStyle().ScrollbarSize) / ch) - 1);
  const std::vector<SourceRow> rows = source_rows(
      f, [&](uint32_t line) { return c.state.source.instructions || p.source_open.count(key0 | line); }, wrap, &m);
  ImGui::PushFont(font_for(FontRole::Mono));
  ImGui::SetNextWindowContentSize(ImVec2(0, row_h * float(rows.size())));
  ImGui::BeginChild("##code", ImVec2(0, 0), false, 0);
  scroll_to_line(p, rows, current, moved, row_h, uint64_t(wrap) << 32 | uint32_t(ImGui::GetWindowHeight()));
  // In a lesson, the gutter shows the answers given so far and no others.
  const int only_site = c.main ? c.gutter_site : -1;
  ImGui::PushStyleVar(ImGuiStyleVar_ItemSpacing, ImVec2(0, 0));
  ImGuiListClipper clip;
  clip.Begin(int(rows.size()), row_h);
  const float x0 = ImGui::GetCursorScreenPos().x;
  const float win_x1 = ImGui::GetWindowPos().x + ImGui::GetWindowWidth();
  // Rows cut by the panel's edges stay blank: a line is shown whole or not at all.
  const float scroll_y = ImGui::GetScrollY();
  const float view_h = ImGui::GetWindowHeight();
  const int first_whole = int(std::ceil(scroll_y / row_h - 0.01f));
  const int last_whole = int(std::floor((scroll_y + view_h) / row_h + 0.01f));  // one past
  while (clip.Step()) {
    // The visible rows as one scene; below it, a row-sized item per row for the tooltip
    // and the click that opens a line.
    const int a = std::max(clip.DisplayStart, first_whole), b = std::min(clip.DisplayEnd, last_whole);
    if (a < b) {
      Scene sc;
      source_scene(sc, m, f, rows, rv, a, b - a, win_x1 - x0, gutter_w, only_site);
      draw_scene(ImGui::GetWindowDrawList(), sc,
                 ImVec2(x0, ImGui::GetCursorScreenPos().y + float(a - clip.DisplayStart) * row_h), nullptr);
    }
    for (int i = clip.DisplayStart; i < clip.DisplayEnd; ++i) {
      const SourceRow& row = rows[size_t(i)];
      ImGui::PushID(i);
      ImGui::Dummy(ImVec2(std::max(1.0f, win_x1 - x0 - ImGui::GetStyle().ScrollbarSize), row_h));
      const auto it = f.stats.find(row.line);
      if (row.site < 0 && it != f.stats.end()) {
        if (ImGui::IsItemClicked(ImGuiMouseButton_Left) && !c.state.source.instructions) {
          const uint64_t key = key0 | row.line;
          if (!p.source_open.erase(key)) p.source_open.insert(key);
        }
        if (ImGui::IsItemHovered() &&
            (only_site == -1 ||
             std::find(it->second.sites.begin(), it->second.sites.end(), uint32_t(only_site)) != it->second.sites.end()))
          site_tooltip(m, it->second);
      }
      ImGui::PopID();
    }
  }
  clip.End();
  ImGui::PopStyleVar();
  ImGui::EndChild();
  ImGui::PopFont();
}

}  // namespace ws::ui
