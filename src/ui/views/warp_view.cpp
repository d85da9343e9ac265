// src/ui/views/warp_view.cpp — Warp inspector: the 32 lanes of the current request and where their bytes land.
// (its scene builders: src/ui/figure/warp_scene.cpp)
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdio>
#include <map>
#include "ui/figure/theme.h"
#include "ui/views/views.h"
#include "ui/figure/scenes.h"

namespace ws::ui {

void warp_view(ViewContext& c) {
  Pane& p = c.pane;
  ImVec2 o, size;
  if (!scene_body(c, o, size)) return;
  const RequestFigures& rv = p.request();
  if (!rv.rec || !rv.site) return;
  Scene sc;
  if (c.veil) {
    // A lesson asks for a prediction first: the instruction, and the question, no figures.
    warp_veil_scene(sc, rv, *c.veil, size);
    draw_scene(ImGui::GetWindowDrawList(), sc, o, nullptr);
    ImGui::Dummy(size);
    return;
  }
  const SceneBox d = warp_panel_scene(sc, rv, size);
  draw_scene(ImGui::GetWindowDrawList(), sc, o, nullptr);
  c.sink.note_diagram(ImVec2(o.x + d.min.x, o.y + d.min.y), ImVec2(o.x + d.max.x, o.y + d.max.y));
  ImGui::Dummy(size);
}

}  // namespace ws::ui
