// Figure export: the bank diagram of transpose_tiled written as SVG, PNG and PDF from the
// same scenes the app draws, checked as files (PNG read back, SVG well-formed with glyph
// outlines and no <text>, the scene holding the expected shapes and words); text drawn
// inside the boxes the scene measured; animations (GIF, WebP) read back frame by frame;
// and `warpscope export` on the command line.
#include <doctest/doctest.h>
#include <cairo-ft.h>
#include <ft2build.h>
#include FT_FREETYPE_H
#include <gif_lib.h>
#include <stb/stb_image.h>
#include <webp/demux.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/wait.h>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "session/capture.h"
#include "session/worker.h"
#include "ui/figure/animation.h"
#include "ui/figure/figure.h"
#include "ui/figure/headless.h"
#include "ui/figure/theme.h"
#include "../support.h"

using namespace ws;
namespace fs = std::filesystem;

namespace {

fs::path temp_dir() { return ws::test::temp_dir("export"); }

using ws::test::slurp;

// A small XML well-formedness check: balanced, properly nested tags, quoted attributes,
// known entities. Returns "" or what is wrong.
std::string xml_error(const std::string& x) {
  std::vector<std::string> stack;
  size_t i = 0, roots = 0;
  auto name_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == ':' || c == '.'; };
  while (i < x.size()) {
    if (x[i] == '&') {
      size_t e = x.find(';', i);
      if (e == std::string::npos) return "bare &";
      std::string ent = x.substr(i + 1, e - i - 1);
      if (ent != "amp" && ent != "lt" && ent != "gt" && ent != "quot" && ent != "apos" && ent[0] != '#')
        return "unknown entity " + ent;
      i = e + 1;
      continue;
    }
    if (x[i] == '>') return "stray >";
    if (x[i] != '<') {
      if (stack.empty() && !std::isspace(static_cast<unsigned char>(x[i]))) return "text outside the root";
      ++i;
      continue;
    }
    if (x.compare(i, 2, "<?") == 0) {
      size_t e = x.find("?>", i);
      if (e == std::string::npos) return "open <?";
      i = e + 2;
      continue;
    }
    if (x.compare(i, 4, "<!--") == 0) {
      size_t e = x.find("-->", i);
      if (e == std::string::npos) return "open comment";
      i = e + 3;
      continue;
    }
    bool closing = x[i + 1] == '/';
    size_t j = i + (closing ? 2 : 1);
    size_t n0 = j;
    while (j < x.size() && name_char(x[j])) ++j;
    std::string name = x.substr(n0, j - n0);
    if (name.empty()) return "tag without a name";
    if (closing) {
      while (j < x.size() && std::isspace(static_cast<unsigned char>(x[j]))) ++j;
      if (j >= x.size() || x[j] != '>') return "bad closing tag " + name;
      if (stack.empty() || stack.back() != name) return "</" + name + "> closes nothing open";
      stack.pop_back();
      i = j + 1;
      continue;
    }
    // Attributes.
    std::set<std::string> attrs;
    for (;;) {
      while (j < x.size() && std::isspace(static_cast<unsigned char>(x[j]))) ++j;
      if (j >= x.size()) return "open tag " + name;
      if (x[j] == '>' || x.compare(j, 2, "/>") == 0) break;
      size_t a0 = j;
      while (j < x.size() && name_char(x[j])) ++j;
      std::string an = x.substr(a0, j - a0);
      if (an.empty() || j >= x.size() || x[j] != '=' || j + 1 >= x.size() || (x[j + 1] != '"' && x[j + 1] != '\''))
        return "bad attribute in <" + name + ">";
      if (!attrs.insert(an).second) return "repeated attribute " + an;
      char q = x[j + 1];
      size_t e = x.find(q, j + 2);
      if (e == std::string::npos) return "unterminated attribute " + an;
      if (x.substr(j + 2, e - j - 2).find('<') != std::string::npos) return "< in attribute " + an;
      j = e + 1;
    }
    if (stack.empty()) ++roots;
    if (x[j] == '>') {
      stack.push_back(name);
      i = j + 1;
    } else {
      i = j + 2;
    }
  }
  if (!stack.empty()) return "<" + stack.back() + "> never closed";
  if (roots != 1) return "expected one root element";
  return "";
}

uint32_t theme_colour(ImU32 c) { return c & 0xffffff; }

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

struct Png {
  bool ok = false;
  uint32_t width = 0, height = 0;
};

Png png_header(const std::string& d) {
  Png p;
  static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', 0x0d, 0x0a, 0x1a, 0x0a};
  if (d.size() < 33 || std::memcmp(d.data(), sig, 8) != 0 || d.compare(12, 4, "IHDR") != 0) return p;
  auto be = [&](size_t o) {
    return uint32_t(uint8_t(d[o])) << 24 | uint32_t(uint8_t(d[o + 1])) << 16 | uint32_t(uint8_t(d[o + 2])) << 8 |
           uint32_t(uint8_t(d[o + 3]));
  };
  p.width = be(16);
  p.height = be(20);
  p.ok = d.find("IEND") != std::string::npos;
  return p;
}

// The transpose_tiled launch at size 64, at its first shared-memory store.
struct Shown {
  std::shared_ptr<session::Session> model;
  uint64_t step = 0;
};

Shown tile_store(int64_t pad) {
  session::LaunchSpec req;
  req.kernel = "transpose_tiled";
  req.size = 64;
  req.params["pad"] = pad;
  req.backend = "emulator";
  Shown s;
  s.model = session::record_session(req);
  const trace::Trace& t = s.model->trace();
  for (uint64_t i = 0; i < t.records.size(); ++i) {
    const trace::Site& site = t.sites[t.records[i].site];
    if (site.space == trace::Space::Shared && site.op == trace::Op::Store) {
      s.step = i;
      break;
    }
  }
  return s;
}

// Whether a text item of the figure's scenes reads `s` (or contains it, when `part`).
bool has_text(const ui::Figure& f, const std::string& s, bool part = false) {
  for (const auto& ch : f.chunks)
    for (const auto& i : ch.scene.items)
      if (i.kind == ui::Scene::Kind::Text && (part ? i.text.find(s) != std::string::npos : i.text == s)) return true;
  return false;
}

size_t count_items(const ui::Figure& f, ui::Scene::Kind k) {
  size_t n = 0;
  for (const auto& ch : f.chunks)
    for (const auto& i : ch.scene.items) n += i.kind == k;
  return n;
}

// A PNG read back with stb_image, 4 channels.
struct Pixels {
  int w = 0, h = 0;
  std::vector<uint8_t> px;
  uint32_t at(int x, int y) const {
    const uint8_t* p = &px[(size_t(y) * size_t(w) + size_t(x)) * 4];
    return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16;
  }
};

Pixels read_png(const std::string& bytes) {
  Pixels p;
  int n = 0;
  unsigned char* d = stbi_load_from_memory(reinterpret_cast<const unsigned char*>(bytes.data()), int(bytes.size()), &p.w,
                                           &p.h, &n, 4);
  if (d) {
    p.px.assign(d, d + size_t(p.w) * size_t(p.h) * 4);
    stbi_image_free(d);
  }
  return p;
}

std::string run_cli(const std::string& args, int& code) {
  fs::path out = temp_dir() / "cli-output.txt";
  std::string cmd = std::string(WS_BINARY) + " " + args + " > " + out.string() + " 2>&1";
  int st = std::system(cmd.c_str());
  code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return slurp(out);
}

}  // namespace

TEST_CASE("the XML check itself") {
  CHECK(xml_error("<a x=\"1\"><b/>t &amp; u</a>") == "");
  CHECK(xml_error("<a><b></a>") != "");
  CHECK(xml_error("<a x=1/>") != "");
  CHECK(xml_error("<a>&nbsp;</a>") != "");
}

// How many text items of the figure read exactly `text`.
int figure_text_count(const ui::Figure& f, const std::string& text) {
  int n = 0;
  for (const auto& c : f.chunks)
    for (const auto& i : c.scene.items)
      if (i.kind == ui::Scene::Kind::Text && i.text == text) ++n;
  return n;
}

TEST_CASE("bank diagram of transpose_tiled as SVG and PNG, from the view's scenes") {
  ui::HeadlessContext ctx(1200, 700);
  const fs::path dir = temp_dir();

  for (int64_t pad : {0, 1}) {
    CAPTURE(pad);
    Shown s = tile_store(pad);
    REQUIRE(s.model->size() > 0);
    REQUIRE(s.model->request(s.step).shared);
    ui::Figure f = ui::render_figure(s.model, s.step, ui::FigureView::Banks, 1200, 700,
                                     "transpose_tiled · size=64 pad=" + std::to_string(pad));
    CHECK(f.width == 1200);
    CHECK(f.height == 700);

    // The scene: bank numbers under the 32 columns (every fourth is labelled when columns
    // are narrow), lane labels, baselines and connectors, lanes and words, the caption.
    CHECK(has_text(f, "28"));
    CHECK(has_text(f, "31"));
    CHECK(count_items(f, ui::Scene::Kind::Line) >= 32 + 32);
    CHECK(count_items(f, ui::Scene::Kind::Fill) + count_items(f, ui::Scene::Kind::Rect) >= 64);
    CHECK(has_text(f, "size=64 pad=" + std::to_string(pad), true));
    const unsigned way = s.model->request(s.step).s.max_way;
    // The inspector's figures and reason are on the figure, as on the screen.
    if (pad == 0) {
      CHECK(way == 32);
      CHECK(figure_text_count(f, "32-way") == 2);  // the headline and the label over the column
      CHECK(has_text(f, "bank conflict"));
      CHECK(has_text(f, "wavefronts (ideal 1)"));
    } else {
      CHECK(way == 1);
      CHECK(figure_text_count(f, "32-way") == 0);
      CHECK(figure_text_count(f, "1-way") == 1);  // the headline only: no column to name
      CHECK(has_text(f, "no bank conflict"));
    }
    CHECK(has_text(f, "shared store"));

    // SVG: well-formed, the figure's size, text as glyph outlines (no <text>, so no viewer
    // font substitution).
    const std::string svg = ui::figure_svg(f);
    CHECK(svg.rfind("<?xml", 0) == 0);
    CHECK(xml_error(svg) == "");
    CHECK(svg.find("<svg xmlns=\"http://www.w3.org/2000/svg\"") != std::string::npos);
    CHECK(svg.find("width=\"1200px\" height=\"700px\" viewBox=\"0 0 1200 700\"") != std::string::npos);
    CHECK(svg.find("<text") == std::string::npos);
    CHECK(svg.find("font-family") == std::string::npos);
    CHECK(count(svg, "<use xlink:href=\"#glyph") >= 100);

    // PDF.
    const std::string pdf = ui::figure_pdf(f);
    CHECK(pdf.rfind("%PDF-", 0) == 0);
    CHECK(pdf.find("%%EOF") != std::string::npos);

    // PNG: read back at the right size, the background in the corner, many colours, and
    // ink inside the caption's text box.
    const fs::path png = dir / ("banks-pad" + std::to_string(pad) + ".png");
    std::string err;
    REQUIRE(ui::write_figure_png(f, png.string(), err));
    Png h = png_header(slurp(png));
    CHECK(h.ok);
    CHECK(h.width == 1200);
    CHECK(h.height == 700);
    Pixels px = read_png(slurp(png));
    REQUIRE(px.w == 1200);
    REQUIRE(px.h == 700);
    CHECK(px.at(0, 0) == (f.background & 0xffffff));
    CHECK(px.at(1199, 0) == (f.background & 0xffffff));
    std::set<uint32_t> colours;
    for (int y = 0; y < px.h; ++y)
      for (int x = 0; x < px.w; ++x) colours.insert(px.at(x, y));
    CHECK(colours.size() >= 20);
    const ui::SceneChunk& cap = f.chunks.back();
    const ui::Scene::Item* text = nullptr;
    for (const auto& i : cap.scene.items)
      if (i.kind == ui::Scene::Kind::Text) text = &i;
    REQUIRE(text);
    const ImVec2 sz = ui::text_size(text->font, text->text);
    const int x0 = int(std::floor(text->a.x - sz.x * text->align)), y0 = int(std::floor(text->a.y - sz.y * text->valign));
    const uint32_t band = theme_colour(ui::theme().panel_header);
    int ink = 0, outside = 0;
    for (int y = y0; y < y0 + int(sz.y); ++y)
      for (int x = x0; x < x0 + int(sz.x); ++x) ink += px.at(x, y) != band;
    for (int y = y0; y < y0 + int(sz.y); ++y)  // right of the box: band only
      for (int x = x0 + int(sz.x) + 2; x < std::min(px.w, x0 + int(sz.x) + 40); ++x) outside += px.at(x, y) != band;
    CHECK(ink > int(text->text.size()) * 10);
    CHECK(outside == 0);

    // The same through write_figure, each format by its extension.
    for (const char* ext : {"png", "svg", "pdf"}) {
      const fs::path p = dir / (std::string("w.") + ext);
      CHECK(ui::write_figure(f, p.string(), err));
      CHECK(fs::file_size(p) > 1000);
    }
  }
  fs::remove_all(dir);
}

TEST_CASE("the memory figure's key: lane numbers only where the cells carry them, the banks' shades, never white on white") {
  ui::HeadlessContext ctx(1200, 700);
  for (int64_t pad : {0, 1}) {
    CAPTURE(pad);
    Shown s = tile_store(pad);
    REQUIRE(s.model->request(s.step).shared);
    for (int theme : {ui::kThemeDark, ui::kThemePresentation}) {
      CAPTURE(theme);
      ui::ThemeScope scope(theme);
      // The light theme's odd banks are shaded apart from the even ones and from the page.
      CHECK(ui::theme().cell_tinted != ui::theme().cell_empty);
      CHECK((ui::theme().cell_tinted & 0xffffffu) != 0xffffffu);
      for (auto [w, h] : {std::pair{1280, 720}, std::pair{420, 260}}) {
        CAPTURE(w);
        const ui::Figure f = ui::render_figure(s.model, s.step, ui::FigureView::Memory, w, h, "");
        bool numbers = false;
        for (const auto& ch : f.chunks)
          for (const auto& i : ch.scene.items) numbers |= i.kind == ui::Scene::Kind::Text && ui::is_lane_number_ink(i.color);
        CHECK(numbers == (w == 1280));  // a small figure's cells are too small for them
        CHECK(has_text(f, "lane 0 … 31 (number in the cell)") == numbers);
        if (w == 1280) CHECK(has_text(f, "even / odd bank"));
      }
    }
  }
}

namespace {

// The contrast ratio as WCAG defines it (relative luminance of linearised sRGB); 3 is its
// bar for large text and for the parts of a graphic (a saturated mid-tone red reaches
// about 4 against either ink, never 4.5).
float luminance(ImU32 c) {
  auto ch = [](float v) {
    v /= 255;
    return v <= 0.04045f ? v / 12.92f : std::pow((v + 0.055f) / 1.055f, 2.4f);
  };
  return 0.2126f * ch(float(c & 0xff)) + 0.7152f * ch(float((c >> 8) & 0xff)) + 0.0722f * ch(float((c >> 16) & 0xff));
}
float contrast(ImU32 a, ImU32 b) {
  const float x = luminance(a), y = luminance(b);
  return (std::max(x, y) + 0.05f) / (std::min(x, y) + 0.05f);
}
// A colour's hue in degrees (the HSV hexagon), and the distance of two hues around the circle.
float hue(ImU32 c) {
  const float r = float(c & 0xff), g = float((c >> 8) & 0xff), b = float((c >> 16) & 0xff);
  const float mx = std::max({r, g, b}), mn = std::min({r, g, b}), d = mx - mn;
  if (d == 0) return 0;
  float h = mx == r ? std::fmod((g - b) / d, 6.0f) : mx == g ? (b - r) / d + 2 : (r - g) / d + 4;
  return h < 0 ? h * 60 + 360 : h * 60;
}
float hue_apart(ImU32 a, ImU32 b) {
  const float d = std::fabs(hue(a) - hue(b));
  return std::min(d, 360 - d);
}

}  // namespace

TEST_CASE("every lane's number stands out from its patch: light on the dark lanes, dark on the light ones") {
  CHECK(contrast(IM_COL32(0, 0, 0, 255), IM_COL32(255, 255, 255, 255)) == doctest::Approx(21.0f));
  for (int theme : {ui::kThemeDark, ui::kThemePresentation}) {
    ui::ThemeScope scope(theme);
    for (int lane = 0; lane < 32; ++lane) {
      CAPTURE(theme);
      CAPTURE(lane);
      const ImU32 patch = ui::lane_color(lane);
      CHECK(contrast(patch, ui::ink_on(patch)) >= 3.0f);
    }
  }
}

TEST_CASE("the timeline's mark where a program stopped is told apart from every cost bar, on either theme") {
  CHECK(hue(IM_COL32(255, 0, 0, 255)) == doctest::Approx(0.0f));
  CHECK(hue(IM_COL32(0, 0, 255, 255)) == doctest::Approx(240.0f));
  CHECK(hue_apart(IM_COL32(255, 0, 10, 255), IM_COL32(255, 10, 0, 255)) < 10.0f);
  for (int theme : {ui::kThemeDark, ui::kThemePresentation}) {
    CAPTURE(theme);
    ui::ThemeScope scope(theme);
    const ui::Theme& t = ui::theme();
    for (double ratio : {1.0, 2.0, 8.0, 32.0}) CHECK(hue_apart(t.stop, ui::cost_color(ratio)) >= 45.0f);
    CHECK(contrast(t.stop, t.canvas) >= 3.0f);
    CHECK(contrast(t.stop, t.panel) >= 3.0f);
  }
}

TEST_CASE("figure text lies in the boxes the scene measured, drawn from the font ImGui loaded") {
  ui::HeadlessContext ctx(1280, 720);
  const ui::FontRole roles[] = {ui::FontRole::Ui, ui::FontRole::Bold, ui::FontRole::Mono, ui::FontRole::Big,
                                ui::FontRole::Small};
  const std::string strings[] = {"910111213", "32-way", "tile 1-way",
                                 "  tile[threadIdx.x][threadIdx.y] = in[(by + threadIdx.y) * n + bx + threadIdx.x];",
                                 "A × Bᵀ → C ≤ 4 ✓"};
  for (ui::FontRole r : roles) {
    const ImFont* font = ui::font_for(r);
    const ui::FontFile file = ui::font_file(font);
    CAPTURE(file.path);
    REQUIRE(!file.path.empty());  // the system TTFs are installed (scripts/install-deps.sh)
    CHECK(file.px == doctest::Approx(font->FontSize));

    // cairo at the em size the figures use advances glyphs exactly as ImGui does: ImGui
    // sizes a font by hhea ascender − descender, cairo by the em square.
    FT_Library lib = nullptr;
    REQUIRE(FT_Init_FreeType(&lib) == 0);
    FT_Face face = nullptr;
    REQUIRE(FT_New_Face(lib, file.path.c_str(), 0, &face) == 0);
    const double em = double(font->FontSize) * face->units_per_EM / double(face->ascender - face->descender);
    cairo_font_face_t* cf = cairo_ft_font_face_create_for_ft_face(face, FT_LOAD_NO_HINTING);
    // The face and its library live as long as cairo keeps the font face.
    static const cairo_user_data_key_t key{};
    struct Ft {
      FT_Library lib;
      FT_Face face;
    };
    REQUIRE(cairo_font_face_set_user_data(cf, &key, new Ft{lib, face}, [](void* p) {
              auto* ft = static_cast<Ft*>(p);
              FT_Done_Face(ft->face);
              FT_Done_FreeType(ft->lib);
              delete ft;
            }) == CAIRO_STATUS_SUCCESS);
    cairo_matrix_t fm, ctm;
    cairo_matrix_init_scale(&fm, em, em);
    cairo_matrix_init_identity(&ctm);
    cairo_font_options_t* opt = cairo_font_options_create();
    cairo_font_options_set_hint_style(opt, CAIRO_HINT_STYLE_NONE);
    cairo_font_options_set_hint_metrics(opt, CAIRO_HINT_METRICS_OFF);
    cairo_scaled_font_t* sf = cairo_scaled_font_create(cf, &fm, &ctm, opt);
    for (const char* chars : {"0123456789", "abcxyzABCXYZ-_[]*", "W m i ."}) {
      for (const char* c = chars; *c; ++c) {
        cairo_glyph_t g{FT_Get_Char_Index(face, FT_ULong(*c)), 0, 0};
        cairo_text_extents_t e;
        cairo_scaled_font_glyph_extents(sf, &g, 1, &e);
        CAPTURE(*c);
        CHECK(e.x_advance == doctest::Approx(font->FindGlyph(ImWchar(*c))->AdvanceX).epsilon(0.002));
      }
    }
    cairo_scaled_font_destroy(sf);
    cairo_font_options_destroy(opt);
    cairo_font_face_destroy(cf);

    for (const std::string& str : strings) {
      CAPTURE(int(r));
      CAPTURE(str);
      const ImVec2 box = ui::text_size(r, str);
      const ImVec2 top(37, 51);
      ImVec2 lo, hi;
      REQUIRE(ui::figure_text_ink(r, str, top, lo, hi));
      CHECK(hi.x > lo.x);
      CHECK(lo.x >= top.x - 1);
      CHECK(hi.x <= top.x + box.x + 1);
      CHECK(lo.y >= top.y - 1);
      CHECK(hi.y <= top.y + box.y + 1);
      // The ink spans most of the box (less leading blanks): no glyph went missing.
      const std::string ink_text = str.substr(str.find_first_not_of(' '));
      CHECK(hi.x - lo.x >= ui::text_size(r, ink_text).x - font->FontSize);
    }
  }
}

TEST_CASE("animations: GIF and WebP frames read back; unwritable paths fail with a message") {
  ui::HeadlessContext ctx(480, 320);
  Shown s = tile_store(0);
  REQUIRE(s.model->size() > 3);
  session::HeatMap heat;
  std::vector<std::vector<uint8_t>> frames;
  ui::Figure last;
  for (uint64_t k = 0; k < 3; ++k) {
    last = ui::render_figure(s.model, s.step + k, ui::FigureView::Warp, 480, 320, "step " + std::to_string(k), &heat);
    frames.push_back(ui::figure_rgba(last));
    REQUIRE(frames.back().size() == size_t(480) * 320 * 4);
  }
  CHECK(frames[0] != frames[2]);
  const fs::path dir = temp_dir();
  std::string err;

  const fs::path gif = dir / "a.gif";
  REQUIRE(ui::write_animation(frames, 480, 320, gif.string(), 2, err));
  int code = 0;
  GifFileType* g = DGifOpenFileName(gif.string().c_str(), &code);
  REQUIRE(g);
  CHECK(DGifSlurp(g) == GIF_OK);
  CHECK(g->ImageCount == 3);
  CHECK(g->SWidth == 480);
  CHECK(g->SHeight == 320);
  GraphicsControlBlock gcb{};
  CHECK(DGifSavedExtensionToGCB(g, 1, &gcb) == GIF_OK);
  CHECK(gcb.DelayTime == 50);
  // Every lane's colour survives exactly (the warp view draws all 32 lanes): the palette
  // keeps lanes 28–31 apart.
  {
    const SavedImage& im = g->SavedImages[0];
    const ColorMapObject* map = im.ImageDesc.ColorMap ? im.ImageDesc.ColorMap : g->SColorMap;
    REQUIRE(map);
    std::set<uint32_t> seen;
    for (int i = 0; i < im.ImageDesc.Width * im.ImageDesc.Height; ++i) {
      const GifColorType& c = map->Colors[im.RasterBits[i]];
      seen.insert(uint32_t(c.Red) | uint32_t(c.Green) << 8 | uint32_t(c.Blue) << 16);
    }
    int lanes = 0;
    for (int l = 0; l < 32; ++l) lanes += seen.count(ui::lane_color(l) & 0xffffff) ? 1 : 0;
    CHECK(lanes == 32);
  }
  DGifCloseFile(g, &code);

  const fs::path webp = dir / "a.webp";
  REQUIRE(ui::write_animation(frames, 480, 320, webp.string(), 4, err));
  const std::string bytes = slurp(webp);
  WebPData data{reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()};
  WebPAnimDecoderOptions opt;
  REQUIRE(WebPAnimDecoderOptionsInit(&opt));
  WebPAnimDecoder* dec = WebPAnimDecoderNew(&data, &opt);
  REQUIRE(dec);
  WebPAnimInfo info;
  REQUIRE(WebPAnimDecoderGetInfo(dec, &info));
  CHECK(info.frame_count == 3);
  CHECK(info.canvas_width == 480);
  CHECK(info.canvas_height == 320);
  CHECK(info.loop_count == 0);
  // Lossless: the last frame decodes to the pixels drawn.
  uint8_t* buf = nullptr;
  int ts = 0;
  while (WebPAnimDecoderHasMoreFrames(dec)) REQUIRE(WebPAnimDecoderGetNext(dec, &buf, &ts));
  CHECK(ts == 750);
  CHECK(std::memcmp(buf, frames[2].data(), frames[2].size()) == 0);
  WebPAnimDecoderDelete(dec);

  // Errors: one line, no crash.
  for (const char* bad : {"/nonexistent-dir/x.png", "/nonexistent-dir/x.svg", "/nonexistent-dir/x.pdf", "x.bmp"}) {
    CAPTURE(bad);
    err.clear();
    CHECK(!ui::write_figure(last, bad, err));
    CHECK(!err.empty());
    CHECK(err.find('\n') == std::string::npos);
  }
  for (const char* bad : {"/nonexistent-dir/x.gif", "/nonexistent-dir/x.webp", "x.mp4"}) {
    CAPTURE(bad);
    err.clear();
    CHECK(!ui::write_animation(frames, 480, 320, bad, 2, err));
    CHECK(!err.empty());
    CHECK(err.find('\n') == std::string::npos);
  }
  err.clear();
  CHECK(!ui::write_animation({frames[0]}, 480, 300, (dir / "bad.gif").string(), 2, err));  // wrong frame size
  CHECK(!err.empty());
  fs::remove_all(dir);
}

TEST_CASE("warpscope export on the command line") {
  const fs::path dir = temp_dir();
  const std::string base = "export --kernel transpose_tiled --size 64 --set pad=0 --backend emulator ";
  int code = -1;

  // Banks view from request 1: it is a global load, so the next shared one is shown.
  std::string out = run_cli(base + "--view banks --step 1 --caption --width 900 --height 500 --out " +
                                (dir / "b.svg").string(), code);
  CHECK(code == 0);
  CHECK(out.find("request 1 is not a shared-memory access; showing request 2") != std::string::npos);
  std::string svg = slurp(dir / "b.svg");
  CHECK(xml_error(svg) == "");
  CHECK(svg.find("width=\"900px\" height=\"500px\"") != std::string::npos);
  CHECK(svg.find("<text") == std::string::npos);
  CHECK(svg.find("<use xlink:href=\"#glyph") != std::string::npos);
  out = run_cli(base + "--view banks --step 1 --caption --width 900 --height 500 --out " + (dir / "b.pdf").string(), code);
  CHECK(code == 0);
  CHECK(slurp(dir / "b.pdf").rfind("%PDF-", 0) == 0);

  out = run_cli(base + "--view banks --width 640 --height 400 --out " + (dir / "b.png").string(), code);
  CHECK(code == 0);
  Png h = png_header(slurp(dir / "b.png"));
  CHECK(h.ok);
  CHECK(h.width == 640);
  CHECK(h.height == 400);

  // Every view draws, as PNG and SVG.
  for (const char* v : {"memory", "warp", "dram", "source"}) {
    CAPTURE(v);
    out = run_cli(base + "--view " + v + " --step 5 --width 800 --height 500 --out " + (dir / (std::string(v) + ".png")).string(), code);
    CHECK(code == 0);
    CHECK(png_header(slurp(dir / (std::string(v) + ".png"))).width == 800);
    out = run_cli(base + "--view " + v + " --step 5 --width 800 --height 500 --out " + (dir / (std::string(v) + ".svg")).string(), code);
    CHECK(code == 0);
    CHECK(xml_error(slurp(dir / (std::string(v) + ".svg"))) == "");
  }

  // A numbered sequence: files named by request number, as the timeline counts.
  out = run_cli(base + "--view warp --steps 1-4 --width 400 --height 300 --out " + (dir / "seq.png").string(), code);
  CHECK(code == 0);
  for (int i = 1; i <= 4; ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "seq-%04d.png", i);
    CHECK(fs::exists(dir / name));
  }
  CHECK(!fs::exists(dir / "seq-0005.png"));
  // --theme light: a figure for a light slide (light background); dark by default.
  for (const char* th : {"light", "dark"}) {
    CAPTURE(th);
    const fs::path f = dir / (std::string("theme-") + th + ".png");
    out = run_cli("export --kernel transpose_tiled --view memory --theme " + std::string(th) +
                      " --width 640 --height 400 --out " + f.string(), code);
    CHECK(code == 0);
    Pixels px = read_png(slurp(f));
    REQUIRE(px.w == 640);
    const uint32_t c = px.at(2, 2);
    const int lum = int((c >> 16) & 255) + int((c >> 8) & 255) + int(c & 255);
    if (std::string(th) == "light") CHECK(lum > 600);
    else CHECK(lum < 200);
  }
  out = run_cli("export --kernel transpose_tiled --view memory --theme sepia --out x.png", code);
  CHECK(code == 2);
  CHECK(out.find("allowed light, dark") != std::string::npos);
  // A trace of more than 9999 requests: the first figures are still frame-0001.png, as the
  // README shows.
  out = run_cli("export --kernel matmul_naive --size 64 --view warp --steps 1-2 --width 400 --height 300 --out " +
                    (dir / "long.png").string(), code);
  CHECK(code == 0);
  CHECK(fs::exists(dir / "long-0001.png"));
  CHECK(fs::exists(dir / "long-0002.png"));

  // An animation: the numbered PNGs and one GIF / WebP.
  for (const char* ext : {"gif", "webp"}) {
    CAPTURE(ext);
    out = run_cli(base + "--view warp --steps 3-5 --fps 5 --width 400 --height 300 --out " +
                      (dir / (std::string("anim.") + ext)).string(), code);
    CHECK(code == 0);
    CHECK(fs::exists(dir / (std::string("anim.") + ext)));
    CHECK(out.find("3 frames") != std::string::npos);
  }
  for (int i = 3; i <= 5; ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "anim-%04d.png", i);
    CHECK(png_header(slurp(dir / name)).width == 400);
  }
  CHECK(out.find("at request 5 of 512") != std::string::npos);
  CHECK(!fs::exists(dir / "anim-0002.png"));
  CHECK(!fs::exists(dir / "anim-0006.png"));
  CHECK(!fs::exists(dir / "anim-0003.gif"));

  // Bad input: one line, exit 2.
  for (const char* bad : {"--view nope --out x.png", "--view banks --out x.gif", "--view banks --out x.webp",
                          "--view banks --out x.bmp", "--view banks --step 2 --fps 4 --out x.png",
                          "--view banks --steps 0-2 --fps 0 --out x.gif", "--view banks --step 99999999 --out x.png",
                          "--view banks --step -1 --out x.png", "--view banks --steps 3-1 --out x.png",
                          "--view banks --step 0 --out x.png", "--view banks --steps 0-2 --out x.png",
                          "--view banks --step 513 --out x.png",
                          "--view banks --width 5 --out x.png", "--view banks"}) {
    CAPTURE(bad);
    out = run_cli(base + bad, code);
    CHECK(code == 2);
    CHECK(out.rfind("warpscope: error: ", 0) == 0);
    CHECK(count(out, "\n") == 1);
  }
  fs::remove_all(dir);
}
