// src/ui/layout.h — where the panels go: pure geometry from the window size and UiState
// (normal, presentation, A/B, one panel enlarged), computed before any panel is drawn.
#pragma once
#include <imgui.h>

#include <vector>

#include "ui/views/state.h"

namespace ws::ui {

// One panel's place this frame.
struct PanelRect {
  Panel panel = Panel::Count;  // Panel::Count: the A/B strip
  ImVec2 min, max;
  bool b_side = false;         // shows the B pane of an A/B view
  const char* side = "";       // "A" / "B" in an A/B view
  bool bare = false;           // no header: the A/B strip as one line of verdicts
};

// A draggable gap between panels, setting one of UiState's fractions.
struct Splitter {
  const char* id;
  ImVec2 min, max;
  bool vertical;
  float* value;
  float lo, hi, origin, span;  // value = clamp((mouse - origin) / span, lo, hi)
};

struct PanelLayout {
  std::vector<PanelRect> panels;   // in drawing order, the timeline last
  std::vector<Splitter> splitters; // the normal layout only
  ImVec2 status_min, status_max;   // the status bar
};

// The panels of a `display`-sized window below a menu bar `menu_h` tall, for body text
// `font_size` pixels high. `comparing`: an A/B view is on. `lesson`: the lesson panel is
// open (it takes the catalog's place, or the source panel's in presentation mode).
// `focus`: in presentation mode with a lesson, the panel given the large left place — the
// memory view while a question waits (what the student reasons from), then the view that
// answers it (Panel::Count: the warp inspector). `program`: the user's own program is open (its
// source panel keeps ten lines of code in the normal layout).
PanelLayout panel_layout(UiState& s, bool comparing, ImVec2 display, float menu_h, float font_size,
                         bool lesson = false, Panel focus = Panel::Count, bool program = false);
// Height of a panel's header (its bold title and padding), in the fonts now built.
float panel_header_height();
// The least height of a warp inspector panel, header included (warp_panel_min_height).
float warp_need_height();

}  // namespace ws::ui
