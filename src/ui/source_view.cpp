// src/ui/source_view.cpp — Source panel: the program's files exactly as they were compiled, the current access's
// line lit, each line that accesses memory tagged in the gutter with its cost (sectors
// per request for global, n-way for shared) over the whole trace, and opened under it the
// memory instructions the line became (the PTX a program's compiler wrote) with theirs.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "session/report.h"
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
    if (si >= tr.sites.size() || si >= m.report().sites.size()) continue;
    const auto& site = tr.sites[si];
    const auto& st = m.report().sites[si];
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
  if (!ls.sites.empty()) ImGui::TextDisabled("click: show or hide the line's instructions");
  ImGui::EndTooltip();
}

// An instruction row's text: what it is, and (unless hidden) what it costs.
struct SiteRowText {
  std::string what, cost;
  double ratio = 1;
};
SiteRowText site_row_text(const Session& m, uint32_t si) {
  const auto& tr = m.trace();
  SiteRowText r;
  if (si >= tr.sites.size() || si >= m.report().sites.size()) return r;
  const auto& site = tr.sites[si];
  const auto& st = m.report().sites[si];
  char b[160];
  if (!site.instruction.empty()) {
    r.what = site.instruction;
  } else {
    std::snprintf(b, sizeof b, "%s %s, %u B a lane", trace::to_string(site.space), trace::to_string(site.op), site.bytes);
    r.what = b;
  }
  const char* buf = site.buffer < tr.buffers.size() ? tr.buffers[site.buffer].name.c_str() : "several arrays";
  r.what += std::string("  ") + buf;
  if (!st.requests) {
    r.cost = "not executed in this launch";
  } else if (site.space != trace::Space::Shared) {
    std::snprintf(b, sizeof b, "%.2f sectors/request (ideal %.2f) · %s requests", st.sectors_per_request,
                  st.ideal_sectors_per_request, fmt_count(st.requests).c_str());
    r.cost = b;
    r.ratio = analysis::cost_ratio(st.sectors, st.ideal_sectors);
  } else {
    std::snprintf(b, sizeof b, "%u-way · %.2f wavefronts/request · %s requests", st.max_way,
                  double(st.wavefronts) / double(st.requests), fmt_count(st.requests).c_str());
    r.cost = b;
    r.ratio = analysis::cost_ratio(st.wavefronts, st.ideal_wavefronts);
  }
  return r;
}

size_t indent_of(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t");
  return a == std::string::npos ? 0 : a;
}

}  // namespace

float source_row_height() { return std::round(font_for(FontRole::Mono)->FontSize + 4); }

float source_gutter_width(const SourceText& f, float avail_w, bool narrow) {
  const float ch = text_size(FontRole::Mono, "0").x;
  const float cap = avail_w * (narrow ? 0.25f : 0.4f);
  float w = ch * (narrow ? 4 : 8);
  for (const auto& [l, ls] : f.stats) {
    float full = ch, widest = 0;  // all the line's parts, or its widest one and "+N"
    for (const auto& part : ls.parts) {
      const float pw = text_size(FontRole::Mono, part.text).x;
      full += pw + ch * 1.2f;
      widest = std::max(widest, pw);
    }
    const float one = ls.parts.size() > 1 ? widest + ch * 4.5f : full;
    w = std::max(w, narrow ? one : full <= cap ? full : widest + ch * 5.5f);
  }
  return std::min(w, cap);
}

namespace {

// Where to end a piece of `text` that starts at `from` and may hold `room` characters: after
// the last space, comma or semicolon in its second half, else at `room`.
size_t wrap_end(const std::string& text, size_t from, size_t room) {
  const size_t hard = from + room;
  if (hard >= text.size()) return text.size();
  for (size_t k = hard; k > from + room / 2; --k) {
    const char c = text[k - 1];
    if (c == ' ' || c == ',' || c == ';') return k;
  }
  return hard;
}

}  // namespace

std::vector<SourceRow> source_rows(const SourceText& f, const std::function<bool(uint32_t)>& open, int wrap) {
  std::vector<SourceRow> rows;
  rows.reserve(f.lines.size());
  for (uint32_t line = 1; line <= f.lines.size(); ++line) {
    const std::string& text = f.lines[line - 1];
    if (wrap > 0) {
      // Indentation half as deep; the first piece at it, the rest indented past it.
      const size_t indent = indent_of(text), col = indent / 2;
      size_t at = indent;
      bool first = true;
      do {
        const size_t c = first ? col : col + kSourceWrapIndent;
        const size_t end = wrap_end(text, at, size_t(std::max(8, wrap - int(c))));
        rows.push_back({line, -1, uint32_t(at), uint32_t(end), uint32_t(c), !first});
        at = end;
        first = false;
        while (at < text.size() && text[at] == ' ') ++at;  // no piece starts with spaces
      } while (at < text.size());
    } else {
      rows.push_back({line, -1});
    }
    const auto it = f.stats.find(line);
    if (it == f.stats.end() || !open(line)) continue;
    const uint32_t col = uint32_t(wrap > 0 ? indent_of(text) / 2 : indent_of(text));
    // First what a GPU executed for the line (where the program's SASS trace is known: a
    // line of 32 PTX loads reads "H100 ran 16 LDS + 4 LDS.128"), then each PTX instruction.
    // Wrapped too, where lines are (the projector's font): "└ " and a piece a row.
    for (size_t k = 0; k < it->second.hardware.size(); ++k) {
      const std::string h = session::hardware_text(it->second.hardware[k]);
      size_t at = 0;
      do {
        const size_t end = wrap > 0 ? wrap_end(h, at, size_t(std::max(8, wrap - int(col) - 2))) : h.size();
        SourceRow r{line, -1, uint32_t(at), uint32_t(end), col, at > 0};
        r.hardware = int(k);
        rows.push_back(r);
        at = end;
        while (at < h.size() && h[at] == ' ') ++at;
      } while (at < h.size());
    }
    for (uint32_t si : it->second.sites) rows.push_back({line, int(si), 0, UINT32_MAX, col});
  }
  return rows;
}

// The row of the line where the program was stopped (a fault, an assert): red, with a bar.
static void mark_stopped(Scene& sc, float y, float width, float row_h) {
  sc.fill(ImVec2(0, y), ImVec2(width, y + row_h), with_alpha(theme().bad, 56));
  sc.fill(ImVec2(4, y), ImVec2(8, y + row_h), theme().bad);
}

void source_scene(Scene& sc, const Session& m, const SourceText& f, const std::vector<SourceRow>& rows,
                  const RequestFigures& rv, int first, int count, float width, float gutter_w, int only_site) {
  const Theme& t = theme();
  const float ch = text_size(FontRole::Mono, "0").x;
  const float row_h = source_row_height();
  const uint32_t current = rv.site && rv.site->file == f.file ? rv.site->line : 0;
  const uint32_t stopped = session::problem_line(m, f.file);  // where the program faulted
  const int n = int(rows.size());
  sc.size = ImVec2(width, row_h * float(count));
  for (int i = std::max(0, first); i < std::min(n, first + count); ++i) {
    const SourceRow& row = rows[size_t(i)];
    const uint32_t line = row.line;
    const float y = float(i - first) * row_h;
    const auto it = f.stats.find(line);
    const LineStat* ls = it == f.stats.end() ? nullptr : &it->second;
    const std::string& text = line <= f.lines.size() ? f.lines[line - 1] : std::string();
    const float tx = gutter_w + ch * 5;
    const size_t cpos = text.find("//");
    // The row's piece of its line, the comment dimmed.
    auto code = [&](float x, size_t from, size_t to) {
      to = std::min(to, text.size());
      if (from >= to) return;
      const size_t mid = std::clamp(cpos, from, to);
      if (mid > from) sc.text(ImVec2(x, y + 2), text.substr(from, mid - from), t.text, FontRole::Mono);
      if (to > mid)
        sc.text(ImVec2(x + ch * float(mid - from), y + 2), text.substr(mid, to - mid), IM_COL32(122, 160, 130, 255),
                FontRole::Mono);
    };
    if (row.hardware >= 0) {  // what the GPU ran for the line, under its instructions
      if (!ls || size_t(row.hardware) >= ls->hardware.size() || only_site == -2) continue;
      sc.fill(ImVec2(gutter_w, y), ImVec2(width, y + row_h), with_alpha(t.accent, 16));
      const std::string h = session::hardware_text(ls->hardware[size_t(row.hardware)]);
      const std::string piece = h.substr(std::min<size_t>(row.from, h.size()), row.to - std::min<size_t>(row.from, h.size()));
      sc.text(ImVec2(tx + ch * float(row.col + (row.more ? 4 : 2)), y + 2), (row.more ? "" : "\u2514 ") + piece, t.accent,
              FontRole::Mono);
      continue;
    }
    if (row.site < 0 && line == stopped) mark_stopped(sc, y, width, row_h);
    if (row.site < 0 && row.more) {  // a wrapped line's continuation
      if (line == current) {
        sc.fill(ImVec2(0, y), ImVec2(width, y + row_h), IM_COL32(88, 166, 255, 60));
        sc.fill(ImVec2(0, y), ImVec2(4, y + row_h), t.accent);
      }
      code(tx + ch * float(row.col), row.from, row.to);
      continue;
    }
    if (row.site >= 0) {  // one of the line's instructions, under it
      const bool cur = rv.rec && rv.rec->site == uint32_t(row.site);
      const bool hide = only_site == -2 || (only_site >= 0 && row.site != only_site);
      const SiteRowText r = site_row_text(m, uint32_t(row.site));
      const ImU32 c = hide ? t.text_dim : cost_color(r.ratio);
      sc.fill(ImVec2(gutter_w, y), ImVec2(width, y + row_h), cur ? IM_COL32(88, 166, 255, 40) : with_alpha(t.text_dim, 14));
      const float x = tx + ch * float(row.col + 2);
      const std::string what = "\u2514 " + r.what;
      sc.text(ImVec2(x, y + 2), what, cur ? t.text : t.text_dim, FontRole::Mono);
      if (!hide) sc.text(ImVec2(x + text_size(FontRole::Mono, what).x + ch * 2, y + 2), r.cost, c, FontRole::Mono);
      continue;
    }
    if (line == current) {
      sc.fill(ImVec2(0, y), ImVec2(width, y + row_h), IM_COL32(88, 166, 255, 60));
      sc.fill(ImVec2(0, y), ImVec2(4, y + row_h), t.accent);
    } else if (ls && only_site == -1) {
      sc.fill(ImVec2(gutter_w, y), ImVec2(width, y + row_h), with_alpha(cost_color(ls->ratio), 18));
    }
    if (ls && only_site != -2) {
      // Right-aligned parts, each in the colour of its own cost; the current one framed.
      // Where they do not all fit, the worst one (or the current one) and how many more.
      std::vector<size_t> shown;
      float need = 0;
      for (size_t k = 0; k < ls->parts.size(); ++k) {
        if (only_site >= 0 && ls->parts[k].site != uint32_t(only_site)) continue;
        shown.push_back(k);
        need += text_size(FontRole::Mono, ls->parts[k].text).x + ch * 1.2f;
      }
      std::string more;
      if (need > gutter_w - ch + 0.5f && shown.size() > 1) {  // (the widest line fits exactly)
        size_t keep = shown[0];
        for (size_t k : shown) {
          const bool is_cur = rv.rec && rv.rec->site == ls->parts[k].site;
          if (is_cur || (!(rv.rec && rv.rec->site == ls->parts[keep].site) && ls->parts[k].ratio > ls->parts[keep].ratio))
            keep = k;
        }
        more = std::to_string(shown.size() - 1);
        more.insert(more.begin(), '+');
        shown = {keep};
      }
      float bx = gutter_w - ch;
      if (!more.empty()) {
        bx -= text_size(FontRole::Mono, more).x;
        sc.text(ImVec2(bx, y + 2), more, t.text_dim, FontRole::Mono);
        bx -= ch * 1.2f;
      }
      for (size_t j = shown.size(); j-- > 0;) {
        const auto& part = ls->parts[shown[j]];
        const ImU32 c = cost_color(part.ratio);
        // A badge wider than the gutter keeps its cost ("32-way") and drops the array's name.
        std::string label = part.text;
        if (text_size(FontRole::Mono, label).x > bx - 3 && label.rfind(' ') != std::string::npos)
          label = label.substr(label.rfind(' ') + 1);
        const float w = text_size(FontRole::Mono, label).x;
        bx -= w;
        sc.fill(ImVec2(bx - 3, y + 1), ImVec2(bx + w + 3, y + row_h - 1), with_alpha(c, 40), 3);
        if (rv.rec && rv.rec->site == part.site) sc.rect(ImVec2(bx - 3, y + 1), ImVec2(bx + w + 3, y + row_h - 1), c, 1.5f, 3);
        sc.text(ImVec2(bx, y + 2), label, c, FontRole::Mono);
        bx -= ch * 1.2f;
      }
    }
    char num[16];
    std::snprintf(num, sizeof num, "%4u", line);
    sc.text(ImVec2(gutter_w, y + 2), num, line == current ? t.text : t.text_dim, FontRole::Mono);
    if (ls && (!ls->sites.empty() || !ls->hardware.empty())) {  // the line opens to its instructions
      int j = i + 1;
      while (j < n && rows[size_t(j)].line == line && rows[size_t(j)].more) ++j;
      const bool open = j < n && rows[size_t(j)].line == line && (rows[size_t(j)].site >= 0 || rows[size_t(j)].hardware >= 0);
      sc.text(ImVec2(gutter_w + ch * 4.1f, y + 2), open ? "\u25be" : "\u25b8", t.text_dim, FontRole::Mono);
    }
    code(tx + ch * float(row.col), row.from, row.to);
  }
}

namespace {

// The file the panel shows (the current line's when that moves to another file, else the
// one picked), the file choice and the instructions toggle above it. `moved`: the current
// line went to another file.
const SourceText& source_file_bar(Ui& ui, Pane& p, bool& moved) {
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
    if (!ui.state.present) {
      ImGui::Checkbox("instructions", &ui.state.source.instructions);
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip("every memory line with the instructions it became and their costs (click a line for one)");
    }
  }
  return f;
}

// Brings the current line (all its wrapped pieces) into view when it changes.
void scroll_to_line(Pane& p, const std::vector<SourceRow>& rows, uint32_t current, bool moved, float row_h) {
  if (current && (current != p.source_line_shown || moved)) {
    size_t r = 0;
    while (r < rows.size() && rows[r].line != current) ++r;
    size_t r1 = r;  // one past the line's last piece
    while (r1 < rows.size() && rows[r1].line == current && (r1 == r || rows[r1].more)) ++r1;
    const float y = row_h * float(r), y1 = row_h * float(r1);
    const float top = ImGui::GetScrollY(), h = ImGui::GetWindowHeight();
    // The whole line in view, a third of the way down where it leaves room.
    if (y < top + row_h * 2 || y1 > top + h - row_h * 2) {
      const float above = std::max(0.0f, std::min(h * 0.35f, h - (y1 - y) - row_h * 1.5f));
      ImGui::SetScrollY(std::max(0.0f, std::round((y - above) / row_h) * row_h));  // whole rows
    }
    p.source_line_shown = current;
  }
}

}  // namespace

void source_view(Ui& ui, Pane& p) {
  if (!p.model) {
    ImGui::TextDisabled(ui.recorder.busy() ? "recording…" : "no trace loaded");
    return;
  }
  const Session& m = *p.model;
  const RequestFigures& rv = p.request();
  bool moved = false;  // the current line went to another file: scroll to it there
  const SourceText& f = source_file_bar(ui, p, moved);
  if (f.lines.empty()) {
    ImGui::TextDisabled("this trace carries no source for %s", f.name.empty() ? "its kernel" : f.name.c_str());
    return;
  }
  const uint32_t current = rv.site && rv.site->file == f.file ? rv.site->line : 0;
  const uint64_t key0 = uint64_t(f.file) << 32;
  const float ch = text_size(FontRole::Mono, "0").x;
  // A projector's large type: a narrow gutter, and lines wrapped to the panel (whole lines,
  // no sideways scrolling).
  const bool present = ui.state.present;
  const float gutter_w = source_gutter_width(f, ImGui::GetContentRegionAvail().x, present);
  const float num_w = ch * 5;
  const float row_h = source_row_height();
  const int wrap =
      present ? std::max(12, int((ImGui::GetContentRegionAvail().x - gutter_w - num_w - ImGui::GetStyle().ScrollbarSize) / ch) - 1)
              : 0;
  const std::vector<SourceRow> rows = source_rows(
      f, [&](uint32_t line) { return ui.state.source.instructions || p.source_open.count(key0 | line); }, wrap);
  size_t longest = 0;
  if (!present)
    for (const auto& l : f.lines) longest = std::max(longest, l.size());
  ImGui::PushFont(font_for(FontRole::Mono));
  ImGui::SetNextWindowContentSize(ImVec2(gutter_w + num_w + ch * float(longest + 4), row_h * float(rows.size())));
  ImGui::BeginChild("##code", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
  scroll_to_line(p, rows, current, moved, row_h);
  // In a lesson, the gutter shows the answers given so far and no others.
  const int only_site = &p == &ui.pane ? ui.lessons.gutter_site() : -1;
  ImGui::PushStyleVar(ImGuiStyleVar_ItemSpacing, ImVec2(0, 0));
  ImGuiListClipper clip;
  clip.Begin(int(rows.size()), row_h);
  const float x0 = ImGui::GetCursorScreenPos().x;
  const float win_x1 = ImGui::GetWindowPos().x + ImGui::GetWindowWidth();
  // Rows cut by the panel's edges stay blank: a line is shown whole or not at all.
  const float scroll_y = ImGui::GetScrollY();
  const float view_h = ImGui::GetWindowHeight() - (ImGui::GetScrollMaxX() > 0 ? ImGui::GetStyle().ScrollbarSize : 0);
  const int first_whole = int(std::ceil(scroll_y / row_h - 0.01f));
  const int last_whole = int(std::floor((scroll_y + view_h) / row_h + 0.01f));  // one past
  while (clip.Step()) {
    // The visible rows as one scene; below it, a row-sized item per row for the tooltip
    // and the click that opens a line.
    const int a = std::max(clip.DisplayStart, first_whole), b = std::min(clip.DisplayEnd, last_whole);
    if (a < b) {
      Scene sc;
      source_scene(sc, m, f, rows, rv, a, b - a, std::max(win_x1 - x0, 4000.0f), gutter_w, only_site);
      draw_scene(ImGui::GetWindowDrawList(), sc,
                 ImVec2(x0, ImGui::GetCursorScreenPos().y + float(a - clip.DisplayStart) * row_h), nullptr);
    }
    for (int i = clip.DisplayStart; i < clip.DisplayEnd; ++i) {
      const SourceRow& row = rows[size_t(i)];
      ImGui::PushID(i);
      ImGui::Dummy(ImVec2(present ? 1.0f : gutter_w + num_w + ch * float(f.lines[row.line - 1].size() + 2), row_h));
      const auto it = f.stats.find(row.line);
      if (row.site < 0 && it != f.stats.end()) {
        if (ImGui::IsItemClicked(ImGuiMouseButton_Left) && !ui.state.source.instructions) {
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
