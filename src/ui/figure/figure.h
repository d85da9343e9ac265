// src/ui/figure/figure.h — figures for slides, made without a window: a view is laid out and
// drawn by the same code the app runs (its Scenes go through draw_scene), and the Scene
// items it drew are written by cairo as PNG, SVG or PDF. Text is drawn from the font file
// ImGui built each font from, glyphs placed at ImGui's advances, so the figure's text
// fills exactly the boxes the scene measured; SVG and PDF hold glyph outlines.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ui/figure/scene.h"
#include "ui/figure/scenes.h"

namespace ws::ui {

enum class FigureView { Memory, Warp, Banks, Dram, Source, Pipeline, Cluster };
bool figure_view_from_key(const std::string& key, FigureView& out);
const char* figure_view_keys();  // "memory, warp, banks, dram, source, pipeline, cluster"

struct Figure {
  int width = 0, height = 0;
  ImU32 background = 0;
  std::vector<SceneChunk> chunks;  // every Scene drawn, in screen coordinates
};

// Lays `view` of `model` at request `step` out as a width × height figure, with `caption`
// along the bottom when not empty, from the scene builders the app's panels use (their
// controls left out). Runs no ImGui frame: the app calls it between frames' work.
// `heat`: the traffic layer to move to the step (kept between figures of a sequence so it
// moves incrementally); null: one made for this figure. `dram_array`: what the DRAM view
// shows (follow: the request's array, as the app does by default; all: every global
// array; or one array). `veil`: a lesson question waiting on this step (its prompt): the
// figure shows what the app shows then — the question in place of the warp inspector's
// figures, the memory view without the request's sector outlines, the source gutter
// empty. Needs a current ImGui context whose fonts are built (the app's, or a
// HeadlessContext).
Figure render_figure(const std::shared_ptr<const Session>& model, uint64_t step, FigureView view, int width, int height,
                     const std::string& caption, HeatMap* heat = nullptr,
                     session::DramChoice dram_array = session::DramChoice::follow(), const std::string* veil = nullptr);

// The figure drawn into pixels: width * height * 4 bytes (RGBA, top row first), as the
// PNG holds them; empty when the size is unusable.
std::vector<uint8_t> figure_rgba(const Figure& f);
// The figure as a PNG, SVG or PDF file's bytes (empty when it cannot be drawn).
std::string figure_png(const Figure& f);
std::string figure_svg(const Figure& f);
std::string figure_pdf(const Figure& f);
// Writes the PNG; false (and `error`) when the file cannot be written.
bool write_figure_png(const Figure& f, const std::string& path, std::string& error);
// Writes `f` in the format its extension names (figure_formats()); false (and a one-line
// `error`) when the type is unknown or the file cannot be written.
bool write_figure(const Figure& f, const std::string& path, std::string& error);
const char* figure_formats();  // "png, svg, pdf"
// The lower-case extension of `path` ("" when none): the file type it names.
std::string figure_extension(const std::string& path);
// Whether `path` ends in one of figure_formats().
bool figure_format_known(const std::string& path);

// The ink box of `s` in `role` as figures draw it with its text box's top-left at
// `top_left` (the glyphs placed at ImGui's advances, measured by cairo); false when the
// font cannot be loaded. The ink lies inside the box text_size measured.
bool figure_text_ink(FontRole role, const std::string& s, ImVec2 top_left, ImVec2& ink_min, ImVec2& ink_max);

}  // namespace ws::ui
