// src/ui/figure.h — figures for slides, made without a window: a view is laid out and
// drawn by the same code the app runs (its Scenes go through draw_scene), and the result
// is written as a PNG (the draw lists rasterized on the CPU with the font atlas) or as an
// SVG (the Scene items the view drew, as vector shapes and text).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ui/scene.h"
#include "ui/ui.h"

namespace ws::ui {

// The warp inspector's diagram of request `rv` (lanes → sectors, or lanes → 32 banks).
void warp_diagram(Scene& sc, const RequestFigures& rv, ImVec2 size);

enum class FigureView { Memory, Warp, Banks, Dram, Source };
bool figure_view_from_key(const std::string& key, FigureView& out);
const char* figure_view_keys();  // "memory, warp, banks, dram, source"

struct Figure {
  int width = 0, height = 0;
  ImU32 background = 0;
  std::vector<SceneChunk> chunks;  // every Scene drawn, in screen coordinates
  std::vector<uint8_t> rgb;        // width * height * 3, top row first
};

// Draws `view` of `ui.pane` at its current step as a width × height figure, with
// `caption` stamped along the bottom when not empty. Needs a current ImGui context whose
// fonts are built (a HeadlessContext); runs one ImGui frame of its own.
Figure render_figure(Ui& ui, FigureView view, int width, int height, const std::string& caption);

// The figure as an SVG document.
std::string figure_svg(const Figure& f);
// Writes the PNG; false (and `error`) when the file cannot be written.
bool write_figure_png(const Figure& f, const std::string& path, std::string& error);

// Rasterizes ImGui draw data (as built by ImGui::Render) into `rgb` (w × h, 3 bytes a
// pixel, already holding the background), textured with the current context's font atlas.
void rasterize_draw_data(const ImDrawData* dd, int w, int h, std::vector<uint8_t>& rgb);

}  // namespace ws::ui
