#include "ui/figure.h"

#include <imgui_internal.h>

#include <stb/stb_image_write.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>

#include "session/heat.h"
#include "ui/theme.h"

namespace ws::ui {

namespace {

struct ViewKey {
  const char* key;
  FigureView view;
};
constexpr ViewKey kViews[] = {{"memory", FigureView::Memory},
                              {"warp", FigureView::Warp},
                              {"banks", FigureView::Banks},
                              {"dram", FigureView::Dram},
                              {"source", FigureView::Source}};

// ---- SVG ---------------------------------------------------------------------------

std::string hex(ImU32 c) {
  char b[8];
  std::snprintf(b, sizeof b, "#%02x%02x%02x", unsigned(c & 0xff), unsigned((c >> 8) & 0xff), unsigned((c >> 16) & 0xff));
  return b;
}

std::string paint(const char* attr, ImU32 c) {
  std::string s = std::string(attr) + "=\"" + hex(c) + "\"";
  unsigned a = (c >> 24) & 0xff;
  if (a < 255) {
    char b[48];
    std::snprintf(b, sizeof b, " %s-opacity=\"%.3g\"", attr, a / 255.0);
    s += b;
  }
  return s;
}

std::string num(float v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2f", double(v));
  std::string s = b;
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s == "-0" ? "0" : s;
}

std::string escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      default:
        if (static_cast<unsigned char>(c) >= 0x20 || c == '\t') o += c;
    }
  }
  return o;
}

void svg_rect(std::string& o, ImVec2 a, ImVec2 b, const std::string& style, float round) {
  o += "<rect x=\"" + num(std::min(a.x, b.x)) + "\" y=\"" + num(std::min(a.y, b.y)) + "\" width=\"" +
       num(std::fabs(b.x - a.x)) + "\" height=\"" + num(std::fabs(b.y - a.y)) + "\"";
  if (round > 0) o += " rx=\"" + num(round) + "\"";
  o += " " + style + "/>\n";
}

// Cells of a grid as rectangles; large grids are averaged over blocks of cells so the
// file stays small (at most about 160 × 160 rectangles).
void svg_grid(std::string& o, const GridDraw& g) {
  const Theme& t = theme();
  ImVec2 a(std::max(g.clip_min.x, g.origin.x), std::max(g.clip_min.y, g.origin.y));
  ImVec2 b(std::min(g.clip_max.x, g.origin.x + g.cell * float(g.cols)),
           std::min(g.clip_max.y, g.origin.y + g.cell * float(g.rows)));
  if (a.x >= b.x || a.y >= b.y) return;
  svg_rect(o, a, b, paint("fill", t.cell_empty), 0);
  const HeatLayer* h = g.heat;
  if (!h || h->cells.empty() || h->max <= 0 || g.cell <= 0) return;
  uint32_t c0 = uint32_t(std::max(0.0f, (a.x - g.origin.x) / g.cell));
  uint32_t r0 = uint32_t(std::max(0.0f, (a.y - g.origin.y) / g.cell));
  uint32_t c1 = std::min({g.cols, h->cols, uint32_t(std::ceil((b.x - g.origin.x) / g.cell))});
  uint32_t r1 = std::min({g.rows, h->rows, uint32_t(std::ceil((b.y - g.origin.y) / g.cell))});
  if (c0 >= c1 || r0 >= r1) return;
  const uint32_t step = std::max(1u, std::max(c1 - c0, r1 - r0) / 160 + ((std::max(c1 - c0, r1 - r0) % 160) ? 1 : 0));
  const float inv = g.log_scale ? 1.0f / std::log1p(h->max) : 1.0f / h->max;
  const float gap = step == 1 && g.grid_lines && g.cell >= 6 ? 1.0f : 0.0f;
  o += "<g shape-rendering=\"crispEdges\">\n";
  for (uint32_t r = r0; r < r1; r += step)
    for (uint32_t c = c0; c < c1; c += step) {
      float v = 0;
      for (uint32_t rr = r; rr < std::min(r1, r + step); ++rr)
        for (uint32_t cc = c; cc < std::min(c1, c + step); ++cc) v = std::max(v, h->cells[size_t(rr) * h->cols + cc]);
      if (v <= 0) continue;
      float tt = g.log_scale ? std::log1p(v) * inv : v * inv;
      float x = g.origin.x + float(c) * g.cell, y = g.origin.y + float(r) * g.cell;
      float w = g.cell * float(std::min(step, c1 - c)), hh = g.cell * float(std::min(step, r1 - r));
      svg_rect(o, ImVec2(x, y), ImVec2(x + w - gap, y + hh - gap), paint("fill", heat_color(tt)), 0);
    }
  o += "</g>\n";
}

const char* family(FontRole f) {
  return f == FontRole::Mono ? "'JetBrains Mono', 'DejaVu Sans Mono', monospace" : "'DejaVu Sans', Verdana, sans-serif";
}

}  // namespace

bool figure_view_from_key(const std::string& key, FigureView& out) {
  for (const auto& v : kViews)
    if (key == v.key) {
      out = v.view;
      return true;
    }
  return false;
}

const char* figure_view_keys() { return "memory, warp, banks, dram, source"; }

namespace {
// A scene drawn at `origin` and clipped to [clip_min, clip_max], as a chunk in figure
// coordinates.
void add_chunk(Figure& f, const Scene& sc, ImVec2 origin, ImVec2 clip_min, ImVec2 clip_max) {
  SceneChunk c;
  c.scene.size = sc.size;
  c.scene.append(sc, origin);
  c.clip_min = clip_min;
  c.clip_max = clip_max;
  f.chunks.push_back(std::move(c));
}
}  // namespace

Figure render_figure(const std::shared_ptr<const Session>& model, uint64_t step, FigureView view, int width,
                     int height, const std::string& caption, HeatMap* heat, int dram_array) {
  Figure f;
  f.width = width;
  f.height = height;
  const Theme& t = theme();
  f.background = t.panel;
  const bool any = model && model->size();
  HeatMap own;
  if (!heat) heat = &own;
  if (any) {
    if (heat->model() != model) heat->reset(model);
    heat->update(std::min<uint64_t>(step + 1, model->size()), 0);
  }
  const RequestFigures rv = any ? model->request(step) : RequestFigures{};
  MemoryViewState memory;  // the app's defaults: heat, sectors, lines, labels; every grid fits
  memory.heat_map = heat;

  // The view's scenes in the figure less a margin and the caption band: the same builders
  // the app's panels call, with nothing of the panels' controls.
  const float cap_font = font_for(FontRole::Ui)->FontSize;
  const float cap_h = caption.empty() ? 0.0f : std::round(cap_font + 12);
  const float pad = std::round(font_for(FontRole::Small)->FontSize * 0.75f);
  const ImVec2 o(pad, pad);
  const ImVec2 size(float(width) - 2 * pad, float(height) - cap_h - 2 * pad);
  const ImVec2 body_max(float(width), float(height) - cap_h);
  if (any && rv.rec && rv.site && size.x > 40 && size.y > 40) {
    Scene sc;
    switch (view) {
      case FigureView::Memory:
        for (const SceneChunk& c : memory_chunks(o, *model, rv, memory, memory_layout(*model, rv, memory, size)))
          f.chunks.push_back(c);
        break;
      case FigureView::Dram:
        dram_panel_scene(sc, *model, rv, dram_array, size);
        add_chunk(f, sc, o, ImVec2(0, 0), body_max);
        break;
      case FigureView::Warp:
      case FigureView::Banks:
        warp_panel_scene(sc, rv, size);
        add_chunk(f, sc, o, ImVec2(0, 0), body_max);
        break;
      case FigureView::Source: {
        // The current line a third of the way down, as the app scrolls to it; lines cut
        // with "…" at the figure's edge (a figure cannot scroll).
        const int rows = std::max(1, int(size.y / source_row_height()));
        const int n = int(model->source_lines.size());
        const int first = std::clamp(int(rv.site->line) - 1 - rows / 3, 0, std::max(0, n - rows));
        source_scene(sc, *model, rv, first, rows, size.x, source_gutter_width(*model, size.x));
        for (auto& i : sc.items)
          if (i.kind == Scene::Kind::Text && i.a.x + text_size(i.font, i.text).x > size.x)
            i.text = fit_text(i.font, i.text, size.x - i.a.x);
        add_chunk(f, sc, o, ImVec2(0, 0), body_max);
        break;
      }
    }
  }
  if (!caption.empty()) {
    Scene cs;
    cs.fill(ImVec2(0, 0), ImVec2(float(width), cap_h), t.panel_header);
    cs.line(ImVec2(0, 0), ImVec2(float(width), 0), t.accent, 2);
    cs.text(ImVec2(10, cap_h * 0.5f), fit_text(FontRole::Ui, caption, float(width) - 20), t.text, FontRole::Ui, 0, 0.5f);
    add_chunk(f, cs, ImVec2(0, float(height) - cap_h), ImVec2(0, float(height) - cap_h),
              ImVec2(float(width), float(height)));
  }
  rasterize_figure(f);
  return f;
}

void rasterize_figure(Figure& f) {
  f.rgb.assign(size_t(f.width) * size_t(f.height) * 3, 0);
  for (size_t i = 0; i < size_t(f.width) * size_t(f.height); ++i) {
    f.rgb[i * 3 + 0] = uint8_t(f.background & 0xff);
    f.rgb[i * 3 + 1] = uint8_t((f.background >> 8) & 0xff);
    f.rgb[i * 3 + 2] = uint8_t((f.background >> 16) & 0xff);
  }
  // The chunks drawn into one draw list of their own (no ImGui frame needed), then
  // rasterized with the font atlas.
  // Shared drawing data of our own, set up as ImGui::NewFrame would (no frame may have run).
  ImDrawListSharedData data = *ImGui::GetDrawListSharedData();
  ImGuiIO& io = ImGui::GetIO();
  data.Font = font_for(FontRole::Ui);
  data.FontSize = data.Font->FontSize;
  data.TexUvWhitePixel = io.Fonts->TexUvWhitePixel;
  data.TexUvLines = io.Fonts->TexUvLines;
  data.SetCircleTessellationMaxError(ImGui::GetStyle().CircleTessellationMaxError);
  data.ClipRectFullscreen = ImVec4(0, 0, float(f.width), float(f.height));
  data.InitialFlags = ImDrawListFlags_AntiAliasedLines | ImDrawListFlags_AntiAliasedFill;
  if (!(io.Fonts->Flags & ImFontAtlasFlags_NoBakedLines)) data.InitialFlags |= ImDrawListFlags_AntiAliasedLinesUseTex;
  ImDrawList dl(&data);
  dl._ResetForNewFrame();
  dl.PushTextureID(ImGui::GetIO().Fonts->TexID);
  CpuGridPainter painter;
  for (const SceneChunk& c : f.chunks) {
    dl.PushClipRect(c.clip_min, c.clip_max, false);
    draw_scene(&dl, c.scene, ImVec2(0, 0), &painter);
    dl.PopClipRect();
  }
  ImDrawList* lists[] = {&dl};
  ImDrawData dd;
  dd.Valid = true;
  dd.CmdLists = lists;
  dd.CmdListsCount = 1;
  dd.TotalVtxCount = dl.VtxBuffer.Size;
  dd.TotalIdxCount = dl.IdxBuffer.Size;
  dd.DisplayPos = ImVec2(0, 0);
  dd.DisplaySize = ImVec2(float(f.width), float(f.height));
  dd.FramebufferScale = ImVec2(1, 1);
  rasterize_draw_data(&dd, f.width, f.height, f.rgb);
}

void rasterize_draw_data(const ImDrawData* dd, int w, int h, std::vector<uint8_t>& rgb) {
  if (!dd) return;
  unsigned char* tex = nullptr;
  int tw = 0, th = 0;
  ImGui::GetIO().Fonts->GetTexDataAsRGBA32(&tex, &tw, &th);
  const ImVec2 off = dd->DisplayPos;
  for (int l = 0; l < dd->CmdListsCount; ++l) {
    const ImDrawList* dl = dd->CmdLists[l];
    for (const ImDrawCmd& cmd : dl->CmdBuffer) {
      if (cmd.UserCallback) continue;
      const int cx0 = std::max(0, int(std::floor(cmd.ClipRect.x - off.x)));
      const int cy0 = std::max(0, int(std::floor(cmd.ClipRect.y - off.y)));
      const int cx1 = std::min(w, int(std::ceil(cmd.ClipRect.z - off.x)));
      const int cy1 = std::min(h, int(std::ceil(cmd.ClipRect.w - off.y)));
      if (cx0 >= cx1 || cy0 >= cy1) continue;
      for (unsigned e = 0; e + 2 < cmd.ElemCount; e += 3) {
        const ImDrawVert* v[3];
        for (int k = 0; k < 3; ++k) v[k] = &dl->VtxBuffer[int(cmd.VtxOffset + dl->IdxBuffer[int(cmd.IdxOffset + e + unsigned(k))])];
        const float x0 = v[0]->pos.x - off.x, y0 = v[0]->pos.y - off.y;
        const float x1 = v[1]->pos.x - off.x, y1 = v[1]->pos.y - off.y;
        const float x2 = v[2]->pos.x - off.x, y2 = v[2]->pos.y - off.y;
        const float area = (x1 - x0) * (y2 - y0) - (y1 - y0) * (x2 - x0);
        if (std::fabs(area) < 1e-6f) continue;
        const int bx0 = std::max(cx0, int(std::floor(std::min({x0, x1, x2}))));
        const int by0 = std::max(cy0, int(std::floor(std::min({y0, y1, y2}))));
        const int bx1 = std::min(cx1, int(std::ceil(std::max({x0, x1, x2}))));
        const int by1 = std::min(cy1, int(std::ceil(std::max({y0, y1, y2}))));
        float col[3][4];
        for (int k = 0; k < 3; ++k)
          for (int c = 0; c < 4; ++c) col[k][c] = float((v[k]->col >> (8 * c)) & 0xff) / 255.0f;
        const float inv = 1.0f / area;
        for (int py = by0; py < by1; ++py)
          for (int px = bx0; px < bx1; ++px) {
            const float sx = float(px) + 0.5f, sy = float(py) + 0.5f;
            const float w0 = ((x2 - x1) * (sy - y1) - (y2 - y1) * (sx - x1)) * inv;
            const float w1 = ((x0 - x2) * (sy - y2) - (y0 - y2) * (sx - x2)) * inv;
            const float w2 = 1.0f - w0 - w1;
            if (w0 < 0 || w1 < 0 || w2 < 0) continue;
            const float u = w0 * v[0]->uv.x + w1 * v[1]->uv.x + w2 * v[2]->uv.x;
            const float vv = w0 * v[0]->uv.y + w1 * v[1]->uv.y + w2 * v[2]->uv.y;
            const int tx = std::clamp(int(u * float(tw)), 0, tw - 1), ty = std::clamp(int(vv * float(th)), 0, th - 1);
            const unsigned char* tp = tex + (size_t(ty) * size_t(tw) + size_t(tx)) * 4;
            float a = (w0 * col[0][3] + w1 * col[1][3] + w2 * col[2][3]) * float(tp[3]) / 255.0f;
            if (a <= 0) continue;
            uint8_t* d = &rgb[(size_t(py) * size_t(w) + size_t(px)) * 3];
            for (int c = 0; c < 3; ++c) {
              float s = (w0 * col[0][c] + w1 * col[1][c] + w2 * col[2][c]) * float(tp[c]) / 255.0f;
              float r = s * 255.0f * a + float(d[c]) * (1 - a);
              d[c] = uint8_t(std::clamp(r + 0.5f, 0.0f, 255.0f));
            }
          }
      }
    }
  }
}

std::string figure_svg(const Figure& f) {
  std::string o;
  o.reserve(1 << 16);
  o += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  o += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(f.width) + "\" height=\"" +
       std::to_string(f.height) + "\" viewBox=\"0 0 " + std::to_string(f.width) + " " + std::to_string(f.height) +
       "\">\n";
  svg_rect(o, ImVec2(0, 0), ImVec2(float(f.width), float(f.height)), paint("fill", f.background), 0);
  int clip_id = 0;
  for (const SceneChunk& ch : f.chunks) {
    if (ch.scene.items.empty()) continue;
    std::string id = "c" + std::to_string(clip_id++);
    o += "<clipPath id=\"" + id + "\">";
    svg_rect(o, ch.clip_min, ch.clip_max, "", 0);
    o += "</clipPath>\n<g clip-path=\"url(#" + id + ")\">\n";
    for (const Scene::Item& i : ch.scene.items) {
      switch (i.kind) {
        case Scene::Kind::Fill: svg_rect(o, i.a, i.b, paint("fill", i.color), i.round); break;
        case Scene::Kind::Rect:
          svg_rect(o, i.a, i.b, "fill=\"none\" " + paint("stroke", i.color) + " stroke-width=\"" + num(i.width) + "\"",
                   i.round);
          break;
        case Scene::Kind::Line:
          o += "<line x1=\"" + num(i.a.x) + "\" y1=\"" + num(i.a.y) + "\" x2=\"" + num(i.b.x) + "\" y2=\"" + num(i.b.y) +
               "\" " + paint("stroke", i.color) + " stroke-width=\"" + num(i.width) + "\"/>\n";
          break;
        case Scene::Kind::Circle:
          o += "<circle cx=\"" + num(i.a.x) + "\" cy=\"" + num(i.a.y) + "\" r=\"" + num(i.width) + "\" " +
               paint("fill", i.color) + "/>\n";
          break;
        case Scene::Kind::Text: {
          if (i.text.empty()) break;
          ImFont* font = font_for(i.font);
          ImVec2 sz = text_size(i.font, i.text);
          // Same placement as draw_scene: the box's top-left, then the baseline.
          float left = std::floor(i.a.x - sz.x * i.align);
          float top = std::floor(i.a.y - sz.y * i.valign);
          const char* anchor = i.align >= 0.75f ? "end" : i.align >= 0.25f ? "middle" : "start";
          float x = i.align >= 0.75f ? left + sz.x : i.align >= 0.25f ? left + sz.x * 0.5f : left;
          float base = top + font->Ascent;
          // ImGui sizes fonts by ascent - descent; SVG by the em square.
          float em = font->FontSize * font->FontSize / std::max(1.0f, font->Ascent - font->Descent);
          o += "<text x=\"" + num(x) + "\" y=\"" + num(base) + "\" font-family=\"" + family(i.font) +
               "\" font-size=\"" + num(em) + "\"";
          if (i.font == FontRole::Bold || i.font == FontRole::Big) o += " font-weight=\"bold\"";
          if (anchor[0] != 's') o += std::string(" text-anchor=\"") + anchor + "\"";
          o += " " + paint("fill", i.color) + " xml:space=\"preserve\">" + escape(i.text) + "</text>\n";
          break;
        }
        case Scene::Kind::Grid:
          if (i.grid >= 0 && size_t(i.grid) < ch.scene.grids.size()) svg_grid(o, ch.scene.grids[size_t(i.grid)]);
          break;
      }
    }
    o += "</g>\n";
  }
  o += "</svg>\n";
  return o;
}

bool write_figure_png(const Figure& f, const std::string& path, std::string& error) {
  if (f.width <= 0 || f.height <= 0 || f.rgb.size() != size_t(f.width) * size_t(f.height) * 3) {
    error = "empty figure";
    return false;
  }
  if (!stbi_write_png(path.c_str(), f.width, f.height, 3, f.rgb.data(), f.width * 3)) {
    error = "cannot write " + path;
    return false;
  }
  return true;
}

namespace {
std::string extension_of(const std::string& path) {
  const size_t dot = path.find_last_of('.');
  if (dot == std::string::npos || path.find('/', dot) != std::string::npos) return "";
  std::string e = path.substr(dot + 1);
  for (char& c : e) c = char(std::tolower(static_cast<unsigned char>(c)));
  return e;
}
}  // namespace

const char* figure_formats() { return "png, svg"; }

bool figure_format_known(const std::string& path) {
  const std::string e = extension_of(path);
  return e == "png" || e == "svg";
}

bool write_figure(const Figure& f, const std::string& path, std::string& error) {
  const std::string e = extension_of(path);
  if (e == "png") return write_figure_png(f, path, error);
  if (e == "svg") {
    std::ofstream out(path, std::ios::binary);
    out << figure_svg(f);
    if (!out.good()) {
      error = "cannot write " + path;
      return false;
    }
    return true;
  }
  error = "unknown figure type '" + path + "': the file name must end in one of " + figure_formats();
  return false;
}

}  // namespace ws::ui
