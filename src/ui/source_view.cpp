// Source panel: the kernel file exactly as it was compiled, the current access's line
// lit, and each line that accesses memory tagged in the gutter with its cost
// (sectors per request for global, n-way for shared) over the whole trace.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "ui/theme.h"
#include "ui/ui.h"
#include "ui/views.h"

namespace ws::ui {

namespace {

void site_tooltip(const Session& m, const LineStat& ls) {
  const auto& tr = m.trace();
  ImGui::BeginTooltip();
  ImGui::Text("line %u: %s requests", ls.line, fmt_count(ls.requests).c_str());
  for (uint32_t si : ls.sites) {
    if (si >= tr.sites.size() || si >= m.report.sites.size()) continue;
    const auto& site = tr.sites[si];
    const auto& st = m.report.sites[si];
    const char* buf = site.buffer < tr.buffers.size() ? tr.buffers[site.buffer].name.c_str() : "?";
    // The instruction itself where the trace knows it (a program's PTX), and its column.
    if (!site.instruction.empty()) ImGui::Text("col %u  %s", site.column, site.instruction.c_str());
    if (site.space != trace::Space::Shared)
      ImGui::Text("%s %s of %s: %.2f sectors/request (ideal %.2f), efficiency %.0f%%", trace::to_string(site.space),
                  trace::to_string(site.op), buf, st.sectors_per_request, st.ideal_sectors_per_request, st.efficiency * 100);
    else
      ImGui::Text("%s %s of %s: up to %u-way, %s bank conflicts", trace::to_string(site.space), trace::to_string(site.op), buf,
                  st.max_way, fmt_count(st.bank_conflicts).c_str());
    if (!st.why.empty()) ImGui::TextDisabled("  %s", st.why.c_str());
  }
  ImGui::EndTooltip();
}

}  // namespace

float source_row_height() { return std::round(font_for(FontRole::Mono)->FontSize + 4); }

float source_gutter_width(const Session& m, float avail_w) {
  const float ch = text_size(FontRole::Mono, "0").x;
  float w = ch * 8;
  for (const auto& [l, ls] : m.lines) w = std::max(w, text_size(FontRole::Mono, ls.badge).x + ch * 2);
  return std::min(w, avail_w * 0.4f);
}

void source_scene(Scene& sc, const Session& m, const RequestFigures& rv, int first, int count, float width,
                  float gutter_w, int only_site) {
  const Theme& t = theme();
  const float ch = text_size(FontRole::Mono, "0").x;
  const float row_h = source_row_height();
  const uint32_t current = rv.site && rv.site->file == 0 ? rv.site->line : 0;  // the panel shows file 0
  const int n = int(m.source_lines.size());
  sc.size = ImVec2(width, row_h * float(count));
  for (int i = std::max(0, first); i < std::min(n, first + count); ++i) {
    const uint32_t line = uint32_t(i + 1);
    const float y = float(i - first) * row_h;
    const auto it = m.lines.find(line);
    const LineStat* ls = it == m.lines.end() ? nullptr : &it->second;
    if (line == current) {
      sc.fill(ImVec2(0, y), ImVec2(width, y + row_h), IM_COL32(88, 166, 255, 60));
      sc.fill(ImVec2(0, y), ImVec2(4, y + row_h), t.accent);
    } else if (ls && only_site == -1) {
      sc.fill(ImVec2(gutter_w, y), ImVec2(width, y + row_h), with_alpha(cost_color(ls->ratio), 18));
    }
    if (ls && only_site != -2) {
      // Right-aligned parts, each in the colour of its own cost; the current one framed.
      float bx = gutter_w - ch;
      for (size_t k = ls->parts.size(); k-- > 0;) {
        const auto& part = ls->parts[k];
        if (only_site >= 0 && part.site != uint32_t(only_site)) continue;
        const ImU32 c = cost_color(part.ratio);
        const float w = text_size(FontRole::Mono, part.text).x;
        bx -= w;
        sc.fill(ImVec2(bx - 3, y + 1), ImVec2(bx + w + 3, y + row_h - 1), with_alpha(c, 40), 3);
        if (rv.rec && rv.rec->site == part.site) sc.rect(ImVec2(bx - 3, y + 1), ImVec2(bx + w + 3, y + row_h - 1), c, 1.5f, 3);
        sc.text(ImVec2(bx, y + 2), part.text, c, FontRole::Mono);
        bx -= ch * 1.2f;
      }
    }
    char num[16];
    std::snprintf(num, sizeof num, "%4u", line);
    sc.text(ImVec2(gutter_w, y + 2), num, line == current ? t.text : t.text_dim, FontRole::Mono);
    const std::string& text = m.source_lines[size_t(i)];
    const size_t cpos = text.find("//");
    const float tx = gutter_w + ch * 5;
    sc.text(ImVec2(tx, y + 2), text.substr(0, cpos), t.text, FontRole::Mono);
    if (cpos != std::string::npos)
      sc.text(ImVec2(tx + ch * float(cpos), y + 2), text.substr(cpos), IM_COL32(122, 160, 130, 255), FontRole::Mono);
  }
}

void source_view(Ui& ui, Pane& p) {
  if (!p.model) {
    ImGui::TextDisabled(ui.recorder.busy() ? "recording…" : "no trace loaded");
    return;
  }
  const Session& m = *p.model;
  if (m.source_lines.empty()) {
    ImGui::TextDisabled("this trace carries no kernel source");
    return;
  }
  const RequestFigures& rv = p.request();
  const uint32_t current = rv.site && rv.site->file == 0 ? rv.site->line : 0;  // the panel shows file 0

  const float ch = text_size(FontRole::Mono, "0").x;
  const float gutter_w = source_gutter_width(m, ImGui::GetContentRegionAvail().x);
  const float num_w = ch * 5;
  const float row_h = source_row_height();
  size_t longest = 0;
  for (const auto& l : m.source_lines) longest = std::max(longest, l.size());
  ImGui::PushFont(font_for(FontRole::Mono));
  ImGui::SetNextWindowContentSize(ImVec2(gutter_w + num_w + ch * float(longest + 4), row_h * float(m.source_lines.size())));
  ImGui::BeginChild("##code", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
  // Bring the current line into view when it changes.
  if (current && current != p.source_line_shown) {
    float y = row_h * float(current - 1);
    float top = ImGui::GetScrollY(), h = ImGui::GetWindowHeight();
    if (y < top + row_h * 2 || y > top + h - row_h * 3)
      ImGui::SetScrollY(std::max(0.0f, std::round((y - h * 0.35f) / row_h) * row_h));  // whole rows
    p.source_line_shown = current;
  }
  // In a lesson, the gutter shows the answers given so far and no others.
  const int only_site = &p == &ui.pane ? ui.lesson_gutter_site() : -1;
  ImGui::PushStyleVar(ImGuiStyleVar_ItemSpacing, ImVec2(0, 0));
  ImGuiListClipper clip;
  clip.Begin(int(m.source_lines.size()), row_h);
  const float x0 = ImGui::GetCursorScreenPos().x;
  const float win_x1 = ImGui::GetWindowPos().x + ImGui::GetWindowWidth();
  // Rows cut by the panel's edges stay blank: a line is shown whole or not at all.
  const float scroll_y = ImGui::GetScrollY();
  const float view_h = ImGui::GetWindowHeight() - (ImGui::GetScrollMaxX() > 0 ? ImGui::GetStyle().ScrollbarSize : 0);
  const int first_whole = int(std::ceil(scroll_y / row_h - 0.01f));
  const int last_whole = int(std::floor((scroll_y + view_h) / row_h + 0.01f));  // one past
  while (clip.Step()) {
    // The visible rows as one scene; below it, a row-sized item per line for the tooltip.
    const int a = std::max(clip.DisplayStart, first_whole), b = std::min(clip.DisplayEnd, last_whole);
    if (a < b) {
      Scene sc;
      source_scene(sc, m, rv, a, b - a, std::max(win_x1 - x0, 4000.0f), gutter_w, only_site);
      draw_scene(ImGui::GetWindowDrawList(), sc,
                 ImVec2(x0, ImGui::GetCursorScreenPos().y + float(a - clip.DisplayStart) * row_h), nullptr);
    }
    for (int i = clip.DisplayStart; i < clip.DisplayEnd; ++i) {
      ImGui::Dummy(ImVec2(gutter_w + num_w + ch * float(m.source_lines[size_t(i)].size() + 2), row_h));
      const auto it = m.lines.find(uint32_t(i + 1));
      if (it != m.lines.end() && ImGui::IsItemHovered() &&
          (only_site == -1 ||
           std::find(it->second.sites.begin(), it->second.sites.end(), uint32_t(only_site)) != it->second.sites.end()))
        site_tooltip(m, it->second);
    }
  }
  clip.End();
  ImGui::PopStyleVar();
  ImGui::EndChild();
  ImGui::PopFont();
}

}  // namespace ws::ui
