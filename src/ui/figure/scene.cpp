#include "ui/figure/scene.h"

#include <algorithm>
#include <cmath>

#include "session/heat.h"
#include "ui/figure/theme.h"

namespace ws::ui {

ImFont* font_for(FontRole r) {
  const Fonts& f = fonts();
  ImFont* x = nullptr;
  switch (r) {
    case FontRole::Ui: x = f.ui; break;
    case FontRole::Bold: x = f.bold; break;
    case FontRole::Mono: x = f.mono; break;
    case FontRole::Big: x = f.big; break;
    case FontRole::Small: x = f.small; break;
  }
  return x ? x : ImGui::GetFont();
}

ImVec2 text_size(FontRole f, const std::string& s) {
  ImFont* font = font_for(f);
  return font->CalcTextSizeA(font->FontSize, 1e9f, 0.0f, s.c_str(), s.c_str() + s.size());
}

void text_box(const Scene::Item& i, ImVec2& min, ImVec2& max) {
  const ImVec2 sz = text_size(i.font, i.text);
  min = ImVec2(std::floor(i.a.x - sz.x * i.align), std::floor(i.a.y - sz.y * i.valign));
  max = ImVec2(min.x + sz.x, min.y + sz.y);
}

namespace {
// Byte length of the UTF-8 sequence starting with `c`.
size_t utf8_len(unsigned char c) { return c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1; }
}  // namespace

std::string fit_text(FontRole f, const std::string& s, float width) {
  if (text_size(f, s).x <= width) return s;
  const std::string dots = "…";
  // The longest prefix (whole characters) that fits with the ellipsis.
  std::string best;
  for (size_t i = 0; i < s.size();) {
    const size_t n = std::min(utf8_len(static_cast<unsigned char>(s[i])), s.size() - i);
    std::string cand = s.substr(0, i + n);
    while (!cand.empty() && cand.back() == ' ') cand.pop_back();
    if (text_size(f, cand + dots).x > width) break;
    best = cand;
    i += n;
  }
  return text_size(f, best + dots).x <= width ? best + dots : "";
}

std::vector<std::string> wrap_text(FontRole f, const std::string& s, float width, int max_lines) {
  std::vector<std::string> lines;
  std::string line;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && s[i] == ' ') ++i;
    size_t j = s.find(' ', i);
    if (j == std::string::npos) j = s.size();
    const std::string word = s.substr(i, j - i);
    i = j;
    if (word.empty()) continue;
    const std::string cand = line.empty() ? word : line + " " + word;
    if (text_size(f, cand).x <= width) {
      line = cand;
      continue;
    }
    if (!line.empty()) lines.push_back(line);
    line = text_size(f, word).x <= width ? word : fit_text(f, word, width);
  }
  if (!line.empty()) lines.push_back(line);
  if (max_lines > 0 && int(lines.size()) > max_lines) {
    // Text left over: the last line kept says so.
    std::string rest = lines[size_t(max_lines - 1)];
    for (size_t k = size_t(max_lines); k < lines.size(); ++k) rest += " " + lines[k];
    lines.resize(size_t(max_lines));
    lines.back() = fit_text(f, rest, width);
  }
  return lines;
}

void Scene::append(const Scene& other, ImVec2 o) {
  const int base = int(grids.size());
  for (auto g : other.grids) {
    g.origin = ImVec2(g.origin.x + o.x, g.origin.y + o.y);
    g.clip_min = ImVec2(g.clip_min.x + o.x, g.clip_min.y + o.y);
    g.clip_max = ImVec2(g.clip_max.x + o.x, g.clip_max.y + o.y);
    grids.push_back(g);
  }
  for (auto i : other.items) {
    i.a = ImVec2(i.a.x + o.x, i.a.y + o.y);
    if (i.kind == Kind::Fill || i.kind == Kind::Rect || i.kind == Kind::Line) i.b = ImVec2(i.b.x + o.x, i.b.y + o.y);
    if (i.kind == Kind::Grid) i.grid += base;
    items.push_back(std::move(i));
  }
}

void Scene::fill(ImVec2 a, ImVec2 b, ImU32 c, float round) {
  Item i;
  i.kind = Kind::Fill;
  i.a = a;
  i.b = b;
  i.color = c;
  i.round = round;
  items.push_back(std::move(i));
}

void Scene::rect(ImVec2 a, ImVec2 b, ImU32 c, float width, float round) {
  Item i;
  i.kind = Kind::Rect;
  i.a = a;
  i.b = b;
  i.color = c;
  i.width = width;
  i.round = round;
  items.push_back(std::move(i));
}

void Scene::line(ImVec2 a, ImVec2 b, ImU32 c, float width) {
  Item i;
  i.kind = Kind::Line;
  i.a = a;
  i.b = b;
  i.color = c;
  i.width = width;
  items.push_back(std::move(i));
}

void Scene::text(ImVec2 p, std::string s, ImU32 c, FontRole f, float align, float valign) {
  Item i;
  i.kind = Kind::Text;
  i.a = p;
  i.color = c;
  i.font = f;
  i.align = align;
  i.valign = valign;
  i.text = std::move(s);
  items.push_back(std::move(i));
}

void Scene::circle(ImVec2 centre, float radius, ImU32 c) {
  Item i;
  i.kind = Kind::Circle;
  i.a = centre;
  i.width = radius;
  i.color = c;
  items.push_back(std::move(i));
}

void Scene::grid(const GridDraw& g) {
  Item i;
  i.kind = Kind::Grid;
  i.grid = int(grids.size());
  grids.push_back(g);
  items.push_back(std::move(i));
}

namespace {
std::vector<SceneChunk>* g_sink = nullptr;
}

void set_scene_sink(std::vector<SceneChunk>* sink) { g_sink = sink; }

void draw_scene(ImDrawList* dl, const Scene& s, ImVec2 o, GridPainter* painter) {
  if (g_sink) {
    SceneChunk c;
    c.scene = s;
    auto mv = [&](ImVec2& p) { p = ImVec2(p.x + o.x, p.y + o.y); };
    for (auto& i : c.scene.items) {
      mv(i.a);
      if (i.kind == Scene::Kind::Fill || i.kind == Scene::Kind::Rect || i.kind == Scene::Kind::Line) mv(i.b);
    }
    for (auto& g : c.scene.grids) {
      mv(g.origin);
      mv(g.clip_min);
      mv(g.clip_max);
    }
    c.clip_min = dl->GetClipRectMin();
    c.clip_max = dl->GetClipRectMax();
    g_sink->push_back(std::move(c));
  }
  auto at = [&](ImVec2 p) { return ImVec2(o.x + p.x, o.y + p.y); };
  for (const auto& i : s.items) {
    switch (i.kind) {
      case Scene::Kind::Fill:
        dl->AddRectFilled(at(i.a), at(i.b), i.color, i.round);
        break;
      case Scene::Kind::Rect:
        dl->AddRect(at(i.a), at(i.b), i.color, i.round, 0, i.width);
        break;
      case Scene::Kind::Line:
        dl->AddLine(at(i.a), at(i.b), i.color, i.width);
        break;
      case Scene::Kind::Circle:
        dl->AddCircleFilled(at(i.a), i.width, i.color, 16);
        break;
      case Scene::Kind::Text: {
        ImFont* f = font_for(i.font);
        ImVec2 sz = f->CalcTextSizeA(f->FontSize, 1e9f, 0.0f, i.text.c_str(), i.text.c_str() + i.text.size());
        ImVec2 p = at(i.a);
        p.x = std::floor(p.x - sz.x * i.align);
        p.y = std::floor(p.y - sz.y * i.valign);
        dl->AddText(f, f->FontSize, p, i.color, i.text.c_str(), i.text.c_str() + i.text.size());
        break;
      }
      case Scene::Kind::Grid: {
        if (!painter || i.grid < 0) break;
        GridDraw g = s.grids[size_t(i.grid)];
        g.origin = at(g.origin);
        g.clip_min = at(g.clip_min);
        g.clip_max = at(g.clip_max);
        painter->draw(dl, g);
        break;
      }
    }
  }
}

void CpuGridPainter::draw(ImDrawList* dl, const GridDraw& g) {
  const Theme& t = theme();
  ImVec2 a(std::max(g.clip_min.x, g.origin.x), std::max(g.clip_min.y, g.origin.y));
  ImVec2 b(std::min(g.clip_max.x, g.origin.x + g.cell * float(g.cols)),
           std::min(g.clip_max.y, g.origin.y + g.cell * float(g.rows)));
  if (a.x >= b.x || a.y >= b.y) return;
  dl->AddRectFilled(a, b, t.cell_empty);
  const HeatLayer* h = g.heat;
  if (!h || h->cells.empty() || h->max <= 0 || g.cell < 1.0f) return;
  uint32_t c0 = uint32_t(std::max(0.0f, (a.x - g.origin.x) / g.cell));
  uint32_t r0 = uint32_t(std::max(0.0f, (a.y - g.origin.y) / g.cell));
  uint32_t c1 = std::min(g.cols, uint32_t(std::ceil((b.x - g.origin.x) / g.cell)));
  uint32_t r1 = std::min(g.rows, uint32_t(std::ceil((b.y - g.origin.y) / g.cell)));
  if (size_t(c1 - c0) * (r1 - r0) > max_cells_) return;
  const float inv = g.log_scale ? 1.0f / std::log1p(h->max) : 1.0f / h->max;
  const float gap = g.grid_lines && g.cell >= 6 ? 1.0f : 0.0f;
  for (uint32_t r = r0; r < r1; ++r)
    for (uint32_t c = c0; c < c1; ++c) {
      float v = h->cells[size_t(r) * h->cols + c];
      if (v <= 0) continue;
      float x = g.origin.x + float(c) * g.cell, y = g.origin.y + float(r) * g.cell;
      float tt = g.log_scale ? std::log1p(v) * inv : v * inv;
      dl->AddRectFilled(ImVec2(x, y), ImVec2(x + g.cell - gap, y + g.cell - gap), heat_color(tt));
    }
}

}  // namespace ws::ui
