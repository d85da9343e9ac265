// tests/gui/text_rules.h — the layout rules on text, for any frame's scenes: no text under
// 11 px, none run out of its clip rectangle (a scrolled region's mono text may run past its
// right edge), no two overlap where they show. tests/gui/test_layout.cpp holds every layout
// to them; the views' own tests hold their panels to them.
#pragma once
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "ui/figure/scene.h"
#include "ui/figure/theme.h"

namespace ws::test {

struct TextBox {
  std::string text;
  float px = 0;  // font size
  ImVec2 min, max, clip_min, clip_max;
  bool mono = false;
};

inline std::vector<TextBox> texts_of(const std::vector<ui::SceneChunk>& chunks) {
  std::vector<TextBox> out;
  for (const auto& c : chunks)
    for (const auto& i : c.scene.items) {
      if (i.kind != ui::Scene::Kind::Text || i.text.empty()) continue;
      TextBox b;
      b.text = i.text;
      b.px = ui::font_for(i.font)->FontSize;
      ui::text_box(i, b.min, b.max);
      b.clip_min = c.clip_min;
      b.clip_max = c.clip_max;
      b.mono = i.font == ui::FontRole::Mono;
      out.push_back(b);
    }
  return out;
}

inline std::string where(const TextBox& b) {
  char s[160];
  std::snprintf(s, sizeof s, "'%s' at (%.0f,%.0f)-(%.0f,%.0f)", b.text.c_str(), b.min.x, b.min.y, b.max.x, b.max.y);
  return s;
}

inline bool inside(ImVec2 p, ImVec2 a, ImVec2 b) { return p.x >= a.x && p.y >= a.y && p.x <= b.x && p.y <= b.y; }

// The rules on text: every problem as one line ("" when none). Texts whose top-left lies
// in `scrolled` (a panel that scrolls sideways: the source code) may run past its edge.
inline std::vector<std::string> text_problems(const std::vector<TextBox>& t, ImVec2 scrolled_min = {}, ImVec2 scrolled_max = {}) {
  std::vector<std::string> bad;
  const float tol = 1.0f;
  for (const auto& b : t) {
    if (b.px < 11) bad.push_back("text under 11 px: " + where(b));
    const bool scrolls = b.mono && inside(b.min, scrolled_min, scrolled_max);
    const bool clipped = b.min.x < b.clip_min.x - tol || b.min.y < b.clip_min.y - tol ||
                         (!scrolls && b.max.x > b.clip_max.x + tol) || b.max.y > b.clip_max.y + tol;
    // Wholly outside its clip rectangle: not drawn at all (scrolled away), not clipped.
    const bool hidden = b.max.x <= b.clip_min.x || b.min.x >= b.clip_max.x || b.max.y <= b.clip_min.y ||
                        b.min.y >= b.clip_max.y;
    if (clipped && !hidden) bad.push_back("text clipped by its panel: " + where(b));
  }
  for (size_t i = 0; i < t.size(); ++i)
    for (size_t j = i + 1; j < t.size(); ++j) {
      // What shows of each: its box within its clip rectangle (a clipped text is reported
      // above; a scrolled line's hidden part overlaps nothing).
      const auto &a = t[i], &b = t[j];
      const float w = std::min({a.max.x, a.clip_max.x, b.max.x, b.clip_max.x}) -
                      std::max({a.min.x, a.clip_min.x, b.min.x, b.clip_min.x});
      const float h = std::min({a.max.y, a.clip_max.y, b.max.y, b.clip_max.y}) -
                      std::max({a.min.y, a.clip_min.y, b.min.y, b.clip_min.y});
      if (w > tol && h > tol) bad.push_back("texts overlap: " + where(a) + " and " + where(b));
    }
  return bad;
}

}  // namespace ws::test
