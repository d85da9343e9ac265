#include "ui/figure/theme.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <utility>
#include <vector>

namespace ws::ui {
namespace {

Theme g_theme;
Fonts g_fonts;

ImVec4 v4(ImU32 c) { return ImGui::ColorConvertU32ToFloat4(c); }

ImU32 lerp_color(ImU32 a, ImU32 b, float t) {
  ImVec4 x = v4(a), y = v4(b);
  return ImGui::ColorConvertFloat4ToU32(ImVec4(x.x + (y.x - x.x) * t, x.y + (y.y - x.y) * t,
                                               x.z + (y.z - x.z) * t, x.w + (y.w - x.w) * t));
}

// Glyphs the views use beyond ASCII: arrows, ×, ≤, ✓, …, ᵀ, geometric shapes.
const ImWchar* glyph_ranges() {
  static const ImWchar ranges[] = {
      0x0020, 0x00FF,  // Basic Latin, Latin-1
      0x0370, 0x03FF,  // Greek
      0x1D00, 0x1DBF,  // phonetic extensions (superscript T)
      0x2000, 0x206F,  // punctuation: – — … •
      0x2070, 0x209F,  // super- and subscripts
      0x2190, 0x21FF,  // arrows
      0x2200, 0x22FF,  // mathematical operators
      0x2300, 0x23FF,  // technical
      0x2500, 0x25FF,  // box drawing, geometric shapes
      0x2700, 0x27BF,  // dingbats: ✓ ✗
      0,
  };
  return ranges;
}

// Which file each ImFont was built from (an atlas rebuilt may reuse an ImFont's address:
// the newest entry wins).
std::vector<std::pair<const ImFont*, FontFile>> g_font_files;

ImFont* remember_file(ImFont* f, const char* path, float px) {
  for (auto& e : g_font_files)
    if (e.first == f) {
      e.second = FontFile{path, px};
      return f;
    }
  g_font_files.push_back({f, FontFile{path, px}});
  return f;
}

ImFont* add_font(const char* const* candidates, float px, std::string& message) {
  ImGuiIO& io = ImGui::GetIO();
  for (const char* const* p = candidates; *p; ++p) {
    std::error_code ec;
    if (std::filesystem::exists(*p, ec)) {
      ImFontConfig cfg;
      cfg.OversampleH = 2;
      cfg.OversampleV = 1;
      cfg.PixelSnapH = false;
      if (ImFont* f = io.Fonts->AddFontFromFileTTF(*p, px, &cfg, glyph_ranges())) return remember_file(f, *p, px);
    }
  }
  message = std::string("font not found: ") + candidates[0] + " (using the built-in font)";
  ImFontConfig cfg;
  cfg.SizePixels = px;
  return remember_file(io.Fonts->AddFontDefault(&cfg), "", px);
}

}  // namespace

const Theme& theme() { return g_theme; }
const Fonts& fonts() { return g_fonts; }

FontFile font_file(const ImFont* f) {
  for (const auto& e : g_font_files)
    if (e.first == f) return e.second;
  return {};
}

ImU32 with_alpha(ImU32 c, int alpha) {
  return (c & ~IM_COL32_A_MASK) | (ImU32(std::clamp(alpha, 0, 255)) << IM_COL32_A_SHIFT);
}

Theme presentation_theme() {
  Theme t;
  t.light = true;
  t.cb_lanes = true;
  t.bg = IM_COL32(214, 218, 224, 255);
  t.panel = IM_COL32(255, 255, 255, 255);
  t.panel_header = IM_COL32(226, 231, 238, 255);
  t.canvas = IM_COL32(246, 247, 249, 255);
  t.text = IM_COL32(0, 0, 0, 255);
  t.text_dim = IM_COL32(62, 68, 80, 255);
  t.accent = IM_COL32(0, 90, 181, 255);        // Okabe-Ito-like blue, darkened for text
  t.good = IM_COL32(0, 120, 86, 255);          // bluish green
  t.warn = IM_COL32(166, 100, 0, 255);         // dark orange
  t.bad = IM_COL32(190, 60, 0, 255);           // vermilion
  t.stop = IM_COL32(136, 34, 136, 255);        // purple, apart from vermilion
  t.cell_empty = IM_COL32(228, 231, 236, 255);
  t.cell_tinted = IM_COL32(190, 197, 210, 255);  // darker, where the dark theme's is lighter: never white on white
  t.grid_line = IM_COL32(255, 255, 255, 255);
  t.sector = IM_COL32(0, 0, 0, 235);
  t.line128 = IM_COL32(213, 94, 0, 255);
  t.heat_lo = IM_COL32(214, 222, 232, 255);
  t.heat_mid = IM_COL32(170, 184, 204, 255);
  t.heat_hi = IM_COL32(104, 120, 146, 255);
  t.playhead = IM_COL32(0, 0, 0, 255);
  t.menu_bg = IM_COL32(236, 239, 243, 255);
  t.popup_bg = IM_COL32(255, 255, 255, 252);
  return t;
}

ImU32 lane_color(int lane, int alpha) {
  if (g_theme.cb_lanes) {
    // Anchors of a blue → teal → green → ochre ramp (lightness rising); the yellow end is
    // stopped short so the last lanes stay visible on white.
    static const int stops[][3] = {{38, 24, 120}, {33, 90, 160}, {22, 140, 150}, {60, 170, 90}, {150, 180, 30}, {215, 160, 0}};
    const int n = int(sizeof stops / sizeof stops[0]) - 1;
    float x = float(std::clamp(lane, 0, 31)) / 31.0f * float(n);
    int i = std::min(n - 1, int(x));
    float f = x - float(i);
    auto mix = [&](int c) { return int(std::lround(stops[i][c] + (stops[i + 1][c] - stops[i][c]) * f)); };
    return IM_COL32(mix(0), mix(1), mix(2), alpha);
  }
  // Red (lane 0) through yellow, green, cyan, blue to magenta (lane 31).
  float h = 0.86f * float(std::clamp(lane, 0, 31)) / 31.0f;
  float r, g, b;
  ImGui::ColorConvertHSVtoRGB(h, g_theme.lane_saturation, g_theme.lane_value, r, g, b);
  return IM_COL32(int(r * 255), int(g * 255), int(b * 255), alpha);
}

ImU32 ink_on(ImU32 c) {
  const ImU32 bg = theme().canvas;
  const float a = float((c >> IM_COL32_A_SHIFT) & 0xff) / 255.0f;
  auto ch = [&](int shift) {
    return a * float((c >> shift) & 0xff) + (1 - a) * float((bg >> shift) & 0xff);
  };
  const float lum = 0.299f * ch(IM_COL32_R_SHIFT) + 0.587f * ch(IM_COL32_G_SHIFT) + 0.114f * ch(IM_COL32_B_SHIFT);
  return lum < 100 ? kInkLight : kInkDark;
}

ImU32 heat_color(float t) {
  t = std::clamp(t, 0.0f, 1.0f);
  if (t < 0.5f) return lerp_color(g_theme.heat_lo, g_theme.heat_mid, t * 2);
  return lerp_color(g_theme.heat_mid, g_theme.heat_hi, (t - 0.5f) * 2);
}

ImU32 cost_color(double ratio) {
  if (!(ratio > 0)) return g_theme.text_dim;
  if (ratio <= 1.05) return g_theme.good;
  if (ratio <= 2.5) return g_theme.warn;
  return g_theme.bad;
}

ThemeScope::ThemeScope(int index) : saved_(g_theme) {
  g_theme = index == kThemePresentation ? presentation_theme() : Theme{};
}
ThemeScope::~ThemeScope() { g_theme = saved_; }

void apply_theme(int index, float font_scale) {
  ImGuiStyle& s = ImGui::GetStyle();
  s = ImGuiStyle();
  g_theme = index == kThemePresentation ? presentation_theme() : Theme{};
  const Theme& t = g_theme;
  s.WindowPadding = ImVec2(10, 8);
  s.FramePadding = ImVec2(8, 4);
  s.ItemSpacing = ImVec2(8, 6);
  s.ItemInnerSpacing = ImVec2(6, 4);
  s.ScrollbarSize = 14;
  s.GrabMinSize = 12;
  s.WindowBorderSize = 0;
  s.ChildBorderSize = 0;
  s.PopupBorderSize = 1;
  s.FrameBorderSize = 0;
  s.WindowRounding = 0;
  s.ChildRounding = 4;
  s.FrameRounding = 4;
  s.PopupRounding = 4;
  s.GrabRounding = 4;
  s.TabRounding = 4;
  s.ScrollbarRounding = 6;
  ImVec4* c = s.Colors;
  c[ImGuiCol_Text] = v4(t.text);
  c[ImGuiCol_TextDisabled] = v4(t.text_dim);
  c[ImGuiCol_WindowBg] = v4(t.panel);
  c[ImGuiCol_ChildBg] = ImVec4(0, 0, 0, 0);
  c[ImGuiCol_PopupBg] = v4(IM_COL32(36, 41, 52, 250));
  c[ImGuiCol_Border] = v4(IM_COL32(60, 68, 84, 255));
  c[ImGuiCol_FrameBg] = v4(IM_COL32(44, 50, 63, 255));
  c[ImGuiCol_FrameBgHovered] = v4(IM_COL32(56, 64, 80, 255));
  c[ImGuiCol_FrameBgActive] = v4(IM_COL32(64, 74, 94, 255));
  c[ImGuiCol_TitleBg] = v4(t.panel_header);
  c[ImGuiCol_TitleBgActive] = v4(t.panel_header);
  c[ImGuiCol_MenuBarBg] = v4(IM_COL32(26, 30, 38, 255));
  c[ImGuiCol_ScrollbarBg] = ImVec4(0, 0, 0, 0);
  c[ImGuiCol_ScrollbarGrab] = v4(IM_COL32(70, 78, 96, 255));
  c[ImGuiCol_CheckMark] = v4(t.accent);
  c[ImGuiCol_SliderGrab] = v4(t.accent);
  c[ImGuiCol_SliderGrabActive] = v4(IM_COL32(140, 195, 255, 255));
  c[ImGuiCol_Button] = v4(IM_COL32(50, 58, 74, 255));
  c[ImGuiCol_ButtonHovered] = v4(IM_COL32(64, 76, 98, 255));
  c[ImGuiCol_ButtonActive] = v4(IM_COL32(80, 100, 132, 255));
  c[ImGuiCol_Header] = v4(IM_COL32(48, 82, 130, 255));
  c[ImGuiCol_HeaderHovered] = v4(IM_COL32(56, 92, 146, 255));
  c[ImGuiCol_HeaderActive] = v4(IM_COL32(64, 104, 164, 255));
  c[ImGuiCol_Separator] = v4(IM_COL32(56, 63, 78, 255));
  c[ImGuiCol_Tab] = v4(IM_COL32(44, 50, 63, 255));
  c[ImGuiCol_TabHovered] = v4(IM_COL32(64, 104, 164, 255));
  c[ImGuiCol_TabActive] = v4(IM_COL32(48, 82, 130, 255));
  c[ImGuiCol_TableHeaderBg] = v4(IM_COL32(38, 43, 55, 255));
  c[ImGuiCol_TableBorderLight] = v4(IM_COL32(50, 56, 70, 255));
  c[ImGuiCol_TableBorderStrong] = v4(IM_COL32(60, 68, 84, 255));
  c[ImGuiCol_TableRowBgAlt] = v4(IM_COL32(255, 255, 255, 8));
  c[ImGuiCol_PlotHistogram] = v4(t.accent);
  c[ImGuiCol_PlotLines] = v4(t.accent);
  c[ImGuiCol_ModalWindowDimBg] = ImVec4(0, 0, 0, 0.55f);
  if (t.light) {
    // Light, high contrast: black text on white panels, strong borders, no translucent greys.
    c[ImGuiCol_PopupBg] = v4(t.popup_bg);
    c[ImGuiCol_Border] = v4(IM_COL32(90, 96, 110, 255));
    c[ImGuiCol_FrameBg] = v4(IM_COL32(232, 235, 240, 255));
    c[ImGuiCol_FrameBgHovered] = v4(IM_COL32(214, 222, 236, 255));
    c[ImGuiCol_FrameBgActive] = v4(IM_COL32(196, 210, 232, 255));
    c[ImGuiCol_MenuBarBg] = v4(t.menu_bg);
    c[ImGuiCol_ScrollbarGrab] = v4(IM_COL32(150, 156, 168, 255));
    c[ImGuiCol_SliderGrabActive] = v4(IM_COL32(0, 60, 130, 255));
    c[ImGuiCol_Button] = v4(IM_COL32(222, 227, 235, 255));
    c[ImGuiCol_ButtonHovered] = v4(IM_COL32(198, 212, 234, 255));
    c[ImGuiCol_ButtonActive] = v4(IM_COL32(170, 194, 228, 255));
    c[ImGuiCol_Header] = v4(IM_COL32(190, 210, 238, 255));
    c[ImGuiCol_HeaderHovered] = v4(IM_COL32(170, 196, 234, 255));
    c[ImGuiCol_HeaderActive] = v4(IM_COL32(150, 182, 228, 255));
    c[ImGuiCol_Separator] = v4(IM_COL32(150, 156, 168, 255));
    c[ImGuiCol_Tab] = v4(IM_COL32(226, 231, 238, 255));
    c[ImGuiCol_TabHovered] = v4(IM_COL32(170, 196, 234, 255));
    c[ImGuiCol_TabActive] = v4(IM_COL32(190, 210, 238, 255));
    c[ImGuiCol_TableHeaderBg] = v4(t.panel_header);
    c[ImGuiCol_TableBorderLight] = v4(IM_COL32(200, 204, 212, 255));
    c[ImGuiCol_TableBorderStrong] = v4(IM_COL32(120, 126, 138, 255));
    c[ImGuiCol_TableRowBgAlt] = v4(IM_COL32(0, 0, 0, 10));
    c[ImGuiCol_ModalWindowDimBg] = ImVec4(0, 0, 0, 0.35f);
    s.FrameBorderSize = 1;
  }
  s.ScaleAllSizes(std::max(1.0f, font_scale));
}

Fonts load_fonts(float scale) {
  static const char* sans[] = {"/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
                               "/usr/share/fonts/TTF/DejaVuSans.ttf", nullptr};
  static const char* bold[] = {"/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
                               "/usr/share/fonts/TTF/DejaVuSans-Bold.ttf", nullptr};
  static const char* mono[] = {"/usr/share/fonts/truetype/jetbrains-mono/JetBrainsMono-Regular.ttf",
                               "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf",
                               "/usr/share/fonts/TTF/DejaVuSansMono.ttf", nullptr};
  Fonts f;
  f.scale = scale;
  std::string msg;
  f.ui = add_font(sans, std::round(17.0f * scale), msg);
  f.bold = add_font(bold, std::round(18.0f * scale), msg);
  f.mono = add_font(mono, std::round(16.0f * scale), msg);
  f.big = add_font(bold, std::round(24.0f * scale), msg);
  f.small = add_font(sans, std::round(13.0f * scale), msg);
  f.message = msg;
  ImGui::GetIO().FontDefault = f.ui;
  g_fonts = f;
  return f;
}

}  // namespace ws::ui
