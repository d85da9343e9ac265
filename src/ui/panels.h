// src/ui/panels.h — the main window's panels, one row each: title, key, number key and
// place in the View menu, header caption, how its body draws, and the figure the export
// dialog opens on while it is enlarged. The layouts, the View menu, the number keys, the
// draw dispatch, the panel headers, the windows JSON and the export dialog read this table:
// a new panel is an enum value and a row here (panels.cpp), its view in a file of its own,
// and its place in the layouts (layout.cpp) if it has one outside "enlarged".
#pragma once
#include <optional>
#include <span>
#include <string>

#include "ui/views/state.h"  // Panel

namespace ws::ui {

class Ui;
struct Pane;
enum class FigureView;  // figure.h

// Panel, the enum of the panels: ui/views/state.h.

struct PanelSpec {
  Panel panel;
  const char* title;  // "Memory view"
  const char* key;    // "memory" (settings, --panel, windows JSON)
  // Its number key and place in View → Enlarge panel (1 first); 0: none, never enlarged.
  int number = 0;
  // The number key works now (a panel that is not always on screen); null: always.
  bool (*available)(const Ui&) = nullptr;
  bool scrolls = true;  // false: the view takes the mouse wheel itself (zoom, its own scrolling)
  // The figure File → Export figure… opens on while this panel is enlarged (none: the warp inspector).
  std::optional<FigureView> figure = std::nullopt;
  // The header's subtitle for the pane it shows ("" : none).
  std::string (*caption)(Ui&, Pane&) = nullptr;
  // Draws the body into the current ImGui window (the B pane in an A/B view's B column).
  void (*draw)(Ui&, Pane&) = nullptr;
};

// Every panel, in Panel order.
std::span<const PanelSpec> panels();
// Panel `p`'s row.
const PanelSpec& panel_spec(Panel p);
const char* panel_name(Panel p);  // "Memory view"
const char* panel_key(Panel p);   // "memory"
// The panel named `key`; false when none is.
bool panel_from_key(const std::string& key, Panel& out);
// The panel whose number key is `number` (1 … 9), or null.
// The panel of number key `number`: where two share one (the pipeline and cluster views
// take turns in one place), the one available in `ui` (given one).
const PanelSpec* panel_numbered(int number, const Ui* ui = nullptr);

}  // namespace ws::ui
