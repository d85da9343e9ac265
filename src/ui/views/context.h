// src/ui/views/context.h — what a panel that draws the trace is given instead of the whole
// Ui: the pane it shows, the user's choices (its options live there), what a lesson
// question waiting on this pane hides, where to paint grids, and a sink for the few things
// it asks of the controllers. The Ui makes one per panel and frame (Ui::view_context).
#pragma once
#include <imgui.h>

#include <string>

#include "ui/figure/scene.h"
#include "ui/views/pane.h"
#include "ui/views/state.h"

namespace ws::ui {

// What a panel asks of the controllers.
class ViewSink {
 public:
  virtual ~ViewSink() = default;
  // The warp inspector drew its lane diagram here this frame (screen coordinates).
  virtual void note_diagram(ImVec2 min, ImVec2 max) = 0;
  // A choice that changes the analysis (the DRAM model) was made: analyse the trace again.
  virtual void request_reanalyze() = 0;
  // The banner of what stopped the program, drawn at the cursor across the panel of pane
  // `p` where it belongs there (in an A/B view, the side whose launch stopped); called
  // again with `foot` once the grids are drawn, the cursor at the panel's foot, where a
  // panel too short for the box gets one line over the grids instead.
  virtual void banner(const Pane& p, bool foot) = 0;
};

struct ViewContext {
  UiState& state;
  Pane& pane;
  ViewSink& sink;
  GridPainter* painter = nullptr;
  bool main = true;        // the main pane (not an A/B view's other side)
  bool busy = false;       // a recording is under way
  bool comparing = false;  // an A/B view is on screen
  // A lesson question waiting on this pane: its prompt (null: none), whether it asks about
  // bulk copies' bytes (the pipeline and cluster views hide them too), and what the source
  // gutter may show (-1 every line's figures, -2 none, else that site's).
  const std::string* veil = nullptr;
  bool veil_copies = false;
  int gutter_site = -1;
};

}  // namespace ws::ui
