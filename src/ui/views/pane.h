// src/ui/views/pane.h — one trace on screen as the panels draw it: its Session, its step
// and heat, and what each panel keeps between frames (the memory view's grids, the source
// panel's scroll, the timeline's strip). The Ui holds one (two in an A/B view).
#pragma once
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "session/heat.h"
#include "session/session.h"
#include "ui/figure/grid_view.h"
#include "ui/figure/scenes.h"

namespace ws::ui {

// One trace being looked at, with its own step and heat (an A/B view holds two).
struct Pane {
  std::shared_ptr<const Session> model;
  HeatMap heat;
  uint64_t step = 0;
  double play_accum = 0;
  std::vector<GridView> grids;  // per buffer
  uint32_t source_line_shown = 0;  // the source panel scrolls when the current line changes
  uint32_t source_file = 0;        // the trace file the source panel shows (follows the current line's)
  uint32_t source_file_shown = ~0u;
  uint64_t source_layout_shown = 0;  // the source panel's wrap width and height when it last scrolled to the line
  std::set<uint64_t> source_open;  // lines shown with their instructions: file << 32 | line
  // The current request's figures, recomputed when the step or the model changes.
  const RequestFigures& request();
  // Cost strip of the timeline: worst cost / ideal per pixel column, cached per width.
  // The caches hold the model they were made from, so a new model at a recycled address
  // can never be mistaken for it.
  std::vector<float> strip;
  // What the strip's background draws, x from its left edge: the shaded odd epochs (from,
  // to) and the block labels that have room (x, text); built with the strip, not per frame.
  std::vector<std::pair<float, float>> strip_bands;
  std::vector<std::pair<float, std::string>> strip_blocks;
  int strip_width = 0;
  int strip_done = 0;    // columns of `strip` computed so far (a few each frame after a change)
  float strip_font = 0;  // the label font's size the background was laid out with
  std::shared_ptr<const Session> strip_model;

 private:
  RequestFigures rv_;
  uint64_t rv_step_ = ~uint64_t(0);
  std::shared_ptr<const Session> rv_model_;
};

}  // namespace ws::ui
