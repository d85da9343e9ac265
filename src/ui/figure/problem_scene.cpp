// src/ui/figure/problem_scene.cpp — what stopped the user's program, on the picture: the banner
// across the top of the main view (headline, where, thread and block, array and offset,
// the message whole, a crash's last output), and the lanes of a faulting request that
// went past their array's edge in the memory view. The problem itself comes from the core
// (program/problem.h through the Session or the failed recording); nothing is re-read
// from text here.
#include <algorithm>
#include <bit>
#include <cmath>

#include "ui/figure/theme.h"
#include "ui/figure/scenes.h"

namespace ws::ui {

float banner_scene(Scene& sc, const program::Problem& p, float width, bool store, bool small, float* head,
                   float* title, const std::string& elsewhere) {
  if (p.empty()) return 0;
  const Theme& t = theme();
  const FontRole body = small ? FontRole::Small : FontRole::Ui;
  const float pad = small ? 5 : 8, bar = 4, text_w = std::max(40.0f, width - 2 * pad - bar);
  const float lh = std::round(font_for(body)->FontSize * 1.25f);
  const float bh = std::round(font_for(FontRole::Bold)->FontSize * 1.3f);
  std::vector<std::pair<std::string, FontRole>> rows;
  const std::string headline = program::problem_title(p, store) + (elsewhere.empty() ? "" : " " + elsewhere);
  for (const std::string& l : wrap_text(FontRole::Bold, headline, text_w)) rows.push_back({l, FontRole::Bold});
  for (const std::string& item : program::problem_lines(p)) {
    // An item may hold lines of its own (a crash's output): each wrapped, none cut.
    size_t from = 0;
    while (from <= item.size()) {
      const size_t nl = std::min(item.find('\n', from), item.size());
      for (const std::string& l : wrap_text(body, item.substr(from, nl - from), text_w)) rows.push_back({l, body});
      from = nl + 1;
    }
  }
  float h = pad;
  for (const auto& r : rows) h += r.second == FontRole::Bold ? bh : lh;
  h += pad;
  sc.fill(ImVec2(0, 0), ImVec2(width, h), with_alpha(t.bad, 40), 4);
  sc.fill(ImVec2(0, 0), ImVec2(bar, h), t.bad, 2);
  float y = pad;
  int details = 0;
  if (title) *title = h;
  for (const auto& [text, font] : rows) {
    if (title && font != FontRole::Bold && *title == h) *title = y + 2;
    sc.text(ImVec2(bar + pad, y), text, font == FontRole::Bold ? t.bad : t.text, font);
    y += font == FontRole::Bold ? bh : lh;
    if (head && font != FontRole::Bold && ++details == 2) *head = y + 2;
  }
  if (head && details < 2) *head = h;
  sc.size = ImVec2(width, h);
  return h;
}

float banner_line_scene(Scene& sc, const program::Problem& p, float width, bool store, const std::string& elsewhere) {
  if (p.empty()) return 0;
  const Theme& t = theme();
  const float pad = 4, bar = 4;
  const float h = std::round(font_for(FontRole::Small)->FontSize * 1.25f) + 2 * pad;
  std::string text = program::problem_title(p, store) + (elsewhere.empty() ? "" : " " + elsewhere);
  if (const auto lines = program::problem_lines(p); !lines.empty()) text += " · " + lines.front();
  sc.fill(ImVec2(0, 0), ImVec2(width, h), t.bg, 4);  // drawn over the grids: opaque
  sc.fill(ImVec2(0, 0), ImVec2(width, h), with_alpha(t.bad, 40), 4);
  sc.fill(ImVec2(0, 0), ImVec2(bar, h), t.bad, 2);
  sc.text(ImVec2(bar + pad, pad), fit_text(FontRole::Small, text, std::max(20.0f, width - bar - 2 * pad)), t.bad,
          FontRole::Small);
  sc.size = ImVec2(width, h);
  return h;
}

float problem_banner_scene(Scene& sc, const program::Problem& p, float width, bool store) {
  return banner_scene(sc, p, width, store, false);
}

void past_edge_scene(Scene& sc, const MemoryLayout::Slot& s, const session::GridShape& g, const trace::Buffer& buf,
                     const RequestFigures& rv) {
  if (!s.current || s.tile || !rv.rec || !rv.site || g.elem_bytes == 0) return;
  const Theme& t = theme();
  std::vector<std::pair<int, uint64_t>> past;  // lane, byte offset (the Session's lanes_past_end)
  for (uint32_t bits = rv.past_end; bits; bits &= bits - 1) {
    const int lane = std::countr_zero(bits);
    if (rv.rec->buffer_of(lane) == s.buffer) past.push_back({lane, rv.rec->offset[size_t(lane)]});
  }
  if (past.empty()) return;
  // Where the grid would go on: row-major cells past the last, in a one-band slot.
  if (s.bands.count <= 1 && !g.col_major)
    for (const auto& [lane, off] : past) {
      const uint64_t e = off / g.elem_bytes;
      const float r = float(e / g.cols), c = float(e % g.cols);
      const ImVec2 a(s.origin.x + c * s.cell, s.origin.y + r * s.cell), b(a.x + s.cell, a.y + s.cell);
      sc.fill(a, b, lane_color(lane), s.cell >= 8 ? 2.0f : 0.0f);
      sc.rect(a, b, t.bad, s.cell >= 8 ? 2.5f : 1.5f, 3);
    }
  // The strip: which lanes, how far, on the canvas's foot whatever the zoom.
  std::string words = "past the end of " + buf.name + " (" + std::to_string(buf.size_bytes) + " bytes):";
  for (const auto& [lane, off] : past) words += " lane " + std::to_string(lane) + " at byte " + std::to_string(off) + ",";
  words.pop_back();
  const float w = s.clip_max.x - s.clip_min.x, pad = 4;
  const std::vector<std::string> lines = wrap_text(FontRole::Small, words, std::max(40.0f, w - 2 * pad - 12));
  const float lh = std::round(font_for(FontRole::Small)->FontSize * 1.25f);
  const float h = lh * float(lines.size()) + 2 * pad;
  if (h > (s.clip_max.y - s.clip_min.y) * 0.5f) return;  // a canvas too small: the banner says it
  const ImVec2 a(s.clip_min.x, s.clip_max.y - h);
  sc.fill(a, ImVec2(s.clip_max.x, s.clip_max.y), with_alpha(t.bg, 230));
  sc.fill(a, ImVec2(a.x + 4, s.clip_max.y), t.bad);
  for (size_t i = 0; i < lines.size(); ++i)
    sc.text(ImVec2(a.x + 4 + pad + 4, a.y + pad + lh * float(i)), lines[i], t.bad, FontRole::Small);
}


}  // namespace ws::ui
