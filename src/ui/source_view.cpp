// Source panel: the kernel file exactly as it was compiled, the current access's line
// lit, and each line that accesses memory tagged in the gutter with its cost
// (sectors per request for global, n-way for shared) over the whole trace.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "ui/theme.h"
#include "ui/ui.h"

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
    if (site.space == trace::Space::Global)
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

void source_view(Ui& ui, Pane& p) {
  const Theme& t = theme();
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
  const uint32_t current = rv.site ? rv.site->line : 0;

  ImFont* mono = font_for(FontRole::Mono);
  ImGui::PushFont(mono);
  const float ch = mono->CalcTextSizeA(mono->FontSize, 1e9f, 0, "0").x;
  float badge_w = ch * 8;
  for (const auto& [l, ls] : m.lines)
    badge_w = std::max(badge_w, mono->CalcTextSizeA(mono->FontSize, 1e9f, 0, ls.badge.c_str()).x + ch * 2);
  badge_w = std::min(badge_w, ImGui::GetContentRegionAvail().x * 0.4f);
  const float num_w = ch * 5;
  const float row_h = std::round(mono->FontSize + 4);
  size_t longest = 0;
  for (const auto& l : m.source_lines) longest = std::max(longest, l.size());
  ImGui::SetNextWindowContentSize(ImVec2(badge_w + num_w + ch * float(longest + 4), row_h * float(m.source_lines.size())));
  ImGui::BeginChild("##code", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
  // Bring the current line into view when it changes.
  if (current && current != p.source_line_shown) {
    float y = row_h * float(current - 1);
    float top = ImGui::GetScrollY(), h = ImGui::GetWindowHeight();
    if (y < top + row_h * 2 || y > top + h - row_h * 3) ImGui::SetScrollY(std::max(0.0f, y - h * 0.35f));
    p.source_line_shown = current;
  }
  ImDrawList* dl = ImGui::GetWindowDrawList();
  ImGui::PushStyleVar(ImGuiStyleVar_ItemSpacing, ImVec2(0, 0));
  ImGuiListClipper clip;
  clip.Begin(int(m.source_lines.size()), row_h);
  const float x0 = ImGui::GetCursorScreenPos().x;
  const float win_x1 = ImGui::GetWindowPos().x + ImGui::GetWindowWidth();
  while (clip.Step()) {
    for (int i = clip.DisplayStart; i < clip.DisplayEnd; ++i) {
      const uint32_t line = uint32_t(i + 1);
      ImVec2 a = ImGui::GetCursorScreenPos();
      a.x = x0;
      const auto it = m.lines.find(line);
      const LineStat* ls = it == m.lines.end() ? nullptr : &it->second;
      if (line == current) {
        dl->AddRectFilled(ImVec2(a.x, a.y), ImVec2(std::max(win_x1, a.x + 4000), a.y + row_h), IM_COL32(88, 166, 255, 60));
        dl->AddRectFilled(ImVec2(a.x, a.y), ImVec2(a.x + 4, a.y + row_h), t.accent);
      } else if (ls) {
        dl->AddRectFilled(ImVec2(a.x + badge_w, a.y), ImVec2(std::max(win_x1, a.x + 4000), a.y + row_h),
                          with_alpha(cost_color(ls->ratio), 18));
      }
      if (ls && !ls->parts.empty()) {
        // Right-aligned parts, each in the colour of its own cost; the current one framed.
        float bx = a.x + badge_w - ch;
        for (size_t k = ls->parts.size(); k-- > 0;) {
          const auto& part = ls->parts[k];
          ImU32 c = cost_color(part.ratio);
          ImVec2 bs = mono->CalcTextSizeA(mono->FontSize, 1e9f, 0, part.text.c_str());
          bx -= bs.x;
          dl->AddRectFilled(ImVec2(bx - 3, a.y + 1), ImVec2(bx + bs.x + 3, a.y + row_h - 1), with_alpha(c, 40), 3);
          if (rv.rec && rv.rec->site == part.site)
            dl->AddRect(ImVec2(bx - 3, a.y + 1), ImVec2(bx + bs.x + 3, a.y + row_h - 1), c, 3, 0, 1.5f);
          dl->AddText(mono, mono->FontSize, ImVec2(bx, a.y + 2), c, part.text.c_str());
          bx -= ch * 1.2f;
        }
      }
      char num[16];
      std::snprintf(num, sizeof num, "%4u", line);
      dl->AddText(mono, mono->FontSize, ImVec2(a.x + badge_w, a.y + 2), line == current ? t.text : t.text_dim, num);
      const std::string& text = m.source_lines[size_t(i)];
      size_t cpos = text.find("//");
      float tx = a.x + badge_w + num_w;
      const char* s0 = text.c_str();
      if (cpos == std::string::npos) {
        dl->AddText(mono, mono->FontSize, ImVec2(tx, a.y + 2), t.text, s0, s0 + text.size());
      } else {
        dl->AddText(mono, mono->FontSize, ImVec2(tx, a.y + 2), t.text, s0, s0 + cpos);
        dl->AddText(mono, mono->FontSize, ImVec2(tx + ch * float(cpos), a.y + 2), IM_COL32(122, 160, 130, 255), s0 + cpos,
                    s0 + text.size());
      }
      ImGui::Dummy(ImVec2(badge_w + num_w + ch * float(text.size() + 2), row_h));
      if (ls && ImGui::IsItemHovered()) site_tooltip(m, *ls);
    }
  }
  clip.End();
  ImGui::PopStyleVar();
  ImGui::EndChild();
  ImGui::PopFont();
}

}  // namespace ws::ui
