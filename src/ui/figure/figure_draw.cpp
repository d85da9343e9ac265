// src/ui/figure/figure_draw.cpp — a Figure's scene chunks drawn by cairo into PNG, SVG and PDF.
//
// Text is drawn from the TTF file ImGui built the font from, glyph by glyph at the pen
// positions ImGui's own advances give (the ones text_size summed), so every text box the
// scene measured is the box the figure's text fills, whatever the viewer. SVG and PDF hold
// glyph outlines, not <text>: no font substitution.
#include <cairo-ft.h>
#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <cairo.h>
#include <ft2build.h>
#include FT_FREETYPE_H
#include <imgui_internal.h>  // ImTextCharFromUtf8

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <mutex>

#include "session/heat.h"
#include "ui/figure/figure.h"
#include "ui/figure/theme.h"

namespace ws::ui {
namespace {

// ---- fonts ---------------------------------------------------------------------------

// One cairo font face per TTF file, each over its own FT_Library and FT_Face; both are
// released by cairo's destroy callback when cairo lets the face go (the standard cairo-ft
// pattern: cairo may keep a face alive after its last user).
struct FtOwner {
  FT_Library lib = nullptr;
  FT_Face face = nullptr;
};
const cairo_user_data_key_t kFtKey{};

void release_ft(void* p) {
  auto* o = static_cast<FtOwner*>(p);
  if (o->face) FT_Done_Face(o->face);
  if (o->lib) FT_Done_FreeType(o->lib);
  delete o;
}

struct Face {
  std::string path;
  cairo_font_face_t* cairo = nullptr;  // null: the file could not be loaded
  FT_Face ft = nullptr;                // borrowed from cairo's user data
};

class FaceRegistry {
 public:
  ~FaceRegistry() {
    for (Face& f : faces_)
      if (f.cairo) cairo_font_face_destroy(f.cairo);
  }
  Face get(const std::string& path) {
    std::lock_guard<std::mutex> lock(m_);
    for (const Face& f : faces_)
      if (f.path == path) return f;
    Face f;
    f.path = path;
    auto* o = new FtOwner;
    if (!path.empty() && FT_Init_FreeType(&o->lib) == 0 && FT_New_Face(o->lib, path.c_str(), 0, &o->face) == 0) {
      cairo_font_face_t* cf = cairo_ft_font_face_create_for_ft_face(o->face, FT_LOAD_NO_HINTING);
      if (cairo_font_face_status(cf) == CAIRO_STATUS_SUCCESS &&
          cairo_font_face_set_user_data(cf, &kFtKey, o, release_ft) == CAIRO_STATUS_SUCCESS) {
        f.cairo = cf;
        f.ft = o->face;
        o = nullptr;  // owned by cf now
      } else {
        cairo_font_face_destroy(cf);
      }
    } else if (path.empty()) {
      // ImGui's built-in font has no file: the closest system sans, glyphs looked up by cairo.
      f.cairo = cairo_toy_font_face_create("DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    }
    if (o) release_ft(o);
    faces_.push_back(std::move(f));
    return faces_.back();
  }

 private:
  std::mutex m_;
  std::vector<Face> faces_;  // one per font file
};

FaceRegistry& registry() {
  static FaceRegistry r;
  return r;
}

cairo_font_options_t* text_options() {
  cairo_font_options_t* o = cairo_font_options_create();
  cairo_font_options_set_hint_style(o, CAIRO_HINT_STYLE_NONE);  // linear advances, as ImGui's
  cairo_font_options_set_hint_metrics(o, CAIRO_HINT_METRICS_OFF);
  cairo_font_options_set_antialias(o, CAIRO_ANTIALIAS_GRAY);
  return o;
}

// A text item as glyphs: face, em size and glyph positions (pen at ImGui's advances).
struct GlyphRun {
  cairo_font_face_t* face = nullptr;
  double em = 0;
  std::vector<cairo_glyph_t> glyphs;
};

// Glyph index of `c` in a face without an FT_Face (the built-in font's stand-in).
unsigned long toy_index(cairo_scaled_font_t* sf, unsigned c) {
  char u[5];
  const int n = int(std::strlen(ImTextCharToUtf8(u, c)));
  cairo_glyph_t* g = nullptr;
  int count = 0;
  unsigned long idx = 0;
  if (cairo_scaled_font_text_to_glyphs(sf, 0, 0, u, n, &g, &count, nullptr, nullptr, nullptr) == CAIRO_STATUS_SUCCESS &&
      count > 0)
    idx = g[0].index;
  cairo_glyph_free(g);
  return idx;
}

// Lays out `s` in `role` with its box's top-left at `top_left`, as ImFont::RenderText
// places glyphs: pen from the left edge, baseline at top + Ascent, each character advanced
// by the width CalcTextSizeA summed; characters outside the font's ranges show its
// fallback glyph; '\n' starts a new line FontSize lower.
bool glyph_run(FontRole role, const std::string& s, ImVec2 top_left, GlyphRun& out) {
  const ImFont* font = font_for(role);
  const FontFile file = font_file(font);
  const Face face = registry().get(file.path);
  if (!face.cairo) return false;
  out.face = face.cairo;
  out.glyphs.clear();
  cairo_scaled_font_t* toy = nullptr;
  if (face.ft) {
    // ImGui scales a font so hhea ascender − descender spans FontSize pixels; cairo's size
    // is the em square.
    const double span = double(face.ft->ascender) - double(face.ft->descender);
    out.em = span > 0 ? double(font->FontSize) * double(face.ft->units_per_EM) / span : font->FontSize;
  } else {
    out.em = font->FontSize * font->FontSize / std::max(1.0f, font->Ascent - font->Descent);
    cairo_matrix_t fm, ctm;
    cairo_matrix_init_scale(&fm, out.em, out.em);
    cairo_matrix_init_identity(&ctm);
    cairo_font_options_t* opt = text_options();
    toy = cairo_scaled_font_create(face.cairo, &fm, &ctm, opt);
    cairo_font_options_destroy(opt);
  }
  const float x0 = top_left.x;
  float x = x0, base = top_left.y + font->Ascent;
  const char* p = s.c_str();
  const char* end = p + s.size();
  while (p < end) {
    unsigned c = static_cast<unsigned char>(*p);
    if (c < 0x80) {
      ++p;
    } else {
      p += ImTextCharFromUtf8(&c, p, end);
      if (c == 0) break;
    }
    if (c < 32) {
      if (c == '\n') {
        x = x0;
        base += font->FontSize;
        continue;
      }
      if (c == '\r') continue;
    }
    const float adv = font->GetCharAdvance(ImWchar(c));
    const ImFontGlyph* g = font->FindGlyph(ImWchar(c));
    if (g && g->Visible) {
      const unsigned long idx = face.ft ? FT_Get_Char_Index(face.ft, g->Codepoint) : toy_index(toy, g->Codepoint);
      if (idx) out.glyphs.push_back(cairo_glyph_t{idx, double(x), double(base)});
    }
    x += adv;
  }
  if (toy) cairo_scaled_font_destroy(toy);
  return true;
}

void set_font(cairo_t* cr, const GlyphRun& r) {
  cairo_set_font_face(cr, r.face);
  cairo_set_font_size(cr, r.em);
  cairo_font_options_t* opt = text_options();
  cairo_set_font_options(cr, opt);
  cairo_font_options_destroy(opt);
}

// ---- shapes, as ImDrawList draws them -------------------------------------------------

void set_color(cairo_t* cr, ImU32 c) {
  cairo_set_source_rgba(cr, double(c & 0xff) / 255, double((c >> 8) & 0xff) / 255, double((c >> 16) & 0xff) / 255,
                        double((c >> 24) & 0xff) / 255);
}

// PathRect: the corner radius clamped as ImGui clamps it; square below half a pixel.
void rect_path(cairo_t* cr, double x0, double y0, double x1, double y1, double r) {
  if (x0 > x1) std::swap(x0, x1);
  if (y0 > y1) std::swap(y0, y1);
  r = std::min({r, (x1 - x0) * 0.5 - 1.0, (y1 - y0) * 0.5 - 1.0});
  if (r <= 0.5) {
    cairo_rectangle(cr, x0, y0, x1 - x0, y1 - y0);
    return;
  }
  const double pi = 3.14159265358979323846;
  cairo_new_sub_path(cr);
  cairo_arc(cr, x1 - r, y0 + r, r, -pi / 2, 0);
  cairo_arc(cr, x1 - r, y1 - r, r, 0, pi / 2);
  cairo_arc(cr, x0 + r, y1 - r, r, pi / 2, pi);
  cairo_arc(cr, x0 + r, y0 + r, r, pi, 3 * pi / 2);
  cairo_close_path(cr);
}

void fill_rect(cairo_t* cr, double x0, double y0, double x1, double y1, ImU32 c) {
  set_color(cr, c);
  cairo_rectangle(cr, std::min(x0, x1), std::min(y0, y1), std::fabs(x1 - x0), std::fabs(y1 - y0));
  cairo_fill(cr);
}

ImU32 rgb_of(float r, float g, float b) {
  auto q = [](float v) { return ImU32(std::clamp(int(std::lround(v)), 0, 255)); };
  return q(r) | q(g) << 8 | q(b) << 16 | 0xff000000u;
}

// Colours of a grid, as shaders/grid.frag.glsl (the app's painter) makes them.
struct GridColours {
  ImU32 empty, tinted, line, major;
  explicit GridColours(const GridDraw& g) {
    const Theme& t = theme();
    empty = t.cell_empty;
    tinted = t.cell_tinted;
    line = g.grid_lines ? t.grid_line : t.cell_empty;
    major = IM_COL32(158, 173, 199, 140);  // (0.62, 0.68, 0.78) at 0.55
  }
};

bool odd_bank(const GridDraw& g, uint32_t r, uint32_t c) {
  const double e = double(r) * double(g.row_elems) + double(c);
  return uint64_t(std::floor(e * double(g.elem_bytes) / 4.0)) % 2 == 1;
}

float heat_t(const GridDraw& g, float v) {
  const HeatLayer* h = g.heat;
  return g.log_scale ? std::log1p(v) / std::log1p(h->max) : v / h->max;
}

ImU32 mix(ImU32 a, ImU32 b) {  // b over a, b's alpha
  const float t = float((b >> 24) & 0xff) / 255.0f;
  auto ch = [](ImU32 c, int k) { return float((c >> (8 * k)) & 0xff); };
  return rgb_of(ch(a, 0) + (ch(b, 0) - ch(a, 0)) * t, ch(a, 1) + (ch(b, 1) - ch(a, 1)) * t,
                ch(a, 2) + (ch(b, 2) - ch(a, 2)) * t);
}

// PNG: the grid pixel by pixel, exactly as the app's fragment shader colours it.
void raster_grid(cairo_t* cr, const GridDraw& g, ImVec2 a, ImVec2 b) {
  const int px0 = int(std::ceil(a.x - 0.5f)), py0 = int(std::ceil(a.y - 0.5f));
  const int px1 = int(std::ceil(b.x - 0.5f)), py1 = int(std::ceil(b.y - 0.5f));
  if (px0 >= px1 || py0 >= py1 || g.cell <= 0) return;
  cairo_surface_t* img = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, px1 - px0, py1 - py0);
  if (cairo_surface_status(img) != CAIRO_STATUS_SUCCESS) {
    cairo_surface_destroy(img);
    return;
  }
  cairo_surface_flush(img);
  unsigned char* data = cairo_image_surface_get_data(img);
  const int stride = cairo_image_surface_get_stride(img);
  const GridColours k(g);
  const HeatLayer* h = g.heat;
  const bool heat = h && !h->cells.empty() && h->max > 0;
  auto heat_at = [&](double cx, double cy) -> float {
    if (cx < 0 || cy < 0) return 0;
    uint32_t c = std::min(uint32_t(cx), g.cols - 1), r = std::min(uint32_t(cy), g.rows - 1);
    if (c >= h->cols || r >= h->rows) return 0;
    return h->cells[size_t(r) * h->cols + c];
  };
  for (int y = py0; y < py1; ++y) {
    auto* row = reinterpret_cast<uint32_t*>(data + size_t(y - py0) * size_t(stride));
    for (int x = px0; x < px1; ++x) {
      const double fx = x + 0.5, fy = y + 0.5;
      const double cx = (fx - g.origin.x) / g.cell, cy = (fy - g.origin.y) / g.cell;
      if (cx < 0 || cy < 0 || cx >= g.cols || cy >= g.rows) {
        row[x - px0] = 0;
        continue;
      }
      const double ccx = std::floor(cx), ccy = std::floor(cy);
      float v = 0;
      if (heat) {
        if (g.cell >= 1) {
          v = heat_at(ccx, ccy);
        } else {
          const int n = int(std::min(4.0, std::ceil(1.0 / g.cell)));
          for (int j = 0; j < n; ++j)
            for (int i = 0; i < n; ++i) {
              const double sx = fx - 0.5 + (i + 0.5) / n, sy = fy - 0.5 + (j + 0.5) / n;
              v = std::max(v, heat_at((sx - g.origin.x) / g.cell, (sy - g.origin.y) / g.cell));
            }
        }
      }
      ImU32 col = g.bank_tint && odd_bank(g, uint32_t(ccy), uint32_t(ccx)) ? k.tinted : k.empty;
      if (v > 0) col = heat_color(heat_t(g, v));
      const double bx = std::floor((fx - 1 - g.origin.x) / g.cell), by = std::floor((fy - 1 - g.origin.y) / g.cell);
      if (g.cell >= 6 && (bx != ccx || by != ccy)) col = k.line;
      if (g.major_every > 0 && g.cell >= 3 && std::floor(bx / g.major_every) != std::floor(ccx / g.major_every))
        col = mix(col, k.major);
      row[x - px0] = 0xff000000u | (col & 0xff) << 16 | (col & 0xff00) | ((col >> 16) & 0xff);
    }
  }
  cairo_surface_mark_dirty(img);
  cairo_save(cr);
  cairo_set_source_surface(cr, img, px0, py0);
  cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_NEAREST);
  cairo_rectangle(cr, px0, py0, px1 - px0, py1 - py0);
  cairo_fill(cr);
  cairo_restore(cr);
  cairo_surface_destroy(img);
}

// SVG / PDF: rectangles; grids past 160 cells a side are drawn in blocks holding their
// busiest cell, so files stay small.
void vector_grid(cairo_t* cr, const GridDraw& g, ImVec2 a, ImVec2 b) {
  const GridColours k(g);
  fill_rect(cr, a.x, a.y, b.x, b.y, k.empty);
  if (g.cell <= 0) return;
  const uint32_t c0 = uint32_t(std::max(0.0f, (a.x - g.origin.x) / g.cell));
  const uint32_t r0 = uint32_t(std::max(0.0f, (a.y - g.origin.y) / g.cell));
  const uint32_t c1 = std::min(g.cols, uint32_t(std::ceil((b.x - g.origin.x) / g.cell)));
  const uint32_t r1 = std::min(g.rows, uint32_t(std::ceil((b.y - g.origin.y) / g.cell)));
  if (c0 >= c1 || r0 >= r1) return;
  const uint32_t span = std::max(c1 - c0, r1 - r0);
  const uint32_t step = std::max(1u, (span + 159) / 160);
  auto cell_rect = [&](uint32_t r, uint32_t c, uint32_t n, ImU32 col) {
    const double x = g.origin.x + double(c) * g.cell, y = g.origin.y + double(r) * g.cell;
    const double w = g.cell * double(std::min(n, c1 - c)), hh = g.cell * double(std::min(n, r1 - r));
    fill_rect(cr, std::max<double>(x, a.x), std::max<double>(y, a.y), std::min<double>(x + w, b.x),
              std::min<double>(y + hh, b.y), col);
  };
  if (g.bank_tint && step == 1 && g.row_elems)
    for (uint32_t r = r0; r < r1; ++r)
      for (uint32_t c = c0; c < c1; ++c)
        if (odd_bank(g, r, c)) cell_rect(r, c, 1, k.tinted);
  const HeatLayer* h = g.heat;
  if (h && !h->cells.empty() && h->max > 0) {
    const uint32_t hc1 = std::min(c1, h->cols), hr1 = std::min(r1, h->rows);
    for (uint32_t r = r0; r < hr1; r += step)
      for (uint32_t c = c0; c < hc1; c += step) {
        float v = 0;
        for (uint32_t rr = r; rr < std::min(hr1, r + step); ++rr)
          for (uint32_t cc = c; cc < std::min(hc1, c + step); ++cc) v = std::max(v, h->cells[size_t(rr) * h->cols + cc]);
        if (v > 0) cell_rect(r, c, step, heat_color(heat_t(g, v)));
      }
  }
  // One-pixel lines on the pixel holding each cell boundary, as the shader draws them.
  auto snap = [](double v) { return std::ceil(v - 0.5); };
  if (g.cell >= 6 && step == 1) {
    for (uint32_t c = c0; c < c1; ++c) {
      const double x = snap(g.origin.x + double(c) * g.cell);
      if (x >= a.x - 0.5 && x < b.x) fill_rect(cr, x, a.y, x + 1, b.y, k.line);
    }
    for (uint32_t r = r0; r < r1; ++r) {
      const double y = snap(g.origin.y + double(r) * g.cell);
      if (y >= a.y - 0.5 && y < b.y) fill_rect(cr, a.x, y, b.x, y + 1, k.line);
    }
  }
  if (g.major_every > 0 && g.cell >= 3)
    for (uint32_t c = (c0 + g.major_every - 1) / g.major_every * g.major_every; c < c1; c += g.major_every) {
      const double x = snap(g.origin.x + double(c) * g.cell);
      if (x >= a.x - 0.5 && x < b.x) fill_rect(cr, x, a.y, x + 1, b.y, k.major);
    }
}

void draw_grid(cairo_t* cr, const GridDraw& g, bool raster) {
  // The visible part: the grid's own clip, the chunk's clip and the page.
  double cx0, cy0, cx1, cy1;
  cairo_clip_extents(cr, &cx0, &cy0, &cx1, &cy1);
  const ImVec2 a(std::max({g.clip_min.x, g.origin.x, float(cx0)}), std::max({g.clip_min.y, g.origin.y, float(cy0)}));
  const ImVec2 b(std::min({g.clip_max.x, g.origin.x + g.cell * float(g.cols), float(cx1)}),
                 std::min({g.clip_max.y, g.origin.y + g.cell * float(g.rows), float(cy1)}));
  if (a.x >= b.x || a.y >= b.y || g.rows == 0 || g.cols == 0) return;
  if (raster)
    raster_grid(cr, g, a, b);
  else
    vector_grid(cr, g, a, b);
}

void draw_text(cairo_t* cr, const Scene::Item& i) {
  if (i.text.empty()) return;
  const ImVec2 sz = text_size(i.font, i.text);
  // Same placement as draw_scene: the box's top-left floored.
  const ImVec2 top(std::floor(i.a.x - sz.x * i.align), std::floor(i.a.y - sz.y * i.valign));
  GlyphRun run;
  if (!glyph_run(i.font, i.text, top, run) || run.glyphs.empty()) return;
  set_font(cr, run);
  set_color(cr, i.color);
  cairo_show_glyphs(cr, run.glyphs.data(), int(run.glyphs.size()));
}

void draw_figure(cairo_t* cr, const Figure& f, bool raster) {
  set_color(cr, f.background);
  cairo_paint(cr);
  cairo_set_line_cap(cr, CAIRO_LINE_CAP_BUTT);
  cairo_set_line_join(cr, CAIRO_LINE_JOIN_MITER);
  for (const SceneChunk& ch : f.chunks) {
    if (ch.scene.items.empty()) continue;
    cairo_save(cr);
    cairo_rectangle(cr, ch.clip_min.x, ch.clip_min.y, ch.clip_max.x - ch.clip_min.x, ch.clip_max.y - ch.clip_min.y);
    cairo_clip(cr);
    for (const Scene::Item& i : ch.scene.items) {
      switch (i.kind) {
        case Scene::Kind::Fill:
          set_color(cr, i.color);
          rect_path(cr, i.a.x, i.a.y, i.b.x, i.b.y, i.round);
          cairo_fill(cr);
          break;
        case Scene::Kind::Rect:  // stroked half a pixel inside, as AddRect
          set_color(cr, i.color);
          rect_path(cr, std::min(i.a.x, i.b.x) + 0.5, std::min(i.a.y, i.b.y) + 0.5, std::max(i.a.x, i.b.x) - 0.5,
                    std::max(i.a.y, i.b.y) - 0.5, i.round);
          cairo_set_line_width(cr, i.width);
          cairo_stroke(cr);
          break;
        case Scene::Kind::Line:  // through pixel centres, as AddLine
          set_color(cr, i.color);
          cairo_move_to(cr, i.a.x + 0.5, i.a.y + 0.5);
          cairo_line_to(cr, i.b.x + 0.5, i.b.y + 0.5);
          cairo_set_line_width(cr, i.width);
          cairo_stroke(cr);
          break;
        case Scene::Kind::Circle:
          set_color(cr, i.color);
          cairo_new_sub_path(cr);
          cairo_arc(cr, i.a.x, i.a.y, i.width, 0, 2 * 3.14159265358979323846);
          cairo_fill(cr);
          break;
        case Scene::Kind::Text: draw_text(cr, i); break;
        case Scene::Kind::Grid:
          if (i.grid >= 0 && size_t(i.grid) < ch.scene.grids.size()) draw_grid(cr, ch.scene.grids[size_t(i.grid)], raster);
          break;
      }
    }
    cairo_restore(cr);
  }
}

// ---- surfaces ---------------------------------------------------------------------------

cairo_status_t append(void* closure, const unsigned char* data, unsigned int length) {
  static_cast<std::string*>(closure)->append(reinterpret_cast<const char*>(data), length);
  return CAIRO_STATUS_SUCCESS;
}

// The figure drawn on an image surface (ARGB32); null when the size is unusable.
cairo_surface_t* raster(const Figure& f) {
  if (f.width <= 0 || f.height <= 0) return nullptr;
  cairo_surface_t* s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, f.width, f.height);
  if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) {
    cairo_surface_destroy(s);
    return nullptr;
  }
  cairo_t* cr = cairo_create(s);
  draw_figure(cr, f, true);
  cairo_destroy(cr);
  cairo_surface_flush(s);
  return s;
}

// A vector document: `make` creates the surface writing into `out`.
template <class Make>
bool vector_doc(const Figure& f, std::string& out, Make make) {
  out.clear();
  if (f.width <= 0 || f.height <= 0) return false;
  cairo_surface_t* s = make(&out);
  cairo_t* cr = cairo_create(s);
  draw_figure(cr, f, false);
  const bool ok = cairo_status(cr) == CAIRO_STATUS_SUCCESS;
  cairo_destroy(cr);
  cairo_surface_finish(s);
  const bool done = ok && cairo_surface_status(s) == CAIRO_STATUS_SUCCESS;
  cairo_surface_destroy(s);
  return done;
}

bool write_bytes(const std::string& bytes, const std::string& path, std::string& error) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) {
    error = "cannot write " + path + ": " + std::strerror(errno);
    return false;
  }
  out.write(bytes.data(), std::streamsize(bytes.size()));
  out.close();
  if (!out) {
    error = "cannot write " + path + ": " + std::strerror(errno);
    return false;
  }
  return true;
}


}  // namespace

std::vector<uint8_t> figure_rgba(const Figure& f) {
  std::vector<uint8_t> px;
  cairo_surface_t* s = raster(f);
  if (!s) return px;
  const unsigned char* d = cairo_image_surface_get_data(s);
  const int stride = cairo_image_surface_get_stride(s);
  px.resize(size_t(f.width) * size_t(f.height) * 4);
  for (int y = 0; y < f.height; ++y) {
    const auto* row = reinterpret_cast<const uint32_t*>(d + size_t(y) * size_t(stride));
    uint8_t* o = &px[size_t(y) * size_t(f.width) * 4];
    for (int x = 0; x < f.width; ++x, o += 4) {
      const uint32_t p = row[x];  // premultiplied ARGB, native endian
      const uint32_t a = p >> 24;
      auto un = [a](uint32_t v) { return uint8_t(a ? std::min<uint32_t>(255, (v * 255 + a / 2) / a) : 0); };
      o[0] = un((p >> 16) & 0xff);
      o[1] = un((p >> 8) & 0xff);
      o[2] = un(p & 0xff);
      o[3] = uint8_t(a);
    }
  }
  cairo_surface_destroy(s);
  return px;
}

std::string figure_png(const Figure& f) {
  std::string out;
  cairo_surface_t* s = raster(f);
  if (!s) return out;
  if (cairo_surface_write_to_png_stream(s, append, &out) != CAIRO_STATUS_SUCCESS) out.clear();
  cairo_surface_destroy(s);
  return out;
}

std::string figure_svg(const Figure& f) {
  std::string out;
  vector_doc(f, out, [&](std::string* o) {
    cairo_surface_t* s = cairo_svg_surface_create_for_stream(append, o, f.width, f.height);
    cairo_svg_surface_set_document_unit(s, CAIRO_SVG_UNIT_PX);
    return s;
  });
  return out;
}

std::string figure_pdf(const Figure& f) {
  std::string out;
  vector_doc(f, out, [&](std::string* o) { return cairo_pdf_surface_create_for_stream(append, o, f.width, f.height); });
  return out;
}

bool figure_text_ink(FontRole role, const std::string& s, ImVec2 top_left, ImVec2& ink_min, ImVec2& ink_max) {
  GlyphRun run;
  if (!glyph_run(role, s, top_left, run)) return false;
  ink_min = ink_max = top_left;
  if (run.glyphs.empty()) return true;
  cairo_surface_t* surf = cairo_image_surface_create(CAIRO_FORMAT_A8, 1, 1);
  cairo_t* cr = cairo_create(surf);
  set_font(cr, run);
  cairo_text_extents_t e;
  cairo_glyph_extents(cr, run.glyphs.data(), int(run.glyphs.size()), &e);
  cairo_destroy(cr);
  cairo_surface_destroy(surf);
  // Bearings are measured from the first glyph's origin.
  const double ox = run.glyphs[0].x, oy = run.glyphs[0].y;
  ink_min = ImVec2(float(ox + e.x_bearing), float(oy + e.y_bearing));
  ink_max = ImVec2(float(ox + e.x_bearing + e.width), float(oy + e.y_bearing + e.height));
  return true;
}

const char* figure_formats() { return "png, svg, pdf"; }

bool figure_format_known(const std::string& path) {
  const std::string e = figure_extension(path);
  return e == "png" || e == "svg" || e == "pdf";
}

bool write_figure_png(const Figure& f, const std::string& path, std::string& error) {
  const std::string png = figure_png(f);
  if (png.empty()) {
    error = "cannot draw an empty figure (" + std::to_string(f.width) + "x" + std::to_string(f.height) + ")";
    return false;
  }
  return write_bytes(png, path, error);
}

bool write_figure(const Figure& f, const std::string& path, std::string& error) {
  const std::string e = figure_extension(path);
  if (e == "png") return write_figure_png(f, path, error);
  if (e == "svg" || e == "pdf") {
    const std::string doc = e == "svg" ? figure_svg(f) : figure_pdf(f);
    if (doc.empty()) {
      error = "cannot draw the figure as " + e + " (" + std::to_string(f.width) + "x" + std::to_string(f.height) + ")";
      return false;
    }
    return write_bytes(doc, path, error);
  }
  error = "unknown figure type '" + path + "': the file name must end in one of " + figure_formats();
  return false;
}

std::string figure_extension(const std::string& path) {
  const size_t dot = path.find_last_of('.');
  if (dot == std::string::npos || path.find('/', dot) != std::string::npos) return "";
  std::string e = path.substr(dot + 1);
  for (char& c : e) c = char(std::tolower(static_cast<unsigned char>(c)));
  return e;
}

}  // namespace ws::ui
