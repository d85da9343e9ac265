// src/ui/figure/theme.h — colours, lane palette and fonts. One place decides how things look, so
// a presentation theme (large type, light background, colour-blind palette) is a second
// Theme value rather than edits across the views.
#pragma once
#include <imgui.h>

#include <cstdint>
#include <string>

namespace ws::ui {

struct Theme {
  ImU32 bg = IM_COL32(22, 25, 32, 255);          // workspace behind the panels
  ImU32 panel = IM_COL32(30, 34, 43, 255);
  ImU32 panel_header = IM_COL32(38, 43, 55, 255);
  ImU32 canvas = IM_COL32(18, 21, 27, 255);       // behind grids and diagrams
  ImU32 text = IM_COL32(232, 236, 242, 255);
  ImU32 text_dim = IM_COL32(150, 160, 176, 255);
  ImU32 accent = IM_COL32(88, 166, 255, 255);
  ImU32 good = IM_COL32(72, 207, 134, 255);
  ImU32 warn = IM_COL32(255, 184, 64, 255);
  ImU32 bad = IM_COL32(255, 96, 96, 255);
  ImU32 stop = IM_COL32(232, 96, 232, 255);       // where a program stopped or raced: apart from the cost bars' red
  ImU32 cell_empty = IM_COL32(44, 50, 63, 255);   // a cell no request touched yet
  ImU32 cell_tinted = IM_COL32(66, 75, 94, 255);  // the same in an odd bank of a shared tile (columns apart)
  ImU32 grid_line = IM_COL32(18, 21, 27, 255);
  ImU32 sector = IM_COL32(255, 255, 255, 235);    // outline of a 32-byte sector
  ImU32 line128 = IM_COL32(255, 184, 64, 255);    // outline of a 128-byte line
  ImU32 heat_lo = IM_COL32(40, 60, 92, 255);      // heat ramp: one hue so lane colours stand out
  ImU32 heat_mid = IM_COL32(50, 96, 156, 255);
  ImU32 heat_hi = IM_COL32(118, 178, 238, 255);
  ImU32 playhead = IM_COL32(255, 255, 255, 255);
  float lane_saturation = 0.78f, lane_value = 1.0f;
  bool light = false;             // a light theme (presentation mode)
  bool cb_lanes = false;          // lanes on a colour-blind-safe ramp instead of the hue sweep
  ImU32 menu_bg = IM_COL32(26, 30, 38, 255);
  ImU32 popup_bg = IM_COL32(36, 41, 52, 250);
};

// Theme indices: 0 dark; 1 presentation (light, high contrast, colour-blind-safe lanes).
constexpr int kThemeDark = 0, kThemePresentation = 1;
// The presentation theme's values (what apply_theme(kThemePresentation, …) makes active).
Theme presentation_theme();

// The active theme (read-only outside theme.cpp).
const Theme& theme();
// Applies theme `index` (0: dark) to ImGui's style, scaled for `font_scale`.
void apply_theme(int index, float font_scale);
// Makes theme `index`'s colours the active ones while it lives (a figure drawn for a light
// slide from a dark app); ImGui's style is left as it is. The colours before come back after.
class ThemeScope {
 public:
  explicit ThemeScope(int index);
  ~ThemeScope();
  ThemeScope(const ThemeScope&) = delete;
  ThemeScope& operator=(const ThemeScope&) = delete;

 private:
  Theme saved_;
};

// Colour of lane 0..31. Dark theme: a hue sweep, so neighbouring lanes look alike and a coalesced
// request reads as one smooth gradient across a row. Presentation theme: a ramp from deep
// blue through teal and green to ochre whose lightness rises monotonically, so lanes stay
// ordered and distinguishable with any colour vision (and in greyscale).
ImU32 lane_color(int lane, int alpha = 255);
// Text drawn on a lane's colour (a fragment cell, a lane's patch in the memory view): dark
// ink on a light fill, light ink on a dark one (the colour-blind lanes start dark navy), the
// fill seen over the panel's canvas where it is translucent.
inline constexpr ImU32 kInkDark = IM_COL32(10, 12, 16, 255), kInkLight = IM_COL32(245, 245, 245, 255);
ImU32 ink_on(ImU32 fill);
// Heat ramp for t in [0, 1].
ImU32 heat_color(float t);
// Colour for a cost ratio: 1 = ideal (good) ... >= 4 = bad.
ImU32 cost_color(double ratio);
ImU32 with_alpha(ImU32 c, int alpha);

struct Fonts {
  ImFont* ui = nullptr;      // body text
  ImFont* bold = nullptr;    // panel titles, emphasis
  ImFont* mono = nullptr;    // kernel source, addresses
  ImFont* big = nullptr;     // headline figures ("32-way", "4 sectors")
  ImFont* small = nullptr;   // labels on grids
  float scale = 1.0f;
  std::string message;       // what was missing, if a system font was not found
};
// Adds the app's fonts to the current context's atlas (system TTFs, falling back to the
// built-in font) sized for `scale`. The caller builds / uploads the atlas.
Fonts load_fonts(float scale);
const Fonts& fonts();

// The TTF file an ImFont of load_fonts was built from and the pixel size it was built at
// (path empty: ImGui's built-in font), so figure export draws text from the same file with
// the same advances the layout measured.
struct FontFile {
  std::string path;
  float px = 0;
};
FontFile font_file(const ImFont* f);

}  // namespace ws::ui
