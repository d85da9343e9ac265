// src/ui/figure/scene.h — the diagrams (memory grids, warp inspector, DRAM) are first laid out as
// a list of simple shapes in canvas coordinates, then drawn. Layout maths happen once,
// away from the drawing calls, and the same list can later be written out as a figure
// (PNG / SVG export) instead of being drawn with ImGui.
#pragma once
#include <imgui.h>

#include <cstdint>
#include <string>
#include <vector>

namespace ws::session {
struct HeatLayer;
}

namespace ws::ui {
using session::HeatLayer;

enum class FontRole : uint8_t { Ui, Bold, Mono, Big, Small };
ImFont* font_for(FontRole r);

// A big grid of cells coloured from a heat layer, drawn by a GridPainter (instanced /
// textured on the GPU in the app; rectangles or nothing without one).
struct GridDraw {
  const void* key = nullptr;      // identity of the grid (one texture per key)
  HeatLayer* heat = nullptr;      // null or empty: every cell drawn as untouched
  uint32_t rows = 0, cols = 0;
  ImVec2 origin;                  // where cell (0, 0)'s top-left corner lands
  float cell = 1;                 // pixels per cell
  ImVec2 clip_min, clip_max;      // visible part of the canvas
  bool log_scale = true;
  bool grid_lines = true;         // thin lines between cells when they are large enough
  uint32_t major_every = 0;       // a stronger line every N columns (0: none)
  bool bank_tint = false;         // shared arrays: alternate tint per 4-byte bank
  uint32_t elem_bytes = 4;
  uint32_t row_elems = 0;         // elements per grid row (for the bank of a cell)
};

class GridPainter {
 public:
  virtual ~GridPainter() = default;
  // Draws `g` (screen coordinates) into `dl`.
  virtual void draw(ImDrawList* dl, const GridDraw& g) = 0;
};

// Draws grids with ImGui rectangles, one per visible cell, up to a cell budget (past it,
// a flat fill). Used where there is no GL: headless tests, and as the fallback.
class CpuGridPainter : public GridPainter {
 public:
  explicit CpuGridPainter(size_t max_cells = 1 << 16) : max_cells_(max_cells) {}
  void draw(ImDrawList* dl, const GridDraw& g) override;

 private:
  size_t max_cells_;
};

// A box in a scene's coordinates.
struct SceneBox {
  ImVec2 min, max;
};

struct Scene {
  enum class Kind : uint8_t { Fill, Rect, Line, Text, Circle, Grid };
  struct Item {
    Kind kind = Kind::Fill;
    ImVec2 a, b;              // corners / end points / text position / circle centre
    ImU32 color = 0;
    float width = 1;          // line width; circle radius
    float round = 0;          // corner rounding
    FontRole font = FontRole::Ui;
    float align = 0;          // text: 0 left, 0.5 centred, 1 right of a.x
    float valign = 0;         // text: 0 top, 0.5 middle, 1 bottom of a.y
    std::string text;
    int grid = -1;            // index into grids
  };
  std::vector<Item> items;
  std::vector<GridDraw> grids;  // in canvas coordinates
  ImVec2 size;                  // canvas size the scene was laid out for

  void fill(ImVec2 a, ImVec2 b, ImU32 c, float round = 0);
  void rect(ImVec2 a, ImVec2 b, ImU32 c, float width = 1, float round = 0);
  void line(ImVec2 a, ImVec2 b, ImU32 c, float width = 1);
  void text(ImVec2 p, std::string s, ImU32 c, FontRole f = FontRole::Ui, float align = 0, float valign = 0);
  void circle(ImVec2 centre, float radius, ImU32 c);
  void grid(const GridDraw& g);
  // Appends `other`'s items and grids moved by `offset`.
  void append(const Scene& other, ImVec2 offset);
  void clear() {
    items.clear();
    grids.clear();
  }
};

// Size of `s` in font `f` (layout needs it before drawing). The one text measurement:
// the screen and every figure file place glyphs by these advances.
ImVec2 text_size(FontRole f, const std::string& s);
// The box a Text item covers (its position with align / valign applied), as drawn.
void text_box(const Scene::Item& i, ImVec2& min, ImVec2& max);
// `s` cut to at most `width` pixels in font `f`, ending in "…" when cut.
std::string fit_text(FontRole f, const std::string& s, float width);
// `s` broken at spaces into lines at most `width` wide (a word longer than the width is
// cut with "…"); at most `max_lines`, the last one ending in "…" when text is left over.
std::vector<std::string> wrap_text(FontRole f, const std::string& s, float width, int max_lines = 1 << 20);

// Draws `s` with its canvas origin at `origin` (screen coordinates).
void draw_scene(ImDrawList* dl, const Scene& s, ImVec2 origin, GridPainter* painter);

// Figure export: while a sink is set, draw_scene also appends each scene it draws to the
// sink, moved to screen coordinates and with the draw list's clip rectangle, so a figure
// file is written from exactly the shapes the view laid out.
struct SceneChunk {
  Scene scene;             // items in screen coordinates
  ImVec2 clip_min, clip_max;
};
void set_scene_sink(std::vector<SceneChunk>* sink);

}  // namespace ws::ui
