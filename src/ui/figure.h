// src/ui/figure.h — figures for slides, made without a window: a view is laid out and
// drawn by the same code the app runs (its Scenes go through draw_scene), and the result
// is written as a PNG (the draw lists rasterized on the CPU with the font atlas) or as an
// SVG (the Scene items the view drew, as vector shapes and text).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ui/scene.h"
#include "ui/views.h"

namespace ws::ui {

enum class FigureView { Memory, Warp, Banks, Dram, Source };
bool figure_view_from_key(const std::string& key, FigureView& out);
const char* figure_view_keys();  // "memory, warp, banks, dram, source"

struct Figure {
  int width = 0, height = 0;
  ImU32 background = 0;
  std::vector<SceneChunk> chunks;  // every Scene drawn, in screen coordinates
  std::vector<uint8_t> rgb;        // width * height * 3, top row first
};

// Lays `view` of `model` at request `step` out as a width × height figure, with `caption`
// along the bottom when not empty, from the scene builders the app's panels use (their
// controls left out). Runs no ImGui frame: the app calls it between frames' work.
// `heat`: the traffic layer to move to the step (kept between figures of a sequence so it
// moves incrementally); null: one made for this figure. `dram_array`: the buffer the DRAM
// view shows (-1: every global array). Needs a current ImGui context
// whose fonts are built (the app's, or a HeadlessContext).
Figure render_figure(const std::shared_ptr<const Session>& model, uint64_t step, FigureView view, int width, int height,
                     const std::string& caption, HeatMap* heat = nullptr, int dram_array = -1);

// The figure as an SVG document.
std::string figure_svg(const Figure& f);
// Writes the PNG; false (and `error`) when the file cannot be written.
bool write_figure_png(const Figure& f, const std::string& path, std::string& error);
// Writes `f` in the format its extension names (figure_formats()); false (and `error`)
// when the type is unknown or the file cannot be written.
bool write_figure(const Figure& f, const std::string& path, std::string& error);
const char* figure_formats();  // "png, svg"
// Whether `path` ends in one of figure_formats().
bool figure_format_known(const std::string& path);

// Fills `f.rgb` from its chunks.
void rasterize_figure(Figure& f);
// Rasterizes ImGui draw data (as built by ImGui::Render) into `rgb` (w × h, 3 bytes a
// pixel, already holding the background), textured with the current context's font atlas.
void rasterize_draw_data(const ImDrawData* dd, int w, int h, std::vector<uint8_t>& rgb);

}  // namespace ws::ui
