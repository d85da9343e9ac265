// src/ui/views/views.h — the panels that draw the trace (memory, warp inspector, DRAM,
// source, fragments, pipeline, cluster): each draws into the current ImGui window from a
// ViewContext (the pane, the user's choices, what a waiting lesson question hides, a sink
// for what it asks of the controllers), over the scene builders of ui/figure/scenes.h. They
// know nothing of the Ui; the panels table (ui/panels.cpp) hands each its context.
#pragma once
#include <string>
#include <vector>

#include "ui/figure/scenes.h"
#include "ui/views/context.h"

namespace ws::ui {

void memory_view(ViewContext& c);
void warp_view(ViewContext& c);
void dram_view(ViewContext& c);
void fragment_view(ViewContext& c);
void pipeline_view(ViewContext& c);
void cluster_view(ViewContext& c);
void source_view(ViewContext& c);
// The memory view's "colour by source column" toggle, when a copy wrote shared memory (memory_copies.cpp).
void copies_toggle(UiState& s, const Session& m);
// The memory view's state on screen: the user's toggles and the pane's zoom, pan and heat.
MemoryViewState memory_state(const UiState& s, Pane& p);

// Small shared widgets.
void help_marker(const char* text);
// A panel body that draws one scene of the pane's trace: where it goes and its size; false,
// with one line said, while there are no requests yet, or with no room to draw in.
bool scene_body(const ViewContext& c, ImVec2& origin, ImVec2& size);
// A panel that is one scene of the pane's request: `build(scene, session, step, size)`
// drawn into the panel's body, an item of its size under it (`id`) for the mouse.
void scene_panel(const ViewContext& c, const char* id, void (*build)(Scene& sc, const Session& m, uint64_t step, ImVec2 size));

}  // namespace ws::ui
